/* SPDX-License-Identifier: MIT */
/* The storage behind the pages of sked/run.h, and the reading of the
 * API's JSON back into them: the engine fills a page from the store's
 * rows, the CLI on a server fills the same page from the API's answer,
 * and both print it with the one writer of run_json.h. What a page's
 * views borrow is held here, freed by the page's _done function. */
#ifndef SKED_MODEL_RUN_PAGE_H
#define SKED_MODEL_RUN_PAGE_H

#include <jansson.h>

#include "model/run.h"

typedef struct sked__page_own {
    sked_run *runs; /* the store's rows the views borrow from */
    size_t nruns;
    sked_step_record *steps;
    size_t nsteps;
    sked_step_view *step_views;
    char *cursor;
    json_t *json; /* a parsed document the views borrow from */
    char **texts; /* documents written back as text */
    size_t ntexts;
} sked__page_own;

void sked__page_own_free(sked__page_own *o);

/* Read the API's run object (ONE) or run list J (taken, also on
 * failure) into *out, every field checked: SKED_EINVAL naming the field
 * ("runs[3].status") that is missing or not of its kind, SKED_ENOMEM. */
int sked__run_page_from_json(json_t *j, bool one, sked_run_page *out,
                             sked_error *err);

/* Read LIST, the array of workflow versions in ROOT (taken, also on
 * failure; ROOT may be LIST), as the API or the store writes them
 * (registered_at an instant or microseconds), into *out. */
int sked__workflow_page_from_json(json_t *root, const json_t *list,
                                  sked_workflow_page *out, sked_error *err);

#endif
