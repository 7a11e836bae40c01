// SPDX-License-Identifier: GPL-2.0
/*
 * The queue: client-go's workqueue Interface. See wq_queue.h for the record
 * states and the locking rules.
 */
#include <linux/export.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uidgid.h>

#include <wq/compat.h>
#include "wq_queue.h"

/* Slack of the delay timer: it may fire this much late, never early. */
#define KWQ_TIMER_SLACK_NS	(50 * NSEC_PER_USEC)

static enum hrtimer_restart kwq_timer_fn(struct hrtimer *timer);

static struct kmem_cache *kwq_item_cache;

/**
 * kwq_cache_init() - create the record cache
 *
 * Return: 0 or -ENOMEM.
 */
int kwq_cache_init(void)
{
	/* Short keys are copied from userspace straight into the record. */
	kwq_item_cache = kmem_cache_create_usercopy("wq_item",
						    sizeof(struct kwq_item), 0,
						    SLAB_ACCOUNT,
						    offsetof(struct kwq_item,
							     inline_key),
						    KWQ_INLINE_KEY, NULL);
	return kwq_item_cache ? 0 : -ENOMEM;
}

/**
 * kwq_cache_exit() - destroy the record cache; every record must be freed
 */
void kwq_cache_exit(void)
{
	kmem_cache_destroy(kwq_item_cache);
}

/**
 * kwq_item_alloc() - allocate a record for a key of @len bytes
 * @len: key length, 1..WQ_KEY_MAX
 * @gfp: allocation flags
 *
 * The caller fills item->key.data[0..len-1].
 *
 * Return: the record, or NULL.
 */
struct kwq_item *kwq_item_alloc(u32 len, gfp_t gfp)
{
	struct kwq_item *item;

	item = kmem_cache_zalloc(kwq_item_cache, gfp);
	if (!item)
		return NULL;
	if (len > KWQ_INLINE_KEY) {
		item->key.data = kmalloc(len, gfp);
		if (!item->key.data) {
			kmem_cache_free(kwq_item_cache, item);
			return NULL;
		}
	} else {
		item->key.data = item->inline_key;
	}
	item->key.len = len;
	INIT_HLIST_NODE(&item->key.node);
	INIT_LIST_HEAD(&item->link);
	return item;
}

/**
 * kwq_item_free() - free a record that is in no table or list
 * @item: the record
 */
void kwq_item_free(struct kwq_item *item)
{
	if (item->key.data != item->inline_key)
		kfree(item->key.data);
	kmem_cache_free(kwq_item_cache, item);
}

static void kwq_item_free_key(struct kwq_key *key)
{
	kwq_item_free(container_of(key, struct kwq_item, key));
	cond_resched();			/* a queue may hold millions */
}

static void kwq_maybe_grow(struct kwq *q, gfp_t gfp);

static void kwq_grow_work(struct work_struct *work)
{
	kwq_maybe_grow(container_of(work, struct kwq, grow_work), GFP_KERNEL);
}

/**
 * kwq_alloc() - allocate an empty queue with one reference
 * @max_items: most keys held at once (> 0)
 * @max_tracked: most keys kept only for their rate-limiter failures
 * @limiter: the rate limiter (validated again here)
 * @gfp: allocation flags
 *
 * Return: the queue, or an ERR_PTR (-EINVAL, -ENOMEM).
 */
struct kwq *kwq_alloc(u32 max_items, u32 max_tracked,
		      const struct wq_limiter *limiter, gfp_t gfp)
{
	struct kwq *q;

	q = kzalloc(sizeof(*q), gfp);
	if (!q)
		return ERR_PTR(-ENOMEM);
	if (kwq_limiter_init(&q->limiter, limiter)) {
		kfree(q);
		return ERR_PTR(-EINVAL);
	}
	q->waiting.nr_chunks = kwq_heap_chunks_for(max_items);
	q->waiting.chunks = kcalloc(q->waiting.nr_chunks,
				    sizeof(*q->waiting.chunks), gfp);
	if (!q->waiting.chunks)
		goto err_free;
	if (kwq_keytab_init(&q->keys, gfp))
		goto err_free_heap;
	wq_hrtimer_setup(&q->timer, kwq_timer_fn, CLOCK_MONOTONIC,
			 HRTIMER_MODE_ABS_SOFT);
	q->armed = KTIME_MAX;
	spin_lock_init(&q->lock);
	INIT_WORK(&q->grow_work, kwq_grow_work);
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
	return q;

err_free_heap:
	kfree(q->waiting.chunks);
err_free:
	kfree(q);
	return ERR_PTR(-ENOMEM);
}

