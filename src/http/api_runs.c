/* SPDX-License-Identifier: MIT */
/* Placeholder: the run routes land here (docs/api.md). */
#include "http/http_int.h"

const http_route sked__api_run_routes[] = {{0}};
