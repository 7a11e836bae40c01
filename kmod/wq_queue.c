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
#include "wq_metrics.h"
#include "wq_queue.h"
#include "wq_quota.h"
#include "wq_record.h"
#include "wq_trace.h"

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
	kwq_metrics_init(q);
	q->max_tracked = max_tracked;
	init_waitqueue_head(&q->getters);
	init_waitqueue_head(&q->producers);
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

/* A PROCESSING record stops processing (off its holder, not dirty). */
static void kwq_end_processing_locked(struct kwq *q, struct kwq_item *item)
{
	lockdep_assert_held(&q->lock);
	kwq_metrics_end_locked(q, item);
	list_del_init(&item->link);
	item->holder = NULL;
	/* a discard zeroed nr_dirty and left the marks to be ignored */
	if ((item->flags & KWQ_ITEM_DIRTY) && !q->discarded)
		q->nr_dirty--;
	item->flags &= ~(KWQ_ITEM_PROCESSING | KWQ_ITEM_DIRTY);
	q->nr_processing--;
}

/**
 * kwq_requeue_locked() - a processing key goes back on the queue, whether
 * it was dirty or not
 * @q: the queue (q->lock held)
 * @item: a PROCESSING record
 * @head: at the head (undoing a get) rather than the tail
 *
 * After a discarding shutdown nothing goes back: the key is dropped
 * (@item may be freed on return), and drains may be done. The caller
 * wakes consumers after unlocking if q->nr_queued grew
 * (kwq_wake_getters()).
 *
 * A key put back at the tail that was not dirty (its handle closed)
 * becomes pending now: its queue_duration runs from here. A dirty key
 * keeps the time of the add that made it dirty, a key put back at the
 * head (its get undone) the time it had.
 */
void kwq_requeue_locked(struct kwq *q, struct kwq_item *item, bool head)
{
	bool dirty = item->flags & KWQ_ITEM_DIRTY;

	kwq_end_processing_locked(q, item);
	if (q->discarded) {
		kwq_record_unhold_locked(q, item);
		kwq_wake_drainers_locked(q);
		return;
	}
	if (!dirty && !head)
		item->dirty_ns = kwq_metrics_now();
	kwq_enqueue_locked(q, item, head);
}

/**
 * kwq_wake_drainers_locked() - drain waiters look again once nothing is
 * queued or processing
 * @q: the queue (q->lock held)
 */
void kwq_wake_drainers_locked(struct kwq *q)
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
 *
 * An add that makes the key newly dirty (queued, or marked dirty) counts
 * in adds_total and starts its queue_duration (wq_metrics.h).
 */
void kwq_mark_pending_locked(struct kwq *q, struct kwq_item *item)
{
	lockdep_assert_held(&q->lock);
	if ((item->flags & KWQ_ITEM_QUEUED) ||
	    (item->flags & KWQ_ITEM_DIRTY)) {
		trace_kwq_add(q, item, KWQ_TRACE_COALESCED);
		return;
	}
	item->dirty_ns = kwq_metrics_now();
	q->adds++;
	if (item->flags & KWQ_ITEM_PROCESSING) {
		item->flags |= KWQ_ITEM_DIRTY;
		q->nr_dirty++;
		trace_kwq_add(q, item, KWQ_TRACE_DIRTY);
		return;
	}
	kwq_enqueue_locked(q, item, false);
	trace_kwq_add(q, item, KWQ_TRACE_QUEUED);
}

/**
 * kwq_queue_add_many() - Add of each of @n keys, one hold of q->lock
 * @q: the queue
 * @items: records from kwq_record_alloc() with their keys filled in, or
 *	NULL for a key that failed already; each is consumed (kept as its
 *	key's record, or freed) and its slot set to NULL
 * @res: out: each key's result (0, -ESHUTDOWN, -EAGAIN, -EDQUOT); left
 *	alone where @items is NULL
 * @n: 1..KWQ_BATCH
 * @unlimited: the adder has CAP_SYS_RESOURCE (kwq_record_hold_locked())
 * @gfp: how the caller may allocate (the key table's growth)
 *
 * Each key as kwq_add_item() without a delay: queued at the tail,
 * coalesced, or marked dirty; a key twice in @items is coalesced like any
 * other. Consumers are woken for the keys queued, after the lock is
 * dropped.
 *
 * Context: any context @gfp allows; not under q->lock.
 * Return: how many keys were added.
 */