static void kwq_release(struct kref *ref)
{
	struct kwq *q = container_of(ref, struct kwq, ref);
	u32 i;

	hrtimer_cancel(&q->timer);
	cancel_work_sync(&q->grow_work);
	kwq_keytab_drain(&q->keys, kwq_item_free_key);
	kwq_keytab_destroy(&q->keys);
	for (i = 0; i < q->waiting.nr_chunks; i++)
		kfree(q->waiting.chunks[i]);
	kfree(q->waiting.chunks);
	kfree(q);
}

/**
 * kwq_put() - drop a reference; the last one frees the queue and its keys
 * @q: the queue
 *
 * Context: process context (the last put cancels the delay timer, which may
 * sleep on PREEMPT_RT); nobody may be waiting on the queue when the last
 * reference goes (waiters hold references through their handles).
 */
void kwq_put(struct kwq *q)
{
	might_sleep();
	kref_put(&q->ref, kwq_release);
}
EXPORT_SYMBOL_NS_GPL(kwq_put, WQ_NS);

static struct kwq_item *kwq_find_locked(struct kwq *q, u64 hash,
					const void *key, u32 len)
{
	struct kwq_key *k;

	lockdep_assert_held(&q->lock);
	k = kwq_keytab_find(&q->keys, hash, key, len);
	return k ? container_of(k, struct kwq_item, key) : NULL;
}

/* Queue a key at the tail (or, to undo a get, at the head); wake one. */
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
	wake_up_poll(&q->getters, EPOLLIN | EPOLLRDNORM);	/* one consumer */
}

/* A processing key goes back on the queue, whether it was dirty or not. */
static void kwq_requeue_locked(struct kwq *q, struct kwq_item *item,
			       bool head)
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

static void kwq_forget_record_locked(struct kwq *q, struct kwq_item *item)
{
	kwq_keytab_remove(&q->keys, &item->key);
	kwq_item_free(item);
}

/* Keep at most max_tracked idle records: evict the least recently held. */
static void kwq_evict_idle_locked(struct kwq *q)
{
	lockdep_assert_held(&q->lock);
	while (q->nr_idle > q->max_tracked) {
		struct kwq_item *old = list_first_entry(&q->idle,
							struct kwq_item, link);

		list_del_init(&old->link);
		q->nr_idle--;
		q->nr_tracked--;
		q->evicted++;
		kwq_forget_record_locked(q, old);
	}
}

/*
 * The key lost one of its held states. If it has none left, forget it, or
 * keep it idle for its rate-limiter failures.
 */
static void kwq_unhold_locked(struct kwq *q, struct kwq_item *item)
{
	lockdep_assert_held(&q->lock);
	if (item->flags & KWQ_ITEM_HELD)
		return;
	q->nr_held--;
	if (!item->failures) {
		kwq_forget_record_locked(q, item);
		return;
	}
	list_add_tail(&item->link, &q->idle);
	q->nr_idle++;
	kwq_evict_idle_locked(q);
}

/* Make a record held again (it may be idle): -EAGAIN if the queue is full. */
static int kwq_hold_locked(struct kwq *q, struct kwq_item *item)
{
	lockdep_assert_held(&q->lock);
	if (item->flags & KWQ_ITEM_HELD)
		return 0;
	if (q->nr_held >= q->max_items)
		return -EAGAIN;
	list_del_init(&item->link);
	q->nr_idle--;
	q->nr_held++;
	return 0;
}

static void kwq_check_drained_locked(struct kwq *q)
{
	lockdep_assert_held(&q->lock);
	if (q->nr_drainers && !q->nr_queued && !q->nr_processing)
		wake_up_all(&q->drainers);
}

/*
 * Grow the key table if it asks for it. Callers that cannot sleep leave it
 * to q->grow_work, so a queue fed only from atomic context grows too.
 */
