// SPDX-License-Identifier: GPL-2.0
/*
 * The queue: client-go's workqueue Interface (queue.go). Add, Get, Done,
 * Len, ShutDown and ShutDownWithDrain (a real drain), and the queue's life
 * cycle (the keys of a handle that goes away: wq_holder.c). See wq_queue.h
 * for the record states and the locking rules; this file relies on all of
 * them.
 */
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "wq_delay.h"
#include "wq_queue.h"
#include "wq_quota.h"
#include "wq_record.h"

/**
 * kwq_queue_alloc() - allocate an empty queue with one reference
 * @max_items: most keys held at once (> 0)
 * @max_tracked: most keys kept only for their rate-limiter failures
 * @limiter: the rate limiter (validated again here)
 * @owner: the budget to charge (wq_quota.h); on success the queue owns the
 *	caller's reference to it
 * @gfp: allocation flags
 *
 * Context: process context.
 * Return: the queue, or an ERR_PTR (-EINVAL, -EDQUOT, -ENOMEM).
 */
struct kwq *kwq_queue_alloc(u32 max_items, u32 max_tracked,
			    const struct wq_limiter *limiter,
			    struct wq_user *owner, gfp_t gfp)
{
	struct kwq *q;
	int ret;

	ret = wq_quota_charge_queue(owner);
	if (ret)
		return ERR_PTR(ret);
	ret = -ENOMEM;
	q = kzalloc(sizeof(*q), gfp);
	if (!q)
		goto err_uncharge;
	ret = -EINVAL;
	if (kwq_limiter_init(&q->limiter, limiter))
		goto err_free;
	ret = -ENOMEM;
	if (kwq_delay_init(q, max_items, gfp))
		goto err_free;
	if (kwq_keytab_init(&q->keys, gfp))
		goto err_free_delay;
	spin_lock_init(&q->lock);
	INIT_WORK(&q->grow_work, kwq_record_grow_work);
	INIT_LIST_HEAD(&q->fifo);
	INIT_LIST_HEAD(&q->idle);
	q->max_tracked = max_tracked;
	init_waitqueue_head(&q->getters);
	init_waitqueue_head(&q->drainers);
	kref_init(&q->ref);
	INIT_HLIST_NODE(&q->name_node);
	q->max_items = max_items;
	q->uid = GLOBAL_ROOT_UID;
	q->gid = GLOBAL_ROOT_GID;
	q->owner = owner;
	return q;

err_free_delay:
	kwq_delay_destroy(q);
err_free:
	kfree(q);
err_uncharge:
	wq_quota_uncharge_queue(owner);
	return ERR_PTR(ret);
}

static void kwq_queue_release(struct kref *ref)
{
	struct kwq *q = container_of(ref, struct kwq, ref);

	kwq_delay_stop(q);
	cancel_work_sync(&q->grow_work);
	kwq_record_free_all(q);
	kwq_keytab_destroy(&q->keys);
	kwq_delay_destroy(q);
	wq_quota_uncharge_queue(q->owner);
	wq_quota_put(q->owner);
	kfree(q);
}

/**
 * kwq_queue_put() - drop a reference; the last one frees the queue and its
 * keys
 * @q: the queue
 *
 * Context: process context (the last put cancels the delay timer, which may
 * sleep on PREEMPT_RT); nobody may be waiting on the queue when the last
 * reference goes (waiters hold references through their handles).
 */
void kwq_queue_put(struct kwq *q)
{
	might_sleep();
	kref_put(&q->ref, kwq_queue_release);
}

/**
 * kwq_wake_getters() - wake a consumer for each of @n keys just queued
 * @q: the queue
 * @n: keys queued since q->lock was taken (q->nr_queued grew by that)
 *
 * Called after q->lock is dropped: no wake-up is lost, because a consumer
 * is on q->getters before it looks at q->nr_queued under q->lock (see
 * kwq_wait()), so it either sees the keys or is woken here. Pollers are
 * woken too (they wait non-exclusively).
 *
 * Context: any context; not under q->lock.
 */
void kwq_wake_getters(struct kwq *q, unsigned int n)
{
	if (n)
		__wake_up(&q->getters, TASK_NORMAL, min_t(unsigned int, n, INT_MAX),
			  poll_to_key(EPOLLIN | EPOLLRDNORM));
}

/*
 * Queue a key at the tail (or, to undo a get, at the head). The caller
 * wakes consumers after unlocking (kwq_wake_getters()).
 */
