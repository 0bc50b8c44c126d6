/* SPDX-License-Identifier: MIT */
/* One attempt at a notification (notify_send.h): the webhook through
 * libcurl (http_step.c) signed with libcrypto's HMAC, the command and
 * the mail program through proc.c with the steps' base environment
 * (step_env.c), so no process started for a notification sees the
 * server's variables. Deadlines are on the real clock, as for steps. */
#include "exec/notify_send.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

#include "base/alloc.h"
#include "base/buf.h"
#include "base/clock.h"
#include "exec/http_step.h"
#include "exec/proc.h"
#include "exec/step_env.h"

/* The most of a body or a message: what a pipe holds whole (proc.h). */
#define BODY_MAX SKED_PROC_INPUT_MAX

int sked__notify_sign(const char *secret, size_t secret_len, long long t,
                      const char *body, size_t body_len, char hex[65])
{
    unsigned char mac[EVP_MAX_MD_SIZE];
    unsigned int len = 0;
    char prefix[32];
    int n = snprintf(prefix, sizeof prefix, "%lld.", t);
    size_t total = (size_t) n + body_len;
    unsigned char *msg = sked__malloc(total + 1);

    if (!msg)
        return SKED_ENOMEM;
    memcpy(msg, prefix, (size_t) n);
    memcpy(msg + n, body, body_len);
    /* The one-shot HMAC(): the HMAC_CTX calls are deprecated in OpenSSL
     * 3, and EVP_MAC is not in the 1.1 releases still shipped. */
    if (!HMAC(EVP_sha256(), secret, (int) secret_len, msg, total, mac, &len) ||
        len != 32) {
        free(msg);
        return SKED_EIO;
    }
    free(msg);
    for (unsigned i = 0; i < len; i++)
        (void) snprintf(hex + 2 * i, 3, "%02x", mac[i]);
    return 0;
}

/* A new string of FMT with its arguments; NULL when out of memory. */
static char *fmt(const char *f, const char *a)
{
    int n = snprintf(NULL, 0, f, a);
    char *s = n >= 0 ? sked__malloc((size_t) n + 1) : NULL;

    if (s)
        (void) snprintf(s, (size_t) n + 1, f, a);
    return s;
}

/* Forget the N bytes at P: the compiler may not drop a store through a
 * volatile pointer, as it may a memset of a buffer about to die. */
static void wipe(void *p, size_t n)
{
    volatile unsigned char *v = p;

    while (n--)
        *v++ = 0;
}

/* ---- templates ----------------------------------------------------------- */

/* The value of the template word W (LEN bytes) for event E, or NULL. */
static char *word_value(const char *w, size_t len, json_t *e, const char *event,
                        const char *delivery, const char *notifier)
{
    static const char *const keys[] = {"id",       "type", "subject",
                                       "schedule", "at",   NULL};
    json_t *v;

    if (len == 5 && memcmp(w, "event", 5) == 0)
        return sked__strdup(event);
    if (len == 8 && memcmp(w, "delivery", 8) == 0)
        return sked__strdup(delivery);
    if (len == 8 && memcmp(w, "notifier", 8) == 0)
        return sked__strdup(notifier);
    if (len == 7 && memcmp(w, "payload", 7) == 0)
        return json_dumps(json_object_get(e, "payload"),
                          JSON_COMPACT | JSON_ENCODE_ANY);
    for (size_t i = 0; keys[i]; i++)
        if (strlen(keys[i]) == len && memcmp(w, keys[i], len) == 0) {
            v = json_object_get(e, keys[i]);
            if (json_is_string(v))
                return sked__strdup(json_string_value(v));
            return json_dumps(v ? v : json_null(), JSON_ENCODE_ANY);
        }
    return NULL;
}

char *sked__notify_expand(const char *tpl, const char *event,
                          const char *delivery, const char *notifier)
{
    json_t *e = json_loads(event, 0, NULL);
    sked_buf b = {.max = BODY_MAX};
    const char *p = tpl, *open, *close;

    while ((open = strstr(p, "{{")) && (close = strstr(open + 2, "}}"))) {
        char *v = word_value(open + 2, (size_t) (close - open - 2), e, event,
                             delivery, notifier);
        sked__buf_add(&b, p, (size_t) (open - p));
        if (v)
            sked__buf_puts(&b, v);
        else
            sked__buf_add(&b, open, (size_t) (close + 2 - open));
        free(v);
        p = close + 2;
    }
    sked__buf_puts(&b, p);
    json_decref(e);
    if (!b.p && !b.failed)
        return sked__strdup("");
    return sked__buf_take(&b, NULL);
}

/* ---- secrets --------------------------------------------------------------
 */

/* Read N's secret into BUF (SIZE bytes), its length into *len; 0 when N
 * has none. Fails with the reason in OUT (never the secret). */
