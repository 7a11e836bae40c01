/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The ready keys: the order Get hands them out in. A plain queue is
 * client-go's FIFO, q->fifo. A priority queue (WQ_CREATE_PRIORITY) is
 * controller-runtime's priority queue: higher priority first, equal ones
 * in the order they became ready, and, with q->starve_ns, the oldest key
 * first once it has waited longer than that.
 *
 * A priority queue keeps q->fifo too, as the order keys became ready in
 * (item->link; a raise does not move a key there), and one level per
 * priority in use (struct kwq_level): a FIFO of its queued keys
 * (item->run), in an rbtree of levels by priority (q->levels) and, while
 * not empty, in a second one whose leftmost is the highest (q->ready).
 * Get is O(1) (the leftmost level's first key, or q->fifo's first when it
 * starved), Add O(log L) in the number of levels.
 *
 * A level lives while a record refers to it: every held record by its
 * priority (item->prio) and every processing record also by the priority
 * it was handed out with (item->prio_out). So a key that becomes ready
 * with no add (its delay fires, it is queued again at done or put back)
 * always finds its level; only an add makes levels, from memory allocated
 * outside q->lock (kwq_level_alloc()), handed in as kwq_item records are.
 * Levels are at most two per key held, and one freed level is kept spare.
 *
 * Relies on wq_queue.h (q->lock, the record states). Every *_locked
 * function needs q->lock held.
 */
#ifndef _WQ_READY_H
#define _WQ_READY_H

#include <linux/rbtree.h>

#include "wq_queue.h"

/**
 * struct kwq_level - the keys of one priority
 * @node: in q->levels by @prio
 * @ready_node: in q->ready while @fifo is not empty (highest leftmost)
 * @depth_node: in q->depth while @nr_queued + @nr_dirty > 0
 * @fifo: QUEUED records of this priority by item->run, in order
 * @prio: the priority
 * @refs: records that refer to the level (see above)
 * @nr_queued: records on @fifo
 * @nr_dirty: PROCESSING|DIRTY records to be queued at it at done
 */
struct kwq_level {
	struct rb_node node;
	struct rb_node ready_node;
	struct rb_node depth_node;
	struct list_head fifo;
	s32 prio;
	u32 refs;
	u32 nr_queued;
	u32 nr_dirty;
};

void kwq_ready_init(struct kwq *q, bool prio, u64 starve_ns);
void kwq_ready_destroy(struct kwq *q);

struct kwq_level *kwq_level_alloc(gfp_t gfp);
int kwq_level_prepare_locked(struct kwq *q, s32 prio,
			     struct kwq_level **spare, bool unlimited);
void kwq_level_trim_locked(struct kwq *q, s32 prio);

/*
 * The calls of the queue's hot paths: a plain queue's FIFO inline, a
 * priority queue's levels in wq_ready.c (each __ function's kernel-doc
 * there). A plain queue pays one test of q->prio per call.
 */
void __kwq_ready_push_locked(struct kwq *q, struct kwq_item *item, bool head);
struct kwq_item *__kwq_ready_first_locked(struct kwq *q);
void __kwq_ready_del_locked(struct kwq *q, struct kwq_item *item);
void __kwq_prio_add_locked(struct kwq *q, struct kwq_item *item, bool held,
			   s32 prio);
void __kwq_ready_take_locked(struct kwq *q, struct kwq_item *item);
void __kwq_prio_put_back_locked(struct kwq *q, struct kwq_item *item);
void __kwq_prio_end_locked(struct kwq *q, struct kwq_item *item);
void __kwq_prio_unhold_locked(struct kwq *q, struct kwq_item *item);
void __kwq_prio_dirty_locked(struct kwq *q, struct kwq_item *item,
			     int delta);

/* @item becomes ready: queued at the tail (the head, undoing a get). */
static inline void kwq_ready_push_locked(struct kwq *q, struct kwq_item *item,
					 bool head)
{
	if (q->prio)
		__kwq_ready_push_locked(q, item, head);
	else if (head)
		list_add(&item->link, &q->fifo);
	else
		list_add_tail(&item->link, &q->fifo);
}

/* The key Get hands out next, or NULL. */
static inline struct kwq_item *kwq_ready_first_locked(struct kwq *q)
{
	if (q->prio)
		return __kwq_ready_first_locked(q);
	return list_first_entry_or_null(&q->fifo, struct kwq_item, link);
}

/* @item (QUEUED) leaves the ready set: dropped (a discard). */
static inline void kwq_ready_del_locked(struct kwq *q, struct kwq_item *item)
{
	if (q->prio)
		__kwq_ready_del_locked(q, item);
	else
		list_del_init(&item->link);
}

/* An add at @prio of @item (@held: held before the add). */
static inline void kwq_prio_add_locked(struct kwq *q, struct kwq_item *item,
				       bool held, s32 prio)
{
	if (q->prio)
		__kwq_prio_add_locked(q, item, held, prio);
}

/*
 * Will an add at @prio of @item (NULL: a new key) give it @prio, so that
 * the level must exist (kwq_level_prepare_locked())? A new or idle key,
 * a processing one's first add since its get, or a raise.
 */
static inline bool kwq_prio_takes(const struct kwq *q,
				  const struct kwq_item *item, s32 prio)
{
	if (!q->prio)
		return false;
	if (!item || !(item->flags & KWQ_ITEM_HELD))
		return true;
	if ((item->flags & KWQ_ITEM_PROCESSING) &&
	    !(item->flags & KWQ_ITEM_PRIO_SET))
		return true;
	return prio > item->prio;
}

/* Get hands @item (kwq_ready_first_locked()) out: off the ready set. */
static inline void kwq_ready_take_locked(struct kwq *q, struct kwq_item *item)
{
	if (q->prio)
		__kwq_ready_take_locked(q, item);
	else
		list_del_init(&item->link);
}

/* @item, processing, goes back undone. */
static inline void kwq_prio_put_back_locked(struct kwq *q,
					    struct kwq_item *item)
{
	if (q->prio)
		__kwq_prio_put_back_locked(q, item);
}

/* @item stops processing. */
static inline void kwq_prio_end_locked(struct kwq *q, struct kwq_item *item)
{
	if (q->prio)
		__kwq_prio_end_locked(q, item);
}

/* @item is no longer held. */
static inline void kwq_prio_unhold_locked(struct kwq *q,
					  struct kwq_item *item)
{
	if (q->prio)
		__kwq_prio_unhold_locked(q, item);
}

/* @item, processing, is marked dirty (+1) or ends dirty (-1). */
static inline void kwq_prio_dirty_locked(struct kwq *q, struct kwq_item *item,
					 int delta)
{
	if (q->prio)
		__kwq_prio_dirty_locked(q, item, delta);
}

unsigned int kwq_ready_levels_locked(struct kwq *q, struct wq_level_info *l,
				     unsigned int max, u32 *summed);

#endif /* _WQ_READY_H */
