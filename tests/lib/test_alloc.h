/* SPDX-License-Identifier: MIT */
/* Allocation failure loops (as sqlite's and curl's suites run them): a
 * path of libsked is run again and again, the Nth allocation failing on
 * pass N (src/base/alloc.h), until a pass completes with no allocation
 * failed. Every pass must answer what the clean pass answers or
 * SKED_ENOMEM, never crash, never leak (LeakSanitizer, in `make san`),
 * and leave the state the case checks: unchanged, or changed whole.
 *
 * Quick loops run in `make test` (a case may fail only every STRIDEth
 * allocation there); with SKED_ALLOC_FULL=1 in the environment (the
 * alloc_full tests, run by `make san`) each loop fails every allocation,
 * once failing only the Nth and once failing it and every one after. */
#ifndef SKED_TEST_ALLOC_H
#define SKED_TEST_ALLOC_H

#include <stdbool.h>

typedef struct sked_test_alloc_case {
    const char *name; /* in failure messages */
    void *ctx;
    /* Before each pass, hook disarmed (may be NULL). */
    void (*prepare)(void *ctx);
    /* The path under test, hook armed: WANT or SKED_ENOMEM. */
    int (*run)(void *ctx);
    /* What the path returns when nothing fails: 0, or the error of a bad
     * input, whose paths must hold under failures too. */
    int want;
    /* After each pass, hook disarmed (may be NULL): RC as run returned,
     * FAILED the allocations the hook failed (0 on the last pass). */
    void (*check)(void *ctx, int rc, long failed);
    /* What went wrong in the pass just run, for failure messages (may be
     * NULL): the error message the path gave. */
    const char *(*why)(void *ctx);
    /* Most passes before the loop is called endless (0: 100000). */
    long max;
    /* Without SKED_ALLOC_FULL, fail only every STRIDEth allocation (0 or
     * 1: each), for the slow paths in `make test`; the full loops fail
     * each. */
    long stride;
} sked_test_alloc_case;

/* Run the loop of C (both modes under SKED_ALLOC_FULL). Fails the
 * cmocka test on a pass that returns neither C->want nor SKED_ENOMEM, or
 * that returns SKED_ENOMEM with no allocation failed. Returns the passes
 * run. */
long sked_test_alloc_loop(const sked_test_alloc_case *c);

/* Disarm the hook for the rest of this pass, keeping its count: for a
 * run callback that has done the path under test and goes on to look
 * at what it gave back. */
void sked_test_alloc_stop(void);

/* True under SKED_ALLOC_FULL=1: run every case, not the quick ones only. */
bool sked_test_alloc_full(void);

/* Route jansson's allocations through the hook too (json_set_alloc_funcs)
 * in the loops that follow, so that the JSON libsked builds and reads
 * fails in turn too.
 *
 * jansson's parser is not safe when memory runs out: its lexer reports
 * some failed allocations as syntax errors ("string or '}' expected"),
 * and ignores others, reading a token without the bytes it could not
 * keep (a string "2026-01-10T00:00:00Z" comes back shorter). libsked
 * cannot tell either from what the text says. So a pass whose only
 * failed allocations were jansson's may answer any error, or a changed
 * value; its check callback sees sked_test_alloc_jansson_only() true and
 * checks what still holds (no crash, no leak, nothing half-written).
 * Without SKED_ALLOC_FULL the loops route jansson only (cover both); with
 * it they also run with libsked's allocations failing alone, every
 * answer checked whole. */
void sked_test_alloc_jansson(void);
bool sked_test_alloc_jansson_only(void);

#endif
