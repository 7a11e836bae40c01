// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite of the ready keys' priority levels (wq_ready.c): Get's order
 * (higher first, FIFO within a level), a raise to the tail of its level,
 * the oldest first once starved, the levels' lifetime by references, and
 * the depth by level of the metrics. On a queue made here, with records
 * the test owns; wq_ready.c is compiled into this module.
 */
#include <kunit/test.h>
#include <linux/delay.h>
#include <linux/slab.h>

#include "../wq_ready.c"
#include "wq_kunit.h"

/*
 * The budget the levels are charged to (wq_quota.c is not in this module):
 * bytes charged now, and a limit to refuse beyond.
 */
static long ready_charged, ready_budget = LONG_MAX;

bool wq_quota_charge_bytes(struct wq_user *u, bool unlimited, long bytes)
{
	if (!unlimited && ready_charged + bytes > ready_budget)
		return false;
	ready_charged += bytes;
	return true;
}

void wq_quota_uncharge_bytes(struct wq_user *u, long bytes)
{
	ready_charged -= bytes;
}

static struct kwq *ready_queue(struct kunit *test, u64 starve_ns)
{
	struct kwq *q = kunit_kzalloc(test, sizeof(*q), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, q);
	spin_lock_init(&q->lock);
	kwq_ready_init(q, true, starve_ns);
	return q;
}

static struct kwq_item *ready_items(struct kunit *test, int n)
{
	struct kwq_item *it = kunit_kcalloc(test, n, sizeof(*it), GFP_KERNEL);
	int i;

	KUNIT_ASSERT_NOT_NULL(test, it);
	for (i = 0; i < n; i++) {
		INIT_LIST_HEAD(&it[i].link);
		INIT_LIST_HEAD(&it[i].run);
	}
	return it;
}

/*
 * An add at @prio: make its level, give it to @it (held from now on) and
 * queue @it unless it is processing.
 */
static void ready_add(struct kunit *test, struct kwq *q, struct kwq_item *it,
		      s32 prio)
{
	struct kwq_level *spare = kwq_level_alloc(GFP_KERNEL);
	bool made;

	spin_lock_irq(&q->lock);
	made = !kwq_level_prepare_locked(q, prio, &spare, false);
	kwq_prio_add_locked(q, it, it->flags & KWQ_ITEM_HELD, prio);
	kwq_level_trim_locked(q, prio);
	if (!(it->flags & (KWQ_ITEM_QUEUED | KWQ_ITEM_PROCESSING))) {
		it->flags |= KWQ_ITEM_QUEUED;
		kwq_ready_push_locked(q, it, false);
	}
	spin_unlock_irq(&q->lock);
	kfree(spare);
	KUNIT_EXPECT_TRUE(test, made);
}

/* Get's next record, off the ready set and no longer held. */
static struct kwq_item *ready_take(struct kwq *q)
{
	struct kwq_item *it;

	spin_lock_irq(&q->lock);
	it = kwq_ready_first_locked(q);
	if (it) {
		kwq_ready_del_locked(q, it);
		it->flags &= ~KWQ_ITEM_QUEUED;
		kwq_prio_unhold_locked(q, it);
	}
	spin_unlock_irq(&q->lock);
	return it;
}

static unsigned int ready_nr_levels(struct kwq *q)
{
	unsigned int n = 0;
	struct rb_node *r;

	for (r = rb_first(&q->levels); r; r = rb_next(r))
		n++;
	return n;
}

/* Higher first, FIFO within a level; no level left once all are taken. */
static void ready_order_by_level_then_fifo(struct kunit *test)
{
	const int n = 300;
	struct kwq *q = ready_queue(test, 0);
	struct kwq_item *it = ready_items(test, n), *got;
	s32 last_prio = S32_MAX;
	long last = -1;
	int i;

	for (i = 0; i < n; i++)
		ready_add(test, q, &it[i], (i * 7) % 13 - 6);
	KUNIT_EXPECT_EQ(test, 13U, ready_nr_levels(q));
	KUNIT_EXPECT_EQ(test, 13U, q->nr_depth);
	for (i = 0; i < n; i++) {
		got = ready_take(q);
		KUNIT_ASSERT_NOT_NULL(test, got);
		KUNIT_EXPECT_LE(test, got->prio, last_prio);
		if (got->prio == last_prio)
			KUNIT_EXPECT_GT(test, (long)(got - it), last);
		last_prio = got->prio;
		last = got - it;
	}
	KUNIT_EXPECT_NULL(test, ready_take(q));
	KUNIT_EXPECT_TRUE(test, RB_EMPTY_ROOT(&q->levels));
	KUNIT_EXPECT_EQ(test, 0U, q->nr_depth);
	KUNIT_EXPECT_NOT_NULL(test, q->spare_level);	/* one kept */
	kwq_ready_destroy(q);
}

