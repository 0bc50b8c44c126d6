/* SPDX-License-Identifier: MIT */
/* What the executor writes for one run (run_record.c): a buffer of run
 * ops (store_run.h), each with its events, handed to the journal.
 *
 * The executor decides; this module turns its decisions into ops: a
 * step's begin and end, the run's finish, and whatever else the executor
 * adds with sked__run_record_op. Everything goes to the journal
 * asynchronously, except when the executor asks to wait for the commit
 * (sked__run_record_flush with WAIT): the order of writes is its
 * guarantee (executor.c says which). Strings an op points to are kept
 * until it is written.
 *
 * LOST says the run is no longer the executor's to carry on: an op was
 * refused (the run was taken over), the buffer could not be written (the
 * lease then lapses and the run is recovered from what is committed), or
 * memory ran out. Once LOST, nothing more is recorded. */
#ifndef SKED_EXEC_RUN_RECORD_H
#define SKED_EXEC_RUN_RECORD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/json_obj.h"
#include "exec/attempt.h"
#include "exec/executor.h"

#define SKED_RUN_RECORD_OPS 16

typedef struct sked_run_record {
    const sked_exec_env *env;
    const sked_run *run;
    const sked_workflow *w;
    bool lost;
    bool unsynced_end; /* a step's end was handed over, not yet known to
                          be committed */
    sked_run_op pending[SKED_RUN_RECORD_OPS];
    char *strs[SKED_RUN_RECORD_OPS * 8]; /* owned strings of pending */
    size_t npending, nstrs;
} sked_run_record;

/* Start R empty, for RUN of W executed in ENV. */
void sked__run_record_init(sked_run_record *r, const sked_exec_env *env,
                           const sked_run *run, const sked_workflow *w);

/* Drop what is buffered, unwritten. */
void sked__run_record_done(sked_run_record *r);

/* Keep S (taken) until the buffer is written; returns S. An op has room
 * for every string it holds. */
char *sked__run_record_keep(sked_run_record *r, char *s);

/* Write the buffer; with WAIT, wait for its commit (and notice a refused
 * op: the run was taken over). */
void sked__run_record_flush(sked_run_record *r, bool wait);

/* A new op of KIND for the run, at the clock's now, buffered (the buffer
 * is written first when full). */
sked_run_op *sked__run_record_op(sked_run_record *r, sked_run_op_kind kind);

/* Add the event TYPE of OP, its payload the object O (emptied). OP, the
 * last op buffered, is dropped when the payload could not be made. */
void sked__run_record_event(sked_run_record *r, sked_run_op *op,
                            const char *type, sked_jobj *o);

/* Attempt ATTEMPT of step I (of its compensation with COMP) begins AT. */
void sked__run_record_begin(sked_run_record *r, size_t i, bool comp,
                            int32_t attempt, sked_time at);

/* Record the end of attempt ATTEMPT of step I as RES says, taking its
 * strings; RETRY_DELAY >= 0 adds the event step.retrying. */
void sked__run_record_end(sked_run_record *r, size_t i, bool comp,
                          int32_t attempt, sked_attempt_result *res,
                          sked_dur retry_delay);

/* Finish the run with STATUS (and ERROR and CODE when it did not
 * complete); a completed run's output is made of OUTPUTS, each step's, and
 * the run is not ended without it. Written without a wait. */
void sked__run_record_finish(sked_run_record *r, char *const *outputs,
                             sked_run_status status, const char *error,
                             const char *code);

#endif
