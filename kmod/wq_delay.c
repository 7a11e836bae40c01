// SPDX-License-Identifier: GPL-2.0
/*
 * Delaying: AddAfter on a min-heap of ready times and one hrtimer per
 * queue; rate limiting's step, Forget and NumRequeues. See wq_delay.h;
 * the rules are in wq_queue.h.
 */
#include <linux/slab.h>
#include <linux/workqueue.h>

#include <wq/compat.h>

#include "wq_delay.h"
#include "wq_metrics.h"
#include "wq_quota.h"
#include "wq_record.h"
#include "wq_trace.h"

/* Slack of the delay timer: it may fire this much late, never early. */
#define KWQ_TIMER_SLACK_NS	(50 * NSEC_PER_USEC)

/*
 * Waiting keys moved (timer) or dropped (shutdown) per hold of q->lock:
 * the work done with interrupts off never grows with the queue.
 */
#define KWQ_DELAY_BATCH		64

/*
 * Keys moved per hold by the move work: fewer, as it holds the lock again
 * and again. Each hold is a section with interrupts off that a timer
 * interrupt, or a task waiting for the lock with interrupts off, must sit
 * out; taking the lock once more per 8 keys costs little beside moving
 * them (hundreds of nanoseconds).
 */
#define KWQ_DELAY_WORK_BATCH	8

/*
 * Where q->move_work runs: a workqueue of its own, WQ_MEM_RECLAIM (a
 * rescuer thread), since keys must come due even when no new worker can
 * be made, for users of the kernel API on the reclaim path.
 */
static struct workqueue_struct *kwq_delay_wq;

/**
 * kwq_delay_module_init() - make the workqueue of the move works
 *
 * Context: module init.
 * Return: 0 or -ENOMEM.
 */
int kwq_delay_module_init(void)
{
	kwq_delay_wq = alloc_workqueue("kwq_delay", WQ_UNBOUND | WQ_MEM_RECLAIM,
				       0);
	return kwq_delay_wq ? 0 : -ENOMEM;
}

/**
 * kwq_delay_module_exit() - destroy it (every queue is gone)
 *
 * Context: module exit.
 */
void kwq_delay_module_exit(void)
{
	destroy_workqueue(kwq_delay_wq);
}

static enum hrtimer_restart kwq_delay_timer_fn(struct hrtimer *timer);
static void kwq_delay_move_work(struct work_struct *work);
static void kwq_delay_drop_work(struct work_struct *work);

/**
 * kwq_delay_init() - set up an empty waiting heap and the delay timer
 * @q: the queue being allocated
 * @max_items: most keys the heap may ever hold
 * @gfp: allocation flags
 *
 * Return: 0 or -ENOMEM.
 */
int kwq_delay_init(struct kwq *q, u32 max_items, gfp_t gfp)
{
	q->waiting.nr_chunks = kwq_heap_chunks_for(max_items);
	q->waiting.chunks = kvcalloc(q->waiting.nr_chunks,
				     sizeof(*q->waiting.chunks), gfp);
	if (!q->waiting.chunks)
		return -ENOMEM;
	wq_hrtimer_setup(&q->timer, kwq_delay_timer_fn, CLOCK_MONOTONIC,
			 HRTIMER_MODE_ABS_SOFT);
	INIT_WORK(&q->move_work, kwq_delay_move_work);
	INIT_WORK(&q->drop_work, kwq_delay_drop_work);
	q->armed = KTIME_MAX;
	return 0;
}

/**
 * kwq_delay_stop() - make sure the delay timer and the works are not
 * running, for good
 * @q: a queue nobody can add to any more (its last reference is gone)
 *
 * Once q->delay_stopped is set neither the timer nor the move work starts
 * the other again, so one cancel of each is enough.
 *
 * Context: process context, no lock held (it waits for a running callback).
 */
void kwq_delay_stop(struct kwq *q)
{
	unsigned long flags;

	spin_lock_irqsave(&q->lock, flags);
	q->delay_stopped = true;
	spin_unlock_irqrestore(&q->lock, flags);
	hrtimer_cancel(&q->timer);
	cancel_work_sync(&q->move_work);
	cancel_work_sync(&q->drop_work);
}

/**
 * kwq_delay_destroy() - free the waiting heap's memory
 * @q: the queue, its timer stopped (or never started)
 */
