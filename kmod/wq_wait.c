// SPDX-License-Identifier: GPL-2.0
/*
 * Sleeping and waking on a queue: the one wait loop (kwq_wait()), the
 * wake-ups of consumers, producers and drains, readiness for poll(), and
 * the wait for room of a blocking add; then the end of waiting: ShutDown,
 * ShutDownWithDrain and the discarding shutdown. The lost-wake-up
 * argument of each is written where it is. See wq_queue.h for the
 * locking rules.
 */
#include <linux/export.h>
#include <linux/poll.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>

#include "wq_queue.h"
#include "wq_delay.h"
#include "wq_ready.h"
#include "wq_record.h"
#include "wq_trace.h"

/**
 * __kwq_wake_getters() - wake consumers for @n keys just queued
 * @q: the queue
 * @n: keys queued since q->lock was taken (q->nr_queued grew by that)
 *
 * Exclusive waiters are woken in order until those woken take @n keys
 * between them: a Get counts for one, a blocking batch for as many as it
 * asks, a parked command on the ring for one (kwq_getter_woken()), so
 * that a batch of 64 keys wakes one blocked consumer of 64, not every
 * consumer. One that takes fewer than it was counted for
 * passes the wake-up on (kwq_queue_take(), the parked commands).
 *
 * Called after q->lock is dropped: no wake-up is lost, because a consumer
 * is on q->getters before it looks at q->nr_queued under q->lock (see
 * kwq_wait()), so it either sees the keys or is woken here; a poller is
 * on it before its barrier and lockless look (wq_poll()), which pairs with
 * the one of wq_has_sleeper(). Pollers are woken too (they wait
 * non-exclusively).
 *
 * Context: any context; not under q->lock. kwq_wake_getters() (inline)
 * calls it only when somebody waits: nobody waiting costs no lock of the
 * wait queue (a handle once polled stays on it until it is closed).
 */
void __kwq_wake_getters(struct kwq *q, unsigned int n)
{
	unsigned long flags;

	spin_lock_irqsave(&q->getters.lock, flags);
	q->wake_keys = n;
	__wake_up_locked_key(&q->getters, TASK_NORMAL,
			     poll_to_key(EPOLLIN | EPOLLRDNORM));
	q->wake_keys = 0;
	spin_unlock_irqrestore(&q->getters.lock, flags);
}

/**
 * kwq_getter_woken() - count a consumer just woken against the keys of the
 * wake-up
 * @q: the queue (q->getters' lock held: called by a wake function)
 * @want: the most keys it takes: 1 for a Get and a parked command, its
 *	count for a blocked batch
 * @counted: out: the keys it is counted for, 0 for a wake-up that counts
 *	no keys (a shutdown, a plain wake_up()): a consumer that takes fewer
 *	passes the wake-up on while keys are queued
 *
 * Return: what the wake function of the exclusive waiter it woke returns:
 * 0 (wake the next) while kwq_wake_getters() has keys no woken consumer
 * is counted for, 1 (the last to wake) once it has none; 1 for any other
 * wake-up, which wakes as many waiters as it asks.
 */
int kwq_getter_woken(struct kwq *q, unsigned int want, unsigned int *counted)
{
	unsigned int left = q->wake_keys;

	lockdep_assert_held(&q->getters.lock);
	*counted = min(left, want);
	if (!left)
		return 1;
	q->wake_keys = left - *counted;
	return !q->wake_keys;
}

/**
 * kwq_getter_pass_on() - after a woken consumer's take, wake others for
 * the keys it was counted for and did not take
 * @q: the queue
 * @counted: the keys its wake-ups counted it for (kwq_getter_woken()), 0
 *	for a wake-up of another kind or none
 * @taken: the keys it took
 *
 * The others are woken as kwq_wake_getters() wakes them, for those keys
 * (every queued key after a wake-up of another kind), not one plain
 * wake-up: a parked command woken so counts for one, and the rest reach
 * the consumers behind it.
 *
 * Context: any context; not under q->lock.
 */
void kwq_getter_pass_on(struct kwq *q, unsigned int counted,
			unsigned int taken)
{
	unsigned int queued = READ_ONCE(q->nr_queued);

	if ((counted && taken >= counted) || !queued ||
	    READ_ONCE(q->discarded) || !wq_has_sleeper(&q->getters))
		return;
	/* counted as a wake-up for the keys, not one plain wake-up */
	__kwq_wake_getters(q, counted ? min(counted - taken, queued) : queued);
}

/*
 * A consumer's wait entry. Each wake-up counts it for up to @want keys
 * (kwq_getter_woken()); @counted adds up those of one kwq_wait(), @plain
 * is set by one that counted none. Written under the wait queue's lock.
 */
struct kwq_getter {
	struct wait_queue_entry wait;
	struct kwq *q;
	unsigned int want;
	unsigned int counted;
	bool plain;
};