/* A raise goes to the tail of its new level; a lower add changes nothing. */
static void ready_raise_to_the_tail(struct kunit *test)
{
	struct kwq *q = ready_queue(test, 0);
	struct kwq_item *it = ready_items(test, 3);

	ready_add(test, q, &it[0], 1);
	ready_add(test, q, &it[1], 5);
	ready_add(test, q, &it[2], 1);
	ready_add(test, q, &it[0], 5);	/* raise */
	ready_add(test, q, &it[2], -4);	/* kept at 1 */
	KUNIT_EXPECT_EQ(test, 2U, ready_nr_levels(q));
	KUNIT_EXPECT_PTR_EQ(test, &it[1], ready_take(q));
	KUNIT_EXPECT_PTR_EQ(test, &it[0], ready_take(q));
	KUNIT_EXPECT_PTR_EQ(test, &it[2], ready_take(q));
	KUNIT_EXPECT_EQ(test, 1, it[2].prio);
	kwq_ready_destroy(q);
}

/* Once older than starve_ns, the oldest ready key goes first. */
static void ready_starved_oldest_first(struct kunit *test)
{
	struct kwq *q = ready_queue(test, 1000);	/* 1 us */
	struct kwq *p = ready_queue(test, 0);
	struct kwq_item *it = ready_items(test, 4);

	ready_add(test, q, &it[0], -1);
	ready_add(test, q, &it[1], 9);
	udelay(5);
	KUNIT_EXPECT_PTR_EQ(test, &it[0], ready_take(q));
	KUNIT_EXPECT_PTR_EQ(test, &it[1], ready_take(q));
	ready_add(test, p, &it[2], -1);
	ready_add(test, p, &it[3], 9);
	udelay(5);
	KUNIT_EXPECT_PTR_EQ(test, &it[3], ready_take(p));	/* no bound */
	KUNIT_EXPECT_PTR_EQ(test, &it[2], ready_take(p));
	kwq_ready_destroy(q);
	kwq_ready_destroy(p);
}

/*
 * A processing record holds its hand-out level and the one it is queued
 * again at; the first add while processing sets the latter, later ones
 * only raise it; the end of processing and the unhold free both.
 */
static void ready_levels_live_by_references(struct kunit *test)
{
	struct kwq *q = ready_queue(test, 0);
	struct kwq_item *it = ready_items(test, 1);
	struct kwq_level *none = NULL, *spare;
	bool made, gone8, empty, empty_again;
	u32 refs;

	ready_add(test, q, it, 8);
	spin_lock_irq(&q->lock);
	kwq_ready_take_locked(q, it);
	it->flags = KWQ_ITEM_PROCESSING;
	refs = kwq_level_find_locked(q, 8)->refs;
	spare = q->spare_level;
	made = !kwq_level_prepare_locked(q, 3, &none, false);	/* no memory */
	spin_unlock_irq(&q->lock);
	KUNIT_EXPECT_EQ(test, 8, it->prio_out);
	KUNIT_EXPECT_EQ(test, 2U, refs);
	KUNIT_EXPECT_NULL(test, spare);
	KUNIT_EXPECT_FALSE(test, made);
	ready_add(test, q, it, 3);	/* first add: sets 3 (lower) */
	KUNIT_EXPECT_EQ(test, 3, it->prio);
	ready_add(test, q, it, 2);	/* then only raises */
	KUNIT_EXPECT_EQ(test, 3, it->prio);
	KUNIT_EXPECT_EQ(test, 2U, ready_nr_levels(q));
	spin_lock_irq(&q->lock);
	kwq_prio_end_locked(q, it);
	gone8 = !kwq_level_find_locked(q, 8);
	it->flags = 0;
	kwq_prio_unhold_locked(q, it);
	empty = RB_EMPTY_ROOT(&q->levels);
	/* a level made and not taken goes back */
	made = !kwq_level_prepare_locked(q, 4, NULL, false);
	kwq_level_trim_locked(q, 4);
	empty_again = RB_EMPTY_ROOT(&q->levels);
	spin_unlock_irq(&q->lock);
	KUNIT_EXPECT_TRUE(test, gone8);
	KUNIT_EXPECT_TRUE(test, empty);
	KUNIT_EXPECT_TRUE(test, made);
	KUNIT_EXPECT_TRUE(test, empty_again);
	kwq_ready_destroy(q);
}

