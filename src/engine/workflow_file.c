/* SPDX-License-Identifier: MIT */
/* Reads the workflows file (SPEC 10; workflow_file.h) with libfyaml.
 *
 * The plan: refuse bytes YAML does not allow; let libfyaml build the
 * document (YAML 1.2, duplicate keys refused, errors collected rather
 * than printed); refuse aliases and oversized collections; then walk it
 * (workflow_file_walk.c), one key table per kind of mapping, from the
 * top-level keys here down to workflows and their steps
 * (workflow_file_steps.c) and schedules (workflow_file_schedules.c).
 * Queues are read here, as is the mapping of named things that holds
 * them and the workflows. Checks that need the whole of something run
 * once it is read, and report at its keys.
 *
 * Aliases are refused: they would let a small file expand without bound,
 * and a configuration file has no need of them. This file also turns
 * errors into "FILE:LINE:COL: path: message" lines, those found here and
 * those the store finds later in the schedules. */
#include "engine/workflow_file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/utf8.h"
#include "model/notifier.h"
#include "engine/workflow_file_int.h"
#include "model/schedule.h"

/* ---- queues and the top level ------------------------------------------- */

/* rate_limit's keys land in the queue itself (offsets from the queue). */
static const field rate_fields[] = {
    KEY_RANGE("limit", F_INT32, offsetof(sked_wf_queue, rate_limit), 1,
              1000000),
    KEY_RANGE("period", F_DUR, offsetof(sked_wf_queue, rate_period), 1,
              366 * DAY),
    KEY_END,
};

static const field queue_fields[] = {
    KEY_RANGE("concurrency", F_INT32, offsetof(sked_wf_queue, concurrency), 1,
              100000),
    KEY_RANGE("worker_concurrency", F_INT32,
              offsetof(sked_wf_queue, worker_concurrency), 1, 100000),
    KEY_MAP("rate_limit", 0, rate_fields),
    KEY_END,
};

static int read_queue(parser *p, struct fy_node *map, sked_wf_queue *q)
{
    struct fy_node_pair *rate = sked__wf_find_pair(map, "rate_limit");
    int rc;

    if (sked__wf_is_null(map))
        return 0; /* "name:" alone: a queue with the defaults */
    if ((rc = sked__wf_walk_map(p, map, queue_fields, q)) < 0)
        return rc;
    if (rate && (q->rate_limit == 0 || q->rate_period == 0))
        return sked__wf_fail_at_key(p, map, "rate_limit",
                                    "needs both \"limit\" and \"period\"");
    return 0;
}

/* Read a mapping of named things: each key is a name, each value read
 * by READ into one element of SIZE bytes of a new array. */
typedef int (*named_fn)(parser *p, struct fy_node *v, void *elem);

static int read_named(parser *p, struct fy_node *v, size_t size, named_fn read,
                      void **out, size_t *n)
{
    struct fy_node_pair *pair;
    unsigned char *arr;
    void *it = NULL;
    const char *why;
    size_t i = 0, old;
    int rc;

    if (!fy_node_is_mapping(v))
        return sked__wf_fail(p, v, "expected a mapping, found %s",
                             sked__wf_node_kind(v));
    *n = (size_t) fy_node_mapping_item_count(v);
    if (!(arr = sked__wf_arena_alloc(&p->arena, (*n + 1) * size)))
        return sked__wf_fail_nomem(p);
    *out = arr;
    while ((pair = fy_node_mapping_iterate(v, &it)) != NULL) {
        struct fy_node *key = fy_node_pair_key(pair);
        char **name = (char **) (void *) (arr + i++ * size);

        /* Every named struct has its name first. */
        if ((rc = sked__wf_scalar_text(p, key, "a name", name)) < 0)
            return rc;
        p->mark = sked__wf_node_mark(p, key);
        old = sked__wf_path_push_key(p, *name, strlen(*name));
        rc = (why = sked__wf_name_problem(*name))
                 ? sked__wf_fail(p, key, "%s", why)
                 : read(p, fy_node_pair_value(pair), name);
        sked__wf_path_pop(p, old);
        if (rc < 0)
            return rc;
    }
    return 0;
}