void kwq_delay_destroy(struct kwq *q)
{
	u32 i;

	for (i = 0; i < q->waiting.nr_chunks; i++)
		kfree(q->waiting.chunks[i]);
	kvfree(q->waiting.chunks);
}

/*
 * Start (or stop) the timer for the earliest waiting key, if it changed. A
 * queue shutting down has no timer: its waiting keys are being dropped.
 * Nor has one whose move work runs: it arms the timer when it is done.
 */
static void kwq_delay_arm_locked(struct kwq *q)
{
	struct kwq_heap_node *n = kwq_heap_peek(&q->waiting);
	ktime_t when = n && !q->shutting_down ? n->when : KTIME_MAX;

	lockdep_assert_held(&q->lock);
	if (q->moving || q->delay_stopped || when == q->armed)
		return;
	q->armed = when;
	if (when == KTIME_MAX)
		hrtimer_try_to_cancel(&q->timer);	/* a late fire is harmless */
	else
		hrtimer_start_range_ns(&q->timer, when, KWQ_TIMER_SLACK_NS,
				       HRTIMER_MODE_ABS_SOFT);
}

/*
 * On a priority queue a key ready already (queued, or dirty to be queued
 * at done) takes no waiting copy: a delayed add changes only its priority.
 */
static bool kwq_delay_ready_already(const struct kwq *q,
				    const struct kwq_item *item)
{
	return q->prio && (item->flags & (KWQ_ITEM_QUEUED | KWQ_ITEM_DIRTY));
}

/**
 * kwq_delay_room_locked() - does an AddAfter of @new's key need heap room?
 * @q: the queue (q->lock held)
 * @new: a record from kwq_record_prepare_hashed()
 *
 * A key already waiting keeps its slot; a queue shutting down takes no
 * keys, so it needs none either.
 *
 * Return: the index of the chunk to allocate (kwq_delay_add_room(), after
 * unlocking), or -1: no allocation would help (there is room, or the key
 * needs none, or the heap is at its capacity, which max_items keeps it
 * from reaching).
 */
int kwq_delay_room_locked(struct kwq *q, const struct kwq_item *new)
{
	const struct kwq_item *item;
	int idx = kwq_heap_chunk_needed(&q->waiting);

	lockdep_assert_held(&q->lock);
	if (idx < 0 || q->shutting_down)
		return -1;
	item = kwq_record_find_locked(q, new->key.hash, kwq_key_data(&new->key),
				      new->key.len);
	if (item && (item->flags & KWQ_ITEM_WAITING))
		return -1;
	if (item && kwq_delay_ready_already(q, item))	/* it will not wait */
		return -1;
	return idx;
}

/**
 * kwq_delay_add_room() - allocate heap chunk @idx
 * @q: the queue
 * @idx: from kwq_delay_room_locked()
 * @unlimited: the adder has CAP_SYS_RESOURCE (see wq_quota.h)
 * @gfp: how the caller may allocate
 *
 * Chunks stay until the queue is freed, so each is charged to the queue's
 * owner until then.
 *
 * Context: any context @gfp allows; not under q->lock (it allocates).
 * Return: 0 (also if somebody else added the chunk meanwhile), -EDQUOT or
 * -ENOMEM.
 */
int kwq_delay_add_room(struct kwq *q, int idx, bool unlimited, gfp_t gfp)
{
	const long cost = KWQ_HEAP_CHUNK * sizeof(struct kwq_heap_node *);
	struct kwq_heap_node **chunk;
	unsigned long flags;

	if (!wq_quota_charge_bytes(q->owner, unlimited, cost))
		return -EDQUOT;
	chunk = kcalloc(KWQ_HEAP_CHUNK, sizeof(*chunk), gfp | __GFP_NOWARN);
	if (!chunk) {
		wq_quota_uncharge_bytes(q->owner, cost);
		return -ENOMEM;
	}
	spin_lock_irqsave(&q->lock, flags);
	if (!q->waiting.chunks[idx]) {
		kwq_heap_add_chunk(&q->waiting, idx, chunk);
		q->charged += cost;
		chunk = NULL;
	}
	spin_unlock_irqrestore(&q->lock, flags);
	if (!chunk)
		return 0;
	kfree(chunk);		/* somebody else added it meanwhile */
	wq_quota_uncharge_bytes(q->owner, cost);
	return 0;
}

