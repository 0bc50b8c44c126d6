/* SPDX-License-Identifier: MIT */
/* Error codes and error details shared by every part of sked.
 *
 * SKED_ERRNO_MAP is the one table of codes: for each, its number, the code
 * string the HTTP API returns, the HTTP status, the CLI exit code and a
 * default message. The API's {"error":{...}} bodies and the CLI's exit
 * codes are generated from it, never written by hand elsewhere.
 *
 * Functions that can fail return 0 or a negative SKED_E... code. Details
 * travel in an optional, caller-owned sked_error that is never allocated. */
#ifndef SKED_ERROR_H
#define SKED_ERROR_H

#include <stddef.h>
#include <stdint.h>

#include "sked/version.h"

/* XX(name, number, api code, http status, exit code, default message) */
#define SKED_ERRNO_MAP(XX)                                                     \
    XX(EINVAL, -1, "invalid_argument", 422, 1, "invalid argument")             \
    XX(ESYNTAX, -2, "bad_request", 400, 1, "malformed input")                  \
    XX(ENOTFOUND, -3, "not_found", 404, 3, "not found")                        \
    XX(ECONFLICT, -4, "conflict", 409, 4, "conflict")                          \
    XX(EUNAUTH, -5, "unauthorized", 401, 1, "unauthorized")                    \
    XX(ETOOBIG, -6, "too_large", 413, 1, "input too large")                    \
    XX(ENOMEM, -7, "out_of_memory", 500, 1, "out of memory")                   \
    XX(EIO, -8, "io_error", 500, 1, "input/output error")                      \
    XX(ERANGE, -9, "out_of_range", 422, 1, "value out of range")               \
    XX(EUSAGE, -10, "usage", 400, 2, "usage error")                            \
    XX(EINTERNAL, -11, "internal", 500, 1, "internal error")                   \
    XX(EBUSY, -12, "unavailable", 503, 1, "resource busy")                     \
    XX(ETIMEDOUT, -13, "timeout", 504, 1, "timed out")                         \
    XX(ECANCELED, -14, "cancelled", 409, 1, "cancelled")                       \
    XX(EMETHOD, -15, "method_not_allowed", 405, 1, "method not allowed")       \
    XX(ENOSPC, -16, "disk_full", 507, 1, "no space left for the database")     \
    XX(EROFS, -17, "read_only", 503, 1, "the database is read-only")           \
    XX(ESTALE, -18, "database_gone", 503, 1,                                   \
       "the database file was deleted or replaced")                            \
    XX(EFORBIDDEN, -19, "forbidden", 403, 1,                                   \
       "the token's scope does not allow it")

enum sked_errno {
    SKED_OK = 0,
#define SKED__ERRNO_ENUM(name, num, api, http, exitc, msg) SKED_##name = num,
    SKED_ERRNO_MAP(SKED__ERRNO_ENUM)
#undef SKED__ERRNO_ENUM
};

#define SKED_ERROR_FIELD_MAX 48
#define SKED_ERROR_MSG_MAX   200

/* Details of one failure, filled by the function that failed.
 * pos is a 0-based byte offset into the input, or -1 when none applies;
 * field names the part of the input at fault ("minute", "timezone",
 * "cron[2]"), empty when none. */
typedef struct sked_error {
    int code;
    int pos;
    char field[SKED_ERROR_FIELD_MAX];
    char msg[SKED_ERROR_MSG_MAX];
} sked_error;

/* Return the default message of CODE; never NULL ("unknown error" for a
 * code not in the table). */
SKED_API const char *sked_strerror(int code);

/* Return the API code string of CODE ("invalid_argument"); never NULL. */
SKED_API const char *sked_error_name(int code);

/* Return the HTTP status of CODE (500 for a code not in the table). */
SKED_API int sked_error_http_status(int code);

/* Return the CLI exit code of CODE: 0 for SKED_OK, 1 for unknown codes. */
SKED_API int sked_error_exit_code(int code);

/* Reset ERR (may be NULL) to "no error": code 0, pos -1, empty strings. */
SKED_API void sked_error_clear(sked_error *err);

#endif
