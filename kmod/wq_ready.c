// SPDX-License-Identifier: GPL-2.0
/*
 * The ready keys in Get's order: client-go's FIFO, or controller-runtime's
 * priorities with a bound on starvation. See wq_ready.h; the rules are in
 * wq_queue.h.
 */
#include <linux/sched.h>
#include <linux/slab.h>

#include "wq_quota.h"
#include "wq_ready.h"

/* What a level costs its queue's owner (wq_quota.h), as a record does. */
#define KWQ_LEVEL_COST	((long)sizeof(struct kwq_level))

/**
 * kwq_ready_init() - an empty ready set
 * @q: the queue being made
 * @prio: hand out by priority (WQ_CREATE_PRIORITY)
 * @starve_ns: with @prio: the age after which a ready key goes first; 0
 *	for never
 */
void kwq_ready_init(struct kwq *q, bool prio, u64 starve_ns)
{
	INIT_LIST_HEAD(&q->fifo);
	q->prio = prio;
	q->starve_ns = prio ? starve_ns : 0;
	q->levels = RB_ROOT;
	q->ready = RB_ROOT_CACHED;
	q->depth = RB_ROOT;
	q->nr_depth = 0;
	q->spare_level = NULL;
}

/**
 * kwq_ready_destroy() - free every level of a queue being freed
 * @q: the queue, with no user left (its records are freed apart, and its
 *	charge given back with theirs: kwq_record_free_all())
 *
 * Context: process context; sleeps (a queue may have many levels).
 */
void kwq_ready_destroy(struct kwq *q)
{
	struct kwq_level *l, *tmp;
	unsigned int n = 0;

	rbtree_postorder_for_each_entry_safe(l, tmp, &q->levels, node) {
		kfree(l);
		if (!(++n % KWQ_BATCH))
			cond_resched();
	}
	q->levels = RB_ROOT;
	kfree(q->spare_level);
	q->spare_level = NULL;
}

/**
 * kwq_level_alloc() - memory for a level an add may need
 * @gfp: how the caller may allocate (GFP_KERNEL_ACCOUNT for userspace)
 *
 * Context: any context @gfp allows; not under q->lock.
 * Return: the level, or NULL.
 */
struct kwq_level *kwq_level_alloc(gfp_t gfp)
{
	return kmalloc(sizeof(struct kwq_level), gfp | __GFP_NOWARN);
}

static struct kwq_level *kwq_level_find_locked(struct kwq *q, s32 prio)
{
	struct rb_node *n = q->levels.rb_node;

	while (n) {
		struct kwq_level *l = rb_entry(n, struct kwq_level, node);

		if (prio == l->prio)
			return l;
		n = prio < l->prio ? n->rb_left : n->rb_right;
	}
	return NULL;
}

/* The level of @prio, which a record refers to: it exists. */
static struct kwq_level *kwq_level_of_locked(struct kwq *q, s32 prio)
{
	struct kwq_level *l = kwq_level_find_locked(q, prio);

	WARN_ON_ONCE(!l);
	return l;
}

/**
 * kwq_level_prepare_locked() - make sure the level of @prio exists
 * @q: a priority queue (q->lock held)
 * @prio: the priority an add is about to give a record
 * @spare: a level from kwq_level_alloc(), or NULL; set to NULL if it
 *	became the new level
 * @unlimited: the adder has CAP_SYS_RESOURCE (wq_quota.h)
 *
 * A new level starts with no reference: the add takes one
 * (__kwq_prio_add_locked()), or gives it back with kwq_level_trim_locked()
 * if it fails. It is charged to the queue's owner as a record is, so a
 * budget bounds the levels a user's keys make (at most two a key).
 *
 * Return: 0 if the level exists; -ENOMEM if it needs memory (drop the
 * lock, kwq_level_alloc(), try again); -EDQUOT if it would exceed the
 * owner's budget.
 */
int kwq_level_prepare_locked(struct kwq *q, s32 prio,
			     struct kwq_level **spare, bool unlimited)
{
	struct rb_node **p = &q->levels.rb_node, *parent = NULL;
	struct kwq_level *l;