/**
 * kwq_delay_schedule_locked() - make a held record wait until @ready
 * @q: the queue (q->lock held, with room: kwq_delay_room_locked())
 * @item: the record
 * @ready: absolute CLOCK_MONOTONIC ready time
 *
 * A key already waiting keeps the earlier of its two ready times; a later
 * call never postpones it. @item may be freed on return if it was given no
 * held state (which would be a bug: see the WARN).
 *
 * On a priority queue a key that is ready already (queued, or dirty to be
 * queued at done) does not wait as well: it keeps its place.
 *
 * Return: WQ_ADDED_WAITING, or WQ_ADDED_KEPT if the key was waiting
 * already for @ready or earlier (or, on the WARN, nothing was done);
 * on a priority queue WQ_ADDED_COALESCED or WQ_ADDED_DIRTY for a key
 * ready already.
 */
int kwq_delay_schedule_locked(struct kwq *q, struct kwq_item *item,
			      ktime_t ready)
{
	int ret = WQ_ADDED_WAITING;

	lockdep_assert_held(&q->lock);
	if (kwq_delay_ready_already(q, item))
		return (item->flags & KWQ_ITEM_QUEUED) ? WQ_ADDED_COALESCED :
							 WQ_ADDED_DIRTY;
	if (item->flags & KWQ_ITEM_WAITING) {
		if (ready >= item->wait.when)
			ret = WQ_ADDED_KEPT;
		kwq_heap_move_earlier(&q->waiting, &item->wait, ready);
	} else {
		/* kwq_delay_room_locked() said so under this lock hold */
		if (WARN_ON_ONCE(kwq_heap_chunk_needed(&q->waiting) != -1)) {
			kwq_record_unhold_locked(q, item);	/* no state */
			return WQ_ADDED_KEPT;
		}
		kwq_heap_push(&q->waiting, &item->wait, ready);
		item->flags |= KWQ_ITEM_WAITING;
	}
	kwq_delay_arm_locked(q);
	return ret;
}

/**
 * kwq_delay_cancel_locked() - drop a key's waiting copy
 * @q: the queue (q->lock held)
 * @item: a WAITING record
 *
 * The caller gives the record another held state, or unholds it
 * (kwq_record_unhold_locked()). The timer stays armed for what it was; if
 * the key was the earliest, it fires for nothing and arms again.
 */
void kwq_delay_cancel_locked(struct kwq *q, struct kwq_item *item)
{
	lockdep_assert_held(&q->lock);
	kwq_heap_remove(&q->waiting, &item->wait);
	item->flags &= ~KWQ_ITEM_WAITING;
}

/**
 * kwq_delay_cancel() - CancelAfter: drop the waiting copy of a key
 * @q: the queue
 * @key: the key
 * @len: its length
 *
 * A key also queued or processing stays so; one held only by its delay
 * stops being held (its failures are kept, as after a Done). Once the
 * queue is shutting down its waiting keys are the shutdown's to drop (and
 * count): nothing is cancelled.
 *
 * Context: any context; takes q->lock.
 * Return: 1 if a waiting copy was dropped, 0 if the key was not waiting
 * (or the queue is shutting down).
 */
int kwq_delay_cancel(struct kwq *q, const void *key, u32 len)
{
	u64 hash = kwq_record_hash(q, key, len);
	struct kwq_item *item;
	unsigned long flags;
	unsigned int held;
	int ret = 0;

	spin_lock_irqsave(&q->lock, flags);
	held = q->nr_held;
	item = kwq_record_find_locked(q, hash, key, len);
	if (item && (item->flags & KWQ_ITEM_WAITING) && !q->shutting_down) {
		kwq_delay_cancel_locked(q, item);
		kwq_record_unhold_locked(q, item);
		kwq_wake_drainers_locked(q);
		ret = 1;
	}
	held -= q->nr_held;
	spin_unlock_irqrestore(&q->lock, flags);
	kwq_wake_producers(q, held);
	return ret;
}

/**
 * kwq_delay_drop_locked() - drop a batch of waiting keys (shutdown)
 * @q: the queue, shutting down (q->lock held)
 *
 * Every key dropped that is not also queued (that one is counted when it
 * leaves the queue) counts in discarded_total, and after a discard in
 * q->nr_discarded.
 *
 * Return: true if waiting keys remain (drop them with
 * kwq_delay_drop_all(), or leave them to q->drop_work).
 */