/* The depth by level: the first max - 1, and the rest in the last. */
static void ready_depth_by_level(struct kunit *test)
{
	struct kwq *q = ready_queue(test, 0);
	struct kwq_item *it = ready_items(test, 12);
	struct wq_level_info l[3];
	unsigned int n;
	u32 summed;
	int i;

	for (i = 0; i < 12; i++)
		ready_add(test, q, &it[i], i / 2);	/* 6 levels of 2 */
	q->nr_queued = 12;
	spin_lock_irq(&q->lock);
	n = kwq_ready_levels_locked(q, l, 3, &summed);
	spin_unlock_irq(&q->lock);
	KUNIT_EXPECT_EQ(test, 3U, n);
	KUNIT_EXPECT_EQ(test, 5, l[0].priority);
	KUNIT_EXPECT_EQ(test, 2ULL, l[0].depth);
	KUNIT_EXPECT_EQ(test, 4, l[1].priority);
	KUNIT_EXPECT_EQ(test, 3, l[2].priority);
	KUNIT_EXPECT_EQ(test, 8ULL, l[2].depth);
	KUNIT_EXPECT_EQ(test, 4U, summed);
	kwq_ready_destroy(q);
}

/*
 * Make the level of 1, then ask for the level of 2 without and with
 * CAP_SYS_RESOURCE; give both back. The three results in @r.
 */
static void ready_charge_round(struct kwq *q, struct kwq_level **spare,
			       int r[3])
{
	spin_lock_irq(&q->lock);
	r[0] = kwq_level_prepare_locked(q, 1, spare, false);
	r[1] = kwq_level_prepare_locked(q, 2, spare, false);
	r[2] = kwq_level_prepare_locked(q, 2, spare, true);
	kwq_level_trim_locked(q, 1);
	kwq_level_trim_locked(q, 2);
	spin_unlock_irq(&q->lock);
}

/* Levels are charged to the owner's budget, refused beyond it. */
static void ready_levels_charged(struct kunit *test)
{
	struct kwq *q = ready_queue(test, 0);
	struct kwq_level *spare = kwq_level_alloc(GFP_KERNEL);
	int r[3];

	KUNIT_ASSERT_NOT_NULL(test, spare);
	ready_charged = 0;
	ready_budget = KWQ_LEVEL_COST;
	ready_charge_round(q, &spare, r);	/* one level's memory */
	KUNIT_EXPECT_EQ(test, 0, r[0]);
	KUNIT_EXPECT_EQ(test, -ENOMEM, r[1]);	/* no memory comes first */
	KUNIT_EXPECT_EQ(test, -ENOMEM, r[2]);
	spare = kwq_level_alloc(GFP_KERNEL);	/* and the queue's spare */
	KUNIT_ASSERT_NOT_NULL(test, spare);
	ready_charge_round(q, &spare, r);
	KUNIT_EXPECT_EQ(test, 0, r[0]);
	KUNIT_EXPECT_EQ(test, -EDQUOT, r[1]);
	KUNIT_EXPECT_EQ(test, 0, r[2]);		/* CAP_SYS_RESOURCE */
	KUNIT_EXPECT_EQ(test, 0L, ready_charged);
	KUNIT_EXPECT_EQ(test, 0L, q->charged);
	ready_budget = LONG_MAX;
	kfree(spare);
	kwq_ready_destroy(q);
}

static struct kunit_case wq_ready_cases[] = {
	KUNIT_CASE(ready_order_by_level_then_fifo),
	KUNIT_CASE(ready_raise_to_the_tail),
	KUNIT_CASE(ready_starved_oldest_first),
	KUNIT_CASE(ready_levels_live_by_references),
	KUNIT_CASE(ready_depth_by_level),
	KUNIT_CASE(ready_levels_charged),
	{}
};

struct kunit_suite wq_ready_suite = {
	.name = "wq-ready",
	.test_cases = wq_ready_cases,
};
