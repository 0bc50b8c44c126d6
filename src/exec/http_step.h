/* SPDX-License-Identifier: MIT */
/* One HTTP request for an http step (SPEC 4.4), through libcurl.
 *
 * Success is a 2xx status, or one of the listed statuses when a list is
 * given. The response body is the step's output: its first CAPTURE_MAX
 * bytes are kept (the rest is read and dropped, and marked), made valid
 * UTF-8 like a command's output (sked__utf8_sanitize). A deadline or a
 * cancel stops the transfer at once. Redirects are not followed (a 3xx
 * is the answer). Thread-safe; sked__http_global_init is called once per
 * process before any worker starts. */
#ifndef SKED_EXEC_HTTP_STEP_H
#define SKED_EXEC_HTTP_STEP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/cancel.h"
#include "sked/error.h"
#include "sked/time.h"

typedef struct sked_http_spec {
    const char *method;         /* NULL: "GET" */
    const char *url;            /* http:// or https:// only */
    const char *const *headers; /* "Name: value" strings */
    size_t nheaders;
    const char *body; /* NULL: none */
    size_t body_len;
    const int32_t *expect; /* accepted statuses; none: any 2xx */
    size_t nexpect;
    size_t capture_max; /* 0: 64 KiB */
} sked_http_spec;

typedef struct sked_http_result {
    long status;   /* the response status; 0 when there was none */
    bool accepted; /* status is 2xx or one of spec->expect */
    char *body;    /* owned, NUL-terminated valid UTF-8 */
    size_t body_len;
    bool truncated;
    sked_dur duration;
} sked_http_result;

/* Call once before any request (curl_global_init). Returns 0 or
 * SKED_EIO. */
int sked__http_global_init(void);

/* Send SPEC and read the answer, until the real time reaches DEADLINE
 * (SKED_TIME_NONE: none) or CANCEL (may be NULL) is set. Returns 0 with
 * OUT filled when a response came, whatever its status (release with
 * sked__http_result_done); SKED_EINVAL (a malformed URL or method, a
 * scheme other than http/https), SKED_EIO (no response: refused,
 * unreachable, reset; ERR->msg names the URL and curl's reason),
 * SKED_ETIMEDOUT (the deadline passed), SKED_ECANCELED, SKED_ENOMEM. */
int sked__http_run(const sked_http_spec *spec, sked_time deadline,
                   const sked_cancel *cancel, sked_http_result *out,
                   sked_error *err);

void sked__http_result_done(sked_http_result *r);

#endif
