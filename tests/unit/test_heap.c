/* SPDX-License-Identifier: MIT */
/* Tests of the timer heap (src/base/heap.c): order, ties in push order,
 * removal and key changes through a node's stored position, and a random
 * run checked against a sorted copy after every operation. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "base/heap.h"

typedef struct timer {
    sked_heap_node node;
    int id;
} timer;

#define TIMER(p) ((timer *) (void *) ((char *) (p) -offsetof(timer, node)))

/* Check the heap property and every stored position. */
static void check(const sked_heap *h)
{
    for (size_t i = 0; i < h->n; i++) {
        assert_int_equal(h->a[i]->pos, i);
        if (i > 0) {
            const sked_heap_node *p = h->a[(i - 1) / 2];
            assert_true(p->key < h->a[i]->key ||
                        (p->key == h->a[i]->key && p->seq < h->a[i]->seq));
        }
    }
}

static void test_pop_in_order(void **state)
{
    static const sked_time keys[] = {50, 10, 40, 30, 20, 60, 0};
    timer t[7];
    sked_heap h;

    (void) state;
    sked__heap_init(&h);
    assert_null(sked__heap_pop(&h));
    for (int i = 0; i < 7; i++) {
        sked__heap_node_init(&t[i].node);
        t[i].id = i;
        assert_int_equal(sked__heap_push(&h, &t[i].node, keys[i]), 0);
        check(&h);
    }
    assert_int_equal(sked__heap_size(&h), 7);
    for (sked_time want = 0; want <= 60; want += 10) {
        sked_heap_node *n = sked__heap_pop(&h);
        assert_non_null(n);
        assert_int_equal(n->key, want);
        assert_false(sked__heap_contains(n));
        check(&h);
    }
    assert_null(sked__heap_min(&h));
    sked__heap_done(&h);
}

static void test_ties_leave_in_push_order(void **state)
{
    timer t[5];
    sked_heap h;

    (void) state;
    sked__heap_init(&h);
    for (int i = 0; i < 5; i++) {
        sked__heap_node_init(&t[i].node);
        t[i].id = i;
        assert_int_equal(sked__heap_push(&h, &t[i].node, 7), 0);
    }
    for (int i = 0; i < 5; i++)
        assert_int_equal(TIMER(sked__heap_pop(&h))->id, i);
    sked__heap_done(&h);
}

static void test_remove_and_update(void **state)
{
    timer t[6];
    sked_heap h;

    (void) state;
    sked__heap_init(&h);
    for (int i = 0; i < 6; i++) {
        sked__heap_node_init(&t[i].node);
        t[i].id = i;
        assert_int_equal(sked__heap_push(&h, &t[i].node, (i + 1) * 10), 0);
    }
    sked__heap_remove(&h, &t[0].node); /* the root */
    sked__heap_remove(&h, &t[0].node); /* again: nothing happens */
    sked__heap_remove(&h, &t[4].node); /* inside */
    check(&h);
    assert_int_equal(sked__heap_size(&h), 4);
    sked__heap_update(&h, &t[5].node, 5); /* decrease to the top */
    check(&h);
    assert_int_equal(TIMER(sked__heap_min(&h))->id, 5);
    sked__heap_update(&h, &t[5].node, 100); /* increase to the bottom */
    check(&h);
    assert_int_equal(TIMER(sked__heap_pop(&h))->id, 1);
    assert_int_equal(TIMER(sked__heap_pop(&h))->id, 2);
    assert_int_equal(TIMER(sked__heap_pop(&h))->id, 3);
    assert_int_equal(TIMER(sked__heap_pop(&h))->id, 5);
    assert_null(sked__heap_pop(&h));
    sked__heap_done(&h);
}

/* A random mix of every operation; the minimum must always be the least
 * key of the nodes in the heap. */
static void test_random_operations(void **state)
{
    enum { N = 500, OPS = 20000 };
    static timer t[N];
    sked_heap h;
    unsigned seed = 12345;

    (void) state;
    sked__heap_init(&h);
    for (int i = 0; i < N; i++) {
        sked__heap_node_init(&t[i].node);
        t[i].id = i;
    }
    for (int op = 0; op < OPS; op++) {
        timer *x = &t[(seed = seed * 1103515245u + 12345u) % N];
        sked_time key = (seed >> 8) % 1000;
        if (!sked__heap_contains(&x->node))
            assert_int_equal(sked__heap_push(&h, &x->node, key), 0);
        else if (op % 3 == 0)
            sked__heap_remove(&h, &x->node);
        else
            sked__heap_update(&h, &x->node, key);
        if (op % 97 == 0) {
            sked_time least = INT64_MAX;
            check(&h);
            for (int i = 0; i < N; i++)
                if (sked__heap_contains(&t[i].node) && t[i].node.key < least)
                    least = t[i].node.key;
            if (sked__heap_size(&h))
                assert_int_equal(sked__heap_min(&h)->key, least);
        }
    }
    sked__heap_done(&h);
    for (int i = 0; i < N; i++)
        assert_false(sked__heap_contains(&t[i].node));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pop_in_order),
        cmocka_unit_test(test_ties_leave_in_push_order),
        cmocka_unit_test(test_remove_and_update),
        cmocka_unit_test(test_random_operations),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