static int read_secret(const sked_notifier *n, char *buf, size_t size,
                       size_t *len, sked_notify_result *out)
{
    const char *v;
    ssize_t got;
    int fd;

    *len = 0;
    if (n->secret_env) {
        if (!(v = getenv(n->secret_env)) || !v[0] || strlen(v) >= size) {
            (void) snprintf(out->error, sizeof out->error,
                            "secret_env %.60s: not set", n->secret_env);
            return -1;
        }
        *len = strlen(v);
        memcpy(buf, v, *len);
        return 0;
    }
    if (!n->secret_file)
        return 0;
    if ((fd = open(n->secret_file, O_RDONLY | O_CLOEXEC)) < 0) {
        (void) snprintf(out->error, sizeof out->error, "secret_file: %s",
                        strerror(errno));
        return -1;
    }
    got = read(fd, buf, size);
    (void) close(fd);
    if (got <= 0 || (size_t) got >= size) {
        (void) snprintf(out->error, sizeof out->error,
                        "secret_file: empty, unreadable or too long");
        return -1;
    }
    /* A file written by echo ends with a newline that is not the key's. */
    while (got > 0 && (buf[got - 1] == '\n' || buf[got - 1] == '\r'))
        got--;
    *len = (size_t) got;
    return 0;
}

/* ---- the kinds ------------------------------------------------------------
 */

static sked_time deadline_of(const sked_notifier *n)
{
    sked_dur t = n->timeout > 0 ? n->timeout : SKED_NOTIFY_TIMEOUT_DEFAULT;

    return sked__clock_now(NULL) + t;
}

/* The headers of a webhook into H (at most MAX); false: no memory. */
static bool webhook_headers(const sked_notifier *n, const char *type,
                            const char *delivery, const char *sig, char **h,
                            size_t *nh)
{
    h[(*nh)++] = sked__strdup("Content-Type: application/json");
    h[(*nh)++] = fmt("Sked-Event: %s", type);
    h[(*nh)++] = fmt("Sked-Delivery: %s", delivery);
    if (sig)
        h[(*nh)++] = fmt("Sked-Signature: %s", sig);
    for (size_t i = 0; i < n->headers.n; i++)
        h[(*nh)++] = sked__strdup(n->headers.v[i]);
    for (size_t i = 0; i < *nh; i++)
        if (!h[i])
            return false;
    return true;
}

static int send_webhook(const sked_notifier *n, const char *event,
                        const char *type, const char *delivery,
                        sked_notify_result *out)
{
    char secret[SKED_NOTIFY_SECRET_MAX], hex[65], sig[96];
    char *h[SKED_NOTIFY_LIST_MAX + 4] = {0};
    char *body = n->body
                     ? sked__notify_expand(n->body, event, delivery, n->name)
                     : sked__strdup(event);
    size_t slen, nh = 0;
    sked_http_result r;
    sked_error e;
    int rc = 0;

    if (!body)
        return SKED_ENOMEM;
    if (read_secret(n, secret, sizeof secret, &slen, out) != 0)
        goto out;
    if (n->secret_file || n->secret_env) {
        long long t = (long long) (sked__clock_now(NULL) / SKED_USEC_PER_SEC);
        if (sked__notify_sign(secret, slen, t, body, strlen(body), hex) != 0) {
            (void) snprintf(out->error, sizeof out->error, "signing failed");
            goto out;
        }
        (void) snprintf(sig, sizeof sig, "t=%lld,v1=%s", t, hex);
    }
    if (!webhook_headers(n, type, delivery, slen ? sig : NULL, h, &nh)) {
        rc = SKED_ENOMEM;
        goto out;
    }
    sked_http_spec spec = {.method = "POST",
                           .url = n->url,
                           .headers = (const char *const *) h,
                           .nheaders = nh,
                           .body = body,
                           .body_len = strlen(body),
                           .capture_max = 1024};
    sked_error_clear(&e);
    if ((rc = sked__http_run(&spec, deadline_of(n), NULL, &r, &e)) != 0) {
        (void) snprintf(out->error, sizeof out->error, "%s",
                        e.msg[0] ? e.msg : sked_strerror(rc));
        rc = rc == SKED_ENOMEM ? rc : 0;
        goto out;
    }
    out->status = (int) r.status;
    out->delivered = r.status >= 200 && r.status < 300;
    if (!out->delivered)
        (void) snprintf(out->error, sizeof out->error, "HTTP status %ld",
                        r.status);
    sked__http_result_done(&r);
out:
    wipe(secret, sizeof secret);
    for (size_t i = 0; i < nh; i++)
        free(h[i]);
    free(body);
    return rc;
}

/* Run ARGV with INPUT on stdin in the base environment and the notify
 * variables; the outcome into OUT. */