static void kwq_enqueue_locked(struct kwq *q, struct kwq_item *item,
			       bool head)
{
	lockdep_assert_held(&q->lock);
	item->flags |= KWQ_ITEM_QUEUED;
	if (head)
		list_add(&item->link, &q->fifo);
	else
		list_add_tail(&item->link, &q->fifo);
	WRITE_ONCE(q->nr_queued, q->nr_queued + 1);
}

/**
 * kwq_requeue_locked() - a processing key goes back on the queue, whether
 * it was dirty or not
 * @q: the queue (q->lock held)
 * @item: a PROCESSING record
 * @head: at the head (undoing a get) rather than the tail
 *
 * The caller wakes consumers after unlocking (kwq_wake_getters()).
 */
void kwq_requeue_locked(struct kwq *q, struct kwq_item *item, bool head)
{
	lockdep_assert_held(&q->lock);
	list_del_init(&item->link);
	item->holder = NULL;
	if (item->flags & KWQ_ITEM_DIRTY)
		q->nr_dirty--;
	item->flags &= ~(KWQ_ITEM_PROCESSING | KWQ_ITEM_DIRTY);
	q->nr_processing--;
	kwq_enqueue_locked(q, item, head);
}

/* Drain waiters look again once nothing is queued or processing. */
static void kwq_wake_drainers_locked(struct kwq *q)
{
	lockdep_assert_held(&q->lock);
	if (q->nr_drainers && !q->nr_queued && !q->nr_processing)
		wake_up_all(&q->drainers);
}

/**
 * kwq_accept_locked() - the held record for an add of @new's key
 * @q: the queue (q->lock held)
 * @new: as for kwq_record_hold_locked()
 * @unlimited: as for kwq_record_hold_locked()
 *
 * Every add goes through here: a queue shutting down takes no keys.
 *
 * Return: the record, or ERR_PTR(-ESHUTDOWN), ERR_PTR(-EAGAIN) or
 * ERR_PTR(-EDQUOT) with nothing changed.
 */
struct kwq_item *kwq_accept_locked(struct kwq *q, struct kwq_item **new,
				   bool unlimited)
{
	lockdep_assert_held(&q->lock);
	if (q->shutting_down)
		return ERR_PTR(-ESHUTDOWN);
	return kwq_record_hold_locked(q, new, unlimited);
}

/**
 * kwq_mark_pending_locked() - Add of a held record: make it pending now
 * @q: the queue (q->lock held)
 * @item: the record
 *
 * Queued at the tail; coalesced with a queued copy, which keeps its place;
 * or marked dirty while processing, to be queued again at done. The caller
 * wakes a consumer if q->nr_queued grew (kwq_wake_getters()).
 */
void kwq_mark_pending_locked(struct kwq *q, struct kwq_item *item)
{
	lockdep_assert_held(&q->lock);
	if (item->flags & KWQ_ITEM_QUEUED)
		return;
	if (item->flags & KWQ_ITEM_PROCESSING) {
		if (!(item->flags & KWQ_ITEM_DIRTY)) {
			item->flags |= KWQ_ITEM_DIRTY;
			q->nr_dirty++;
			q->adds++;
		}
		return;
	}
	q->adds++;
	kwq_enqueue_locked(q, item, false);
}

/**
 * struct kwq_get_req - what one Get asks for and gets
 * @holder: the handle that will own the key, or NULL
 * @buf: receives the key
 * @cap: size of @buf
 * @len: out: the key length (also with -EMSGSIZE)
 * @gen: out: the hand-out generation
 * @hup: out: the get took the last key of a queue shutting down (pollers
 *	must see EPOLLHUP)
 */
struct kwq_get_req {
	struct kwq_holder *holder;
	void *buf;
	u32 cap;
	u32 len;
	u64 gen;
	bool hup;
};

