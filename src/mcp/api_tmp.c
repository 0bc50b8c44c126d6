/* SPDX-License-Identifier: MIT */
/* One API request of a session with its JSON read (mcp_int.h,
 * sked__mcp_api): the body written as text, the call made through the
 * session's function, the answer parsed. A stand-in for session.c's,
 * removed once that is in; until then it compiles to nothing wherever
 * session.c is there (its session_int.h beside it), so that whichever is
 * merged first, the session's own is linked. */
#if defined(__has_include)
#if __has_include("mcp/session_int.h")
#define SKED_MCP_API_REAL 1
#endif
#endif

#ifdef SKED_MCP_API_REAL
typedef int sked__mcp_api_stub_unused; /* ISO C wants a declaration */
#else
#include <stdlib.h>

#include "base/error.h"
#include "base/json_text.h"
#include "mcp/mcp_int.h"

int sked__mcp_api(const mcp_ctx *c, const char *method, const char *target,
                  json_t *body, const char *idempotency_key, unsigned *status,
                  json_t **answer, sked_error *err)
{
    char *text = body ? sked__json_text(body, NULL) : NULL;
    sked_mcp_call call = {.method = method,
                          .target = target,
                          .body = text,
                          .idempotency_key = idempotency_key,
                          .cancel = c->cancel};
    sked_mcp_reply reply = {0};
    json_error_t je;
    int rc;

    *answer = NULL;
    if (body && !text)
        return sked__error_set(err, SKED_ENOMEM, NULL, -1, "out of memory");
    rc = c->api(c->api_ctx, &call, &reply, err);
    free(text);
    if (rc != 0)
        return rc;
    *status = reply.status;
    if (reply.body && reply.len > 0 &&
        !(*answer = json_loadb(reply.body, reply.len, 0, &je)))
        rc = sked__error_set(err, SKED_EIO, NULL, -1,
                             "the API answered %u with a body that is not "
                             "JSON: %.80s",
                             reply.status, je.text);
    free(reply.body);
    return rc;
}
#endif
