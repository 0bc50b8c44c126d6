/* SPDX-License-Identifier: MIT */
/* The server's log lines (log.h), in logfmt or JSON. A line is built in
 * a bounded buffer (LINE_MAX bytes; a longer one is cut, never split) and
 * written with one fwrite under the log's lock. */
#include "log.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "base/clock.h"
#include "base/dtoa.h"
#include "base/error.h"

#define LINE_MAX_BYTES 8192

static const char *const level_names[] = {"debug", "info", "warn", "error"};

/* A line being built; append never overflows, it truncates. */
typedef struct line {
    char buf[LINE_MAX_BYTES];
    size_t len;
} line;

static void put_mem(line *l, const char *s, size_t n)
{
    size_t room = sizeof l->buf - 1 - l->len;

    if (n > room)
        n = room;
    memcpy(l->buf + l->len, s, n);
    l->len += n;
}

static void put(line *l, const char *s)
{
    put_mem(l, s, strlen(s));
}

static void putf(line *l, const char *fmt, ...) SKED__PRINTF(2, 3);
static void putf(line *l, const char *fmt, ...)
{
    char tmp[128];
    va_list ap;
    int n;

    va_start(ap, fmt);
    n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (n > 0)
        put_mem(l, tmp, (size_t) n < sizeof tmp ? (size_t) n : sizeof tmp - 1);
}

int log_level_parse(const char *s, log_level *out)
{
    for (size_t i = 0; i < sizeof level_names / sizeof *level_names; i++) {
        if (strcmp(s, level_names[i]) == 0) {
            *out = (log_level) i;
            return 0;
        }
    }
    return SKED_EINVAL;
}

int log_format_parse(const char *s, log_format *out)
{
    if (strcmp(s, "logfmt") == 0)
        *out = LOG_LOGFMT;
    else if (strcmp(s, "json") == 0)
        *out = LOG_JSON;
    else
        return SKED_EINVAL;
    return 0;
}

int log_init(logger *lg, FILE *out, log_format format, log_level min)
{
    lg->out = out;
    lg->format = format;
    lg->min = min;
    lg->clock = NULL;
    if (pthread_mutex_init(&lg->mu, NULL) != 0)
        return SKED_ENOMEM;
    (void) journal_open(&lg->journal, out);
    return 0;
}

void log_done(logger *lg)
{
    journal_close(&lg->journal);
    (void) pthread_mutex_destroy(&lg->mu);
}

const char *log_level_name(log_level level)
{
    return level_names[level];
}

void log_set_level(logger *lg, log_level min)
{
    lg->min = min;
}

int log_enabled(const logger *lg, log_level level)
{
    return level >= lg->min;
}

/* Append the time T in UTC with milliseconds: 2026-11-30T08:00:00.123Z. */
static void put_time(line *l, sked_time t)
{
    sked_civil c;

    sked_civil_from_time(t, &c);
    putf(l, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", (int) c.year, (int) c.month,
         (int) c.day, (int) c.hour, (int) c.minute, (int) c.second,
         (int) (c.usec / 1000));
}

/* ---- logfmt ------------------------------------------------------------- */

static bool needs_quotes(const char *s)
{
    if (s[0] == '\0')
        return true;
    for (const unsigned char *p = (const unsigned char *) s; *p; p++)
        if (*p <= ' ' || *p == '=' || *p == '"' || *p == 0x7f)
            return true;
    return false;
}

/* Append S in double quotes with \" \\ \n \r \t escaped, and other
 * control bytes written by CTL_FMT ("\\x%02x" for logfmt, "\\u%04x"
 * for JSON); bytes from 0x80 pass through (the engine's text is UTF-8). */
static void put_escaped(line *l, const char *s, const char *ctl_fmt)
{
    put(l, "\"");
    for (const unsigned char *p = (const unsigned char *) s; *p; p++) {
        if (*p == '"' || *p == '\\') {
            char e[2] = {'\\', (char) *p};
            put_mem(l, e, 2);
        } else if (*p == '\n') {
            put(l, "\\n");
        } else if (*p == '\r') {
            put(l, "\\r");
        } else if (*p == '\t') {
            put(l, "\\t");
        } else if (*p < ' ' || *p == 0x7f) {
            putf(l, ctl_fmt, *p);
        } else {
            put_mem(l, (const char *) p, 1);
        }
    }
    put(l, "\"");
}

static void put_logfmt_value(line *l, const char *s)
{
    if (!s)
        s = "";
    if (needs_quotes(s))
        put_escaped(l, s, "\\x%02x");
    else
        put(l, s);
}

/* A real as every JSON sked writes it: its shortest decimal, so that a
 * log line shows the duration_secs its event holds. */