static void kwq_maybe_grow(struct kwq *q, gfp_t gfp)
{
	struct hlist_head *buckets;
	unsigned long flags;
	unsigned int shift;
	bool taken;

	if (!kwq_keytab_want_grow(&q->keys, &shift))
		return;
	if (!gfpflags_allow_blocking(gfp)) {
		schedule_work(&q->grow_work);
		return;
	}
	buckets = kwq_keytab_alloc_buckets(shift, gfp);
	if (!buckets)
		return;	/* chains get longer; still correct */
	spin_lock_irqsave(&q->lock, flags);
	taken = kwq_keytab_start_grow(&q->keys, buckets, shift);
	spin_unlock_irqrestore(&q->lock, flags);
	if (!taken)
		kfree(buckets);
}

/* Start (or stop) the timer for the earliest waiting key, if it changed. */
static void kwq_arm_locked(struct kwq *q)
{
	struct kwq_heap_node *n = kwq_heap_peek(&q->waiting);
	ktime_t when = n ? n->when : KTIME_MAX;

	lockdep_assert_held(&q->lock);
	if (when == q->armed)
		return;
	q->armed = when;
	if (when == KTIME_MAX)
		hrtimer_try_to_cancel(&q->timer);	/* a late fire is harmless */
	else
		hrtimer_start_range_ns(&q->timer, when, KWQ_TIMER_SLACK_NS,
				       HRTIMER_MODE_ABS_SOFT);
}

static void kwq_drop_waiting_locked(struct kwq *q)
{
	struct kwq_heap_node *n;

	lockdep_assert_held(&q->lock);
	while ((n = kwq_heap_pop(&q->waiting))) {
		struct kwq_item *item = container_of(n, struct kwq_item, wait);

		item->flags &= ~KWQ_ITEM_WAITING;
		kwq_unhold_locked(q, item);
	}
	kwq_arm_locked(q);
}

/*
 * Make sure the waiting heap has a slot for one more key. Allocates outside
 * q->lock; false if it could not.
 */
static bool kwq_reserve_waiting(struct kwq *q, gfp_t gfp)
{
	struct kwq_heap_node **chunk;
	unsigned long flags;
	int idx;

	spin_lock_irqsave(&q->lock, flags);
	idx = kwq_heap_chunk_needed(&q->waiting);
	spin_unlock_irqrestore(&q->lock, flags);
	if (idx < 0)
		return true;
	chunk = kcalloc(KWQ_HEAP_CHUNK, sizeof(*chunk), gfp);
	if (!chunk)
		return false;
	spin_lock_irqsave(&q->lock, flags);
	if (!q->waiting.chunks[idx]) {
		kwq_heap_add_chunk(&q->waiting, idx, chunk);
		chunk = NULL;
	}
	spin_unlock_irqrestore(&q->lock, flags);
	kfree(chunk);
	return true;
}

/* Add of a key already in the table. */
static int kwq_add_locked(struct kwq *q, struct kwq_item *item)
{
	lockdep_assert_held(&q->lock);
	if (item->flags & KWQ_ITEM_QUEUED)
		return 0;			/* coalesced: keeps its place */
	if (item->flags & KWQ_ITEM_PROCESSING) {
		if (!(item->flags & KWQ_ITEM_DIRTY)) {
			item->flags |= KWQ_ITEM_DIRTY;
			q->nr_dirty++;
			q->adds++;
		}
		return 0;			/* queued again at done */
	}
	q->adds++;
	kwq_enqueue_locked(q, item, false);
	return 0;
}

/* AddAfter of a key already in the table: 0, or -ENOMEM (no heap slot). */
static int kwq_add_after_locked(struct kwq *q, struct kwq_item *item,
				ktime_t ready)
{
	lockdep_assert_held(&q->lock);
	if (item->flags & KWQ_ITEM_WAITING) {
		/* The earlier ready time wins; a later one never postpones. */
		kwq_heap_move_earlier(&q->waiting, &item->wait, ready);
	} else {
		if (kwq_heap_chunk_needed(&q->waiting) != -1)
			return -ENOMEM;
		kwq_heap_push(&q->waiting, &item->wait, ready);
		item->flags |= KWQ_ITEM_WAITING;
	}
	kwq_arm_locked(q);
	return 0;
}

/* When: count a failure of the key and ask the limiter for its delay. */
static u64 kwq_when_locked(struct kwq *q, struct kwq_item *item, s64 now)
{
	lockdep_assert_held(&q->lock);
	if (q->limiter.per_key) {
		if (!item->failures)
			q->nr_tracked++;
		if (item->failures < U32_MAX)
			item->failures++;
	}
	return kwq_limiter_when(&q->limiter, item->failures, now);
}

