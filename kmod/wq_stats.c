// SPDX-License-Identifier: GPL-2.0
/*
 * Statistics: filling struct wq_queue_info. See wq_stats.h.
 */
#include "wq_stats.h"

/**
 * kwq_stats_fill() - the counters of a queue, for WQ_IOC_STAT and LIST
 * @q: the queue
 * @info: filled in, except @info->name, uid, gid and mode
 *
 * Context: any context.
 */
void kwq_stats_fill(struct kwq *q, struct wq_queue_info *info)
{
	unsigned long flags;

	spin_lock_irqsave(&q->lock, flags);
	if (q->shutting_down)
		info->state |= WQ_STATE_SHUTTING_DOWN;
	if (q->nr_drainers)
		info->state |= WQ_STATE_DRAINING;
	info->max_items = q->max_items;
	info->queued = q->nr_queued;
	info->processing = q->nr_processing;
	info->dirty = q->nr_dirty;
	info->keys = q->nr_held;
	info->waiting = kwq_heap_len(&q->waiting);
	info->tracked = q->nr_tracked;
	info->max_tracked = q->max_tracked;
	info->evicted = q->evicted;
	info->limiter = q->limiter.desc;
	info->adds = q->adds;
	info->retries = q->retries;
	spin_unlock_irqrestore(&q->lock, flags);
	info->handles = atomic_read(&q->handles);
}