/* Take the head key: 0, -EMSGSIZE, -ESHUTDOWN, or -EAGAIN (empty). */
static int kwq_get_locked(struct kwq *q, struct kwq_get_req *r)
{
	struct kwq_item *item;

	lockdep_assert_held(&q->lock);
	item = list_first_entry_or_null(&q->fifo, struct kwq_item, link);
	if (!item)
		return q->shutting_down ? -ESHUTDOWN : -EAGAIN;
	r->len = item->key.len;
	if (item->key.len > r->cap)
		return -EMSGSIZE;		/* it stays queued */
	memcpy(r->buf, item->key.data, item->key.len);

	list_del_init(&item->link);
	WRITE_ONCE(q->nr_queued, q->nr_queued - 1);
	item->flags = (item->flags & ~KWQ_ITEM_QUEUED) | KWQ_ITEM_PROCESSING;
	q->nr_processing++;
	item->holder = r->holder;
	if (r->holder)
		list_add_tail(&item->link, &r->holder->held);
	/* per queue, so a record freed and made again never repeats one */
	r->gen = ++q->gen_seq;
	item->gen = r->gen;
	r->hup = q->shutting_down && !q->nr_queued;
	return 0;
}

/* A wait condition: -EAGAIN to keep waiting, anything else to stop. */
typedef int (*kwq_cond_fn)(struct kwq *q, void *arg);

/*
 * Sleep on @wqh until @cond (called under q->lock) returns anything but
 * -EAGAIN, the absolute CLOCK_MONOTONIC @deadline passes (-ETIMEDOUT;
 * KTIME_MAX never does) or a signal comes (-ERESTARTSYS).
 *
 * No wake-up is lost: the task is on @wqh, in @state, before @cond looks
 * at the queue under q->lock, and every change that can make @cond true is
 * made under q->lock and followed by a wake-up of @wqh.
 */