static int kwq_getter_wake(struct wait_queue_entry *wait, unsigned int mode,
			   int sync, void *key)
{
	struct kwq_getter *g = container_of(wait, struct kwq_getter, wait);
	unsigned int c;
	int ret;

	if (!autoremove_wake_function(wait, mode, sync, key))
		return 0;	/* already awake: wake another */
	ret = kwq_getter_woken(g->q, g->want, &c);
	/*
	 * Added up, not replaced: the waiter is back on the queue before
	 * each try, and still on it, not yet running, just after a try that
	 * took keys, so one try may follow several wake-ups.
	 */
	if (!c)
		g->plain = true;
	else
		g->counted = min(g->counted, UINT_MAX - c) + c;
	return ret;
}

/**
 * kwq_wake_producers() - wake a producer for each of @n slots just freed
 * @q: the queue
 * @n: keys that stopped being held since q->lock was taken
 *
 * Called after q->lock is dropped. No wake-up is lost, as for
 * kwq_wake_getters(): a producer is on q->producers before it looks at
 * q->nr_held under q->lock, and wq_has_sleeper()'s barrier orders the
 * freeing (made under q->lock, before this call) before the look at the
 * wait queue. Pollers waiting for EPOLLOUT are woken too.
 *
 * Context: any context; not under q->lock.
 */
void kwq_wake_producers(struct kwq *q, unsigned int n)
{
	if (n && wq_has_sleeper(&q->producers))
		__wake_up(&q->producers, TASK_NORMAL,
			  min_t(unsigned int, n, INT_MAX),
			  poll_to_key(EPOLLOUT | EPOLLWRNORM));
}

/**
 * kwq_wait() - sleep until a condition holds
 * @q: the queue
 * @wqh: the wait queue to sleep on
 * @exclusive: an exclusive waiter (one wake-up wakes one)
 * @counted: on q->getters: in, the most keys the waiter takes
 *	(1..KWQ_BATCH); out, how many keys its wake-ups counted it for
 *	between them (kwq_getter_woken()), 0 if none did or one was not
 *	kwq_wake_getters()'s (its caller then passes the wake-up on while
 *	keys are left).
 *	Else NULL
 * @deadline: absolute CLOCK_MONOTONIC time to give up, or KTIME_MAX
 * @state: TASK_INTERRUPTIBLE or TASK_KILLABLE
 * @cond: called under q->lock; -EAGAIN to keep waiting
 * @arg: for @cond
 *
 * No wake-up is lost: the task is on @wqh, in @state, before @cond looks
 * at the queue under q->lock, and every change that can make @cond true is
 * made under q->lock and followed by a wake-up of @wqh.
 *
 * Context: process context; sleeps.
 * Return: what @cond returned, -ETIMEDOUT, or -ERESTARTSYS on a signal.
 */
int kwq_wait(struct kwq *q, struct wait_queue_head *wqh, bool exclusive,
	     unsigned int *counted, ktime_t deadline, unsigned int state,
	     kwq_cond_fn cond, void *arg)
{
	struct kwq_getter g = {
		.wait = {
			.private = current,
			.func = counted ? kwq_getter_wake :
					  autoremove_wake_function,
			.entry = LIST_HEAD_INIT(g.wait.entry),
		},
		.q = q,
		.want = counted ? *counted : 0,
	};
	struct wait_queue_entry *wait = &g.wait;
	unsigned long flags;
	int ret;

	for (;;) {
		if (exclusive)
			prepare_to_wait_exclusive(wqh, wait, state);
		else
			prepare_to_wait(wqh, wait, state);

		spin_lock_irqsave(&q->lock, flags);
		ret = cond(q, arg);
		/* running before any later change: its wake-ups pass it over */
		if (ret != -EAGAIN)
			__set_current_state(TASK_RUNNING);
		spin_unlock_irqrestore(&q->lock, flags);
		if (ret != -EAGAIN)
			break;
		if (signal_pending_state(state, current)) {
			ret = -ERESTARTSYS;
			break;
		}
		if (deadline == KTIME_MAX) {
			schedule();
			continue;
		}
		if (ktime_compare(ktime_get(), deadline) >= 0) {
			ret = -ETIMEDOUT;
			break;
		}
		schedule_hrtimeout_range_clock(&deadline, current->timer_slack_ns,
					       HRTIMER_MODE_ABS,
					       CLOCK_MONOTONIC);
	}
	if (!counted) {
		finish_wait(wqh, wait);
		return ret;
	}
	/* under the lock its waker wrote g.counted with */
	__set_current_state(TASK_RUNNING);
	spin_lock_irqsave(&wqh->lock, flags);
	list_del_init(&wait->entry);
	*counted = g.plain ? 0 : g.counted;
	spin_unlock_irqrestore(&wqh->lock, flags);
	return ret;
}

