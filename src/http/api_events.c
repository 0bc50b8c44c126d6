/* SPDX-License-Identifier: MIT */
/* Placeholder: the event routes land here (docs/api.md). */
#include "http/http_int.h"

const http_route sked__api_event_routes[] = {{0}};
