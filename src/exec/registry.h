/* SPDX-License-Identifier: MIT */
/* The workflows and queues an engine can run (SPEC 4.2), shared by its
 * workers.
 *
 * Definitions are replaced as a whole when the server reloads its
 * workflows file, while runs of the old definition may still be
 * executing: each definition is reference counted, a worker holds it for
 * the length of a run, and the last holder frees it. Thread-safe. */
#ifndef SKED_EXEC_REGISTRY_H
#define SKED_EXEC_REGISTRY_H

#include <stdbool.h>
#include <stddef.h>

#include "model/workflow.h"
#include "store/store_run.h"

typedef struct sked_registry sked_registry;

int sked__registry_new(sked_registry **out);
void sked__registry_free(sked_registry *r);

/* Add W (sealed: it has its version), taking it; a workflow of the same
 * name is replaced (still-running runs keep the old one). Returns 0 or
 * SKED_ENOMEM (W is then freed). */
int sked__registry_put(sked_registry *r, sked_workflow *w);

/* Remove every workflow not named in NAMES (a reload that dropped some). */
void sked__registry_keep(sked_registry *r, const char *const *names, size_t n);

/* The definition of WORKFLOW at VERSION (NULL: whatever this registry
 * has), held until sked__registry_release; NULL when not here. */
const sked_workflow *sked__registry_acquire(sked_registry *r,
                                            const char *workflow,
                                            const char *version);
void sked__registry_release(sked_registry *r, const sked_workflow *w);

/* Mark whether this registry's version of WORKFLOW is the latest
 * registered in the store (routing of runs without a version). */
void sked__registry_set_latest(sked_registry *r, const char *workflow,
                               bool latest);

/* A snapshot of what can be claimed: OUT gets *n entries whose strings
 * stay valid until sked__registry_claimables_free. */
int sked__registry_claimables(sked_registry *r, sked_claim_workflow **out,
                              size_t *n);
void sked__registry_claimables_free(sked_claim_workflow *list, size_t n);

/* Per-server caps of queues (worker_concurrency; 0: none). */
int sked__registry_set_queue_cap(sked_registry *r, const char *queue,
                                 int32_t worker_concurrency);
/* The queues with a per-server cap: up to MAX of them, each name copied
 * into NAMES[i] and its worker_concurrency into CAPS[i]. Returns how
 * many. */
size_t sked__registry_caps(sked_registry *r, char (*names)[SKED_NAME_MAX + 1],
                           int32_t *caps, size_t max);

/* Every workflow's name and version, copied (for registration in the
 * store): arrays of *n strings each, freed by the caller (each, then the
 * arrays). DEFS gets each one's JSON. */
int sked__registry_list(sked_registry *r, char ***names, char ***versions,
                        char ***defs, size_t *n);

#endif
