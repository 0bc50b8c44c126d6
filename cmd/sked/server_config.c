/* SPDX-License-Identifier: MIT */
/* The settings of "sked server" (server_config.h): one table of the
 * options, the file read through engine/options_file.h into the flags
 * not given, then each value checked by its row's rule. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "direct.h"
#include "engine/options_file.h"
#include "http/http.h"
#include "server_config.h"

/* Bounds of --tick: a tick below a second only costs rereads; above an
 * hour, changes by other servers would wait too long. */
#define TICK_MIN (SKED_USEC_PER_SEC)
#define TICK_MAX (INT64_C(3600) * SKED_USEC_PER_SEC)
/* A lease is renewed every third of itself: under 2 s, a busy database
 * could let it lapse; over an hour, a crashed server's runs wait long. */
#define LEASE_MIN (2 * SKED_USEC_PER_SEC)
#define LEASE_MAX (INT64_C(3600) * SKED_USEC_PER_SEC)
/* Old events are deleted once an hour: a retention under an hour could
 * not be kept to; one over ten years is a log that only grows. */
#define RETENTION_MIN (INT64_C(3600) * SKED_USEC_PER_SEC)
#define RETENTION_MAX (INT64_C(3650) * 86400 * SKED_USEC_PER_SEC)
#define IDLE_MIN      (SKED_USEC_PER_SEC)
#define IDLE_MAX      (INT64_C(24) * 3600 * SKED_USEC_PER_SEC)
/* A token shorter than SKED_TOKEN_MIN can be guessed. The token of
 * --token-file or $SKED_TOKEN is this one, with every right. */
#define DEFAULT_TOKEN "default"

typedef struct opt_row {
    const char *flag; /* "token-file" for --token-file; NULL: no flag */
    const char *key;  /* "token_file" in the file */
    bool list;
    const char *const *fields; /* a list of records of these fields */
    size_t nfields;
} opt_row;

/* The fields of a token of "tokens:". */
enum { TF_NAME, TF_SECRET, TF_SECRET_FILE, TF_SHA256, TF_SCOPE, TF_COUNT };
static const char *const token_fields[TF_COUNT] = {
    "name", "secret", "secret_file", "sha256", "scope"};

static const opt_row rows[SO_COUNT] = {
    [SO_DB] = {"db", "database", false, NULL, 0},
    [SO_WORKFLOWS] = {"workflows", "workflows", false, NULL, 0},
    [SO_WORKERS] = {"workers", "workers", false, NULL, 0},
    [SO_LEASE] = {"lease", "lease", false, NULL, 0},
    [SO_RETENTION] = {"retention", "retention", false, NULL, 0},
    [SO_TICK] = {"tick", "tick", false, NULL, 0},
    [SO_LISTEN] = {"listen", "listen", false, NULL, 0},
    [SO_TOKEN_FILE] = {"token-file", "token_file", false, NULL, 0},
    [SO_MCP_ALLOW_ORIGIN] = {"mcp-allow-origin", "mcp_allow_origin", true, NULL,
                             0},
    [SO_MCP_SESSION_IDLE] = {"mcp-session-idle", "mcp_session_idle", false,
                             NULL, 0},
    [SO_LOG_FORMAT] = {"log-format", "log_format", false, NULL, 0},
    [SO_LOG_LEVEL] = {"log-level", "log_level", false, NULL, 0},
    [SO_TOKENS] = {NULL, "tokens", false, token_fields, TF_COUNT},
};

void server_cli_opts(server_flags *f, cli_opt *out)
{
    size_t n = 0;

    for (int i = 0; i < SO_COUNT; i++)
        if (rows[i].flag)
            out[n++] = (cli_opt){
                rows[i].flag, 0, rows[i].list ? CLI_OPT_LIST : CLI_OPT_VALUE,
                rows[i].list ? (void *) &f->origins : (void *) &f->value[i]};
    out[n++] = (cli_opt){"config", 0, CLI_OPT_VALUE, &f->config};
    out[n++] = (cli_opt){"check-config", 0, CLI_OPT_FLAG, &f->check_config};
    out[n] = (cli_opt){0};
}

/* The state of one reading: the flags with the file's values added, and
 * where an error goes. */
typedef struct reading {
    const cli_cmd *self;
    server_flags f;
    const char *file; /* the file read, NULL: none */
    char *msg;        /* the error, of SIZE bytes */
    size_t size;
    sked_opt_value tokens; /* the file's "tokens:" (in its arena) */
} reading;

