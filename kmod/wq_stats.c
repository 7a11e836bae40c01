// SPDX-License-Identifier: GPL-2.0
/*
 * Statistics: the one snapshot of a queue's numbers, and struct
 * wq_queue_info made of it (WQ_IOC_STAT, LIST, debugfs). See wq_stats.h.
 */
#include <linux/cred.h>
#include <linux/string.h>

#include "wq_metrics.h"
#include "wq_stats.h"

/**
 * kwq_counts_locked() - a queue's numbers at this moment
 * @q: the queue (q->lock held: the caller's one hold for everything it
 *	reports)
 * @c: filled in
 * @ages: also the ages of the processing keys (one clock read)
 */
void kwq_counts_locked(struct kwq *q, struct kwq_counts *c, bool ages)
{
	struct kwq_item *oldest;
	u64 now;

	lockdep_assert_held(&q->lock);
	c->state = (q->shutting_down ? WQ_STATE_SHUTTING_DOWN : 0) |
		   (q->nr_drainers ? WQ_STATE_DRAINING : 0);
	c->queued = q->nr_queued;
	c->processing = q->nr_processing;
	c->dirty = q->nr_dirty;
	c->held = q->nr_held;
	c->waiting = kwq_heap_len(&q->waiting);
	c->tracked = q->nr_tracked;
	c->adds = q->adds;
	c->retries = q->retries;
	c->evicted = q->evicted;
	c->refused = q->metrics.refused;
	c->requeued_on_close = q->metrics.requeued_on_close;
	c->discarded = q->metrics.discarded;
	c->unfinished_work_ns = 0;
	c->longest_running_ns = 0;
	if (!ages)
		return;
	now = kwq_metrics_now();
	c->unfinished_work_ns = (u64)q->nr_processing * now - q->start_sum;
	oldest = list_first_entry_or_null(&q->running, struct kwq_item, run);
	c->longest_running_ns = oldest ? now - oldest->start_ns : 0;
}

/**
 * kwq_stats_fill() - the numbers of a queue, for WQ_IOC_STAT and LIST
 * @q: the queue
 * @info: filled in, except @info->name, uid, gid, mode and the
 *	WQ_STATE_UNLINKED bit
 *
 * Context: any context.
 */
void kwq_stats_fill(struct kwq *q, struct wq_queue_info *info)
{
	struct kwq_counts c;
	unsigned long flags;

	spin_lock_irqsave(&q->lock, flags);
	kwq_counts_locked(q, &c, false);
	spin_unlock_irqrestore(&q->lock, flags);
	info->state |= c.state;
	info->queued = c.queued;
	info->processing = c.processing;
	info->dirty = c.dirty;
	info->keys = c.held;
	info->waiting = c.waiting;
	info->tracked = c.tracked;
	info->evicted = c.evicted;
	info->adds = c.adds;
	info->retries = c.retries;
	/* set at creation, never changed */
	info->max_items = q->max_items;
	info->max_tracked = q->max_tracked;
	info->limiter = q->limiter.desc;
	info->handles = atomic_read(&q->handles);
	info->id = q->id;
}

/**
 * wq_queue_info_fill() - everything WQ_IOC_STAT and LIST report of a queue
 * @q: the queue
 * @info: zeroed by the caller, filled in
 *
 * Context: process context.
 */
void wq_queue_info_fill(struct kwq *q, struct wq_queue_info *info)
{
	struct user_namespace *ns = current_user_ns();

	memcpy(info->name, q->name, WQ_NAME_MAX);
	if (!q->name[0])
		info->state |= WQ_STATE_PRIVATE;
	if (q->prio)
		info->state |= WQ_STATE_PRIORITY;
	info->uid = from_kuid_munged(ns, q->uid);
	info->gid = from_kgid_munged(ns, q->gid);
	info->mode = q->mode;
	if (READ_ONCE(q->unlinked))
		info->state |= WQ_STATE_UNLINKED;
	kwq_stats_fill(q, info);
}
