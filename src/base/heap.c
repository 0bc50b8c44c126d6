/* SPDX-License-Identifier: MIT */
/* A binary min-heap of timers in an array (heap.h).
 *
 * The plan: node i's children are 2i+1 and 2i+2. A push appends and sifts
 * up; a pop moves the last node to the root and sifts down; a removal or
 * a key change moves the node at its stored position up or down. Every
 * move writes the node's new position back into it. Keys compare first,
 * then the push sequence, so equal instants leave in push order. */
#include "base/heap.h"

#include <stdlib.h>

#include "base/alloc.h"
#include "sked/error.h"

#define MIN_CAP 16

void sked__heap_init(sked_heap *h)
{
    h->a = NULL;
    h->n = h->cap = 0;
    h->seq = 0;
}

void sked__heap_node_init(sked_heap_node *n)
{
    n->key = 0;
    n->seq = 0;
    n->pos = SKED_HEAP_NOT_IN;
}

void sked__heap_done(sked_heap *h)
{
    for (size_t i = 0; i < h->n; i++)
        h->a[i]->pos = SKED_HEAP_NOT_IN;
    free(h->a);
    sked__heap_init(h);
}

static bool less(const sked_heap_node *x, const sked_heap_node *y)
{
    if (x->key != y->key)
        return x->key < y->key;
    return x->seq < y->seq;
}

static void place(sked_heap *h, size_t i, sked_heap_node *n)
{
    h->a[i] = n;
    n->pos = i;
}

/* Move the node at I towards the root while it is less than its parent. */
static void sift_up(sked_heap *h, size_t i)
{
    sked_heap_node *n = h->a[i];

    while (i > 0) {
        size_t parent = (i - 1) / 2;
        if (!less(n, h->a[parent]))
            break;
        place(h, i, h->a[parent]);
        i = parent;
    }
    place(h, i, n);
}

/* Move the node at I down while a child is less than it. */
static void sift_down(sked_heap *h, size_t i)
{
    sked_heap_node *n = h->a[i];

    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= h->n)
            break;
        if (c + 1 < h->n && less(h->a[c + 1], h->a[c]))
            c++;
        if (!less(h->a[c], n))
            break;
        place(h, i, h->a[c]);
        i = c;
    }
    place(h, i, n);
}

int sked__heap_push(sked_heap *h, sked_heap_node *n, sked_time key)
{
    if (h->n == h->cap) {
        size_t cap = h->cap ? h->cap * 2 : MIN_CAP;
        sked_heap_node **a = sked__realloc(h->a, cap * sizeof *a);
        if (!a)
            return SKED_ENOMEM;
        h->a = a;
        h->cap = cap;
    }
    n->key = key;
    n->seq = h->seq++;
    place(h, h->n++, n);
    sift_up(h, h->n - 1);
    return 0;
}

sked_heap_node *sked__heap_min(const sked_heap *h)
{
    return h->n ? h->a[0] : NULL;
}

sked_heap_node *sked__heap_pop(sked_heap *h)
{
    sked_heap_node *top = sked__heap_min(h);

    if (top)
        sked__heap_remove(h, top);
    return top;
}

void sked__heap_remove(sked_heap *h, sked_heap_node *n)
{
    size_t i = n->pos;
    sked_heap_node *last;

    if (i == SKED_HEAP_NOT_IN || i >= h->n || h->a[i] != n)
        return;
    last = h->a[--h->n];
    n->pos = SKED_HEAP_NOT_IN;
    if (last == n)
        return;
    place(h, i, last);
    if (i > 0 && less(last, h->a[(i - 1) / 2]))
        sift_up(h, i);
    else
        sift_down(h, i);
}

void sked__heap_update(sked_heap *h, sked_heap_node *n, sked_time key)
{
    sked_time old = n->key;

    n->key = key;
    if (key < old)
        sift_up(h, n->pos);
    else if (key > old)
        sift_down(h, n->pos);
}

bool sked__heap_contains(const sked_heap_node *n)
{
    return n->pos != SKED_HEAP_NOT_IN;
}

size_t sked__heap_size(const sked_heap *h)
{
    return h->n;
}
