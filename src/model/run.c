/* SPDX-License-Identifier: MIT */
/* Runs and steps (run.h): the words of their enums, both ways, and the
 * memory of a run and of a list of attempts. */
#include "model/run.h"

#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "model/run_fields.h"
#include "model/step_fields.h"

static const char *const trigger_names[] = {"cron",   "catchup", "backfill",
                                            "manual", "api",     "heartbeat"};
static const char *const run_status_names[] = {
    "pending", "running", "waiting", "completed", "failed", "cancelled"};

const char *sked_trigger_name(sked_trigger t)
{
    if ((int) t < 0 || (int) t > SKED_TRIGGER_HEARTBEAT)
        return "unknown";
    return trigger_names[t];
}

const char *sked_run_status_name(sked_run_status s)
{
    if ((int) s < 0 || (int) s > SKED_RUN_CANCELLED)
        return "unknown";
    return run_status_names[s];
}

/* ---- names and memory --------------------------------------------------- */

static const char *const step_status_names[] = {"running", "completed",
                                                "failed", "cancelled"};

const char *sked_step_status_name(sked_step_status s)
{
    if ((int) s < 0 || (int) s > SKED_STEP_CANCELLED)
        return "unknown";
    return step_status_names[s];
}

/* Return the index of WORD in the N NAMES, or -1. */
static int word_index(const char *word, const char *(*name)(int), int n)
{
    for (int i = 0; word && i < n; i++)
        if (strcmp(name(i), word) == 0)
            return i;
    return -1;
}

static const char *run_status_word(int i)
{
    return sked__run_status_name((sked_run_status) i);
}

static const char *trigger_word(int i)
{
    return sked__trigger_name((sked_trigger) i);
}

static const char *step_status_word(int i)
{
    return sked__step_status_name((sked_step_status) i);
}

int sked__run_status_parse(const char *word, sked_run_status *out)
{
    int i = word_index(word, run_status_word, SKED_RUN_CANCELLED + 1);

    if (i < 0)
        return SKED_EINVAL;
    *out = (sked_run_status) i;
    return 0;
}

int sked__trigger_parse(const char *word, sked_trigger *out)
{
    int i = word_index(word, trigger_word, SKED_TRIGGER_HEARTBEAT + 1);

    if (i < 0)
        return SKED_EINVAL;
    *out = (sked_trigger) i;
    return 0;
}

int sked__step_status_parse(const char *word, sked_step_status *out)
{
    int i = word_index(word, step_status_word, SKED_STEP_CANCELLED + 1);

    if (i < 0)
        return SKED_EINVAL;
    *out = (sked_step_status) i;
    return 0;
}

/* Per field of the run's table (run_fields.h): set the instants to NONE,
 * free the strings. */
#define INIT_TEXT(m)
#define INIT_DOC(m)
#define INIT_STATUS(m)
#define INIT_TRIGGER(m)
#define INIT_I32(m)
#define INIT_TIME(m) r->m = SKED_TIME_NONE;
#define INIT_OUTCOME(m)
#define INIT_FIELD(m, kind, col, json) INIT_##kind(m)
#define FREE_TEXT(m)                   free(r->m);
#define FREE_DOC(m)                    free(r->m);
#define FREE_STATUS(m)
#define FREE_TRIGGER(m)
#define FREE_I32(m)
#define FREE_TIME(m)
#define FREE_OUTCOME(m)
#define FREE_FIELD(m, kind, col, json) FREE_##kind(m)

void sked__run_init(sked_run *r)
{
    memset(r, 0, sizeof *r);
    SKED__RUN_FIELDS(INIT_FIELD, INIT_FIELD)
}

void sked__run_done(sked_run *r)
{
    if (!r)
        return;
    SKED__RUN_FIELDS(FREE_FIELD, FREE_FIELD)
    memset(r, 0, sizeof *r);
}

void sked__runs_free(sked_run *list, size_t n)
{
    for (size_t i = 0; list && i < n; i++)
        sked__run_done(&list[i]);
    free(list);
}

/* Per field of the step's table (step_fields.h): free the strings. */
#define STEP_FREE_TEXT(m) free(s->m);
#define STEP_FREE_BOOL(m)
#define STEP_FREE_I32(m)
#define STEP_FREE_STEP_STATUS(m)
#define STEP_FREE_FLAGS(m)
#define STEP_FREE_EXIT(m)
#define STEP_FREE_TIME(m)
#define STEP_FREE_FIELD(m, kind, col, json) STEP_FREE_##kind(m)

void sked__step_record_done(sked_step_record *s)
{
    if (!s)
        return;
    SKED__STEP_FIELDS(STEP_FREE_FIELD, STEP_FREE_FIELD)
    memset(s, 0, sizeof *s);
}

void sked__step_records_free(sked_step_record *list, size_t n)
{
    for (size_t i = 0; list && i < n; i++)
        sked__step_record_done(&list[i]);
    free(list);
}