static int kwq_wait(struct kwq *q, struct wait_queue_head *wqh,
		    bool exclusive, ktime_t deadline, unsigned int state,
		    kwq_cond_fn cond, void *arg)
{
	unsigned long flags;
	DEFINE_WAIT(wait);
	int ret;

	for (;;) {
		if (exclusive)
			prepare_to_wait_exclusive(wqh, &wait, state);
		else
			prepare_to_wait(wqh, &wait, state);

		spin_lock_irqsave(&q->lock, flags);
		ret = cond(q, arg);
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
	finish_wait(wqh, &wait);
	return ret;
}

static int kwq_get_cond(struct kwq *q, void *arg)
{
	return kwq_get_locked(q, arg);
}

/**
 * kwq_queue_get() - Get: take the head key and mark it processing
 * @q: the queue
 * @holder: the handle that will own the key (it is put back on the queue
 *	when the holder is released), or NULL for a detached key
 * @buf: receives the key
 * @cap: size of @buf
 * @len: set to the key length (also with -EMSGSIZE)
 * @gen: set to the hand-out generation (for kwq_queue_unget()); may be NULL
 * @deadline: absolute CLOCK_MONOTONIC time to give up, or KTIME_MAX
 * @flags: KWQ_GET_*
 *
 * Keys queued before a shutdown are still handed out; -ESHUTDOWN comes
 * once the queue is shutting down and empty.
 *
 * Context: process context; sleeps unless KWQ_GET_NONBLOCK (then any
 * context).
 * Return: 0; -EAGAIN (KWQ_GET_NONBLOCK and nothing queued); -ETIMEDOUT;
 * -ERESTARTSYS (signal); -EMSGSIZE (@cap too small; the key stays queued);
 * -ESHUTDOWN.
 */
int kwq_queue_get(struct kwq *q, struct kwq_holder *holder, void *buf,
		  u32 cap, u32 *len, u64 *gen, ktime_t deadline,
		  unsigned int flags)
{
	struct kwq_get_req r = { .holder = holder, .buf = buf, .cap = cap };
	unsigned int state = (flags & KWQ_GET_KILLABLE) ? TASK_KILLABLE :
							    TASK_INTERRUPTIBLE;
	unsigned long irqflags;
	int ret;

	if (flags & KWQ_GET_NONBLOCK) {
		spin_lock_irqsave(&q->lock, irqflags);
		ret = kwq_get_locked(q, &r);
		spin_unlock_irqrestore(&q->lock, irqflags);
	} else {
		might_sleep();
		ret = kwq_wait(q, &q->getters, true, deadline, state,
			       kwq_get_cond, &r);
		/*
		 * An exclusive waiter may have been woken for a key it did
		 * not take (it left without one, or took another it had
		 * found first): while keys are queued it passes the wake-up
		 * on, so no key is stranded while other consumers sleep.
		 */
		if (ret != -ESHUTDOWN && READ_ONCE(q->nr_queued))
			wake_up(&q->getters);
	}
	/* the transition into EPOLLHUP: edge-triggered pollers see it */
	if (r.hup)
		__wake_up(&q->getters, TASK_NORMAL, 0, poll_to_key(EPOLLHUP));
	*len = r.len;
	if (gen)
		*gen = r.gen;
	return ret;
}

/**
 * kwq_queue_unget() - undo a kwq_queue_get() whose key could not be
 * delivered
 * @q: the queue
 * @holder: the holder given to kwq_queue_get()
 * @key: the key
 * @len: its length
 * @gen: the generation kwq_queue_get() returned
 *
 * Puts the key back at the head of the queue if it is still processing
 * from that very get (not done, not handed out again since).
 *
 * Context: any context.
 */
void kwq_queue_unget(struct kwq *q, struct kwq_holder *holder,
		     const void *key, u32 len, u64 gen)
{
	u64 hash = kwq_record_hash(q, key, len);
	struct kwq_item *item;
	unsigned long flags;
	bool queued = false;

	spin_lock_irqsave(&q->lock, flags);
	item = kwq_record_find_locked(q, hash, key, len);
	if (item && (item->flags & KWQ_ITEM_PROCESSING) &&
	    item->holder == holder && item->gen == gen) {
		kwq_requeue_locked(q, item, true);
		queued = true;
	}
	spin_unlock_irqrestore(&q->lock, flags);
	kwq_wake_getters(q, queued);
}

/* End processing of @item: queue it again if dirty, else unhold it. */
static void kwq_finish_locked(struct kwq *q, struct kwq_item *item)
{
	lockdep_assert_held(&q->lock);
	if (item->flags & KWQ_ITEM_DIRTY) {
		kwq_requeue_locked(q, item, false);
	} else {
		list_del_init(&item->link);
		item->holder = NULL;
		item->flags &= ~KWQ_ITEM_PROCESSING;
		q->nr_processing--;
		kwq_record_unhold_locked(q, item);
	}
	kwq_wake_drainers_locked(q);
}

/**
 * kwq_queue_done() - Done: end processing of a key
 * @q: the queue
 * @key: the key
 * @len: its length
 *
 * If the key was added while processing, it goes to the tail of the queue
 * (also after shutdown). Any handle may end any key's processing.
 *
 * Context: any context.
 * Return: 0, or -ENOENT if the key is not being processed (a stray done
 * never duplicates a key).
 */
int kwq_queue_done(struct kwq *q, const void *key, u32 len)
{
	u64 hash = kwq_record_hash(q, key, len);
	struct kwq_item *item;
	unsigned long flags;
	unsigned int was;
	int ret = 0;

	spin_lock_irqsave(&q->lock, flags);
	was = q->nr_queued;
	item = kwq_record_find_locked(q, hash, key, len);
	if (item && (item->flags & KWQ_ITEM_PROCESSING))
		kwq_finish_locked(q, item);
	else
		ret = -ENOENT;
	was = q->nr_queued - was;
	spin_unlock_irqrestore(&q->lock, flags);
	kwq_wake_getters(q, was);
	return ret;
}

/**
 * kwq_queue_len() - Len: number of queued keys
 * @q: the queue
 *
 * Context: any context; lockless.
 * Return: keys ready to be handed out (not processing, not waiting).
 */
unsigned int kwq_queue_len(struct kwq *q)
{
	return READ_ONCE(q->nr_queued);
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
	more = kwq_delay_drop_locked(q);
	spin_unlock_irqrestore(&q->lock, flags);
	if (more)
		schedule_work(&q->drop_work);
	wake_up_all(&q->getters);
	wake_up_all(&q->drainers);
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
 * Consumers keep taking the queued keys meanwhile. Unlike client-go, the
 * keys still queued are waited for too (kubernetes/kubernetes#141079).
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
	d.cancel = q->drain_cancel;
	q->nr_drainers++;
	spin_unlock_irqrestore(&q->lock, flags);
	wake_up_all(&q->getters);
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

/**
 * kwq_queue_poll() - readiness for poll(): EPOLLIN when a key is queued,
 * EPOLLHUP when the queue is shutting down and empty
 * @q: the queue
 *
 * Context: any context; lockless.
 * Return: the poll mask.
 */
__poll_t kwq_queue_poll(struct kwq *q)
{
	if (READ_ONCE(q->nr_queued))
		return EPOLLIN | EPOLLRDNORM;
	if (READ_ONCE(q->shutting_down))
		return EPOLLHUP;
	return 0;
}