	lockdep_assert_held(&q->lock);
	while (*p) {
		l = rb_entry(*p, struct kwq_level, node);
		if (prio == l->prio)
			return 0;
		parent = *p;
		p = prio < l->prio ? &(*p)->rb_left : &(*p)->rb_right;
	}
	if (!q->spare_level && !(spare && *spare))
		return -ENOMEM;
	if (!wq_quota_charge_bytes(q->owner, unlimited, KWQ_LEVEL_COST))
		return -EDQUOT;
	q->charged += KWQ_LEVEL_COST;
	if (q->spare_level) {
		l = q->spare_level;
		q->spare_level = NULL;
	} else {
		l = *spare;
		*spare = NULL;
	}
	memset(l, 0, sizeof(*l));
	INIT_LIST_HEAD(&l->fifo);
	RB_CLEAR_NODE(&l->ready_node);
	RB_CLEAR_NODE(&l->depth_node);
	l->prio = prio;
	rb_link_node(&l->node, parent, p);
	rb_insert_color(&l->node, &q->levels);
	return 0;
}

/* Free @l, which nothing refers to any more (keep one spare, uncharged). */
static void kwq_level_free_locked(struct kwq *q, struct kwq_level *l)
{
	WARN_ON_ONCE(l->nr_queued || l->nr_dirty);
	rb_erase(&l->node, &q->levels);
	q->charged -= KWQ_LEVEL_COST;
	wq_quota_uncharge_bytes(q->owner, KWQ_LEVEL_COST);
	if (!q->spare_level)
		q->spare_level = l;
	else
		kfree(l);
}

/**
 * kwq_level_trim_locked() - drop the level of @prio if nothing refers to it
 * @q: a priority queue (q->lock held)
 * @prio: a priority kwq_level_prepare_locked() made a level for
 */
void kwq_level_trim_locked(struct kwq *q, s32 prio)
{
	struct kwq_level *l = kwq_level_find_locked(q, prio);

	if (l && !l->refs)
		kwq_level_free_locked(q, l);
}

static void kwq_level_get(struct kwq_level *l)
{
	l->refs++;
}

static void kwq_level_put_locked(struct kwq *q, struct kwq_level *l)
{
	if (l && !WARN_ON_ONCE(!l->refs) && !--l->refs)
		kwq_level_free_locked(q, l);
}

/* The level sits in the depth tree while keys are queued or dirty at it. */
static void kwq_level_depth_locked(struct kwq *q, struct kwq_level *l)
{
	bool in = !RB_EMPTY_NODE(&l->depth_node);
	struct rb_node **p, *parent = NULL;

	if (in == !!(l->nr_queued + l->nr_dirty))
		return;
	if (in) {
		rb_erase(&l->depth_node, &q->depth);
		RB_CLEAR_NODE(&l->depth_node);
		q->nr_depth--;
		return;
	}
	p = &q->depth.rb_node;
	while (*p) {
		parent = *p;
		p = l->prio > rb_entry(parent, struct kwq_level,
				       depth_node)->prio ?
			&parent->rb_left : &parent->rb_right;
	}
	rb_link_node(&l->depth_node, parent, p);
	rb_insert_color(&l->depth_node, &q->depth);
	q->nr_depth++;
}

static bool kwq_level_higher(struct rb_node *a, const struct rb_node *b)
{
	return rb_entry(a, struct kwq_level, ready_node)->prio >
	       rb_entry(b, struct kwq_level, ready_node)->prio;
}

/* @item joins @l's FIFO (at the head to undo a get). */
static void kwq_level_push_locked(struct kwq *q, struct kwq_level *l,
				  struct kwq_item *item, bool head)
{
	if (list_empty(&l->fifo))
		rb_add_cached(&l->ready_node, &q->ready, kwq_level_higher);
	if (head)
		list_add(&item->run, &l->fifo);
	else
		list_add_tail(&item->run, &l->fifo);
	l->nr_queued++;
	kwq_level_depth_locked(q, l);
}

static void kwq_level_del_locked(struct kwq *q, struct kwq_level *l,
				 struct kwq_item *item)
{
	list_del_init(&item->run);
	l->nr_queued--;
	if (list_empty(&l->fifo)) {
		rb_erase_cached(&l->ready_node, &q->ready);
		RB_CLEAR_NODE(&l->ready_node);
	}
	kwq_level_depth_locked(q, l);
}

/**
 * __kwq_ready_push_locked() - @item becomes ready: queue it
 * @q: the queue (q->lock held)
 * @item: a record becoming QUEUED
 * @head: at the head (undoing a get) rather than the tail
 *
 * On a priority queue, at the tail of its level (item->prio); with
 * starve_ns its age starts now (at the head: as old as the head's).
 */