/* Write the error into R's message; return CODE's exit code. */
static int fail(const reading *r, int code, const char *fmt, ...)
    SKED__PRINTF(3, 4);
static int fail(const reading *r, int code, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(r->msg, r->size, fmt, ap);
    va_end(ap);
    return sked_error_exit_code(code);
}

/* Say that option OPT's value is not what its rule wants and return
 * CODE's exit code: "invalid --tick "X": WHY" for a flag, "FILE:LINE:COL:
 * tick: invalid value "X": WHY" for the file. A value out of its rule is
 * a usage error; a token that cannot be used, an error (SPEC 7). */
static int bad_code(const reading *r, int code, server_opt opt, const char *fmt,
                    ...) SKED__PRINTF(4, 5);
static int bad_code(const reading *r, int code, server_opt opt, const char *fmt,
                    ...)
{
    const char *v = r->f.value[opt] ? r->f.value[opt] : "";
    char why[256];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    if (r->f.line[opt])
        return fail(r, code, "%s:%d:%d: %s: invalid value \"%.64s\": %s",
                    r->file, r->f.line[opt], r->f.column[opt], rows[opt].key, v,
                    why);
    if (code == SKED_EUSAGE)
        return fail(r, code, "invalid --%s \"%.64s\": %s (see '%s --help')",
                    rows[opt].flag, v, why, r->self->path);
    return fail(r, code, "--%s %s: %s", rows[opt].flag, v, why);
}

#define bad(r, opt, ...) bad_code(r, SKED_EUSAGE, opt, __VA_ARGS__)

/* Read the file into the options the flags left unset. Returns
 * CLI_CONTINUE or the exit code. */
static int read_file(reading *r, sked_wf_arena **arena)
{
    sked_opt_key keys[SO_COUNT];
    sked_opt_value v[SO_COUNT];
    sked_wf_error e;
    char line[600];

    for (int i = 0; i < SO_COUNT; i++)
        keys[i] = (sked_opt_key){rows[i].key, rows[i].list, rows[i].fields,
                                 rows[i].nfields};
    if (sked__options_file_load(r->file, keys, SO_COUNT, v, arena, &e) < 0) {
        sked__workflow_file_error_format(&e, r->file, line, sizeof line);
        return fail(r, e.code == SKED_ENOMEM ? SKED_ENOMEM : SKED_EUSAGE, "%s",
                    line);
    }
    r->tokens = v[SO_TOKENS];
    for (int i = 0; i < SO_COUNT; i++) {
        bool given = rows[i].list ? r->f.origins.n > 0 : r->f.value[i] != NULL;

        if (!v[i].set || given || rows[i].fields)
            continue;
        r->f.line[i] = v[i].line;
        r->f.column[i] = v[i].column;
        if (!rows[i].list) {
            r->f.value[i] = v[i].text;
            continue;
        }
        if (v[i].n > CLI_LIST_MAX)
            return bad(r, (server_opt) i, "more than %d values", CLI_LIST_MAX);
        for (size_t k = 0; k < v[i].n; k++)
            r->f.origins.v[r->f.origins.n++] = v[i].items[k];
    }
    return CLI_CONTINUE;
}

/* Copy S into *OUT. Returns CLI_CONTINUE, or the exit code. */
static int own(const reading *r, const char *s, char **out)
{
    if (!s)
        return CLI_CONTINUE;
    if (!(*out = strdup(s)))
        return fail(r, SKED_ENOMEM, "out of memory");
    return CLI_CONTINUE;
}

/* Add the token NAME of SECRET with SCOPE to OUT (its hash only). */
static int add_token(const reading *r, server_settings *out, const char *name,
                     const char *secret, sked_scope scope)
{
    sked_http_token *t =
        realloc(out->tokens, (out->n_tokens + 1) * sizeof *out->tokens);

    if (!t)
        return fail(r, SKED_ENOMEM, "out of memory");
    out->tokens = t;
    t += out->n_tokens++;
    memset(t, 0, sizeof *t);
    snprintf(t->name, sizeof t->name, "%s", name);
    sked__token_hash(secret, strlen(secret), t->sha256);
    t->scope = scope;
    return CLI_CONTINUE;
}

/* Say what is wrong with field F of the record I of "tokens:" (its key's
 * position, or the record's when F is not given). */