/**
 * kwq_add_item() - Add, AddAfter and AddRateLimited
 * @q: the queue
 * @new: a record from kwq_item_alloc() with the key filled in; always
 *	consumed (kept as the key's record, or freed)
 * @delay_ns: in: 0 adds at once; otherwise the key waits until this long
 *	after the call (CLOCK_MONOTONIC), never less. A key already waiting
 *	keeps the earlier of its two ready times. Waiting does not cancel or
 *	wait for a queued or processing copy: when the delay passes, the key
 *	is added as by Add. With KWQ_ADD_RATE_LIMITED it must be 0 on input
 *	and is set to the delay the limiter chose.
 * @flags: KWQ_ADD_*; with KWQ_ADD_RATE_LIMITED the limiter counts a
 *	failure of the key (also when the key is already queued or waiting,
 *	as in client-go) and gives the delay
 * @gfp: how the caller may allocate (growing the key table sleeps only if
 *	@gfp allows it)
 *
 * A call that fails changes nothing (no failure is counted, no token
 * taken).
 *
 * Context: any context @gfp allows (it sleeps only if @gfp allows it);
 * takes and releases q->lock.
 * Return: 0 if the key is pending afterwards (queued, coalesced with a
 * queued copy, marked dirty while processing, or waiting); -ESHUTDOWN once
 * the queue is shutting down; -EAGAIN if a new key would exceed max_items;
 * -ENOMEM.
 */
int kwq_add_item(struct kwq *q, struct kwq_item *new, u64 *delay_ns,
		 unsigned int flags, gfp_t gfp)
{
	bool limited = flags & KWQ_ADD_RATE_LIMITED;
	bool later = limited || *delay_ns;
	ktime_t now = ktime_get();
	struct kwq_item *item;
	unsigned long irqflags;
	u64 delay = *delay_ns;
	int ret;

	new->key.hash = kwq_keytab_hash(&q->keys, new->key.data, new->key.len);
	kwq_maybe_grow(q, gfp);
retry:
	if (later && !kwq_reserve_waiting(q, gfp)) {
		kwq_item_free(new);
		return -ENOMEM;
	}
	spin_lock_irqsave(&q->lock, irqflags);
	if (q->shutting_down) {
		ret = -ESHUTDOWN;
		goto unlock;
	}
	if (later && kwq_heap_chunk_needed(&q->waiting) >= 0) {
		/* The heap grew past our reservation meanwhile. */
		spin_unlock_irqrestore(&q->lock, irqflags);
		goto retry;
	}
	item = kwq_find_locked(q, new->key.hash, new->key.data, new->key.len);
	if (item) {
		ret = kwq_hold_locked(q, item);
		if (ret)
			goto unlock;
	} else {
		if (q->nr_held >= q->max_items) {
			ret = -EAGAIN;
			goto unlock;
		}
		kwq_keytab_insert(&q->keys, &new->key);
		q->nr_held++;
		item = new;
		new = NULL;
	}
	/*
	 * Every check that can fail has passed (the heap slot is reserved
	 * above, under this lock), so counting the failure and taking the
	 * token now cannot leave a failed call with a side effect.
	 */
	if (limited)
		delay = kwq_when_locked(q, item, now);
	if (later)
		q->retries++;	/* client-go: every AddAfter and AddRateLimited */
	if (delay) {
		ktime_t ready = delay > (u64)(KTIME_MAX - now) ? KTIME_MAX :
				now + (ktime_t)delay;

		ret = kwq_add_after_locked(q, item, ready);
		if (ret)
			kwq_unhold_locked(q, item);	/* if we just held it */
	} else {
		ret = kwq_add_locked(q, item);
	}
	*delay_ns = delay;
unlock:
	spin_unlock_irqrestore(&q->lock, irqflags);
	if (new)
		kwq_item_free(new);
	return ret;
}

/**
 * kwq_forget_key() - Forget: the limiter forgets the key's failures
 * @q: the queue
 * @key: the key
 * @len: its length
 *
 * It does not take the key off the queue.
 *
 * Context: any context.
 * Return: 0, also for a key the queue does not know.
 */