void __kwq_ready_push_locked(struct kwq *q, struct kwq_item *item, bool head)
{
	struct kwq_item *first;
	u64 now;

	lockdep_assert_held(&q->lock);
	if (q->starve_ns) {
		now = ktime_get_ns();
		first = list_first_entry_or_null(&q->fifo, struct kwq_item, link);
		if (head && first && first->start_ns < now)
			now = first->start_ns;
		item->start_ns = now;
	}
	if (head)
		list_add(&item->link, &q->fifo);
	else
		list_add_tail(&item->link, &q->fifo);
	kwq_level_push_locked(q, kwq_level_of_locked(q, item->prio), item,
			      head);
}

/**
 * __kwq_ready_first_locked() - the key Get hands out next
 * @q: the queue (q->lock held)
 *
 * The head of the FIFO; on a priority queue the oldest ready key if it has
 * waited longer than starve_ns, else the first of the highest level.
 *
 * Return: the record, or NULL if nothing is queued.
 */
struct kwq_item *__kwq_ready_first_locked(struct kwq *q)
{
	struct kwq_item *old;
	struct rb_node *n;

	lockdep_assert_held(&q->lock);
	old = list_first_entry_or_null(&q->fifo, struct kwq_item, link);
	if (!old)
		return old;
	if (q->starve_ns && ktime_get_ns() - old->start_ns > q->starve_ns)
		return old;
	n = rb_first_cached(&q->ready);
	if (WARN_ON_ONCE(!n))
		return old;
	return list_first_entry(&rb_entry(n, struct kwq_level,
					  ready_node)->fifo,
				struct kwq_item, run);
}

/**
 * __kwq_ready_del_locked() - @item leaves the ready set (a discard drops it)
 * @q: the queue (q->lock held)
 * @item: a QUEUED record
 */
void __kwq_ready_del_locked(struct kwq *q, struct kwq_item *item)
{
	lockdep_assert_held(&q->lock);
	list_del_init(&item->link);
	kwq_level_del_locked(q, kwq_level_of_locked(q, item->prio), item);
}

/* Move @item's reference, and its queued or dirty place, to @prio. */
static void kwq_prio_move_locked(struct kwq *q, struct kwq_item *item,
				 s32 prio)
{
	struct kwq_level *from = kwq_level_of_locked(q, item->prio);
	struct kwq_level *to = kwq_level_of_locked(q, prio);

	if (from == to || !to)
		return;
	kwq_level_get(to);
	if (item->flags & KWQ_ITEM_QUEUED) {
		kwq_level_del_locked(q, from, item);
		item->prio = prio;
		kwq_level_push_locked(q, to, item, false);
	} else if ((item->flags & KWQ_ITEM_DIRTY) && from) {
		from->nr_dirty--;
		to->nr_dirty++;
		kwq_level_depth_locked(q, from);
		kwq_level_depth_locked(q, to);
	}
	item->prio = prio;
	kwq_level_put_locked(q, from);
}

/**
 * __kwq_prio_add_locked() - an add gives @item a priority
 * @q: the queue (q->lock held)
 * @item: the record the add holds (kwq_accept_found_locked()), before the add
 *	gives it its state
 * @held: @item was held before this add
 * @prio: the add's priority (kwq_level_prepare_locked() made its level)
 *
 * A new key takes @prio. A held one keeps the higher of the two; a raise
 * moves it to the tail of its new level (its age unchanged). A processing
 * key's first add since it was handed out sets the priority it will be
 * queued again with at done, whichever is higher: the highest of the adds
 * made while it was processing. The caller gives back the level it made
 * for @prio if no key took it (kwq_level_trim_locked(), once it has added
 * every key of its hold).
 */
void __kwq_prio_add_locked(struct kwq *q, struct kwq_item *item, bool held,
			   s32 prio)
{
	lockdep_assert_held(&q->lock);
	if (!held) {
		item->prio = prio;
		kwq_level_get(kwq_level_of_locked(q, prio));
		return;
	}
	if ((item->flags & KWQ_ITEM_PROCESSING) &&
	    !(item->flags & KWQ_ITEM_PRIO_SET)) {
		item->flags |= KWQ_ITEM_PRIO_SET;
		kwq_prio_move_locked(q, item, prio);
	} else if (prio > item->prio) {
		kwq_prio_move_locked(q, item, prio);
	}
}