static void put_number(line *l, const log_kv *kv)
{
    char num[SKED_DTOA_MAX];

    if (kv->kind == LOG_KV_INT)
        putf(l, "%lld", (long long) kv->num);
    else
        put_mem(l, num, sked__dtoa(kv->real, num));
}

static void format_logfmt(line *l, sked_time now, log_level level,
                          const char *msg, const log_kv *kv, size_t n)
{
    put(l, "time=");
    put_time(l, now);
    put(l, " level=");
    put(l, level_names[level]);
    put(l, " msg=");
    put_logfmt_value(l, msg);
    for (size_t i = 0; i < n; i++) {
        put(l, " ");
        put(l, kv[i].key);
        put(l, "=");
        if (kv[i].kind == LOG_KV_STR)
            put_logfmt_value(l, kv[i].str);
        else
            put_number(l, &kv[i]);
    }
}

/* ---- JSON --------------------------------------------------------------- */

static void put_json_string(line *l, const char *s)
{
    put_escaped(l, s, "\\u%04x");
}

static void format_json(line *l, sked_time now, log_level level,
                        const char *msg, const log_kv *kv, size_t n)
{
    put(l, "{\"time\":\"");
    put_time(l, now);
    put(l, "\",\"level\":\"");
    put(l, level_names[level]);
    put(l, "\",\"msg\":");
    put_json_string(l, msg);
    for (size_t i = 0; i < n; i++) {
        put(l, ",");
        put_json_string(l, kv[i].key);
        put(l, ":");
        if (kv[i].kind != LOG_KV_STR)
            put_number(l, &kv[i]);
        else if (kv[i].str)
            put_json_string(l, kv[i].str);
        else
            put(l, "null");
    }
    put(l, "}");
}

/* ---- the journal -------------------------------------------------------- */

/* Append the field NAME of VALUE (LEN bytes) in the binary form. */
static void put_field(line *l, const char *name, const char *value, size_t len)
{
    unsigned char n[8];

    for (int i = 0; i < 8; i++)
        n[i] = (unsigned char) ((uint64_t) len >> (8 * i));
    put(l, name);
    put(l, "\n");
    put_mem(l, (const char *) n, sizeof n);
    put_mem(l, value, len);
    put(l, "\n");
}

/* The journal entry of a line: its level as a syslog priority, its text
 * (the message and the pairs, as logfmt) and each pair as SKED_KEY. */
static bool format_journal(line *l, log_level level, const char *msg,
                           const log_kv *kv, size_t n)
{
    static const char *const priority[] = {"7", "6", "4", "3"};
    line text = {.len = 0}, value;
    char name[80];

    put_field(l, "PRIORITY", priority[level], 1);
    put_field(l, "SYSLOG_IDENTIFIER", "sked", 4);
    put(&text, msg);
    for (size_t i = 0; i < n; i++) {
        size_t k = 0;

        value.len = 0;
        if (kv[i].kind == LOG_KV_STR)
            put(&value, kv[i].str ? kv[i].str : "");
        else
            put_number(&value, &kv[i]);
        put(&text, " ");
        put(&text, kv[i].key);
        put(&text, "=");
        if (kv[i].kind == LOG_KV_STR)
            put_logfmt_value(&text, kv[i].str);
        else
            put_mem(&text, value.buf, value.len);
        /* A field's name: upper case letters, digits and '_'. */
        k = (size_t) snprintf(name, sizeof name, "SKED_");
        for (const char *c = kv[i].key; *c && k < sizeof name - 1; c++)
            name[k++] = (*c >= 'a' && *c <= 'z') ? (char) (*c - 32)
                        : ((*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9'))
                            ? *c
                            : '_';
        name[k] = '\0';
        put_field(l, name, value.buf, value.len);
    }
    put_field(l, "MESSAGE", text.buf, text.len);
    /* A cut entry would be a broken datagram: the line goes instead. */
    return l->len < sizeof l->buf - 1;
}

void log_write(logger *lg, log_level level, const char *msg, const log_kv *kv,
               size_t n)
{
    line l;

    if (!log_enabled(lg, level))
        return;
    if (n > LOG_KV_MAX)
        n = LOG_KV_MAX;
    l.len = 0;
    if (lg->journal.fd >= 0 && format_journal(&l, level, msg, kv, n) &&
        journal_send(&lg->journal, l.buf, l.len) == 0)
        return;
    l.len = 0;
    if (lg->format == LOG_JSON)
        format_json(&l, sked__clock_now(lg->clock), level, msg, kv, n);
    else
        format_logfmt(&l, sked__clock_now(lg->clock), level, msg, kv, n);
    l.buf[l.len++] = '\n';
    (void) pthread_mutex_lock(&lg->mu);
    (void) fwrite(l.buf, 1, l.len, lg->out);
    (void) fflush(lg->out);
    (void) pthread_mutex_unlock(&lg->mu);
}
