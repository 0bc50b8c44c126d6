/* SPDX-License-Identifier: MIT */
/* What the files of the workflows file's reader share: the walk's state
 * (workflow_file_walk.c), the key tables that drive it, and the readers
 * of the pieces that more than one mapping holds (a workflow with its
 * steps in workflow_file_steps.c, schedules in
 * workflow_file_schedules.c). workflow_file.c reads the document and owns
 * the result. Not for the rest of sked: it uses workflow_file.h.
 *
 * Every function here that can fail fills the caller's sked_wf_error
 * (through the parser) with the current path and a position, and
 * returns the code. */
#ifndef SKED_ENGINE_WORKFLOW_FILE_INT_H
#define SKED_ENGINE_WORKFLOW_FILE_INT_H

#include <libfyaml.h>
#include <stdbool.h>

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "base/error.h"
#include "engine/workflow_file.h"

/* ---- the walk's state, errors and positions ---------------------------- */

typedef struct parser {
    sked_wf_arena *arena;
    sked_tzdb *db;      /* borrowed */
    sked_wf_error *err; /* may be NULL */
    char path[SKED_WF_PATH_MAX];
    size_t path_len;
    struct fy_mark mark; /* the last key entered, for empty nodes */
    /* The key whose scalar value is being read: errors about the value
     * point at the key, as "FILE:LINE:COL: path.key: ..." reads best. */
    struct fy_node *report_at;
    sked_schedule *schedules; /* owned until handed over */
    sked_wf_where *where;     /* owned until handed over */
    size_t n_schedules, cap_schedules;
    const char *workflow; /* the enclosing workflow, or NULL */
} parser;

/* Return N bytes of the arena *A, zeroed and aligned for any type, or
 * NULL when out of memory. */
void *sked__wf_arena_alloc(sked_wf_arena **a, size_t n);

/* Free the arena A and all it gave. NULL does nothing. */
void sked__wf_arena_free(sked_wf_arena *a);

/* Return the position of N: its token, or its first key or item, or the
 * last key entered when it has none. */
struct fy_mark sked__wf_node_mark(const parser *p, struct fy_node *n);

/* Fill the caller's error with CODE, the current path and the position
 * of AT, and return CODE. */
int sked__wf_fail_code(parser *p, struct fy_node *at, int code, const char *fmt,
                       ...) SKED__PRINTF(4, 5);

#define sked__wf_fail(p, at, ...)                                              \
    sked__wf_fail_code(p, at, SKED_EINVAL, __VA_ARGS__)

int sked__wf_fail_nomem(parser *p);

/* Fail at the key KEY of MAP (or at MAP when absent), with the path moved
 * onto it. */
int sked__wf_fail_at_key(parser *p, struct fy_node *map, const char *key,
                         const char *msg);

/* Fail with the model's verdict E on the mapping MAP it was read from: at
 * the key of E's field when MAP has it, else at MAP with the field named. */
int sked__wf_fail_model(parser *p, struct fy_node *map, const sked_error *e);

/* Append ".KEY" (or "KEY" at the top) or "[I]" to the path; return the
 * old length for sked__wf_path_pop. A path too long for the buffer is
 * cut. */
size_t sked__wf_path_push_key(parser *p, const char *key, size_t len);
size_t sked__wf_path_push_index(parser *p, size_t i);
void sked__wf_path_pop(parser *p, size_t old);

/* ---- nodes and scalars -------------------------------------------------- */

/* Whether N is absent, empty or a plain null ("~", "null"). */
bool sked__wf_is_null(struct fy_node *n);

/* Name what N is, for "expected ..., found ..." messages. */
const char *sked__wf_node_kind(struct fy_node *n);

/* Copy the scalar N into the arena as a C string in *out. WHAT names the
 * expected thing for the error. */
int sked__wf_scalar_text(parser *p, struct fy_node *n, const char *what,
                         char **out);

int sked__wf_bool_value(parser *p, struct fy_node *n, bool *out);

/* Return why NAME cannot name something (SPEC: 1 to SKED_NAME_MAX bytes
 * of [A-Za-z0-9._-]), or NULL when it can. */
const char *sked__wf_name_problem(const char *name);

/* ---- key tables --------------------------------------------------------- */