static int bad_field(const reading *r, int code, size_t i, int f,
                     const char *fmt, ...) SKED__PRINTF(5, 6);
static int bad_field(const reading *r, int code, size_t i, int f,
                     const char *fmt, ...)
{
    const sked_opt_record *rec = &r->tokens.records[i];
    const sked_opt_text *t = f >= 0 ? &rec->fields[f] : NULL;
    char why[256];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    if (t && t->text)
        return fail(r, code, "%s:%d:%d: tokens[%zu].%s: %s", r->file, t->line,
                    t->column, i, token_fields[f], why);
    return fail(r, code, "%s:%d:%d: tokens[%zu]: %s", r->file, rec->line,
                rec->column, i, why);
}

/* The secret of token I, from secret, secret_file (its first line) or
 * sha256 (then OUT_HASH is filled and *SECRET left empty). */
static int token_secret(const reading *r, size_t i, char *secret, size_t size,
                        unsigned char out_hash[32], bool *hashed)
{
    const sked_opt_text *f = r->tokens.records[i].fields;
    int forms =
        !!f[TF_SECRET].text + !!f[TF_SECRET_FILE].text + !!f[TF_SHA256].text;
    FILE *fp;

    *hashed = false;
    secret[0] = '\0';
    if (forms != 1)
        return bad_field(r, SKED_EUSAGE, i, -1,
                         "give one of secret, secret_file or sha256");
    if (f[TF_SHA256].text) {
        const char *h = f[TF_SHA256].text;
        if (strlen(h) != 64 || strspn(h, "0123456789abcdefABCDEF") != 64)
            return bad_field(r, SKED_EUSAGE, i, TF_SHA256,
                             "expected 64 hexadecimal digits, the SHA-256 "
                             "of the token");
        for (int k = 0; k < 32; k++) {
            unsigned v;
            (void) sscanf(h + 2 * k, "%2x", &v);
            out_hash[k] = (unsigned char) v;
        }
        *hashed = true;
        return CLI_CONTINUE;
    }
    if (f[TF_SECRET].text) {
        snprintf(secret, size, "%s", f[TF_SECRET].text);
    } else {
        if (!(fp = fopen(f[TF_SECRET_FILE].text, "r")))
            return bad_field(r, SKED_EINVAL, i, TF_SECRET_FILE,
                             "cannot read %s: %s", f[TF_SECRET_FILE].text,
                             strerror(errno));
        if (!fgets(secret, (int) size, fp))
            secret[0] = '\0';
        fclose(fp);
        secret[strcspn(secret, "\r\n")] = '\0';
    }
    if (strlen(secret) < SKED_TOKEN_MIN || strlen(secret) > SKED_TOKEN_MAX)
        return bad_field(r, SKED_EINVAL, i,
                         f[TF_SECRET].text ? TF_SECRET : TF_SECRET_FILE,
                         "the token must hold %d to %d characters",
                         SKED_TOKEN_MIN, SKED_TOKEN_MAX);
    return CLI_CONTINUE;
}

/* Whether NAME can name a token: 1 to SKED_TOKEN_NAME_MAX of
 * [A-Za-z0-9._-], as the actor of what it does. */
static bool token_name_ok(const char *name)
{
    size_t len = strlen(name);

    return len > 0 && len <= SKED_TOKEN_NAME_MAX &&
           strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                        "0123456789._-") == len;
}

/* Whether NAME is an actor sked records without a token (the audit
 * trail): the scheduler's decisions, a server without tokens, an
 * embedding program, the CLI's MCP on a database. */
static bool token_name_reserved(const char *name)
{
    static const char *const reserved[] = {"scheduler", "anonymous", "library",
                                           "local"};

    for (size_t i = 0; i < sizeof reserved / sizeof *reserved; i++)
        if (strcmp(name, reserved[i]) == 0)
            return true;
    return false;
}

