/* SPDX-License-Identifier: MIT */
/* The index of elements by name (name_index.h). */
#include "base/name_index.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/hash.h"
#include "sked/error.h"

static size_t bucket_of(const sked_name_index *x, const char *name)
{
    return (size_t) sked__hash_fnv1a(name) & (x->nbuckets - 1);
}

int sked__name_index_init(sked_name_index *x, size_t min)
{
    size_t n = 1;

    while (n < min && n <= SIZE_MAX / 2)
        n *= 2;
    x->n = 0;
    x->nbuckets = n;
    x->buckets = sked__calloc(n, sizeof *x->buckets);
    return x->buckets ? 0 : SKED_ENOMEM;
}

void sked__name_index_done(sked_name_index *x)
{
    free(x->buckets);
    x->buckets = NULL;
    x->nbuckets = x->n = 0;
}

sked_name_node *sked__name_index_find(const sked_name_index *x,
                                      const char *name)
{
    sked_name_node *e = x->buckets[bucket_of(x, name)];

    while (e && strcmp(e->name, name) != 0)
        e = e->chain;
    return e;
}

/* Double the buckets when the index is full. Out of memory, it keeps the
 * buckets it has. */
static void grow(sked_name_index *x)
{
    sked_name_index bigger = {NULL, x->nbuckets * 2, x->n};

    if (x->n < x->nbuckets || x->nbuckets > SIZE_MAX / 2 / sizeof *x->buckets ||
        !(bigger.buckets = sked__calloc(bigger.nbuckets, sizeof *x->buckets)))
        return;
    for (size_t i = 0; i < x->nbuckets; i++) {
        sked_name_node *e = x->buckets[i];

        while (e) {
            sked_name_node *next = e->chain;
            size_t k = bucket_of(&bigger, e->name);

            e->chain = bigger.buckets[k];
            bigger.buckets[k] = e;
            e = next;
        }
    }
    free(x->buckets);
    *x = bigger;
}

void sked__name_index_add(sked_name_index *x, sked_name_node *node)
{
    size_t k;

    grow(x);
    k = bucket_of(x, node->name);
    node->chain = x->buckets[k];
    x->buckets[k] = node;
    x->n++;
}

/* Point W's next at the first node of the next bucket that has one. */
static void settle(sked_name_walk *w)
{
    while (!w->next && w->bucket < w->x->nbuckets)
        w->next = w->x->buckets[w->bucket++];
}

void sked__name_walk_start(sked_name_walk *w, const sked_name_index *x)
{
    w->x = x;
    w->bucket = 0;
    w->next = NULL;
    settle(w);
}

sked_name_node *sked__name_walk_next(sked_name_walk *w)
{
    sked_name_node *n = w->next;

    if (n) {
        w->next = n->chain;
        settle(w);
    }
    return n;
}
