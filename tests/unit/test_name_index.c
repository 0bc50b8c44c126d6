/* SPDX-License-Identifier: MIT */
/* Tests of the index of elements by name (src/base/name_index.c), which
 * the scheduler keeps its schedules in: every name added is found, and
 * no other; a walk visits every element once, and may free each as it
 * goes; the index doubles as it fills, and when doubling finds no memory
 * it keeps working with the buckets it has. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "base/alloc.h"
#include "base/name_index.h"
#include "sked/error.h"

typedef struct elem {
    char name[32];
    int visits;
    sked_name_node node;
} elem;

#define ELEM(n) ((elem *) (void *) ((char *) (n) -offsetof(elem, node)))

/* N elements named PREFIX0, PREFIX1, ... added to X. */
static elem *add_many(sked_name_index *x, const char *prefix, size_t n)
{
    elem *v = calloc(n, sizeof *v);

    assert_non_null(v);
    for (size_t i = 0; i < n; i++) {
        snprintf(v[i].name, sizeof v[i].name, "%s%zu", prefix, i);
        v[i].node.name = v[i].name;
        sked__name_index_add(x, &v[i].node);
    }
    return v;
}

static void test_find(void **state)
{
    static const size_t sizes[] = {0, 1, 2, 7, 8, 9, 1000, 5000};
    char name[32];

    (void) state;
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        sked_name_index x;
        size_t n = sizes[s];

        assert_int_equal(sked__name_index_init(&x, 8), 0);
        elem *v = add_many(&x, "sched-", n);
        assert_int_equal(x.n, n);
        /* Full means doubled: never more elements than buckets. */
        assert_true(x.nbuckets >= n || n == 0);
        assert_int_equal(x.nbuckets & (x.nbuckets - 1), 0);
        for (size_t i = 0; i < n; i++)
            assert_ptr_equal(sked__name_index_find(&x, v[i].name), &v[i].node);
        for (size_t i = n; i < n + 100; i++) {
            snprintf(name, sizeof name, "sched-%zu", i);
            assert_null(sked__name_index_find(&x, name));
        }
        assert_null(sked__name_index_find(&x, ""));
        assert_null(sked__name_index_find(&x, "sched-"));
        sked__name_index_done(&x);
        free(v);
    }
}

static void test_walk(void **state)
{
    enum { N = 3000 };
    sked_name_index x;
    size_t seen = 0;

    (void) state;
    assert_int_equal(sked__name_index_init(&x, 1), 0);
    elem *v = add_many(&x, "w", N);
    sked_name_walk w;
    sked__name_walk_start(&w, &x);
    for (sked_name_node *n; (n = sked__name_walk_next(&w));) {
        ELEM(n)->visits++;
        seen++;
    }
    assert_int_equal(seen, N);
    for (size_t i = 0; i < N; i++)
        assert_int_equal(v[i].visits, 1);
    sked__name_index_done(&x);
    free(v);

    /* Each element its own allocation, freed as the walk passes it:
     * the walk still visits every one (ASan sees any use after free). */
    assert_int_equal(sked__name_index_init(&x, 4), 0);
    for (size_t i = 0; i < N; i++) {
        elem *e = calloc(1, sizeof *e);

        assert_non_null(e);
        snprintf(e->name, sizeof e->name, "f%zu", i);
        e->node.name = e->name;
        sked__name_index_add(&x, &e->node);
    }
    seen = 0;
    sked__name_walk_start(&w, &x);
    for (sked_name_node *n; (n = sked__name_walk_next(&w));) {
        free(ELEM(n));
        seen++;
    }
    assert_int_equal(seen, N);
    sked__name_index_done(&x);
}

/* Doubling out of memory: the buckets stay, adding and finding go on. */
static void test_no_memory(void **state)
{
    enum { N = 500 };
    sked_name_index x;

    (void) state;
    assert_int_equal(sked__name_index_init(&x, 16), 0);
    sked__alloc_fail_at(1, 1);
    elem *v = add_many(&x, "m", N);
    sked__alloc_fail_at(0, 0);
    assert_int_equal(x.nbuckets, 16);
    assert_int_equal(x.n, N);
    for (size_t i = 0; i < N; i++)
        assert_ptr_equal(sked__name_index_find(&x, v[i].name), &v[i].node);
    /* Memory back: the next add doubles again. */
    elem one = {.name = "one"};
    one.node.name = one.name;
    sked__name_index_add(&x, &one.node);
    assert_int_equal(x.nbuckets, 32);
    assert_ptr_equal(sked__name_index_find(&x, "one"), &one.node);
    for (size_t i = 0; i < N; i++)
        assert_ptr_equal(sked__name_index_find(&x, v[i].name), &v[i].node);
    sked__name_index_done(&x);
    free(v);

    sked__alloc_fail_at(1, 0);
    assert_int_equal(sked__name_index_init(&x, 8), SKED_ENOMEM);
    sked__alloc_fail_at(0, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_find),
        cmocka_unit_test(test_walk),
        cmocka_unit_test(test_no_memory),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