bool kwq_delay_drop_locked(struct kwq *q)
{
	struct kwq_heap_node *n;
	unsigned int i;

	lockdep_assert_held(&q->lock);
	for (i = 0; i < KWQ_DELAY_BATCH && (n = kwq_heap_pop(&q->waiting));
	     i++) {
		struct kwq_item *item = container_of(n, struct kwq_item, wait);

		item->flags &= ~KWQ_ITEM_WAITING;
		if (!(item->flags & KWQ_ITEM_QUEUED)) {
			q->metrics.discarded++;	/* once: it leaves here */
			if (q->discarded)
				q->nr_discarded++;
		}
		kwq_record_unhold_locked(q, item);
	}
	kwq_delay_arm_locked(q);
	return kwq_heap_len(&q->waiting);
}

/**
 * kwq_delay_drop_all() - drop every waiting key of a queue shutting down,
 * a batch per hold of q->lock
 * @q: the queue
 *
 * Context: process context; may sleep.
 */
void kwq_delay_drop_all(struct kwq *q)
{
	unsigned long flags;
	bool more;

	do {
		spin_lock_irqsave(&q->lock, flags);
		more = kwq_delay_drop_locked(q);
		spin_unlock_irqrestore(&q->lock, flags);
		if (more)
			cond_resched();
	} while (more);
}

static void kwq_delay_drop_work(struct work_struct *work)
{
	kwq_delay_drop_all(container_of(work, struct kwq, drop_work));
}

/**
 * kwq_delay_after_locked() - AddAfter of a held record, with a delay
 * @q: the queue (q->lock held, with room: kwq_delay_room_locked())
 * @item: the record
 * @ready: when the key becomes ready (now + the delay, > now)
 *
 * Waiting does not cancel or wait for a queued or processing copy: when
 * the delay passes, the key is added as by Add.
 *
 * Return: as kwq_delay_schedule_locked().
 */
int kwq_delay_after_locked(struct kwq *q, struct kwq_item *item,
			   ktime_t ready)
{
	lockdep_assert_held(&q->lock);
	q->retries++;	/* client-go: every AddAfter */
	return kwq_delay_schedule_locked(q, item, ready);
}

/*
 * Add the keys whose ready time has passed, in ready-time order, @batch
 * at most. Returns whether due keys remain; *@moved says how many were
 * queued (consumers to wake, after the lock).
 */
static bool kwq_delay_move_locked(struct kwq *q, unsigned int batch,
				  unsigned int *moved)
{
	ktime_t now = ktime_get();
	u64 stamp = kwq_metrics_now();	/* 0 with metrics=N */
	unsigned int i, was = q->nr_queued;
	struct kwq_heap_node *n;

	lockdep_assert_held(&q->lock);
	for (i = 0; i < batch && !q->shutting_down &&
	     (n = kwq_heap_peek(&q->waiting)) && n->when <= now; i++) {
		struct kwq_item *item = container_of(n, struct kwq_item, wait);

		kwq_heap_pop(&q->waiting);
		item->flags &= ~KWQ_ITEM_WAITING;
		/* in ready-time order; pending from this fire */
		kwq_mark_pending_locked(q, item, stamp);
	}
	if (i)
		trace_kwq_timer_fire(q, i, kwq_heap_len(&q->waiting));
	*moved = q->nr_queued - was;
	n = kwq_heap_peek(&q->waiting);
	return n && n->when <= now && !q->shutting_down;
}

/*
 * The delay timer: the first batch of the keys whose time has come, in
 * softirq. If more are due (many keys sharing a ready time), the rest
 * are moved by q->move_work in process context, a batch per hold of
 * q->lock and cond_resched() in between, so that a million keys expiring
 * at once neither keep the softirq busy for seconds nor delay the tasks
 * around them; the work arms the timer again when it is done.
 */
static enum hrtimer_restart kwq_delay_timer_fn(struct hrtimer *timer)
{
	struct kwq *q = container_of(timer, struct kwq, timer);
	unsigned long flags;
	unsigned int moved = 0;

	spin_lock_irqsave(&q->lock, flags);
	if (!hrtimer_is_queued(timer))
		q->armed = KTIME_MAX;	/* this expiry is spent */
	if (!q->delay_stopped && !q->moving) {
		if (kwq_delay_move_locked(q, KWQ_DELAY_BATCH, &moved)) {
			q->moving = true;
			queue_work(kwq_delay_wq, &q->move_work);
		} else {
			kwq_delay_arm_locked(q);
		}
	}
	spin_unlock_irqrestore(&q->lock, flags);
	kwq_wake_getters(q, moved);
	return HRTIMER_NORESTART;
}