int kwq_forget_key(struct kwq *q, const void *key, u32 len)
{
	u64 hash = kwq_keytab_hash(&q->keys, key, len);
	struct kwq_item *item;
	unsigned long flags;

	spin_lock_irqsave(&q->lock, flags);
	item = kwq_find_locked(q, hash, key, len);
	if (item && item->failures) {
		item->failures = 0;
		q->nr_tracked--;
		if (!(item->flags & KWQ_ITEM_HELD)) {
			list_del_init(&item->link);
			q->nr_idle--;
			kwq_forget_record_locked(q, item);
		}
	}
	spin_unlock_irqrestore(&q->lock, flags);
	return 0;
}

/**
 * kwq_requeues_key() - NumRequeues: the key's failure count
 * @q: the queue
 * @key: the key
 * @len: its length
 *
 * Context: any context.
 * Return: failures counted by AddRateLimited since the last Forget (0 when
 * the limiter has no per-key term).
 */
unsigned int kwq_requeues_key(struct kwq *q, const void *key, u32 len)
{
	u64 hash = kwq_keytab_hash(&q->keys, key, len);
	struct kwq_item *item;
	unsigned long flags;
	unsigned int n;

	spin_lock_irqsave(&q->lock, flags);
	item = kwq_find_locked(q, hash, key, len);
	n = item ? item->failures : 0;
	spin_unlock_irqrestore(&q->lock, flags);
	return n;
}

/* The delay timer: add every key whose ready time has passed. */
static enum hrtimer_restart kwq_timer_fn(struct hrtimer *timer)
{
	struct kwq *q = container_of(timer, struct kwq, timer);
	struct kwq_heap_node *n;
	unsigned long flags;
	ktime_t now;

	spin_lock_irqsave(&q->lock, flags);
	if (!hrtimer_is_queued(timer))
		q->armed = KTIME_MAX;	/* this expiry is spent */
	now = ktime_get();
	while ((n = kwq_heap_peek(&q->waiting)) && n->when <= now) {
		struct kwq_item *item = container_of(n, struct kwq_item, wait);

		kwq_heap_pop(&q->waiting);
		item->flags &= ~KWQ_ITEM_WAITING;
		kwq_add_locked(q, item);	/* in ready-time order */
	}
	kwq_arm_locked(q);
	spin_unlock_irqrestore(&q->lock, flags);
	return HRTIMER_NORESTART;
}

struct kwq_take {
	struct kwq_holder *holder;
	void *buf;
	u32 cap;
	u32 len;
	u64 gen;
};

/* Take the head key: 0, -EMSGSIZE, -ESHUTDOWN, or -EAGAIN (empty). */
static int kwq_take_locked(struct kwq *q, struct kwq_take *t)
{
	struct kwq_item *item;

	lockdep_assert_held(&q->lock);
	item = list_first_entry_or_null(&q->fifo, struct kwq_item, link);
	if (!item)
		return q->shutting_down ? -ESHUTDOWN : -EAGAIN;
	t->len = item->key.len;
	if (item->key.len > t->cap)
		return -EMSGSIZE;		/* it stays queued */
	memcpy(t->buf, item->key.data, item->key.len);

	list_del_init(&item->link);
	WRITE_ONCE(q->nr_queued, q->nr_queued - 1);
	item->flags = (item->flags & ~KWQ_ITEM_QUEUED) | KWQ_ITEM_PROCESSING;
	q->nr_processing++;
	item->holder = t->holder;
	if (t->holder)
		list_add_tail(&item->link, &t->holder->held);
	/* per queue, so a record freed and made again never repeats one */
	t->gen = ++q->gen_seq;
	item->gen = t->gen;
	return 0;
}

typedef int (*kwq_check_fn)(struct kwq *q, void *arg);

/*
 * Sleep on @wqh until @check (called under q->lock) returns anything but
 * -EAGAIN, the absolute CLOCK_MONOTONIC @deadline passes (-ETIMEDOUT;
 * KTIME_MAX never does) or a signal comes (-ERESTARTSYS).
 */
static int kwq_wait(struct kwq *q, struct wait_queue_head *wqh,
		    bool exclusive, ktime_t deadline, unsigned int state,
		    kwq_check_fn check, void *arg)
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
		ret = check(q, arg);
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

static int kwq_check_take(struct kwq *q, void *arg)
{
	return kwq_take_locked(q, arg);
}

