/* SPDX-License-Identifier: MIT */
/* Building workflow definitions inside sked (workflow.c), for the
 * workflows file's loader (workflow_load.c) and the engine. */
#ifndef SKED_ENGINE_WORKFLOW_INT_H
#define SKED_ENGINE_WORKFLOW_INT_H

#include "engine/workflow_file.h"
#include "model/workflow.h"

/* Append a step NAME doing ACT (moved into W on success, left to the
 * caller on failure) with COMPENSATE (moved too; may be NULL). Its needs
 * are set afterwards with sked__workflow_need. */
int sked__workflow_add(sked_workflow *w, const char *name, sked_action *act,
                       sked_action *compensate, sked_error *err);

/* Make step STEP of W need step NEED (a duplicate is ignored). */
int sked__workflow_need(sked_workflow *w, size_t step, size_t need,
                        sked_error *err);

/* Build the workflows F declares (the server's: exec, sh, http and sleep
 * steps). OUT: *out, an array of *n workflows the caller frees with
 * sked__workflows_free. Returns 0, SKED_ENOMEM, or SKED_EINVAL with ERR
 * naming the workflow. */
int sked__workflows_from_file(const sked_wf_file *f, sked_workflow ***out,
                              size_t *n, sked_error *err);
void sked__workflows_free(sked_workflow **list, size_t n);

#endif
