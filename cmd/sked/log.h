/* SPDX-License-Identifier: MIT */
/* The server's log (SPEC 5): one line per event worth a person's
 * attention, on stderr, in logfmt by default
 * (time=2026-11-30T08:00:00.123Z level=info msg="run created" run=...)
 * or as JSON lines ({"time":...,"level":...,"msg":...,"run":...}).
 *
 * libsked never logs; the program does, here, from the events the engine
 * emits. A line is written whole under a lock, so lines from the
 * scheduler thread and the main thread never interleave. Values are
 * quoted in logfmt when they are empty or hold a space, '=', '"' or a
 * control character; keys are plain words chosen by the caller. */
#ifndef SKED_CMD_LOG_H
#define SKED_CMD_LOG_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <pthread.h>

#include "journal.h"
#include "sked/sked.h"

typedef enum log_level {
    LOG_DEBUG = 0,
    LOG_INFO = 1,
    LOG_WARN = 2,
    LOG_ERROR = 3,
} log_level;

typedef enum log_format {
    LOG_LOGFMT = 0,
    LOG_JSON = 1,
} log_format;

/* One key and its value: a string (quoted as needed) or a number. */
typedef enum log_kind { LOG_KV_STR, LOG_KV_INT, LOG_KV_REAL } log_kind;
typedef struct log_kv {
    const char *key; /* borrowed */
    log_kind kind;
    const char *str; /* borrowed; NULL writes null (JSON) or "" (logfmt) */
    int64_t num;
    double real;
} log_kv;

#define LOG_STR(k, v)  ((log_kv){.key = (k), .kind = LOG_KV_STR, .str = (v)})
#define LOG_INT(k, v)  ((log_kv){.key = (k), .kind = LOG_KV_INT, .num = (v)})
#define LOG_REAL(k, v) ((log_kv){.key = (k), .kind = LOG_KV_REAL, .real = (v)})

/* Most key-value pairs one line carries. */
#define LOG_KV_MAX 12

/* A log: where it writes, how, and from which level. Thread-safe once
 * initialised. */
typedef struct logger {
    FILE *out; /* borrowed: stderr */
    log_format format;
    _Atomic log_level min;   /* changed live by log_set_level */
    const sked_clock *clock; /* borrowed; NULL: the real clock */
    pthread_mutex_t mu;
    journal journal; /* the systemd journal, when OUT is its stream */
} logger;

/* Start a log writing to OUT at level MIN and above: to the systemd
 * journal, as entries of fields, when OUT is the journal's stream
 * (journal.h). Returns 0 or SKED_ENOMEM. */
int log_init(logger *lg, FILE *out, log_format format, log_level min);
void log_done(logger *lg);

/* Parse "debug", "info", "warn", "error" / "logfmt", "json". Return 0 or
 * SKED_EINVAL. */
int log_level_parse(const char *s, log_level *out);
int log_format_parse(const char *s, log_format *out);

/* "debug", "info", "warn" or "error". */
const char *log_level_name(log_level level);

/* Write lines of MIN and above from now on (the server's SIGHUP). */
void log_set_level(logger *lg, log_level min);

/* Return true when a line of LEVEL would be written. */
int log_enabled(const logger *lg, log_level level);

/* Write one line of LEVEL with MSG and the N pairs KV (N <= LOG_KV_MAX;
 * more are left out). A failed write is ignored: nothing better can be
 * done with it. */
void log_write(logger *lg, log_level level, const char *msg, const log_kv *kv,
               size_t n);

#endif