unsigned int kwq_queue_add_many(struct kwq *q, struct kwq_item **items,
				int *res, unsigned int n, bool unlimited,
				gfp_t gfp)
{
	unsigned int i, ok = 0, queued;
	struct kwq_item *item;
	unsigned long flags;

	if (WARN_ON_ONCE(n > KWQ_BATCH))
		n = KWQ_BATCH;
	for (i = 0; i < n; i++)
		if (items[i])
			kwq_record_prepare(q, items[i], gfp);

	spin_lock_irqsave(&q->lock, flags);
	queued = q->nr_queued;
	for (i = 0; i < n; i++) {
		if (!items[i])
			continue;
		item = kwq_accept_locked(q, &items[i], unlimited);
		if (IS_ERR(item)) {
			res[i] = PTR_ERR(item);
			if (res[i] == -EAGAIN)
				q->metrics.refused++;
			continue;
		}
		kwq_mark_pending_locked(q, item);
		res[i] = 0;
		ok++;
	}
	queued = q->nr_queued - queued;
	spin_unlock_irqrestore(&q->lock, flags);
	kwq_wake_getters(q, queued);

	for (i = 0; i < n; i++) {
		if (items[i])
			kwq_record_free(items[i]);
		items[i] = NULL;
	}
	return ok;
}

/*
 * Take the head key into @t: 0, -EMSGSIZE (stays queued), -ENOENT (none).
 * @now: kwq_metrics_now() of this hold of q->lock.
 */
static int kwq_take_one_locked(struct kwq *q, struct kwq_take *t, u32 *off,
			       u64 now)
{
	struct kwq_item *item;
	u32 i = t->taken;

	item = list_first_entry_or_null(&q->fifo, struct kwq_item, link);
	if (!item || q->discarded)
		return -ENOENT;
	if (item->key.len > t->cap - *off) {
		if (!i)
			t->lens[0] = item->key.len;
		return -EMSGSIZE;
	}
	memcpy(t->buf + *off, item->key.data, item->key.len);
	*off += item->key.len;
	t->lens[i] = item->key.len;

	list_del_init(&item->link);
	WRITE_ONCE(q->nr_queued, q->nr_queued - 1);
	item->flags = (item->flags & ~KWQ_ITEM_QUEUED) | KWQ_ITEM_PROCESSING;
	q->nr_processing++;
	item->holder = t->holder;
	if (t->holder)
		list_add_tail(&item->link, &t->holder->held);
	/* per queue, so a record freed and made again never repeats one */
	t->gens[i] = ++q->gen_seq;
	item->gen = t->gens[i];
	trace_kwq_get(q, item, now - item->dirty_ns);
	kwq_metrics_start_locked(q, item, now);
	t->taken++;
	return 0;
}

/*
 * Take up to t->n head keys that fit: 0 (at least one), -EMSGSIZE (the
 * first does not fit), -ESHUTDOWN, or -EAGAIN (nothing queued).
 */
static int kwq_take_locked(struct kwq *q, struct kwq_take *t)
{
	u64 now = 0;
	u32 off = 0;
	int ret = 0;

	lockdep_assert_held(&q->lock);
	if (q->nr_queued)
		now = kwq_metrics_now();
	while (t->taken < t->n && !ret)
		ret = kwq_take_one_locked(q, t, &off, now);
	if (t->taken) {
		t->hup = q->shutting_down && !q->nr_queued;
		return 0;
	}
	if (ret == -EMSGSIZE)
		return ret;
	return q->shutting_down ? -ESHUTDOWN : -EAGAIN;
}