static int wf_read(parser *p, struct fy_node *v, void *elem)
{
    return sked__wf_read_workflow(p, v, elem);
}

static int queue_read(parser *p, struct fy_node *v, void *elem)
{
    return read_queue(p, v, elem);
}

static int read_workflows(parser *p, struct fy_node *v, void *obj)
{
    sked_wf_file *f = obj;

    return read_named(p, v, sizeof *f->workflows, wf_read,
                      (void **) &f->workflows, &f->n_workflows);
}

static int read_queues(parser *p, struct fy_node *v, void *obj)
{
    sked_wf_file *f = obj;

    return read_named(p, v, sizeof *f->queues, queue_read, (void **) &f->queues,
                      &f->n_queues);
}

/* The "app" key: a name, as a schedule's. */
static int read_app(parser *p, struct fy_node *v, void *obj)
{
    sked_wf_file *f = obj;
    const char *why;
    char *name = NULL;
    int rc = sked__wf_scalar_text(p, v, "a name", &name);

    if (rc < 0)
        return rc;
    if ((why = sked__wf_name_problem(name)))
        return sked__wf_fail(p, v, "%s", why);
    (void) snprintf(f->app, sizeof f->app, "%s", name);
    return 0;
}

static const field top_fields[] = {
    KEY_FN("app", read_app),
    KEY_FN("queues", read_queues),
    KEY_FN("workflows", read_workflows),
    KEY_FN("schedules", sked__wf_read_schedules),
    KEY_FN("calendars", sked__wf_read_calendars),
    KEY_FN("notifiers", sked__wf_read_notifiers),
    KEY_END,
};

/* ---- the document ------------------------------------------------------- */

/* Refuse aliases, tags (a value's meaning is its key's, and a tag ignored
 * would be a silent change of it) and oversized collections anywhere
 * under N, before the walk reads anything. libfyaml's depth limit bounds the
 * recursion. */
static int check_tree(parser *p, struct fy_node *n)
{
    struct fy_node_pair *pair;
    struct fy_node *item;
    struct fy_token *tag;
    void *it = NULL;
    int rc;

    if (!n)
        return 0;
    if (fy_node_get_style(n) == FYNS_ALIAS)
        return sked__wf_fail(p, n, "aliases are not supported");
    if ((tag = fy_node_get_tag_token(n)) != NULL) {
        const struct fy_mark *m = fy_token_start_mark(tag);
        p->mark = m ? *m : p->mark;
        return sked__wf_fail(p, NULL,
                             "YAML tags (!name, !!type) are not supported: "
                             "sked reads each value by its key");
    }
    if (fy_node_get_type(n) == FYNT_SCALAR)
        return 0;
    if ((fy_node_is_mapping(n)
             ? fy_node_mapping_item_count(n)
             : fy_node_sequence_item_count(n)) > SKED_WF_ITEMS_MAX)
        return sked__wf_fail_code(p, n, SKED_ETOOBIG, "more than %d items",
                                  SKED_WF_ITEMS_MAX);
    if (fy_node_is_sequence(n)) {
        while ((item = fy_node_sequence_iterate(n, &it)) != NULL)
            if ((rc = check_tree(p, item)) < 0)
                return rc;
        return 0;
    }
    while ((pair = fy_node_mapping_iterate(n, &it)) != NULL)
        if ((rc = check_tree(p, fy_node_pair_key(pair))) < 0 ||
            (rc = check_tree(p, fy_node_pair_value(pair))) < 0)
            return rc;
    return 0;
}

/* Report the first error libfyaml collected in DIAG, or "empty" when it
 * collected none (an empty stream builds no document). */