/**
 * kwq_take() - Get: take the head key and mark it processing
 * @q: the queue
 * @holder: the handle that will own the key (it is put back on the queue
 *	when the holder is released), or NULL for a detached key
 * @buf: receives the key
 * @cap: size of @buf
 * @len: set to the key length (also with -EMSGSIZE)
 * @gen: set to the hand-out generation (for kwq_unget()); may be NULL
 * @deadline: absolute CLOCK_MONOTONIC time to give up, or KTIME_MAX
 * @flags: KWQ_GET_*
 *
 * Keys queued before a shutdown are still handed out; -ESHUTDOWN comes
 * once the queue is shutting down and empty.
 *
 * Context: process context; sleeps unless KWQ_GET_NONBLOCK.
 * Return: 0; -EAGAIN (KWQ_GET_NONBLOCK and nothing queued); -ETIMEDOUT;
 * -ERESTARTSYS (signal); -EMSGSIZE (@cap too small; the key stays queued);
 * -ESHUTDOWN.
 */
int kwq_take(struct kwq *q, struct kwq_holder *holder, void *buf, u32 cap,
	     u32 *len, u64 *gen, ktime_t deadline, unsigned int flags)
{
	struct kwq_take t = { .holder = holder, .buf = buf, .cap = cap };
	unsigned int state = (flags & KWQ_GET_KILLABLE) ? TASK_KILLABLE :
							    TASK_INTERRUPTIBLE;
	unsigned long irqflags;
	int ret;

	if (flags & KWQ_GET_NONBLOCK) {
		spin_lock_irqsave(&q->lock, irqflags);
		ret = kwq_take_locked(q, &t);
		spin_unlock_irqrestore(&q->lock, irqflags);
	} else {
		might_sleep();
		ret = kwq_wait(q, &q->getters, true, deadline, state,
			       kwq_check_take, &t);
		/*
		 * An exclusive waiter that was woken for a key but leaves
		 * without it passes the wake-up on, so the key is not
		 * stranded while other consumers sleep.
		 */
		if (ret && ret != -ESHUTDOWN && READ_ONCE(q->nr_queued))
			wake_up(&q->getters);
	}
	*len = t.len;
	if (gen)
		*gen = t.gen;
	return ret;
}

/**
 * kwq_unget() - undo a kwq_take() whose key could not be delivered
 * @q: the queue
 * @holder: the holder given to kwq_take()
 * @key: the key
 * @len: its length
 * @gen: the generation kwq_take() returned
 *
 * Puts the key back at the head of the queue if it is still processing
 * from that very get (not done, not handed out again since).
 *
 * Context: any context.
 */
void kwq_unget(struct kwq *q, struct kwq_holder *holder, const void *key,
	       u32 len, u64 gen)
{
	u64 hash = kwq_keytab_hash(&q->keys, key, len);
	struct kwq_item *item;
	unsigned long flags;

	spin_lock_irqsave(&q->lock, flags);
	item = kwq_find_locked(q, hash, key, len);
	if (item && (item->flags & KWQ_ITEM_PROCESSING) &&
	    item->holder == holder && item->gen == gen)
		kwq_requeue_locked(q, item, true);
	spin_unlock_irqrestore(&q->lock, flags);
}

/* End processing of @item: queue it again if dirty, else forget it. */
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
		kwq_unhold_locked(q, item);
	}
	kwq_check_drained_locked(q);
}

/**
 * kwq_done_key() - Done: end processing of a key
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
int kwq_done_key(struct kwq *q, const void *key, u32 len)
{
	u64 hash = kwq_keytab_hash(&q->keys, key, len);
	struct kwq_item *item;
	unsigned long flags;
	int ret = 0;

	spin_lock_irqsave(&q->lock, flags);
	item = kwq_find_locked(q, hash, key, len);
	if (item && (item->flags & KWQ_ITEM_PROCESSING))
		kwq_finish_locked(q, item);
	else
		ret = -ENOENT;
	spin_unlock_irqrestore(&q->lock, flags);
	return ret;
}

/**
 * kwq_len() - Len: number of queued keys
 * @q: the queue
 *
 * Context: any context.
 * Return: keys ready to be handed out (not processing, not waiting).
 */
unsigned int kwq_len(struct kwq *q)
{
	return READ_ONCE(q->nr_queued);
}
EXPORT_SYMBOL_NS_GPL(kwq_len, WQ_NS);

/**
 * kwq_shutdown() - ShutDown: refuse new keys, wake every waiter
 * @q: the queue
 *
 * Queued keys are still handed out; waiting (AddAfter) keys are dropped.
 * Every drain waiting at this moment returns -ECANCELED (0 if the queue is
 * drained by then). Idempotent.
 *
 * Context: any context.
 */