/* The tokens of the file's "tokens:", checked, into OUT. */
static int read_tokens(const reading *r, server_settings *out)
{
    char secret[SKED_TOKEN_MAX + 2];
    unsigned char hash[32];
    sked_scope scope;
    bool hashed;
    int rc;

    for (size_t i = 0; i < r->tokens.n; i++) {
        const sked_opt_text *f = r->tokens.records[i].fields;

        if (!f[TF_NAME].text)
            return bad_field(r, SKED_EUSAGE, i, -1, "missing key \"name\"");
        if (!token_name_ok(f[TF_NAME].text))
            return bad_field(r, SKED_EUSAGE, i, TF_NAME,
                             "a token's name has 1 to %d letters, digits, "
                             "'.', '_' or '-'",
                             SKED_TOKEN_NAME_MAX);
        if (token_name_reserved(f[TF_NAME].text))
            return bad_field(r, SKED_EUSAGE, i, TF_NAME,
                             "the name %s is reserved: the events' actor %s "
                             "names sked itself; choose another",
                             f[TF_NAME].text, f[TF_NAME].text);
        for (size_t k = 0; k < out->n_tokens; k++)
            if (strcmp(out->tokens[k].name, f[TF_NAME].text) == 0)
                return bad_field(r, SKED_EUSAGE, i, TF_NAME,
                                 "two tokens are named %s%s", f[TF_NAME].text,
                                 strcmp(f[TF_NAME].text, DEFAULT_TOKEN) == 0
                                     ? " (the token of --token-file or "
                                       "SKED_TOKEN is)"
                                     : "");
        if (!f[TF_SCOPE].text)
            return bad_field(r, SKED_EUSAGE, i, -1, "missing key \"scope\"");
        if (sked__scope_parse(f[TF_SCOPE].text, &scope) < 0)
            return bad_field(r, SKED_EUSAGE, i, TF_SCOPE,
                             "expected read, operate or admin");
        rc = token_secret(r, i, secret, sizeof secret, hash, &hashed);
        if (rc == CLI_CONTINUE)
            rc =
                add_token(r, out, f[TF_NAME].text, hashed ? "" : secret, scope);
        memset(secret, 0, sizeof secret);
        if (rc != CLI_CONTINUE)
            return rc;
        if (hashed)
            memcpy(out->tokens[out->n_tokens - 1].sha256, hash, sizeof hash);
    }
    return CLI_CONTINUE;
}

/* The token of --token-file (its first line), else $SKED_TOKEN, into
 * OUT->token. Returns CLI_CONTINUE or the exit code. */
static int read_token(const reading *r, server_settings *out)
{
    const char *path = r->f.value[SO_TOKEN_FILE];
    const char *env = getenv("SKED_TOKEN");
    char buf[SKED_TOKEN_MAX + 2];
    FILE *fp;
    int rc;

    if (!path) {
        if (!env || !env[0])
            return CLI_CONTINUE;
        snprintf(buf, sizeof buf, "%s", env);
    } else {
        if (!(fp = fopen(path, "r")))
            return bad_code(r, SKED_EINVAL, SO_TOKEN_FILE, "cannot read it: %s",
                            strerror(errno));
        if (!fgets(buf, sizeof buf, fp))
            buf[0] = '\0';
        fclose(fp);
        buf[strcspn(buf, "\r\n")] = '\0';
    }
    if (strlen(buf) < SKED_TOKEN_MIN || strlen(buf) > SKED_TOKEN_MAX) {
        if (path)
            return bad_code(r, SKED_EINVAL, SO_TOKEN_FILE,
                            "the token must hold %d to %d characters",
                            SKED_TOKEN_MIN, SKED_TOKEN_MAX);
        return fail(r, SKED_EINVAL,
                    "SKED_TOKEN: the token must hold %d to %d characters",
                    SKED_TOKEN_MIN, SKED_TOKEN_MAX);
    }
    rc = add_token(r, out, DEFAULT_TOKEN, buf, SKED_SCOPE_ADMIN);
    memset(buf, 0, sizeof buf);
    return rc;
}

/* Parse the duration of OPT into *OUT within LO..HI, when given. */
static int duration(const reading *r, server_opt opt, sked_dur lo, sked_dur hi,
                    const char *range, sked_dur *out)
{
    const char *s = r->f.value[opt];
    sked_error e;

    if (!s)
        return CLI_CONTINUE;
    if (sked_dur_parse(s, out, &e) < 0 || *out < lo || *out > hi)
        return bad(r, opt, "expected a duration from %s", range);
    return CLI_CONTINUE;
}