/**
 * kwq_queue_poll() - readiness for poll()
 * @q: the queue
 *
 * EPOLLIN when a Get would not block (a key is queued, or the queue is
 * shutting down and empty), EPOLLOUT when an Add of a new key would not
 * fail for capacity and the queue is not shutting down, EPOLLHUP when it
 * is shutting down and empty. Pollers wait on q->getters and q->producers;
 * every transition into a state is followed by a wake-up there: a key
 * queued (kwq_wake_getters(), also from the delay timer), the shutdown
 * (wake_up_all() of both), the last key taken after it (kwq_queue_take()),
 * a slot freed (kwq_wake_producers()). The fields are read locklessly: a
 * poller that reads stale values is woken again by the change it missed,
 * which is made before the wake-up that follows it.
 *
 * Context: any context; lockless.
 * Return: the poll mask.
 */
__poll_t kwq_queue_poll(struct kwq *q)
{
	bool down = READ_ONCE(q->shutting_down);
	__poll_t mask = 0;

	if (READ_ONCE(q->nr_queued) && !READ_ONCE(q->discarded))
		mask |= EPOLLIN | EPOLLRDNORM;
	else if (down)
		mask |= EPOLLIN | EPOLLRDNORM | EPOLLHUP;
	if (!down && READ_ONCE(q->nr_held) < q->max_items)
		mask |= EPOLLOUT | EPOLLWRNORM;
	return mask;
}

static int kwq_room_cond(struct kwq *q, void *arg)
{
	if (q->shutting_down)
		return -ESHUTDOWN;
	return q->nr_held < q->max_items ? 0 : -EAGAIN;
}

/**
 * kwq_queue_wait_room() - wait until the queue holds fewer than max_items
 * keys
 * @q: the queue
 * @deadline: absolute CLOCK_MONOTONIC time to give up, or KTIME_MAX
 *
 * An exclusive wait: one freed slot wakes one producer. The room may be
 * gone again when the caller looks (another add took it): the caller
 * tries its add and, if the queue is full again, waits again. A producer
 * that leaves without using a wake-up (timeout, signal) passes it on while
 * there is room, so no slot is left with producers asleep.
 *
 * Context: process context; sleeps.
 * Return: 0 (room seen), -ESHUTDOWN, -ETIMEDOUT or -ERESTARTSYS.
 */
int kwq_queue_wait_room(struct kwq *q, ktime_t deadline)
{
	int ret;

	might_sleep();
	ret = kwq_wait(q, &q->producers, true, NULL, deadline,
		       TASK_INTERRUPTIBLE, kwq_room_cond, NULL);
	if (ret && ret != -ESHUTDOWN &&
	    READ_ONCE(q->nr_held) < q->max_items)
		kwq_wake_producers(q, 1);
	return ret;
}

/*
 * The end of a queue: ShutDown, ShutDownWithDrain (a real drain) and the
 * discarding shutdown of job queues ("cancel: exit now"). See wq_queue.h
 * for the record states and the locking rules; this file relies on all of
 * them, and does bounded work per hold of q->lock.
 */
/* After a shutdown: consumers, producers and drains look again. */
static void kwq_wake_all(struct kwq *q)
{
	wake_up_all(&q->getters);
	wake_up_all(&q->producers);
	wake_up_all(&q->drainers);
}

/**
 * kwq_shutdown() - ShutDown: refuse new keys, wake every waiter
 * @q: the queue
 *
 * Queued keys are still handed out; waiting (AddAfter) keys are dropped
 * (beyond the first 64, by a work item soon after: they are counted as
 * held until then). Every drain waiting at this moment returns -ECANCELED
 * (0 if the queue is drained by then). Idempotent.
 *
 * Context: any context (on PREEMPT_RT, where q->lock is a sleeping lock,
 * not from a non-threaded hard interrupt nor with interrupts or preemption
 * disabled or a raw spinlock held).
 */
void kwq_shutdown(struct kwq *q)
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
EXPORT_SYMBOL_NS_GPL(kwq_shutdown, WQ_NS);

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

	ret = kwq_wait(q, &q->drainers, false, NULL, deadline,
		       TASK_INTERRUPTIBLE, kwq_drained_cond, &d);
	if (ret == -ERESTARTSYS)
		ret = -EINTR;	/* never restarted: see above */

	spin_lock_irqsave(&q->lock, flags);
	q->nr_drainers--;
	spin_unlock_irqrestore(&q->lock, flags);
	return ret;
}

/**
 * kwq_shutting_down() - ShuttingDown
 * @q: the queue
 *
 * Context: any context (on PREEMPT_RT, where q->lock is a sleeping lock,
 * not from a non-threaded hard interrupt nor with interrupts or preemption
 * disabled or a raw spinlock held).
 * Return: true once the queue is shutting down.
 */
bool kwq_shutting_down(struct kwq *q)
{
	return READ_ONCE(q->shutting_down);
}
EXPORT_SYMBOL_NS_GPL(kwq_shutting_down, WQ_NS);

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
