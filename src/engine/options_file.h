/* SPDX-License-Identifier: MIT */
/* A file of options, such as the server's configuration file: one YAML
 * mapping of option names to a scalar or a list of scalars. It is read
 * with the workflows file's reader, so it takes the same checks (UTF-8,
 * one document, no aliases or tags, unknown keys refused with the
 * nearest known one, FILE:LINE:COLUMN in every error). The values are
 * kept as text with the position of their key: the caller checks them
 * with the very rules of the command line's flags, so an option has one
 * rule wherever it is given. */
#ifndef SKED_ENGINE_OPTIONS_FILE_H
#define SKED_ENGINE_OPTIONS_FILE_H

#include <stdbool.h>
#include <stddef.h>

#include "engine/workflow_file.h"

/* An option the file may hold: its key, and whether it takes a list of
 * scalars, or a list of records: mappings of the NFIELDS names FIELDS to
 * scalars. */
typedef struct sked_opt_key {
    const char *key;
    bool list;
    const char *const *fields; /* non-NULL: a list of records */
    size_t nfields;
} sked_opt_key;

/* One value, with where it stands (1-based); text NULL: not given. */
typedef struct sked_opt_text {
    const char *text; /* arena */
    int line, column;
} sked_opt_text;

/* One record: its fields in the order of the key's FIELDS. */
typedef struct sked_opt_record {
    sked_opt_text *fields; /* arena */
    int line, column;      /* of its first key */
} sked_opt_record;

/* What the file gave for one key. */
typedef struct sked_opt_value {
    bool set;
    const char *text;         /* a scalar's text (arena); NULL for a list */
    char **items;             /* a list's items (arena) */
    sked_opt_record *records; /* a list of records (arena) */
    size_t n;                 /* items or records */
    int line, column;         /* of the key, 1-based */
} sked_opt_value;

/* Read TEXT (LEN bytes) by the N KEYS into VALUES (N of them, zeroed
 * here), the texts in a new arena *ARENA (free with
 * sked__options_file_done, also on failure). Returns 0, or SKED_ESYNTAX,
 * SKED_EINVAL, SKED_ETOOBIG or SKED_ENOMEM with ERR filled. */
int sked__options_file_parse(const char *text, size_t len,
                             const sked_opt_key *keys, size_t n,
                             sked_opt_value *values, sked_wf_arena **arena,
                             sked_wf_error *err);

/* The same for the file PATH; a file that cannot be read is SKED_EIO
 * (or SKED_EINVAL when not a regular file), ERR->msg saying why. */
int sked__options_file_load(const char *path, const sked_opt_key *keys,
                            size_t n, sked_opt_value *values,
                            sked_wf_arena **arena, sked_wf_error *err);

/* Free the arena of the values read. NULL does nothing. */
void sked__options_file_done(sked_wf_arena *arena);

#endif
