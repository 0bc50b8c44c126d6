/* SPDX-License-Identifier: MIT */
/* An index of elements by name: a hash table of chained buckets, their
 * number a power of two, doubled when there are as many elements as
 * buckets (base/hash.h's FNV-1a picks the bucket).
 *
 * The caller embeds a sked_name_node in each element and adds the node;
 * the node borrows the element's name, which must not change while the
 * node is in. Nothing is ever removed: the scheduler keeps an entry per
 * schedule for its whole life (base/heap.h is the same kind of tool).
 * Adding never fails: when doubling finds no memory, the buckets stay as
 * they are, and the index still works, only slower.
 *
 * Not thread-safe: the owner serialises calls. The index never owns the
 * elements. */
#ifndef SKED_BASE_NAME_INDEX_H
#define SKED_BASE_NAME_INDEX_H

#include <stddef.h>

/* Embedded in an element; chain belongs to the index. */
typedef struct sked_name_node {
    const char *name; /* borrowed: the element's */
    struct sked_name_node *chain;
} sked_name_node;

typedef struct sked_name_index {
    sked_name_node **buckets; /* owned array of borrowed chains */
    size_t nbuckets, n;
} sked_name_index;

/* Start an empty index X of at least MIN buckets (rounded up to a power
 * of two). Returns 0 or SKED_ENOMEM. */
int sked__name_index_init(sked_name_index *x, size_t min);

/* Free X's buckets (never the elements). */
void sked__name_index_done(sked_name_index *x);

/* Return the node named NAME, or NULL. */
sked_name_node *sked__name_index_find(const sked_name_index *x,
                                      const char *name);

/* Add NODE, its name set and not yet in X. */
void sked__name_index_add(sked_name_index *x, sked_name_node *node);

/* A walk over every node, in the buckets' order: start it, then take
 * nodes with sked__name_walk_next until it returns NULL. The walk has
 * moved past a node when it hands it out, so the caller may free the
 * node's element at once (every element freed in one walk). Nothing may
 * be added during a walk. */
typedef struct sked_name_walk {
    const sked_name_index *x; /* borrowed */
    size_t bucket;            /* the next bucket to look in */
    sked_name_node *next;     /* the node to hand out next, or NULL */
} sked_name_walk;

void sked__name_walk_start(sked_name_walk *w, const sked_name_index *x);
sked_name_node *sked__name_walk_next(sked_name_walk *w);

#endif
