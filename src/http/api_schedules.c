/* SPDX-License-Identifier: MIT */
/* Placeholder: the schedule routes land here (docs/api.md). */
#include "http/http_int.h"

const http_route sked__api_schedule_routes[] = {{0}};