/* The rest of a mass expiry, in process context (kwq_delay_timer_fn()). */
static void kwq_delay_move_work(struct work_struct *work)
{
	struct kwq *q = container_of(work, struct kwq, move_work);
	unsigned int moved = 0;
	unsigned long flags;
	bool more;

	do {
		spin_lock_irqsave(&q->lock, flags);
		more = !q->delay_stopped &&
		       kwq_delay_move_locked(q, KWQ_DELAY_WORK_BATCH, &moved);
		if (!more) {
			q->moving = false;
			kwq_delay_arm_locked(q);
		}
		spin_unlock_irqrestore(&q->lock, flags);
		kwq_wake_getters(q, moved);
		if (more)
			cond_resched();
	} while (more);
}

/* Rate limiting: AddRateLimited's step, Forget and NumRequeues */
/* When: count a failure of the key and ask the limiter for its delay. */
static u64 kwq_ratelimit_when_locked(struct kwq *q, struct kwq_item *item,
				     ktime_t now)
{
	if (q->limiter.per_key) {
		if (!item->failures)
			q->nr_tracked++;
		if (item->failures < U32_MAX)
			item->failures++;
	}
	return kwq_limiter_when(&q->limiter, item->failures, now);
}

/**
 * kwq_ratelimit_locked() - AddRateLimited of a held record:
 * AddAfter(key, When(key))
 * @q: the queue (q->lock held, with room: kwq_delay_room_locked())
 * @item: the record
 * @now: CLOCK_MONOTONIC time of the call
 * @cap: the longest delay (an AddAfter given with it: the shorter wins, as
 *	in controller-runtime's priority queue); U64_MAX for none
 * @outcome: set to what the add did (WQ_ADDED_*)
 *
 * The failure is counted and a token taken also when the key is already
 * queued or waiting, as in client-go.
 *
 * Return: the delay used (0: the key was added as by Add).
 */
u64 kwq_ratelimit_locked(struct kwq *q, struct kwq_item *item, ktime_t now,
			 u64 cap, int *outcome)
{
	u64 delay;

	lockdep_assert_held(&q->lock);
	delay = min(kwq_ratelimit_when_locked(q, item, now), cap);
	q->retries++;	/* client-go: every AddRateLimited */
	trace_kwq_rate_limited(q, item, delay, item->failures);
	if (delay)
		*outcome = kwq_delay_schedule_locked(q, item,
						     kwq_time_after(now, delay));
	else
		*outcome = kwq_mark_pending_locked(q, item, 0);
	return delay;
}

/**
 * kwq_ratelimit_forget() - Forget: the limiter forgets the key's failures
 * @q: the queue
 * @key: the key
 * @len: its length
 *
 * It does not take the key off the queue.
 *
 * Context: any context.
 * Return: 0, also for a key the queue does not know.
 */
int kwq_ratelimit_forget(struct kwq *q, const void *key, u32 len)
{
	u64 hash = kwq_record_hash(q, key, len);
	struct kwq_item *item;
	unsigned long flags;

	spin_lock_irqsave(&q->lock, flags);
	item = kwq_record_find_locked(q, hash, key, len);
	if (item && item->failures) {
		item->failures = 0;
		q->nr_tracked--;
		kwq_record_drop_idle_locked(q, item);
	}
	spin_unlock_irqrestore(&q->lock, flags);
	return 0;
}

/**
 * kwq_ratelimit_requeues() - NumRequeues: the key's failure count
 * @q: the queue
 * @key: the key
 * @len: its length
 *
 * Context: any context.
 * Return: failures counted by AddRateLimited since the last Forget (0 when
 * the limiter has no per-key term).
 */
unsigned int kwq_ratelimit_requeues(struct kwq *q, const void *key, u32 len)
{
	u64 hash = kwq_record_hash(q, key, len);
	struct kwq_item *item;
	unsigned long flags;
	unsigned int n;

	spin_lock_irqsave(&q->lock, flags);
	item = kwq_record_find_locked(q, hash, key, len);
	n = item ? item->failures : 0;
	spin_unlock_irqrestore(&q->lock, flags);
	return n;
}