/**
 * __kwq_ready_take_locked() - Get hands @item out: off the ready set
 * @q: the queue (q->lock held)
 * @item: kwq_ready_first_locked(), QUEUED, about to be PROCESSING
 *
 * It is handed out with its priority (item->prio_out, referring to its
 * level until done); adds from now on set the one it is queued again with
 * (a queued key has no waiting copy on a priority queue: nothing else
 * holds that priority). O(1): the key is the first of the highest level,
 * unless it starved.
 */
void __kwq_ready_take_locked(struct kwq *q, struct kwq_item *item)
{
	struct rb_node *n = rb_first_cached(&q->ready);
	struct kwq_level *l = n ? rb_entry(n, struct kwq_level, ready_node) :
				  NULL;

	lockdep_assert_held(&q->lock);
	if (!l || l->prio != item->prio)	/* a starved key */
		l = kwq_level_of_locked(q, item->prio);
	list_del_init(&item->link);
	kwq_level_del_locked(q, l, item);
	item->prio_out = item->prio;
	kwq_level_get(l);
	item->flags &= ~KWQ_ITEM_PRIO_SET;
}

/**
 * __kwq_prio_put_back_locked() - a processing key goes back undone
 * @q: the queue (q->lock held)
 * @item: the record, still PROCESSING
 *
 * Its handle closed or its get was undone: it is queued again with the
 * higher of the priority it was handed out with and the adds' since.
 */
void __kwq_prio_put_back_locked(struct kwq *q, struct kwq_item *item)
{
	if (item->prio_out > item->prio)
		kwq_prio_move_locked(q, item, item->prio_out);
}

/**
 * __kwq_prio_end_locked() - @item stops processing
 * @q: the queue (q->lock held)
 * @item: the record, still PROCESSING (and DIRTY if it was)
 */
void __kwq_prio_end_locked(struct kwq *q, struct kwq_item *item)
{
	if (item->flags & KWQ_ITEM_DIRTY)
		__kwq_prio_dirty_locked(q, item, -1);
	item->flags &= ~KWQ_ITEM_PRIO_SET;
	kwq_level_put_locked(q, kwq_level_of_locked(q, item->prio_out));
}

/**
 * __kwq_prio_dirty_locked() - count a dirty mark at @item's level
 * @q: the queue (q->lock held)
 * @item: a PROCESSING record being marked dirty (+1) or ending (-1)
 * @delta: +1 or -1
 */
void __kwq_prio_dirty_locked(struct kwq *q, struct kwq_item *item, int delta)
{
	struct kwq_level *l;

	l = kwq_level_of_locked(q, item->prio);
	if (!l)
		return;
	l->nr_dirty += delta;
	kwq_level_depth_locked(q, l);
}

/**
 * __kwq_prio_unhold_locked() - @item is no longer held
 * @q: the queue (q->lock held)
 * @item: the record, with no held state left
 */
void __kwq_prio_unhold_locked(struct kwq *q, struct kwq_item *item)
{
	kwq_level_put_locked(q, kwq_level_of_locked(q, item->prio));
}

/**
 * kwq_ready_levels_locked() - the depth by priority, highest first
 * @q: the queue (q->lock held)
 * @l: out: up to @max levels; the last sums the levels beyond
 * @max: entries of @l, >= 1
 * @summed: out: how many levels the last entry sums (0: none)
 *
 * At most @max levels are visited (the depth tree holds only levels with a
 * depth); the sum of the rest is the total depth less theirs.
 *
 * Return: entries of @l used (0 on a plain queue, or after a discard).
 */
unsigned int kwq_ready_levels_locked(struct kwq *q, struct wq_level_info *l,
				     unsigned int max, u32 *summed)
{
	u64 total = (u64)q->nr_queued + q->nr_dirty, sum = 0;
	struct rb_node *n;
	unsigned int i = 0;

	lockdep_assert_held(&q->lock);
	*summed = 0;
	if (!q->prio || q->discarded || !max)
		return 0;
	for (n = rb_first(&q->depth); n && i < max; n = rb_next(n), i++) {
		struct kwq_level *lv = rb_entry(n, struct kwq_level,
						depth_node);

		l[i].priority = lv->prio;
		l[i].reserved = 0;
		l[i].depth = lv->nr_queued + lv->nr_dirty;
		sum += l[i].depth;
	}
	if (q->nr_depth > max) {
		*summed = q->nr_depth - (max - 1);
		l[max - 1].depth += total - sum;
	}
	return i;
}