void kwq_shutdown(struct kwq *q)
{
	unsigned long flags;

	spin_lock_irqsave(&q->lock, flags);
	WRITE_ONCE(q->shutting_down, true);
	q->drain_cancel++;
	kwq_drop_waiting_locked(q);
	spin_unlock_irqrestore(&q->lock, flags);
	wake_up_all(&q->getters);
	wake_up_all(&q->drainers);
}
EXPORT_SYMBOL_NS_GPL(kwq_shutdown, WQ_NS);

struct kwq_drain {
	unsigned int cancel;
};

static int kwq_check_drained(struct kwq *q, void *arg)
{
	struct kwq_drain *d = arg;

	if (!q->nr_queued && !q->nr_processing)
		return 0;
	if (q->drain_cancel != d->cancel)
		return -ECANCELED;
	return -EAGAIN;
}

/**
 * kwq_drain() - ShutDownWithDrain: shut down, then wait
 * until nothing is queued and nothing is processing
 * @q: the queue
 * @deadline: absolute CLOCK_MONOTONIC time to stop waiting, or KTIME_MAX
 *
 * Consumers keep taking the queued keys meanwhile. Unlike client-go, the
 * keys still queued are waited for too (kubernetes/kubernetes#141079).
 *
 * Context: process context; sleeps.
 * Return: 0 once drained; -ETIMEDOUT; -ECANCELED if a plain shutdown cut
 * the wait short; -ERESTARTSYS on a signal.
 */
int kwq_drain(struct kwq *q, ktime_t deadline)
{
	struct kwq_drain d;
	unsigned long flags;
	int ret;

	might_sleep();
	spin_lock_irqsave(&q->lock, flags);
	WRITE_ONCE(q->shutting_down, true);
	kwq_drop_waiting_locked(q);
	d.cancel = q->drain_cancel;
	q->nr_drainers++;
	spin_unlock_irqrestore(&q->lock, flags);
	wake_up_all(&q->getters);

	ret = kwq_wait(q, &q->drainers, false, deadline, TASK_INTERRUPTIBLE,
		       kwq_check_drained, &d);

	spin_lock_irqsave(&q->lock, flags);
	q->nr_drainers--;
	spin_unlock_irqrestore(&q->lock, flags);
	return ret;
}

/**
 * kwq_shutting_down() - ShuttingDown
 * @q: the queue
 *
 * Context: any context.
 * Return: true once the queue is shutting down.
 */
bool kwq_shutting_down(struct kwq *q)
{
	return READ_ONCE(q->shutting_down);
}
EXPORT_SYMBOL_NS_GPL(kwq_shutting_down, WQ_NS);

/**
 * kwq_poll_mask() - readiness for poll(): EPOLLIN when a key is queued,
 * EPOLLHUP when the queue is shutting down and empty
 * @q: the queue
 *
 * Return: the poll mask.
 */
__poll_t kwq_poll_mask(struct kwq *q)
{
	if (READ_ONCE(q->nr_queued))
		return EPOLLIN | EPOLLRDNORM;
	if (READ_ONCE(q->shutting_down))
		return EPOLLHUP;
	return 0;
}

/**
 * kwq_holder_init() - prepare a holder (one per handle)
 * @holder: the holder
 */
void kwq_holder_init(struct kwq_holder *holder)
{
	INIT_LIST_HEAD(&holder->held);
}

/**
 * kwq_holder_release() - put every key the holder is processing back on
 * the queue (at the tail, dirty or not; also after shutdown)
 * @q: the queue
 * @holder: the holder; empty afterwards
 *
 * Context: any context.
 */
void kwq_holder_release(struct kwq *q, struct kwq_holder *holder)
{
	struct kwq_item *item, *tmp;
	unsigned long flags;

	spin_lock_irqsave(&q->lock, flags);
	list_for_each_entry_safe(item, tmp, &holder->held, link)
		kwq_requeue_locked(q, item, false);
	spin_unlock_irqrestore(&q->lock, flags);
}

/**
 * kwq_fill_info() - the counters of a queue, for WQ_IOC_STAT and LIST
 * @q: the queue
 * @info: filled in, except @info->name, uid, gid and mode
 *
 * Context: any context.
 */
void kwq_fill_info(struct kwq *q, struct wq_queue_info *info)
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