/* The rules of the options that are numbers, durations or words. */
static int check_values(const reading *r, server_settings *out)
{
    const char *w = r->f.value[SO_WORKERS];
    char *end;
    int rc;

    out->workers = SKED_WORKERS_DEFAULT;
    if (w) {
        long n;

        errno = 0;
        n = strtol(w, &end, 10);
        if (!*w || *end || errno || n < 0 || n > SKED_WORKERS_MAX)
            return bad(r, SO_WORKERS, "expected a whole number from 0 to %d",
                       SKED_WORKERS_MAX);
        out->workers = (int) n;
    }
    out->tick = SKED_TICK_DEFAULT;
    if ((rc = duration(r, SO_LEASE, LEASE_MIN, LEASE_MAX, "2s to 1h",
                       &out->lease)) != CLI_CONTINUE ||
        (rc = duration(r, SO_RETENTION, RETENTION_MIN, RETENTION_MAX,
                       "1h to 3650d", &out->retention)) != CLI_CONTINUE ||
        (rc = duration(r, SO_TICK, TICK_MIN, TICK_MAX, "1s to 1h",
                       &out->tick)) != CLI_CONTINUE ||
        (rc = duration(r, SO_MCP_SESSION_IDLE, IDLE_MIN, IDLE_MAX, "1s to 24h",
                       &out->mcp_idle)) != CLI_CONTINUE)
        return rc;
    out->format = LOG_LOGFMT;
    out->level = LOG_INFO;
    if (r->f.value[SO_LOG_FORMAT] &&
        log_format_parse(r->f.value[SO_LOG_FORMAT], &out->format) < 0)
        return bad(r, SO_LOG_FORMAT, "expected logfmt or json");
    if (r->f.value[SO_LOG_LEVEL] &&
        log_level_parse(r->f.value[SO_LOG_LEVEL], &out->level) < 0)
        return bad(r, SO_LOG_LEVEL, "expected debug, info, warn or error");
    return CLI_CONTINUE;
}

/* The options that are strings, copied. */
static int copy_strings(const reading *r, server_settings *out)
{
    const char *listen = r->f.value[SO_LISTEN];
    int rc;

    if (!listen)
        listen = SKED_HTTP_LISTEN_DEFAULT;
    if (strcmp(listen, "off") == 0)
        listen = NULL;
    if ((rc = own(r, r->file, &out->config)) != CLI_CONTINUE ||
        (rc = own(r, direct_db_url(r->f.value[SO_DB]), &out->db_url)) !=
            CLI_CONTINUE ||
        (rc = own(r, r->f.value[SO_WORKFLOWS], &out->workflows)) !=
            CLI_CONTINUE ||
        (rc = own(r, listen, &out->listen)) != CLI_CONTINUE)
        return rc;
    if (r->f.origins.n == 0)
        return CLI_CONTINUE;
    out->mcp_origins = calloc((size_t) r->f.origins.n, sizeof(char *));
    if (!out->mcp_origins)
        return fail(r, SKED_ENOMEM, "out of memory");
    for (int i = 0; i < r->f.origins.n; i++, out->n_mcp_origins++)
        if ((rc = own(r, r->f.origins.v[i], &out->mcp_origins[i])) !=
            CLI_CONTINUE)
            return rc;
    return CLI_CONTINUE;
}

int server_settings_read(const cli_cmd *self, const server_flags *f,
                         server_settings *out, char *msg, size_t size)
{
    reading r = {
        .self = self, .f = *f, .file = f->config, .msg = msg, .size = size};
    sked_wf_arena *arena = NULL;
    int rc = CLI_CONTINUE;

    memset(out, 0, sizeof *out);
    /* The default file only when it is there: a server needs none. */
    if (!r.file && access(SKED_CONFIG_DEFAULT, F_OK) == 0)
        r.file = SKED_CONFIG_DEFAULT;
    if (r.file)
        rc = read_file(&r, &arena);
    if (rc == CLI_CONTINUE)
        rc = check_values(&r, out);
    if (rc == CLI_CONTINUE)
        rc = read_token(&r, out);
    if (rc == CLI_CONTINUE)
        rc = read_tokens(&r, out);
    if (rc == CLI_CONTINUE)
        rc = copy_strings(&r, out);
    sked__options_file_done(arena);
    if (rc == CLI_CONTINUE)
        return 0;
    server_settings_done(out);
    return rc;
}

void server_settings_done(server_settings *s)
{
    free(s->config);
    free(s->db_url);
    free(s->workflows);
    free(s->listen);
    if (s->tokens)
        memset(s->tokens, 0, s->n_tokens * sizeof *s->tokens);
    free(s->tokens);
    for (size_t i = 0; i < s->n_mcp_origins; i++)
        free(s->mcp_origins[i]);
    free(s->mcp_origins);
    memset(s, 0, sizeof *s);
}