static int run_program(const sked_notifier *n, const char *const *argv,
                       const char *input, const char *type,
                       const char *delivery, sked_notify_result *out)
{
    char *vars[4] = {fmt("SKED_DELIVERY=%s", delivery),
                     fmt("SKED_EVENT_TYPE=%s", type),
                     fmt("SKED_NOTIFIER=%s", n->name), NULL};
    char user[256], home[1024], **env = NULL;
    sked_proc_result r;
    sked_error e;
    int rc = 0;

    (void) sked__step_env_who(NULL, user, sizeof user, home, sizeof home);
    sked_step_env_in in = {
        .run = (const char *const *) vars, .user = user, .home = home};
    if (!vars[0] || !vars[1] || !vars[2] ||
        sked__step_env_compose(&in, &env) != 0) {
        rc = SKED_ENOMEM;
        goto out;
    }
    sked_proc_spec spec = {.argv = argv,
                           .env = (const char *const *) env,
                           .capture_max = 1024,
                           .input = input,
                           .input_len = strlen(input)};
    sked_error_clear(&e);
    rc = sked__proc_run(&spec, deadline_of(n), SKED_USEC_PER_SEC, NULL, &r, &e);
    if (rc != 0) {
        (void) snprintf(out->error, sizeof out->error, "%s",
                        e.msg[0] ? e.msg : sked_strerror(rc));
        rc = rc == SKED_ENOMEM ? rc : 0;
        goto out;
    }
    out->status = r.exit_code;
    out->delivered = r.stop == SKED_PROC_EXITED && r.exit_code == 0;
    if (r.stop == SKED_PROC_DEADLINE)
        (void) snprintf(out->error, sizeof out->error, "timed out");
    else if (!out->delivered)
        (void) snprintf(out->error, sizeof out->error, "exit status %d%s%.120s",
                        r.exit_code, r.err_len ? ": " : "", r.err ? r.err : "");
    sked__proc_result_done(&r);
out:
    sked__step_env_free(env);
    for (size_t i = 0; i < 3; i++)
        free(vars[i]);
    return rc;
}

/* Run N's argv (NULL-terminated for the exec) with EVENT on stdin. */
static int run_command(const sked_notifier *n, const char *event,
                       const char *type, const char *delivery,
                       sked_notify_result *out)
{
    const char **argv = sked__calloc(n->argv.n + 1, sizeof *argv);
    int rc;

    if (!argv)
        return SKED_ENOMEM;
    for (size_t i = 0; i < n->argv.n; i++)
        argv[i] = n->argv.v[i];
    rc = run_program(n, argv, event, type, delivery, out);
    free(argv);
    return rc;
}

/* The mail message of EVENT for N: headers, a blank line, the body. */
static char *mail_message(const sked_notifier *n, const char *event,
                          const char *delivery)
{
    const char *tpl =
        n->subject ? n->subject : "[sked] {{type}} {{schedule}} {{subject}}";
    char *subject = sked__notify_expand(tpl, event, delivery, n->name);
    sked_buf b = {.max = BODY_MAX};

    if (!subject)
        return NULL;
    sked__buf_puts(&b, "To: ");
    for (size_t i = 0; i < n->to.n; i++)
        sked__buf_printf(&b, "%s%s", i ? ", " : "", n->to.v[i]);
    if (n->from)
        sked__buf_printf(&b, "\nFrom: %s", n->from);
    /* A value of the event cannot end the headers early: one line. */
    for (char *c = subject; *c; c++)
        if (*c == '\r' || *c == '\n')
            *c = ' ';
    sked__buf_printf(&b, "\nSubject: %s\nSked-Delivery: %s\n", subject,
                     delivery);
    sked__buf_puts(&b, "Content-Type: application/json; charset=utf-8\n\n");
    sked__buf_puts(&b, event);
    sked__buf_puts(&b, "\n");
    free(subject);
    return sked__buf_take(&b, NULL);
}

int sked__notify_send(const sked_notifier *n, const char *event,
                      const char *delivery, sked_notify_result *out)
{
    json_t *e = json_loads(event, 0, NULL);
    const char *type = json_string_value(json_object_get(e, "type"));
    const char *mail[4] = {n->program ? n->program : SKED_NOTIFY_SENDMAIL, "-t",
                           "-i", NULL};
    char *msg;
    int rc;

    memset(out, 0, sizeof *out);
    out->status = -1;
    if (!type)
        type = "";
    if (n->kind == SKED_NOTIFIER_WEBHOOK)
        rc = send_webhook(n, event, type, delivery, out);
    else if (n->kind == SKED_NOTIFIER_COMMAND)
        rc = run_command(n, event, type, delivery, out);
    else if (!(msg = mail_message(n, event, delivery)))
        rc = SKED_ENOMEM;
    else {
        rc = run_program(n, mail, msg, type, delivery, out);
        free(msg);
    }
    json_decref(e);
    return rc;
}
