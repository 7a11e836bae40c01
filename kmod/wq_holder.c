// SPDX-License-Identifier: GPL-2.0
/*
 * Holders: the keys in processing that belong to one handle, put back on
 * the queue when the handle goes away, so a consumer that dies loses no
 * work (per open file: see the uapi header). Relies on wq_queue.h: the
 * PROCESSING state, holder->held under q->lock, and the rule that no hold
 * of q->lock grows with the queue (keys go back in batches).
 */
#include <linux/sched.h>

#include "wq_queue.h"

/**
 * kwq_holder_init() - prepare a holder (one per handle)
 * @holder: the holder
 */
void kwq_holder_init(struct kwq_holder *holder)
{
	INIT_LIST_HEAD(&holder->held);
	holder->in_order = false;
}

/* Keys put back per hold of q->lock when a holder goes away. */
#define KWQ_RELEASE_BATCH	64

/**
 * kwq_holder_release() - put every key the holder is processing back on
 * the queue (at the tail, dirty or not; also after shutdown)
 * @q: the queue
 * @holder: the holder; empty afterwards
 *
 * A handle may hold any number of keys: they go back KWQ_RELEASE_BATCH at
 * a time, so no hold of q->lock grows with them. Each key put back counts
 * in requeued_on_close_total (wq_metrics.h).
 *
 * Context: process context; may sleep.
 */
void kwq_holder_release(struct kwq *q, struct kwq_holder *holder)
{
	struct kwq_item *item, *tmp;
	unsigned int n, was;
	unsigned long flags;
	bool more;

	do {
		n = 0;
		spin_lock_irqsave(&q->lock, flags);
		was = q->nr_queued;
		list_for_each_entry_safe(item, tmp, &holder->held, link) {
			if (n++ == KWQ_RELEASE_BATCH)
				break;
			if (!q->discarded)	/* else dropped, not put back */
				q->metrics.requeued_on_close++;
			kwq_requeue_locked(q, item, false);
		}
		more = !list_empty(&holder->held);
		was = q->nr_queued - was;
		spin_unlock_irqrestore(&q->lock, flags);
		kwq_wake_getters(q, was);
		if (more)
			cond_resched();
	} while (more);
}