typedef enum ftype {
    F_STR,   /* char *, arena */
    F_HSTR,  /* char *, heap (a sked_schedule's) */
    F_INT32, /* int32_t in min..max */
    F_INT64, /* int64_t in min..max */
    F_DUR,   /* sked_dur, min..max seconds */
    F_TIME,  /* sked_time, RFC 3339 */
    F_BOOL,  /* bool */
    F_NUM,   /* double in min..max */
    F_STRS,  /* sked_wf_strs: a list of strings */
    F_INTS,  /* sked_wf_ints: a list of whole numbers in min..max */
    F_KVS,   /* sked_wf_kvs: a mapping of strings */
    F_MAP,   /* a nested mapping read with the table sub */
    F_FN,    /* a function of its own */
} ftype;

typedef struct field field;
typedef int (*field_fn)(parser *p, struct fy_node *v, void *obj);

struct field {
    const char *key;
    ftype type;
    size_t off; /* where the value goes, from the object's start */
    int64_t min, max;
    const field *sub; /* F_MAP */
    field_fn fn;      /* F_FN */
};

/* Rows of the key tables. */
#define KEY(k, t, o)                                                           \
    {                                                                          \
        .key = (k), .type = (t), .off = (o)                                    \
    }
#define KEY_RANGE(k, t, o, lo, hi)                                             \
    {                                                                          \
        .key = (k), .type = (t), .off = (o), .min = (lo), .max = (hi)          \
    }
#define KEY_MAP(k, o, table)                                                   \
    {                                                                          \
        .key = (k), .type = F_MAP, .off = (o), .sub = (table)                  \
    }
#define KEY_FN(k, f)                                                           \
    {                                                                          \
        .key = (k), .type = F_FN, .fn = (f)                                    \
    }
#define KEY_END                                                                \
    {                                                                          \
        .key = NULL                                                            \
    }

/* A day in seconds, the unit of the tables' longer ranges. */
#define DAY (INT64_C(86400))

/* Read the mapping MAP into OBJ by TABLE (ending with a NULL key). An
 * unknown key fails with the nearest known one suggested. */
int sked__wf_walk_map(parser *p, struct fy_node *map, const field *table,
                      void *obj);

/* Read the YAML document TEXT (LEN bytes, at most SKED_WF_FILE_MAX) into
 * OBJ by TABLE, after the checks every file of sked takes: UTF-8 without
 * controls, one document, no aliases or tags, bounded collections. An
 * empty document reads nothing. */
int sked__wf_read_document(parser *p, const char *text, size_t len,
                           const field *table, void *obj);

/* A reader of ITEM, the I-th item of a list, with CTX. */
typedef int (*item_fn)(parser *p, struct fy_node *item, size_t i, void *ctx);

/* Check that V is a list and give it an array in the arena: *out, of
 * as many elements of SIZE bytes as V has items, and one more, zeroed;
 * *n, the count of items. */
int sked__wf_list_alloc(parser *p, struct fy_node *v, size_t size, void **out,
                        size_t *n);

/* Check that V is a list and read its items in order with READ, the
 * path moved onto each ("[i]"). Stops at the first failure. */
int sked__wf_list_walk(parser *p, struct fy_node *v, item_fn read, void *ctx);

/* Return the pair of MAP whose key is KEY, or NULL. */
struct fy_node_pair *sked__wf_find_pair(struct fy_node *map, const char *key);

/* Find which of KEYS (ending with NULL) MAP holds: exactly one is
 * wanted; LIST names them for the error. Store its index in *which. */
int sked__wf_one_of(parser *p, struct fy_node *map, const char *const *keys,
                    const char *list, int *which);

/* ---- the pieces --------------------------------------------------------- */

/* Read "schedules": a list of schedule mappings, appended to P's
 * schedules (under the enclosing workflow P->workflow, if any). OBJ is
 * unused. */
int sked__wf_read_schedules(parser *p, struct fy_node *v, void *obj);

/* Convert the YAML node N (at DEPTH, bounded by SKED_WF_CONTEXT_DEPTH_MAX)
 * into JSON: plain scalars become null, booleans and numbers when they
 * read as such, anything else a string. OUT: *out, a new reference. */
int sked__wf_to_json(parser *p, struct fy_node *n, int depth, json_t **out);

/* The top-level "calendars" key: a mapping of names to calendars
 * (workflow_file_calendars.c); OBJ is the sked_wf_file. */
int sked__wf_read_calendars(parser *p, struct fy_node *v, void *obj);

/* The top-level "notifiers" key: a mapping of names to notifiers
 * (workflow_file_notifiers.c); OBJ is the sked_wf_file. */
int sked__wf_read_notifiers(parser *p, struct fy_node *v, void *obj);

/* Read the workflow MAP into W, whose name is already set. */
int sked__wf_read_workflow(parser *p, struct fy_node *map, sked_wf_workflow *w);

#endif
