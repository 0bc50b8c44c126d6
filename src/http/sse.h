/* SPDX-License-Identifier: MIT */
/* The event streams (GET /api/v1/events?follow=1): one hub per server
 * follows the store's events (so events written by other servers and by
 * the CLI on the same database are streamed too) and hands each new one
 * to every open stream. A stream with nothing to send is a suspended
 * libmicrohttpd connection: it holds no thread, and a comment every 15 s
 * tells a half-open client from a live one. */
#ifndef SKED_HTTP_SSE_H
#define SKED_HTTP_SSE_H

#include "http/http_int.h"

typedef struct sked_sse_hub sked_sse_hub;

/* Create the hub of the server serving E (borrowed) and start following
 * the store. OUT: *out. Returns 0, SKED_ENOMEM, or the store's errors. */
int sked__sse_hub_new(sked_engine *e, sked_sse_hub **out, sked_error *err);

/* End every stream (their connections are resumed and finish), before
 * the daemon stops. New streams are refused from then on. */
void sked__sse_hub_shutdown(sked_sse_hub *hub);

/* Free the hub, after the daemon stopped. NULL does nothing. */
void sked__sse_hub_free(sked_sse_hub *hub);

/* Answer REQ with an event stream (RESP->stream): the events after
 * AFTER when RESUME, else those from now on. Returns 0, or an error code
 * with the error in RESP (503 once the hub stops). */
int sked__sse_open(const http_req *req, http_resp *resp, bool resume,
                   int64_t after, const sked_event_filter *filter);

/* The hub of the server serving REQ (server.c). */
sked_sse_hub *sked__http_hub(const http_req *req);

#endif