static int syntax_error(parser *p, struct fy_diag *diag)
{
    struct fy_diag_error *e;
    void *it = NULL;

    while ((e = fy_diag_errors_iterate(diag, &it)) != NULL) {
        if (e->type < FYET_ERROR)
            continue;
        if (p->err) {
            p->err->code = SKED_ESYNTAX;
            p->err->line = e->line > 0 ? e->line : 0;
            p->err->column = e->column > 0 ? e->column : 0;
            p->err->path[0] = '\0';
            snprintf(p->err->msg, sizeof p->err->msg, "%s",
                     e->msg ? e->msg : "invalid YAML");
        }
        return SKED_ESYNTAX;
    }
    return 0;
}

/* Refuse a stream of more than one document ("---" between two): the
 * document after the first would be ignored without a word. Called once
 * the first built, so the stream's syntax is known to be sound up to
 * there; an event stream, so nothing past the second start is read. */
static int check_one_document(parser *p, const char *text, size_t len)
{
    struct fy_parse_cfg cfg = {
        .flags = FYPCF_QUIET | FYPCF_DEFAULT_VERSION_1_2 | FYPCF_JSON_NONE};
    struct fy_parser *fyp = fy_parser_create(&cfg);
    struct fy_event *ev;
    int docs = 0, rc = 0;

    if (!fyp || fy_parser_set_string(fyp, text, len) != 0) {
        fy_parser_destroy(fyp);
        return sked__wf_fail_nomem(p);
    }
    while (rc == 0 && (ev = fy_parser_parse(fyp)) != NULL) {
        if (ev->type == FYET_DOCUMENT_START && ++docs == 2) {
            const struct fy_mark *m = fy_event_start_mark(ev);
            p->mark = m ? *m : p->mark;
            rc = sked__wf_fail(p, NULL,
                               "a second YAML document: a workflows file "
                               "is one document (remove this \"---\" or "
                               "split the file)");
        }
        fy_parser_event_free(fyp, ev);
    }
    fy_parser_destroy(fyp);
    return rc;
}

static struct fy_document *build(parser *p, const char *text, size_t len,
                                 int *rc)
{
    struct fy_diag_cfg dcfg;
    struct fy_parse_cfg cfg = {0};
    struct fy_document *doc;
    struct fy_diag *diag;

    fy_diag_cfg_default(&dcfg);
    dcfg.fp = NULL;
    dcfg.level = FYET_ERROR;
    if (!(diag = fy_diag_create(&dcfg))) {
        *rc = sked__wf_fail_nomem(p);
        return NULL;
    }
    fy_diag_set_collect_errors(diag, true);
    cfg.flags = FYPCF_QUIET | FYPCF_DEFAULT_VERSION_1_2 | FYPCF_JSON_NONE;
    cfg.diag = diag;
    doc = fy_document_build_from_string(&cfg, text, len);
    *rc = doc ? 0 : syntax_error(p, diag);
    fy_diag_destroy(diag);
    return doc;
}

/* Refuse what YAML does not allow in a stream (YAML 1.2 5.1: UTF-8, and
 * of the C0 controls only tab, line feed and carriage return; no DEL).
 * libfyaml 0.7 can loop for ever on a NUL or a broken UTF-8 sequence in
 * a directive, so such bytes are refused before it sees them. */
static int check_bytes(parser *p, const char *text, size_t len)
{
    const unsigned char *s = (const unsigned char *) text;
    int line = 1, column = 1;
    size_t i = 0, n;

    while (i < len) {
        unsigned char c = s[i];

        n = sked__utf8_len(text + i, len - i);
        if (n == 0 || (c < 0x20 && c != '\t' && c != '\n' && c != '\r') ||
            c == 0x7f) {
            if (p->err) {
                p->err->code = SKED_ESYNTAX;
                p->err->line = line;
                p->err->column = column;
                snprintf(p->err->msg, sizeof p->err->msg,
                         n ? "control character 0x%02x is not allowed in YAML"
                           : "invalid UTF-8 (byte 0x%02x)",
                         c);
            }
            return SKED_ESYNTAX;
        }
        line += c == '\n';
        column = c == '\n' ? 1 : column + 1;
        i += n;
    }
    return 0;
}