/**
 * kwq_wait() - sleep until a condition holds
 * @q: the queue
 * @wqh: the wait queue to sleep on
 * @exclusive: an exclusive waiter (one wake-up wakes one)
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
	     ktime_t deadline, unsigned int state, kwq_cond_fn cond,
	     void *arg)
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

static int kwq_take_cond(struct kwq *q, void *arg)
{
	return kwq_take_locked(q, arg);
}

/**
 * kwq_queue_take() - Get of up to t->n keys: the first waited for, then
 * whatever is queued and fits
 * @q: the queue
 * @t: the request; t->taken and t->hup must be 0
 * @deadline: absolute CLOCK_MONOTONIC time to give up on the first key, or
 *	KTIME_MAX
 * @flags: KWQ_GET_*
 *
 * The keys become processing, in FIFO order, owned by t->holder (put back
 * on the queue when it is released) or detached (NULL). Keys queued before
 * a shutdown are still handed out; -ESHUTDOWN comes once the queue is
 * shutting down and empty (at once after a discard). One hold of q->lock.
 *
 * Context: process context; sleeps unless KWQ_GET_NONBLOCK (then any
 * context).
 * Return: 0 (t->taken >= 1); -EAGAIN (KWQ_GET_NONBLOCK and nothing
 * queued); -ETIMEDOUT; -ERESTARTSYS (signal); -EMSGSIZE (the first key
 * does not fit: t->lens[0] is its length, it stays queued); -ESHUTDOWN.
 */
