/* SPDX-License-Identifier: MIT */
/* Fuzz target: the workflows file reader (SPEC 10). Whatever the input,
 * the reader returns a known code; an error carries a message and a
 * sane position; a file it accepts holds schedules that validate, have
 * source "code" and distinct names, and steps whose needs name steps. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "engine/workflow_file.h"
#include "sked/sked.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static sked_tzdb *zones(void)
{
    static sked_tzdb *db;

    if (!db && sked_tzdb_open(NULL, &db, NULL) != 0)
        abort();
    return db;
}

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

static void check_file(const sked_wf_file *f)
{
    for (size_t i = 0; i < f->n_schedules; i++) {
        const sked_schedule *s = &f->schedules[i];

        if (sked_schedule_validate(s, zones(), NULL) != 0 ||
            s->source != SKED_SOURCE_CODE || f->where[i].line < 1)
            abort();
        for (size_t k = 0; k < i; k++)
            if (strcmp(f->schedules[k].name, s->name) == 0)
                abort();
    }
    for (size_t w = 0; w < f->n_workflows; w++) {
        const sked_wf_workflow *wf = &f->workflows[w];

        for (size_t i = 0; i < wf->n_steps; i++)
            if (wf->steps[i].a.kind == SKED_WF_ACTION_NONE ||
                !wf->steps[i].name)
                abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    sked_wf_file f;
    sked_wf_error e;
    int rc;

    rc = sked__workflow_file_parse((const char *) data, size, zones(), &f, &e);
    if (rc != 0) {
        check_error(rc, &e);
        return 0;
    }
    check_file(&f);
    sked__workflow_file_done(&f);
    return 0;
}