int sked__wf_read_document(parser *p, const char *text, size_t len,
                           const field *table, void *obj)
{
    struct fy_document *doc;
    struct fy_node *root;
    int rc;

    if (len > SKED_WF_FILE_MAX)
        return sked__wf_fail_code(p, NULL, SKED_ETOOBIG, "larger than %d bytes",
                                  SKED_WF_FILE_MAX);
    if ((rc = check_bytes(p, text, len)) < 0)
        return rc;
    doc = build(p, text, len, &rc);
    if (doc && (rc = check_one_document(p, text, len)) < 0) {
        fy_document_destroy(doc);
        doc = NULL;
    }
    root = doc ? fy_document_root(doc) : NULL;
    /* An empty stream, or a document of only "---", declares nothing. */
    if (root && !sked__wf_is_null(root) && (rc = check_tree(p, root)) == 0)
        rc = sked__wf_walk_map(p, root, table, obj);
    fy_document_destroy(doc);
    return rc;
}

int sked__workflow_file_parse(const char *text, size_t len, sked_tzdb *db,
                              sked_wf_file *out, sked_wf_error *err)
{
    parser p = {.db = db, .err = err};
    sked_wf_file f = {0};
    int rc;

    if (err)
        memset(err, 0, sizeof *err);
    rc = sked__wf_read_document(&p, text, len, top_fields, &f);
    if (rc < 0)
        f.app[0] = '\0';
    f.schedules = p.schedules;
    f.where = p.where;
    f.n_schedules = p.n_schedules;
    f.arena = p.arena;
    if (rc < 0) {
        sked__workflow_file_done(&f);
        return rc;
    }
    *out = f;
    return 0;
}

/* Name the kind of file MODE is, for a refusal. */
static const char *file_kind(mode_t mode)
{
    if (S_ISFIFO(mode))
        return "a FIFO";
    if (S_ISCHR(mode) || S_ISBLK(mode))
        return "a device";
    if (S_ISDIR(mode))
        return "a directory";
    if (S_ISSOCK(mode))
        return "a socket";
    return "not a regular file";
}

/* Open PATH for reading into *out, refusing what is not a regular file: a
 * FIFO or a device would block the read for ever, or never end. The open
 * itself does not wait (O_NONBLOCK: a FIFO with no writer). */
static int open_regular(const char *path, FILE **out, sked_wf_error *err)
{
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    struct stat st;
    int code = SKED_EIO;

    if (fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
        fcntl(fd, F_SETFL, 0) == 0 && (*out = fdopen(fd, "rb")) != NULL)
        return 0;
    if (fd >= 0 && fstat(fd, &st) == 0 && !S_ISREG(st.st_mode)) {
        code = SKED_EINVAL;
        if (err)
            snprintf(err->msg, sizeof err->msg,
                     "%s, not a regular file: give the path of a YAML file",
                     file_kind(st.st_mode));
    } else if (err) {
        snprintf(err->msg, sizeof err->msg, "cannot open: %s", strerror(errno));
    }
    if (fd >= 0)
        (void) close(fd);
    if (err)
        err->code = code;
    return code;
}

int sked__wf_read_file(const char *path, char **text, size_t *len,
                       sked_wf_error *err)
{
    FILE *fp = NULL;
    char *buf;
    size_t n;
    int rc;

    *text = NULL;
    *len = 0;
    if ((rc = open_regular(path, &fp, err)) < 0)
        return rc;
    if (!(buf = sked__malloc(SKED_WF_FILE_MAX + 1))) {
        fclose(fp);
        return SKED_ENOMEM;
    }
    n = fread(buf, 1, SKED_WF_FILE_MAX + 1, fp);
    rc = ferror(fp) ? SKED_EIO : 0;
    if (err && rc) {
        err->code = rc;
        snprintf(err->msg, sizeof err->msg, "cannot read: %s", strerror(errno));
    }
    fclose(fp);
    if (rc < 0) {
        free(buf);
        return rc;
    }
    *text = buf;
    *len = n;
    return 0;
}