int kwq_queue_take(struct kwq *q, struct kwq_take *t, ktime_t deadline,
		   unsigned int flags)
{
	unsigned int state = (flags & KWQ_GET_KILLABLE) ? TASK_KILLABLE :
							    TASK_INTERRUPTIBLE;
	unsigned long irqflags;
	int ret;

	if (WARN_ON_ONCE(!t->n || t->n > KWQ_BATCH))
		return -EINVAL;
	if (flags & KWQ_GET_NONBLOCK) {
		spin_lock_irqsave(&q->lock, irqflags);
		ret = kwq_take_locked(q, t);
		spin_unlock_irqrestore(&q->lock, irqflags);
	} else {
		might_sleep();
		ret = kwq_wait(q, &q->getters, true, deadline, state,
			       kwq_take_cond, t);
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
	if (t->hup)
		__wake_up(&q->getters, TASK_NORMAL, 0,
			  poll_to_key(EPOLLIN | EPOLLRDNORM | EPOLLHUP));
	return ret;
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
 * kwq_queue_take() of one key.
 *
 * Context: as kwq_queue_take().
 * Return: as kwq_queue_take().
 */
int kwq_queue_get(struct kwq *q, struct kwq_holder *holder, void *buf,
		  u32 cap, u32 *len, u64 *gen, ktime_t deadline,
		  unsigned int flags)
{
	u64 g = 0;
	struct kwq_take t = {
		.holder = holder, .buf = buf, .cap = cap, .n = 1,
		.lens = len, .gens = &g,
	};
	int ret;

	*len = 0;
	ret = kwq_queue_take(q, &t, deadline, flags);
	if (gen)
		*gen = g;
	return ret;
}

/**
 * kwq_queue_unget_many() - undo a kwq_queue_take() whose keys could not be
 * delivered
 * @q: the queue
 * @holder: the holder given to kwq_queue_take()
 * @keys: the keys taken, in the order they were taken
 * @gens: their generations, from kwq_queue_take()
 * @n: how many, 1..KWQ_BATCH
 *
 * Puts the keys still processing from that very take (not done, not
 * handed out again since) back at the head of the queue, in their order,
 * in one hold of q->lock (no other consumer sees some back and not
 * others).
 *
 * Context: any context.
 */
void kwq_queue_unget_many(struct kwq *q, struct kwq_holder *holder,
			  const struct kwq_keyref *keys, const u64 *gens,
			  unsigned int n)
{
	struct kwq_item *item;
	unsigned long flags;
	unsigned int queued;

	if (WARN_ON_ONCE(n > KWQ_BATCH))
		n = KWQ_BATCH;
	spin_lock_irqsave(&q->lock, flags);
	queued = q->nr_queued;
	while (n--) {			/* the last first: the first ends first */
		item = kwq_record_find_locked(q, keys[n].hash, keys[n].data,
					      keys[n].len);
		if (item && (item->flags & KWQ_ITEM_PROCESSING) &&
		    item->holder == holder && item->gen == gens[n])
			kwq_requeue_locked(q, item, true);
	}
	queued = q->nr_queued - queued;
	spin_unlock_irqrestore(&q->lock, flags);
	kwq_wake_getters(q, queued);
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
 * kwq_queue_unget_many() of one key.
 *
 * Context: any context.
 */
void kwq_queue_unget(struct kwq *q, struct kwq_holder *holder,
		     const void *key, u32 len, u64 gen)
{
	struct kwq_keyref k = {
		.data = key, .len = len, .hash = kwq_record_hash(q, key, len),
	};

	kwq_queue_unget_many(q, holder, &k, &gen, 1);
}

/*
 * End processing of @item: queue it again if dirty (unless a discard
 * dropped the mark), else unhold it (@item may be freed). Observes its
 * work_duration; @now is kwq_metrics_now() of this hold of q->lock.
 */
static void kwq_finish_locked(struct kwq *q, struct kwq_item *item, u64 now)
{
	bool again = (item->flags & KWQ_ITEM_DIRTY) && !q->discarded;

	lockdep_assert_held(&q->lock);
	kwq_hist_observe(&q->metrics.work_duration, now - item->start_ns);
	trace_kwq_done(q, item, now - item->start_ns, again);
	if (again) {
		kwq_requeue_locked(q, item, false);
	} else {
		kwq_end_processing_locked(q, item);
		kwq_record_unhold_locked(q, item);
	}
	kwq_wake_drainers_locked(q);
}

/**
 * kwq_queue_done_many() - Done of each of @n keys, one hold of q->lock
 * @q: the queue
 * @keys: the keys, with their hashes
 * @res: out: each key's result (0 or -ENOENT), @n entries
 * @n: 1..KWQ_BATCH
 *
 * A key added while processing goes to the tail of the queue (also after
 * shutdown, not after a discard). Any handle may end any key's processing.
 * Consumers are woken for the keys queued again, producers for the slots
 * freed, after the lock is dropped.
 *
 * Context: any context.
 * Return: how many keys were processing (and are done now).
 */
unsigned int kwq_queue_done_many(struct kwq *q, const struct kwq_keyref *keys,
				 int *res, unsigned int n)
{
	unsigned int i, ok = 0, queued, held;
	struct kwq_item *item;
	unsigned long flags;
	u64 now;

	if (WARN_ON_ONCE(n > KWQ_BATCH))
		n = KWQ_BATCH;
	spin_lock_irqsave(&q->lock, flags);
	now = kwq_metrics_now();
	queued = q->nr_queued;
	held = q->nr_held;
	for (i = 0; i < n; i++) {
		item = kwq_record_find_locked(q, keys[i].hash, keys[i].data,
					      keys[i].len);
		if (item && (item->flags & KWQ_ITEM_PROCESSING)) {
			kwq_finish_locked(q, item, now);
			res[i] = 0;
			ok++;
		} else {
			res[i] = -ENOENT;
		}
	}
	queued = q->nr_queued - queued;
	held -= q->nr_held;
	spin_unlock_irqrestore(&q->lock, flags);
	kwq_wake_getters(q, queued);
	kwq_wake_producers(q, held);
	return ok;
}

/**
 * kwq_queue_done() - Done: end processing of a key
 * @q: the queue
 * @key: the key
 * @len: its length
 *
 * kwq_queue_done_many() of one key.
 *
 * Context: any context.
 * Return: 0, or -ENOENT if the key is not being processed (a stray done
 * never duplicates a key).
 */
int kwq_queue_done(struct kwq *q, const void *key, u32 len)
{
	struct kwq_keyref k = {
		.data = key, .len = len, .hash = kwq_record_hash(q, key, len),
	};
	int res;

	kwq_queue_done_many(q, &k, &res, 1);
	return res;
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
	ret = kwq_wait(q, &q->producers, true, deadline, TASK_INTERRUPTIBLE,
		       kwq_room_cond, NULL);
	if (ret && ret != -ESHUTDOWN &&
	    READ_ONCE(q->nr_held) < q->max_items)
		kwq_wake_producers(q, 1);
	return ret;
}
