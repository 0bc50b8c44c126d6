/* SPDX-License-Identifier: MIT */
/* A binary min-heap of timers, keyed by instant (libuv's timer heap, as an
 * array).
 *
 * The caller embeds a sked_heap_node in each element and pushes the node;
 * the heap keeps the node's position in it, so an element can be moved
 * (its key changed up or down) or removed in O(log n) through its node,
 * without a search. Equal keys come out in push order (a sequence number
 * breaks ties), so runs on a virtual clock are deterministic.
 *
 * Not thread-safe: the owner serialises calls (the scheduler holds it
 * under its lock). The heap never owns the elements. */
#ifndef SKED_BASE_HEAP_H
#define SKED_BASE_HEAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sked/time.h"

#define SKED_HEAP_NOT_IN SIZE_MAX

/* Embedded in an element; its fields belong to the heap. */
typedef struct sked_heap_node {
    sked_time key;
    uint64_t seq; /* tie-break: push order */
    size_t pos;   /* index in the heap, SKED_HEAP_NOT_IN when out */
} sked_heap_node;

typedef struct sked_heap {
    sked_heap_node **a; /* owned array of borrowed nodes */
    size_t n, cap;
    uint64_t seq;
} sked_heap;

/* Initialise an empty heap H, and a node N as "not in a heap". */
void sked__heap_init(sked_heap *h);
void sked__heap_node_init(sked_heap_node *n);

/* Free H's array (not the elements). */
void sked__heap_done(sked_heap *h);

/* Insert N (not in a heap) with KEY. Returns 0 or SKED_ENOMEM. */
int sked__heap_push(sked_heap *h, sked_heap_node *n, sked_time key);

/* Return the node with the smallest key, or NULL when H is empty. */
sked_heap_node *sked__heap_min(const sked_heap *h);

/* Remove and return the smallest node, or NULL when H is empty. */
sked_heap_node *sked__heap_pop(sked_heap *h);

/* Remove N from H; a node not in the heap is left alone. */
void sked__heap_remove(sked_heap *h, sked_heap_node *n);

/* Change N's key to KEY (up or down) and restore the order. N must be in
 * H. */
void sked__heap_update(sked_heap *h, sked_heap_node *n, sked_time key);

/* Tell whether N is in a heap. */
bool sked__heap_contains(const sked_heap_node *n);

/* Return the number of nodes in H. */
size_t sked__heap_size(const sked_heap *h);

#endif
