/* SPDX-License-Identifier: MIT */
/* The error table (include/sked/error.h) turned into lookups, and the
 * helper every module uses to fill a caller's sked_error. */
#include "base/error.h"
#include "base/utf8.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

struct errno_row {
    int code;
    const char *api;
    int http;
    int exit_code;
    const char *msg;
};

static const struct errno_row errno_rows[] = {
#define ROW(name, num, api, http, exitc, msg) {num, api, http, exitc, msg},
    SKED_ERRNO_MAP(ROW)
#undef ROW
};

static const struct errno_row *find_row(int code)
{
    for (size_t i = 0; i < sizeof errno_rows / sizeof errno_rows[0]; i++)
        if (errno_rows[i].code == code)
            return &errno_rows[i];
    return NULL;
}

const char *sked_strerror(int code)
{
    const struct errno_row *row = find_row(code);

    if (code == SKED_OK)
        return "success";
    return row ? row->msg : "unknown error";
}

const char *sked_error_name(int code)
{
    const struct errno_row *row = find_row(code);

    if (code == SKED_OK)
        return "ok";
    return row ? row->api : "internal";
}

int sked_error_http_status(int code)
{
    const struct errno_row *row = find_row(code);

    if (code == SKED_OK)
        return 200;
    return row ? row->http : 500;
}

int sked_error_exit_code(int code)
{
    const struct errno_row *row = find_row(code);

    if (code == SKED_OK)
        return 0;
    return row ? row->exit_code : 1;
}

void sked_error_clear(sked_error *err)
{
    if (!err)
        return;
    err->code = 0;
    err->pos = -1;
    err->field[0] = '\0';
    err->msg[0] = '\0';
}

int sked__error_set(sked_error *err, int code, const char *field, long pos,
                    const char *fmt, ...)
{
    va_list ap;

    if (!err)
        return code;
    err->code = code;
    err->pos = (pos >= 0 && pos <= 0x7fffffffL) ? (int) pos : -1;
    snprintf(err->field, sizeof err->field, "%s", field ? field : "");
    if (fmt) {
        va_start(ap, fmt);
        vsnprintf(err->msg, sizeof err->msg, fmt, ap);
        va_end(ap);
    } else {
        snprintf(err->msg, sizeof err->msg, "%s", sked_strerror(code));
    }
    /* A message quotes input, and may be cut at its size: it stays valid
     * UTF-8 for every JSON, log line and terminal it reaches. */
    sked__utf8_scrub(err->field);
    sked__utf8_scrub(err->msg);
    return code;
}

int sked__error_at_index(int rc, const char *list, size_t i, sked_error *err)
{
    char field[SKED_ERROR_FIELD_MAX + 32];
    size_t len;

    if (rc == 0 || !err)
        return rc;
    (void) snprintf(field, sizeof field, "%s[%zu]%s%s", list, i,
                    err->field[0] ? "." : "", err->field);
    len = strlen(field);
    if (len >= sizeof err->field)
        len = sizeof err->field - 1;
    memcpy(err->field, field, len);
    err->field[len] = '\0';
    return rc;
}