int sked__workflow_file_load(const char *path, sked_tzdb *db, sked_wf_file *out,
                             sked_wf_error *err)
{
    char *buf;
    size_t n;
    int rc;

    if (err)
        memset(err, 0, sizeof *err);
    if ((rc = sked__wf_read_file(path, &buf, &n, err)) < 0)
        return rc;
    rc = sked__workflow_file_parse(buf, n, db, out, err);
    if (rc == 0 && !out->app[0])
        sked__workflow_file_default_app(path, out->app);
    free(buf);
    return rc;
}

void sked__workflow_file_default_app(const char *path, char *app)
{
    const char *base = strrchr(path, '/');
    size_t n, k;

    base = base ? base + 1 : path;
    n = strlen(base);
    if (n > 5 && strcmp(base + n - 5, ".yaml") == 0)
        n -= 5;
    else if (n > 4 && strcmp(base + n - 4, ".yml") == 0)
        n -= 4;
    if (n > SKED_NAME_MAX)
        n = SKED_NAME_MAX;
    for (k = 0; k < n; k++) {
        char c = base[k];
        bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                  (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-';
        app[k] = ok ? c : '-';
    }
    app[k] = '\0';
    /* "." and ".." are no names (they would be path segments). */
    if (k == 0 || strcmp(app, ".") == 0 || strcmp(app, "..") == 0)
        (void) snprintf(app, SKED_NAME_MAX + 1, "%s", "default");
}

void sked__workflow_file_done(sked_wf_file *f)
{
    if (!f)
        return;
    for (size_t i = 0; i < f->n_schedules; i++)
        sked_schedule_done(&f->schedules[i]);
    free(f->schedules);
    free(f->where);
    free(f->calendar_where);
    for (size_t i = 0; i < f->n_calendars; i++)
        sked_calendar_done(&f->calendars[i]);
    free(f->calendars);
    sked__notifiers_free(f->notifiers, f->n_notifiers);
    sked__wf_arena_free(f->arena);
    memset(f, 0, sizeof *f);
}

void sked__workflow_file_error_format(const sked_wf_error *err,
                                      const char *file, char *buf, size_t size)
{
    int n = 0;

    if (size == 0)
        return;
    buf[0] = '\0';
    if (file)
        n = snprintf(buf, size, "%s:", file);
    if (err->line > 0 && n >= 0 && (size_t) n < size)
        n += snprintf(buf + n, size - (size_t) n, "%d:%d:", err->line,
                      err->column);
    if (err->path[0] && n >= 0 && (size_t) n < size)
        n += snprintf(buf + n, size - (size_t) n, "%s%s:", n ? " " : "",
                      err->path);
    if (n >= 0 && (size_t) n < size)
        snprintf(buf + n, size - (size_t) n, "%s%s", n ? " " : "",
                 err->msg[0] ? err->msg : sked_strerror(err->code));
}

bool sked__workflow_file_locate(const char *file, const sked_wf_file *f,
                                const sked_error *err, char *buf, size_t size)
{
    const char *msg = err->msg[0] ? err->msg : sked_strerror(err->code);
    unsigned long i;
    char *end;

    const sked_wf_where *w = NULL;

    if (strncmp(err->field, "schedules[", 10) == 0) {
        i = strtoul(err->field + 10, &end, 10);
        if (end[0] == ']' && i < f->n_schedules)
            w = &f->where[i];
    } else if (strncmp(err->field, "calendars[", 10) == 0) {
        i = strtoul(err->field + 10, &end, 10);
        if (end[0] == ']' && i < f->n_calendars && f->calendar_where)
            w = &f->calendar_where[i];
    }
    if (w) {
        snprintf(buf, size, "%s:%d:%d: %s%s: %s", file, w->line, w->column,
                 w->path, end + 1, msg);
        return true;
    }
    if (!err->field[0])
        return false;
    snprintf(buf, size, "%s: %s: %s", file, err->field, msg);
    return true;
}
