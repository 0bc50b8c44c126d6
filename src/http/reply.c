/* SPDX-License-Identifier: MIT */
/* Responses of the API (http_int.h): JSON bodies and the one error body
 * of SPEC 6, {"error":{"code","message","field"}}, whose status and code
 * come from the error table of include/sked/error.h. */
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/utf8.h"
#include "http/http_int.h"
#include "base/json_text.h"

/* The body of last resort, when even the error cannot be built. */
static const char OOM_BODY[] =
    "{\"error\":{\"code\":\"out_of_memory\",\"message\":\"out of memory\"}}";

static void set_static(http_resp *resp, unsigned status, const char *text)
{
    free(resp->body);
    resp->body = NULL;
    resp->len = 0;
    resp->status = status;
    resp->content_type = "application/json";
    resp->body = sked__strdup(text);
    if (resp->body)
        resp->len = strlen(text);
}

int sked__http_json(http_resp *resp, unsigned status, json_t *body)
{
    size_t len = 0;
    char *text = sked__json_text(body, &len);

    json_decref(body);
    if (!text) {
        set_static(resp, 500, OOM_BODY);
        return SKED_ENOMEM;
    }
    free(resp->body);
    resp->status = status;
    resp->body = text;
    resp->len = len;
    resp->content_type = "application/json";
    return 0;
}

/* A new JSON string of S; bytes that are not UTF-8 (a message quoting
 * the client's bad input) become U+FFFD instead of failing the body. */
static json_t *safe_string(const char *s)
{
    size_t n;
    char *clean;
    json_t *j = json_string(s);

    if (j || sked__utf8_sanitize(s, strlen(s), &clean, &n) < 0)
        return j;
    j = json_stringn(clean, n);
    free(clean);
    return j;
}

/* Build and send the error body of CODE with FIELD and MSG. */
static int send_error(http_resp *resp, int code, const char *field, int pos,
                      const char *msg)
{
    json_t *e = json_pack("{s:s, s:o}", "code", sked_error_name(code),
                          "message", safe_string(msg));

    if (e && field && field[0])
        (void) json_object_set_new(e, "field", safe_string(field));
    /* The byte of the field's value at fault, as the CLI says it. */
    if (e && field && field[0] && pos >= 0)
        (void) json_object_set_new(e, "position", json_integer(pos));
    (void) sked__http_json(resp, (unsigned) sked_error_http_status(code),
                           e ? json_pack("{s:o}", "error", e) : NULL);
    return code;
}

int sked__http_error(http_resp *resp, int code, const char *field,
                     const char *fmt, ...)
{
    char msg[SKED_ERROR_MSG_MAX];
    va_list ap;

    va_start(ap, fmt);
    (void) vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return send_error(resp, code, field, -1, msg);
}

/* Tell whether RC is a failure of the database itself, whose message
 * names its file, host, port or name. */
static bool database_fault(int rc)
{
    return rc == SKED_EIO || rc == SKED_EBUSY || rc == SKED_ENOSPC ||
           rc == SKED_EROFS || rc == SKED_ESTALE;
}

int sked__http_fail(http_resp *resp, int rc, const sked_error *err)
{
    const char *msg = err && err->msg[0] ? err->msg : sked_strerror(rc);

    /* Anyone who can reach the API reads the body: a failing database is
     * told by its code and the table's words, never with the path,
     * socket, port or database name its message holds. */
    if (database_fault(rc))
        return send_error(resp, rc, NULL, -1, sked_strerror(rc));
    return send_error(resp, rc, err ? err->field : NULL, err ? err->pos : -1,
                      msg);
}
