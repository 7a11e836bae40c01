// SPDX-License-Identifier: GPL-2.0
/*
 * Statistics: filling struct wq_queue_info (the counters, and the whole
 * entry for WQ_IOC_STAT and LIST). See wq_stats.h.
 */
#include <linux/cred.h>
#include <linux/string.h>

#include "wq_registry.h"
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
	info->id = q->id;
}

/**
 * wq_registry_info() - everything WQ_IOC_STAT reports about a queue
 * @q: the queue
 * @info: zeroed by the caller, filled in
 *
 * Context: process context.
 */
void wq_registry_info(struct kwq *q, struct wq_queue_info *info)
{
	struct user_namespace *ns = current_user_ns();

	memcpy(info->name, q->name, WQ_NAME_MAX);
	info->uid = from_kuid_munged(ns, q->uid);
	info->gid = from_kgid_munged(ns, q->gid);
	info->mode = q->mode;
	if (READ_ONCE(q->unlinked))
		info->state |= WQ_STATE_UNLINKED;
	kwq_stats_fill(q, info);
}
