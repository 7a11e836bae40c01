/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The waiting heap of a queue: a binary min-heap of nodes ordered by ready
 * time (then by the order they were scheduled in), each node knowing its
 * index so that it can be moved earlier or removed in O(log n).
 *
 * The slots live in chunks of KWQ_HEAP_CHUNK pointers (one 4 KiB page)
 * reached through a directory sized once for the most nodes the heap may
 * hold. Growing is allocating one more chunk (kwq_heap_chunk_needed,
 * kwq_heap_add_chunk): nothing is ever copied or reallocated, and the heap
 * functions themselves never allocate, so they run in any context. The
 * caller allocates chunks outside its lock.
 *
 * Locking: none of its own; every function runs under the owner's lock.
 */
#ifndef _WQ_HEAP_H
#define _WQ_HEAP_H

#include <linux/errno.h>
#include <linux/types.h>

#define KWQ_HEAP_CHUNK		512	/* slots per chunk */

/**
 * struct kwq_heap_node - a member of the heap (embedded in a record)
 * @when: the ordering key (ready time, ns)
 * @seq: ties on @when are broken by this (scheduling order)
 * @index: position in the heap; meaningless while not in it
 *
 * @seq is 32 bits so that a node takes 16 bytes (one per record: part of
 * every key's memory). It is compared as a plain unsigned number,
 * so (@when, @seq) stays a total order the heap can rely on; after 2^32
 * schedulings it wraps, and nodes with equal @when scheduled across the
 * wrap leave in the wrong order among themselves. Only that tie order is
 * affected: a node never leaves before one with an earlier @when.
 */
struct kwq_heap_node {
	s64 when;
	u32 seq;
	u32 index;
};

/**
 * struct kwq_heap - the heap
 * @chunks: directory of @nr_chunks chunks (NULL where not allocated yet)
 * @nr_chunks: size of the directory
 * @len: nodes in the heap
 * @seq: next scheduling sequence number (wraps: see struct kwq_heap_node)
 */
struct kwq_heap {
	struct kwq_heap_node ***chunks;
	u32 nr_chunks;
	u32 len;
	u32 seq;
};

static inline u32 kwq_heap_chunks_for(u32 max_nodes)
{
	return max_nodes / KWQ_HEAP_CHUNK + !!(max_nodes % KWQ_HEAP_CHUNK);
}

static inline u32 kwq_heap_len(const struct kwq_heap *h)
{
	return h->len;
}

int kwq_heap_chunk_needed(const struct kwq_heap *h);
void kwq_heap_add_chunk(struct kwq_heap *h, u32 idx,
			struct kwq_heap_node **chunk);
struct kwq_heap_node *kwq_heap_peek(const struct kwq_heap *h);
void kwq_heap_push(struct kwq_heap *h, struct kwq_heap_node *n, s64 when);
void kwq_heap_remove(struct kwq_heap *h, struct kwq_heap_node *n);
struct kwq_heap_node *kwq_heap_pop(struct kwq_heap *h);
void kwq_heap_move_earlier(struct kwq_heap *h, struct kwq_heap_node *n,
			   s64 when);

#endif /* _WQ_HEAP_H */
