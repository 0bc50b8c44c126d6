/* SPDX-License-Identifier: MIT */
/* Fuzz target: a file of options (engine/options_file.h), with the keys
 * of the server's configuration file. Whatever the input, the reader
 * returns a known code; an error carries a message and a sane position;
 * a file it accepts gives each key it holds a text (or a list of them,
 * or of records of fields) and the key's position inside the input. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "engine/options_file.h"
#include "sked/sked.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const token_fields[] = {"name", "secret", "secret_file",
                                           "sha256", "scope"};
static const sked_opt_key keys[] = {
    {"database", false, NULL, 0},
    {"workflows", false, NULL, 0},
    {"workers", false, NULL, 0},
    {"lease", false, NULL, 0},
    {"tick", false, NULL, 0},
    {"listen", false, NULL, 0},
    {"token_file", false, NULL, 0},
    {"mcp_allow_origin", true, NULL, 0},
    {"mcp_session_idle", false, NULL, 0},
    {"log_format", false, NULL, 0},
    {"log_level", false, NULL, 0},
    {"tokens", false, token_fields, 5},
};
#define NKEYS (sizeof keys / sizeof keys[0])

static void check_error(int rc, const sked_wf_error *e)
{
    if (rc != SKED_EINVAL && rc != SKED_ESYNTAX && rc != SKED_ETOOBIG &&
        rc != SKED_ENOMEM)
        abort();
    if (e->code != rc || e->msg[0] == '\0' || e->line < 0 || e->column < 0)
        abort();
    if (strnlen(e->path, sizeof e->path) == sizeof e->path ||
        strnlen(e->msg, sizeof e->msg) == sizeof e->msg)
        abort();
}

static void check_values(const sked_opt_value *v, size_t size)
{
    for (size_t i = 0; i < NKEYS; i++) {
        if (!v[i].set)
            continue;
        if (v[i].line < 1 || v[i].column < 1 || (size_t) v[i].line > size + 1)
            abort();
        if ((keys[i].list || keys[i].fields) ? v[i].text != NULL
                                             : v[i].text == NULL)
            abort();
        for (size_t k = 0; k < v[i].n; k++) {
            if (keys[i].list && !v[i].items[k])
                abort();
            if (!keys[i].fields)
                continue;
            const sked_opt_record *r = &v[i].records[k];
            if (r->line < 1 || r->column < 1)
                abort();
            for (size_t f = 0; f < keys[i].nfields; f++)
                if (r->fields[f].text &&
                    (r->fields[f].line < 1 || r->fields[f].column < 1))
                    abort();
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    sked_opt_value v[NKEYS];
    sked_wf_arena *arena = NULL;
    sked_wf_error e;
    int rc = sked__options_file_parse((const char *) data, size, keys, NKEYS, v,
                                      &arena, &e);

    if (rc < 0)
        check_error(rc, &e);
    else if (rc == 0)
        check_values(v, size);
    else
        abort();
    sked__options_file_done(arena);
    return 0;
}
