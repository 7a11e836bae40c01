// SPDX-License-Identifier: GPL-2.0
/*
 * The end of a queue: ShutDown, ShutDownWithDrain (a real drain) and the
 * discarding shutdown of job queues ("cancel: exit now"). See wq_queue.h
 * for the record states and the locking rules; this file relies on all of
 * them, and does bounded work per hold of q->lock.
 */
#include <linux/sched.h>

#include "wq_delay.h"
#include "wq_queue.h"
#include "wq_ready.h"
#include "wq_record.h"
#include "wq_trace.h"

/* After a shutdown: consumers, producers and drains look again. */
static void kwq_wake_all(struct kwq *q)
{
	wake_up_all(&q->getters);
	wake_up_all(&q->producers);
	wake_up_all(&q->drainers);
}

/**
 * kwq_queue_shutdown() - ShutDown: refuse new keys, wake every waiter
 * @q: the queue
 *
 * Queued keys are still handed out; waiting (AddAfter) keys are dropped:
 * a bounded batch at once, the rest by q->drop_work (or by the caller,
 * with kwq_delay_drop_all(), where it may sleep). Every drain waiting at
 * this moment returns -ECANCELED (0 if the queue is drained by then).
 * Idempotent.
 *
 * Context: any context.
 */
void kwq_queue_shutdown(struct kwq *q)
{
	unsigned long flags;
	bool more;

	spin_lock_irqsave(&q->lock, flags);
	WRITE_ONCE(q->shutting_down, true);
	q->drain_cancel++;
	trace_kwq_shutdown(q, KWQ_TRACE_SHUTDOWN);
	more = kwq_delay_drop_locked(q);
	spin_unlock_irqrestore(&q->lock, flags);
	if (more)
		schedule_work(&q->drop_work);
	kwq_wake_all(q);
}

struct kwq_drain_req {
	unsigned int cancel;
};

static int kwq_drained_cond(struct kwq *q, void *arg)
{
	struct kwq_drain_req *d = arg;

	if (!q->nr_queued && !q->nr_processing)
		return 0;
	if (q->drain_cancel != d->cancel)
		return -ECANCELED;
	return -EAGAIN;
}

/**
 * kwq_queue_drain() - ShutDownWithDrain: shut down, then wait until
 * nothing is queued and nothing is processing
 * @q: the queue
 * @deadline: absolute CLOCK_MONOTONIC time to stop waiting, or KTIME_MAX
 *
 * Consumers keep taking the queued keys meanwhile. Unlike client-go's,
 * which waits only for the keys processing, the keys still queued are
 * waited for too.
 *
 * A signal ends the wait with -EINTR, never -ERESTARTSYS: the call is not
 * restarted, also when the handler has SA_RESTART or when the task was
 * only stopped and continued (as poll() and epoll_wait(), signal(7)). A
 * plain shutdown cancels the drains waiting when it is made; a drain
 * restarted after the signal would be a new one, and a shutdown made in
 * between (by the signal handler, say) would not cut it short. So the
 * caller decides: the queue stays shut down, and a new drain waits again
 * (a shutdown made before it does not cancel it).
 *
 * Context: process context; sleeps.
 * Return: 0 once drained; -ETIMEDOUT; -ECANCELED if a plain shutdown cut
 * the wait short; -EINTR on a signal.
 */
int kwq_queue_drain(struct kwq *q, ktime_t deadline)
{
	struct kwq_drain_req d;
	unsigned long flags;
	int ret;

	might_sleep();
	spin_lock_irqsave(&q->lock, flags);
	WRITE_ONCE(q->shutting_down, true);
	trace_kwq_shutdown(q, KWQ_TRACE_DRAIN);
	d.cancel = q->drain_cancel;
	q->nr_drainers++;
	spin_unlock_irqrestore(&q->lock, flags);
	wake_up_all(&q->getters);
	wake_up_all(&q->producers);
	kwq_delay_drop_all(q);

	ret = kwq_wait(q, &q->drainers, false, deadline, TASK_INTERRUPTIBLE,
		       kwq_drained_cond, &d);
	if (ret == -ERESTARTSYS)
		ret = -EINTR;	/* never restarted: see above */

	spin_lock_irqsave(&q->lock, flags);
	q->nr_drainers--;
	spin_unlock_irqrestore(&q->lock, flags);
	return ret;
}

/**
 * kwq_queue_shutting_down() - ShuttingDown
 * @q: the queue
 *
 * Context: any context; lockless.
 * Return: true once the queue is shutting down.
 */
bool kwq_queue_shutting_down(struct kwq *q)
{
	return READ_ONCE(q->shutting_down);
}

/* Drop up to KWQ_BATCH queued keys (counted); true if more remain. */
static bool kwq_drop_queued_locked(struct kwq *q)
{
	struct kwq_item *item, *tmp;
	unsigned int i = 0;

	lockdep_assert_held(&q->lock);
	list_for_each_entry_safe(item, tmp, &q->fifo, link) {
		if (i++ == KWQ_BATCH)
			return true;
		kwq_ready_del_locked(q, item);
		item->flags &= ~KWQ_ITEM_QUEUED;
		WRITE_ONCE(q->nr_queued, q->nr_queued - 1);
		q->nr_discarded++;
		q->metrics.discarded++;
		kwq_record_unhold_locked(q, item);
	}
	kwq_wake_drainers_locked(q);
	return false;
}

/**
 * kwq_queue_discard() - the discarding shutdown: shut down, and drop every
 * queued and waiting key and the dirty mark of every processing key
 * @q: the queue
 *
 * The "cancel: exit now" of a job queue. Keys in processing finish
 * normally (done works, and frees them: nothing is queued again, not even
 * a key of a handle that goes away). From the first hold of q->lock on,
 * no key is handed out; the keys go KWQ_BATCH per hold of q->lock, and
 * every key queued or waiting then is counted once in q->nr_discarded,
 * under q->lock, by whichever path drops it (this call, a drop_work or a
 * shutdown running at the same time; a key both queued and waiting
 * counts once). As a plain shutdown, it cuts waiting drains short
 * (-ECANCELED) and wakes every waiter.
 *
 * Context: process context; may sleep.
 * Return: the number of queued and waiting keys dropped, once all are
 * gone; 0 for a queue discarded already (by a call that reports them).
 */
unsigned int kwq_queue_discard(struct kwq *q)
{
	unsigned long flags;
	unsigned int n;
	bool first, more;

	might_sleep();
	spin_lock_irqsave(&q->lock, flags);
	first = !q->discarded;
	WRITE_ONCE(q->shutting_down, true);
	WRITE_ONCE(q->discarded, true);
	q->drain_cancel++;
	trace_kwq_shutdown(q, KWQ_TRACE_DISCARD);
	q->nr_dirty = 0;	/* the marks stay, ignored (kwq_finish_locked) */
	spin_unlock_irqrestore(&q->lock, flags);
	kwq_wake_all(q);

	kwq_delay_drop_all(q);
	do {
		spin_lock_irqsave(&q->lock, flags);
		more = kwq_drop_queued_locked(q);
		n = q->nr_discarded;
		spin_unlock_irqrestore(&q->lock, flags);
		if (more)
			cond_resched();
	} while (more);
	return first ? n : 0;
}
