/* SPDX-License-Identifier: MIT */
/* Drives the store from several processes for the concurrency and crash
 * tests (tests/integration/test_store_concurrency.sh, test_store_crash.sh).
 *
 *   store_hammer insert URL SEED N [BATCH]
 *       Insert the runs hammer-00000 .. hammer-{N-1} in batches of BATCH
 *       (default 100), in an order shuffled by SEED, through
 *       sked__store_runs_insert; print "created K".
 *   store_hammer batches URL PREFIX
 *       Insert batches of 1,000 new runs PREFIX-{batch}-{i} forever,
 *       printing "batch B" after each commit; the test kills it.
 *   store_hammer half URL PREFIX
 *       Open a write transaction through the back-end's method table,
 *       insert the first 500 of a 1,000-run batch, print "half" and wait
 *       in the open transaction for the test's SIGKILL. No hook in the
 *       library: the tool holds the transaction itself.
 */
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "store/store.h"
#include "store/store_int.h"
#include "store/store_ops.h"

#define ID_MAX 64

static int usage(void)
{
    fprintf(stderr, "usage: store_hammer insert URL SEED N [BATCH]\n"
                    "       store_hammer batches URL PREFIX\n"
                    "       store_hammer half URL PREFIX\n");
    return 2;
}

static sked_run_new run(const char *id)
{
    return (sked_run_new){.id = id,
                          .workflow = "hammer",
                          .trigger = SKED_TRIGGER_API,
                          .scheduled_for = SKED_TIME_NONE,
                          .not_before = SKED_TIME_NONE};
}

static int die(const char *what, const sked_error *err)
{
    fprintf(stderr, "store_hammer: %s: %s\n", what, err->msg);
    return 1;
}

/* A small xorshift generator, so every platform shuffles alike. */
static uint64_t next_rand(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

static int cmd_insert(const char *url, uint64_t seed, size_t n, size_t batch)
{
    char(*ids)[ID_MAX] = calloc(n ? n : 1, ID_MAX);
    sked_run_new runs[SKED_STORE_BATCH_MAX];
    bool created[SKED_STORE_BATCH_MAX];
    size_t total = 0;
    sked_store *st;
    sked_error err;

    if (!ids || batch == 0 || batch > SKED_STORE_BATCH_MAX)
        return usage();
    if (sked__store_open(url, NULL, &st, &err) != 0)
        return die("open", &err);
    for (size_t i = 0; i < n; i++)
        snprintf(ids[i], ID_MAX, "hammer-%05zu", i);
    seed = seed * 2654435761u + 1;
    for (size_t i = n; i > 1; i--) { /* Fisher-Yates */
        size_t j = (size_t) (next_rand(&seed) % i);
        char t[ID_MAX];
        memcpy(t, ids[i - 1], ID_MAX);
        memcpy(ids[i - 1], ids[j], ID_MAX);
        memcpy(ids[j], t, ID_MAX);
    }
    for (size_t i = 0; i < n; i += batch) {
        size_t k = n - i < batch ? n - i : batch;
        for (size_t j = 0; j < k; j++)
            runs[j] = run(ids[i + j]);
        if (sked__store_runs_insert(st, runs, k, created, &err) != 0)
            return die("insert", &err);
        for (size_t j = 0; j < k; j++)
            total += created[j];
    }
    printf("created %zu\n", total);
    sked__store_close(st);
    free(ids);
    return 0;
}

static int cmd_batches(const char *url, const char *prefix)
{
    static char ids[SKED_STORE_BATCH_MAX][ID_MAX];
    sked_run_new runs[SKED_STORE_BATCH_MAX];
    sked_store *st;
    sked_error err;

    if (sked__store_open(url, NULL, &st, &err) != 0)
        return die("open", &err);
    for (unsigned long b = 0;; b++) {
        for (size_t i = 0; i < SKED_STORE_BATCH_MAX; i++) {
            snprintf(ids[i], ID_MAX, "%.20s-%06lu-%04zu", prefix, b, i);
            runs[i] = run(ids[i]);
        }
        if (sked__store_runs_insert(st, runs, SKED_STORE_BATCH_MAX, NULL,
                                    &err) != 0)
            return die("insert", &err);
        printf("batch %lu\n", b);
        fflush(stdout);
    }
}

static int cmd_half(const char *url, const char *prefix)
{
    static char ids[SKED_STORE_BATCH_MAX / 2][ID_MAX];
    sked_run_new runs[SKED_STORE_BATCH_MAX / 2];
    bool created[SKED_STORE_BATCH_MAX / 2];
    const struct sked__store_ops *ops;
    sked_store_options opts = {0};
    const char *target;
    sked__backend *b;
    sked_store *st;
    sked__tx *tx;
    sked_error err;

    /* Open once through the store so the schema exists. */
    if (sked__store_open(url, NULL, &st, &err) != 0)
        return die("open", &err);
    sked__store_close(st);
    if (sked__store_url_parse(url, &ops, &target, &err) != 0 ||
        ops->open(target, &opts, &b, &err) != 0 ||
        ops->begin(b, SKED__TX_WRITE, &tx, &err) != 0)
        return die("begin", &err);
    for (size_t i = 0; i < SKED_STORE_BATCH_MAX / 2; i++) {
        snprintf(ids[i], ID_MAX, "%.20s-%04zu", prefix, i);
        runs[i] = run(ids[i]);
    }
    if (ops->runs_insert(tx, runs, SKED_STORE_BATCH_MAX / 2, 0, created,
                         &err) != 0)
        return die("insert", &err);
    printf("half\n");
    fflush(stdout);
    for (;;)
        pause(); /* in the open transaction, until SIGKILL */
}

int main(int argc, char **argv)
{
    if (argc >= 5 && strcmp(argv[1], "insert") == 0)
        return cmd_insert(argv[2], strtoull(argv[3], NULL, 10),
                          strtoul(argv[4], NULL, 10),
                          argc > 5 ? strtoul(argv[5], NULL, 10) : 100);
    if (argc == 4 && strcmp(argv[1], "batches") == 0)
        return cmd_batches(argv[2], argv[3]);
    if (argc == 4 && strcmp(argv[1], "half") == 0)
        return cmd_half(argv[2], argv[3]);
    return usage();
}
