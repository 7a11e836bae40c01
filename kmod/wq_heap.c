// SPDX-License-Identifier: GPL-2.0
/*
 * The waiting heap: see wq_heap.h. Pure logic (no allocation, no locking,
 * no clock), built into the module and, against a tiny shim, into a host
 * unit test.
 */
#include "wq_heap.h"

static struct kwq_heap_node **kwq_slot(const struct kwq_heap *h, u32 i)
{
	return &h->chunks[i / KWQ_HEAP_CHUNK][i % KWQ_HEAP_CHUNK];
}

static bool kwq_before(const struct kwq_heap_node *a,
		       const struct kwq_heap_node *b)
{
	return a->when < b->when || (a->when == b->when && a->seq < b->seq);
}

static void kwq_place(struct kwq_heap *h, struct kwq_heap_node *n, u32 i)
{
	*kwq_slot(h, i) = n;
	n->index = i;
}

/* Move the node at @i towards the root while it is before its parent. */
static void kwq_sift_up(struct kwq_heap *h, u32 i)
{
	struct kwq_heap_node *n = *kwq_slot(h, i);

	while (i > 0) {
		u32 parent = (i - 1) / 2;
		struct kwq_heap_node *p = *kwq_slot(h, parent);

		if (!kwq_before(n, p))
			break;
		kwq_place(h, p, i);
		i = parent;
	}
	kwq_place(h, n, i);
}

/* Move the node at @i towards the leaves while a child is before it. */
static void kwq_sift_down(struct kwq_heap *h, u32 i)
{
	struct kwq_heap_node *n = *kwq_slot(h, i);

	for (;;) {
		u32 child = 2 * i + 1;
		struct kwq_heap_node *c;

		if (child >= h->len)
			break;
		c = *kwq_slot(h, child);
		if (child + 1 < h->len &&
		    kwq_before(*kwq_slot(h, child + 1), c)) {
			child++;
			c = *kwq_slot(h, child);
		}
		if (!kwq_before(c, n))
			break;
		kwq_place(h, c, i);
		i = child;
	}
	kwq_place(h, n, i);
}

/**
 * kwq_heap_chunk_needed() - which chunk must be added before the next push
 * @h: the heap
 *
 * Return: the directory index of the missing chunk, -1 if a push can go
 * ahead, or -ENOSPC if the heap is at its most nodes.
 */
int kwq_heap_chunk_needed(const struct kwq_heap *h)
{
	u32 idx = h->len / KWQ_HEAP_CHUNK;

	if (idx >= h->nr_chunks)
		return -ENOSPC;
	return h->chunks[idx] ? -1 : (int)idx;
}

/**
 * kwq_heap_add_chunk() - install a chunk of KWQ_HEAP_CHUNK slots
 * @h: the heap
 * @idx: from kwq_heap_chunk_needed()
 * @chunk: the slots; the heap owns them from now on
 */
void kwq_heap_add_chunk(struct kwq_heap *h, u32 idx,
			struct kwq_heap_node **chunk)
{
	h->chunks[idx] = chunk;
}

/**
 * kwq_heap_peek() - the first node
 * @h: the heap
 *
 * Return: the node with the smallest (when, seq), or NULL if empty.
 */
struct kwq_heap_node *kwq_heap_peek(const struct kwq_heap *h)
{
	return h->len ? *kwq_slot(h, 0) : NULL;
}

/**
 * kwq_heap_push() - add a node
 * @h: the heap; kwq_heap_chunk_needed() must have returned -1
 * @n: a node not in the heap
 * @when: its ordering key
 */
void kwq_heap_push(struct kwq_heap *h, struct kwq_heap_node *n, s64 when)
{
	n->when = when;
	n->seq = h->seq++;
	kwq_place(h, n, h->len++);
	kwq_sift_up(h, n->index);
}

/**
 * kwq_heap_remove() - take a node out of the heap
 * @h: the heap
 * @n: a node in the heap
 */
void kwq_heap_remove(struct kwq_heap *h, struct kwq_heap_node *n)
{
	u32 i = n->index;
	struct kwq_heap_node *last = *kwq_slot(h, --h->len);

	if (last == n)
		return;
	kwq_place(h, last, i);
	if (i > 0 && kwq_before(last, *kwq_slot(h, (i - 1) / 2)))
		kwq_sift_up(h, i);
	else
		kwq_sift_down(h, i);
}

/**
 * kwq_heap_pop() - take the first node out
 * @h: the heap
 *
 * Return: the node, or NULL if empty.
 */
struct kwq_heap_node *kwq_heap_pop(struct kwq_heap *h)
{
	struct kwq_heap_node *n = kwq_heap_peek(h);

	if (n)
		kwq_heap_remove(h, n);
	return n;
}

/**
 * kwq_heap_move_earlier() - give a node an earlier key
 * @h: the heap
 * @n: a node in the heap
 * @when: the new key, earlier than n->when (else nothing changes)
 *
 * The node is ordered as if scheduled now among nodes with the same key.
 */
void kwq_heap_move_earlier(struct kwq_heap *h, struct kwq_heap_node *n,
			   s64 when)
{
	if (when >= n->when)
		return;
	n->when = when;
	n->seq = h->seq++;
	kwq_sift_up(h, n->index);
}
