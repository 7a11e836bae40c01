// SPDX-License-Identifier: GPL-2.0
/*
 * Rate limiting: AddRateLimited's step (When, then AddAfter), Forget and
 * NumRequeues. See wq_ratelimit.h; the rules are in wq_queue.h.
 */
#include "wq_delay.h"
#include "wq_ratelimit.h"
#include "wq_record.h"
#include "wq_trace.h"

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
		*outcome = kwq_mark_pending_locked(q, item);
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
