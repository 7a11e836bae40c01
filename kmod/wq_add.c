// SPDX-License-Identifier: GPL-2.0
/*
 * Add: every way a key comes in, in one place. kwq_add_key() (a key the
 * caller owns: Add, AddAfter, AddRateLimited, with or without waiting for
 * room), kwq_add_item() (a record the caller made), kwq_add_many() (a
 * batch). Each finds or makes the key's record under q->lock and hands
 * it to one layer's step: kwq_mark_pending_locked() (the queue,
 * wq_queue.c), kwq_delay_after_locked() (AddAfter, wq_delay.c) or
 * kwq_ratelimit_locked() (AddRateLimited, wq_delay.c). See wq_add.h;
 * the rules are in wq_queue.h.
 */
#include <linux/string.h>

#include "wq_add.h"
#include "wq_delay.h"
#include "wq_metrics.h"
#include "wq_ready.h"
#include "wq_record.h"
#include "wq_trace.h"

/*
 * Add, or AddAfter of 0 ns, of a held record: pending now. client-go
 * counts every AddAfter as a retry, also one of 0.
 */
static int kwq_add_now_locked(struct kwq *q, struct kwq_item *item,
			      unsigned int flags)
{
	if (flags & KWQ_ADD_AFTER) {
		q->retries++;
		trace_kwq_add_after(q, item, 0, 0);
	}
	return kwq_mark_pending_locked(q, item, 0);
}

/*
 * Must an add at @prio of @found (the key's record, or NULL) have the
 * level of @prio first (kwq_level_prepare_locked())? On a priority queue,
 * when the key will take the priority (kwq_prio_takes()) and the add will
 * be accepted as far as this hold can tell: not after a shutdown, and not
 * for a new key of a full queue, which is refused (-EAGAIN) or waits for
 * room before any budget is asked for, as on any queue.
 */
static bool kwq_add_needs_level(const struct kwq *q,
				const struct kwq_item *found, s32 prio)
{
	if (!kwq_prio_takes(q, found, prio) || q->shutting_down)
		return false;
	return (found && (found->flags & KWQ_ITEM_HELD)) ||
	       q->nr_held < q->max_items;
}

/*
 * The held record for an add of @new's key, looked up in this hold of
 * q->lock as @item (kwq_record_hold_found_locked()'s @item, @new and
 * @unlimited): every add goes through here, and a queue shutting down
 * takes no keys. Return: the record, or ERR_PTR(-ESHUTDOWN), -EAGAIN or
 * -EDQUOT with nothing changed.
 */
static struct kwq_item *kwq_accept_found_locked(struct kwq *q,
						struct kwq_item *item,
						struct kwq_item **new,
						bool unlimited)
{
	lockdep_assert_held(&q->lock);
	if (q->shutting_down)
		return ERR_PTR(-ESHUTDOWN);
	return kwq_record_hold_found_locked(q, item, new, unlimited);
}

/*
 * Accept the add of @new's key at @prio: the held record, its priority
 * given (on a priority queue; @prepared: this hold made sure of the level
 * of @prio, which goes back if the key did not take it).
 */
static inline struct kwq_item *
kwq_accept_prio_locked(struct kwq *q, struct kwq_item *found,
		       struct kwq_item **new, bool unlimited, s32 prio,
		       bool prepared)
{
	struct kwq_item *item;

	item = kwq_accept_found_locked(q, found, new, unlimited);
	if (!IS_ERR(item))
		kwq_prio_add_locked(q, item, item->flags & KWQ_ITEM_HELD, prio);
	if (prepared)
		kwq_level_trim_locked(q, prio);
	return item;
}

/* kwq_add_item() of a record whose key's hash is @hash. */
static int kwq_add_item_hashed(struct kwq *q, struct kwq_item *new, u64 hash,
			       u64 *delay_ns, unsigned int flags, s32 prio,
			       gfp_t gfp, ktime_t deadline)
{
	bool limited = flags & KWQ_ADD_RATE_LIMITED;
	bool unlimited = flags & KWQ_ADD_UNLIMITED;
	bool later = limited || *delay_ns;
	struct kwq_level *level = NULL;
	ktime_t now = later ? ktime_get() : 0;	/* a plain add needs none */
	struct kwq_item *item;
	unsigned long irqflags;
	bool waited = false, prepared;
	unsigned int was;
	int ret;

	kwq_record_prepare_hashed(q, new, hash, gfp);
	for (;;) {
		spin_lock_irqsave(&q->lock, irqflags);
		/* a slot even if When gives 0: When has side effects */
		ret = later ? kwq_delay_room_locked(q, new) : -1;
		if (ret >= 0) {
			spin_unlock_irqrestore(&q->lock, irqflags);
			ret = kwq_delay_add_room(q, ret, unlimited, gfp);
			if (ret)
				goto out;
			continue;
		}
		item = kwq_record_find_locked(q, hash, kwq_key_data(&new->key),
					      new->key.len);
		/* the level of @prio, if the key will take it */
		prepared = kwq_add_needs_level(q, item, prio);
		ret = prepared ? kwq_level_prepare_locked(q, prio, &level,
							  unlimited) : 0;
		if (ret) {
			spin_unlock_irqrestore(&q->lock, irqflags);
			if (ret != -ENOMEM)	/* -EDQUOT */
				goto out;
			level = kwq_level_alloc(gfp);
			if (!level)
				goto out;
			continue;
		}
		item = kwq_accept_prio_locked(q, item, &new, unlimited, prio,
					      prepared);
		if (item != ERR_PTR(-EAGAIN) || !(flags & KWQ_ADD_WAIT))
			break;
		spin_unlock_irqrestore(&q->lock, irqflags);
		ret = kwq_queue_wait_room(q, deadline);
		if (ret)
			goto out;
		waited = true;
		if (later)
			now = ktime_get();	/* delays count from the add */
	}
	was = q->nr_queued;
	ret = 0;
	if (IS_ERR(item)) {
		ret = PTR_ERR(item);
		if (ret == -EAGAIN && !(flags & KWQ_ADD_TRY))
			q->metrics.refused++;
	} else if (limited) {
		/* with KWQ_ADD_AFTER (priority queues): the shorter delay */
		*delay_ns = kwq_ratelimit_locked(q, item, now,
						 (flags & KWQ_ADD_AFTER) ?
						 *delay_ns : U64_MAX, &ret);
	} else if (*delay_ns) {
		trace_kwq_add_after(q, item, *delay_ns, 0);
		ret = kwq_delay_after_locked(q, item,
					     kwq_time_after(now, *delay_ns));
	} else {
		ret = kwq_add_now_locked(q, item, flags);
	}
	was = q->nr_queued - was;
	spin_unlock_irqrestore(&q->lock, irqflags);
	kwq_wake_getters(q, was);
out:
	/*
	 * A producer woken for a slot it may not have taken (its key was
	 * added meanwhile, or the add failed otherwise) passes the wake-up
	 * on while there is room, as kwq_queue_wait_room() does when it gives
	 * up; a spurious one costs the woken producer one look.
	 */
	if (waited && READ_ONCE(q->nr_held) < q->max_items)
		kwq_wake_producers(q, 1);
	if (new)
		kwq_record_free(new);
	kfree(level);
	return ret;
}

/**
 * kwq_add_item() - Add, AddAfter and AddRateLimited
 * @q: the queue
 * @new: a record from kwq_record_alloc() with the key filled in; always
 *	consumed (kept as the key's record, or freed)
 * @delay_ns: in: 0 adds at once, otherwise AddAfter this long
 *	(CLOCK_MONOTONIC, never less); ignored with KWQ_ADD_RATE_LIMITED (the
 *	front ends require 0). Out, with KWQ_ADD_RATE_LIMITED and on success
 *	only: the limiter's delay
 * @flags: KWQ_ADD_*
 * @prio: the add's priority on a priority queue (0 when not given);
 *	ignored on a plain queue
 * @gfp: how the caller may allocate (growing the key table or the heap
 *	sleeps only if @gfp allows it)
 * @deadline: with KWQ_ADD_WAIT, absolute CLOCK_MONOTONIC time to stop
 *	waiting for room, or KTIME_MAX; otherwise unused
 *
 * One lock hold: the key's record is found or inserted and held, then one
 * layer's step runs on it (kwq_mark_pending_locked(),
 * kwq_delay_after_locked() or kwq_ratelimit_locked()). Everything that can
 * fail is checked before that step, so a call that fails changes nothing
 * (no failure counted, no token taken). Memory is allocated outside the
 * lock; heap room only for a key that may wait and has no slot yet (an
 * AddRateLimited gets it before When, which may then say 0). With
 * KWQ_ADD_WAIT, a new key that would exceed max_items waits for room
 * (kwq_queue_wait_room()) and tries again; a key the queue holds already
 * never waits. With KWQ_ADD_AFTER (an AddAfter) a @delay_ns of 0 counts
 * in retries_total as any AddAfter does (client-go), then adds at once.
 * A call that fails counts no retry; one refused for capacity counts in
 * refused_total.
 *
 * Context: any context @gfp allows (process context with KWQ_ADD_WAIT);
 * takes and releases q->lock.
 * Return: what the add did if the key is pending afterwards (>= 0,
 * WQ_ADDED_*: queued, coalesced with a queued copy, marked dirty while
 * processing, waiting, or waiting already for an earlier time); -ESHUTDOWN once
 * the queue is shutting down (also while waiting for room); -EAGAIN if a
 * new key would exceed max_items (without KWQ_ADD_WAIT; counted as
 * refused unless KWQ_ADD_TRY says the caller waits for room elsewhere,
 * as an io_uring command does in io_uring's worker); -ETIMEDOUT or
 * -ERESTARTSYS (KWQ_ADD_WAIT); -EDQUOT if it would exceed the owner's
 * budget (wq_quota.h); -ENOMEM.
 */
int kwq_add_item(struct kwq *q, struct kwq_item *new, u64 *delay_ns,
		 unsigned int flags, s32 prio, gfp_t gfp, ktime_t deadline)
{
	return kwq_add_item_hashed(q, new,
				   kwq_record_hash(q, kwq_key_data(&new->key),
						   new->key.len),
				   delay_ns, flags, prio, gfp, deadline);
}

/*
 * A plain Add of a key in one hold of q->lock, if the queue knows the key
 * or has a spare record for it (and, at a priority new to the queue, a
 * level: *@level, from kwq_level_alloc(), or the queue's spare one).
 * Returns true if it was added: *@queued is 1 if it was queued,
 * *@inserted whether a spare record became the key's. Otherwise false,
 * and no spare record taken, with *@err the add's result if it is final
 * (-EAGAIN without KWQ_ADD_WAIT, counted as refused but with KWQ_ADD_TRY;
 * -EDQUOT; -ESHUTDOWN),
 * -ENOMEM if only a level is missing (allocate one and try again), or 0
 * for the slow path to go on. If added, *@err is what the add did
 * (WQ_ADDED_*).
 */
static bool kwq_add_key_locked(struct kwq *q, const void *key, u32 len,
			       u64 hash, unsigned int flags, s32 prio,
			       struct kwq_level **level, unsigned int *queued,
			       bool *inserted, int *err)
{
	bool unlimited = flags & KWQ_ADD_UNLIMITED;
	struct kwq_item *item, *new = NULL;
	bool prepared;

	item = kwq_record_find_locked(q, hash, key, len);
	prepared = kwq_add_needs_level(q, item, prio);
	if (prepared) {
		*err = kwq_level_prepare_locked(q, prio, level, unlimited);
		if (*err)
			return false;
	}
	*inserted = !item;
	if (!item) {
		new = kwq_record_spare_locked(q, len);
		if (!new) {
			if (prepared)	/* the slow path makes it again */
				kwq_level_trim_locked(q, prio);
			return false;
		}
		memcpy(kwq_key_data(&new->key), key, len);
		new->key.hash = hash;
	}
	item = kwq_accept_prio_locked(q, item, &new, unlimited, prio, prepared);
	if (IS_ERR(item)) {
		if (new)	/* refused: still spare */
			kwq_record_put_locked(q, new);
		*err = PTR_ERR(item);
		/* full: refused now, or waited for on the slow path */
		if (*err == -EAGAIN && !(flags & (KWQ_ADD_WAIT | KWQ_ADD_TRY)))
			q->metrics.refused++;
		else if (*err == -EAGAIN && (flags & KWQ_ADD_WAIT))
			*err = 0;
		return false;
	}
	*queued = q->nr_queued;
	*err = kwq_add_now_locked(q, item, flags);
	*queued = q->nr_queued - *queued;
	return true;
}

/**
 * kwq_add_key() - kwq_add_item() of a key the caller owns
 * @q: the queue
 * @key: the key bytes (copied if a record is needed)
 * @len: 1..WQ_KEY_MAX
 * @delay_ns: as for kwq_add_item()
 * @flags: as for kwq_add_item()
 * @prio: as for kwq_add_item()
 * @gfp: as for kwq_add_item()
 * @deadline: as for kwq_add_item()
 *
 * The key is hashed once. A plain Add (no delay, not rate-limited) is done
 * in one lock hold without allocating anything when the queue knows the
 * key (client-go's common case of a key added again before its worker got
 * to it) or has a spare record for it (a short new key once keys have
 * been done: wq_record.h); a plain Add refused there (shutting down,
 * full without KWQ_ADD_WAIT, over budget) returns at once, having
 * allocated nothing but, at a priority new to the queue, the level,
 * which it allocates outside the lock before it tries again. Any other
 * add, or one that cannot be done so (no spare record, or full with
 * KWQ_ADD_WAIT), allocates a record outside the lock and goes on as
 * kwq_add_item().
 *
 * Context: as kwq_add_item().
 * Return: as kwq_add_item().
 */
int kwq_add_key(struct kwq *q, const void *key, u32 len, u64 *delay_ns,
		unsigned int flags, s32 prio, gfp_t gfp, ktime_t deadline)
{
	u64 hash = kwq_record_hash(q, key, len);
	struct kwq_level *level = NULL;
	bool done, inserted = false;
	struct kwq_item *new;
	int err = 0;
	unsigned long irqflags;
	unsigned int queued;

	while (!(flags & KWQ_ADD_RATE_LIMITED) && !*delay_ns) {
		spin_lock_irqsave(&q->lock, irqflags);
		/* as kwq_accept_found_locked(), with nothing allocated */
		if (q->shutting_down) {
			spin_unlock_irqrestore(&q->lock, irqflags);
			kfree(level);
			return -ESHUTDOWN;
		}
		done = kwq_add_key_locked(q, key, len, hash, flags, prio,
					  &level, &queued, &inserted, &err);
		spin_unlock_irqrestore(&q->lock, irqflags);
		if (done) {
			kwq_wake_getters(q, queued);
			if (inserted)
				kwq_record_grow(q, gfp);
			kfree(level);
			return err;
		}
		/* a priority new to the queue: a level, then again */
		if (err == -ENOMEM && !level) {
			level = kwq_level_alloc(gfp);
			if (level)
				continue;
		}
		kfree(level);
		if (err)
			return err;
		break;
	}
	new = kwq_record_alloc(len, gfp);
	if (!new)
		return -ENOMEM;
	memcpy(kwq_key_data(&new->key), key, len);
	return kwq_add_item_hashed(q, new, hash, delay_ns, flags, prio, gfp,
				   deadline);
}

/* The result of one key's add in kwq_add_many(). */
static void kwq_add_one_locked(struct kwq *q, struct kwq_item *item,
			       const struct kwq_add_batch *b, u64 now,
			       int *res, unsigned int *ok)
{
	int outcome;

	if (IS_ERR(item)) {
		*res = PTR_ERR(item);
		if (*res == -EAGAIN)
			q->metrics.refused++;
		return;
	}
	outcome = kwq_mark_pending_locked(q, item, now);
	*res = b->outcomes ? outcome : 0;
	(*ok)++;
}

/*
 * The level of the batch's priority for a key that will take it
 * (kwq_add_needs_level()): 0, or the error for this key only (-EDQUOT,
 * or -ENOMEM when no level is at hand).
 */
static int kwq_add_level_locked(struct kwq *q, const struct kwq_item *found,
				const struct kwq_add_batch *b,
				struct kwq_level **level)
{
	if (!kwq_add_needs_level(q, found, b->prio))
		return 0;
	return kwq_level_prepare_locked(q, b->prio, level, b->unlimited);
}

/*
 * Add @keys in order, each looked up in this hold of q->lock, while each
 * is known already or a spare record can be its record, and has the
 * level of the batch's priority if it needs it (made of *@level or the
 * queue's spare one). Returns how many were handled: the next one needs
 * an allocation, a record or (*@need_level) a level.
 */
static unsigned int kwq_add_spared_locked(struct kwq *q,
					  const struct kwq_keyref *keys,
					  int *res, unsigned int n,
					  const struct kwq_add_batch *b,
					  struct kwq_level **level,
					  bool *need_level, unsigned int *ok)
{
	u64 now = kwq_metrics_now();	/* one clock read for the chunk */
	struct kwq_item *item, *new;
	unsigned int i;
	int err;

	*need_level = false;
	for (i = 0; i < n; i++) {
		new = NULL;
		item = kwq_record_find_locked(q, keys[i].hash, keys[i].data,
					      keys[i].len);
		err = kwq_add_level_locked(q, item, b, level);
		if (err == -ENOMEM) {
			*need_level = true;
			break;
		}
		if (err) {		/* -EDQUOT: this key's */
			res[i] = err;
			continue;
		}
		if (!item && !q->shutting_down) {
			new = kwq_record_spare_locked(q, keys[i].len);
			if (!new)
				break;
			memcpy(kwq_key_data(&new->key), keys[i].data, keys[i].len);
			new->key.hash = keys[i].hash;
		}
		/* the hold trims the level once, at its end */
		item = kwq_accept_prio_locked(q, item, &new, b->unlimited,
					      b->prio, false);
		if (new)		/* refused: still spare */
			kwq_record_put_locked(q, new);
		kwq_add_one_locked(q, item, b, now, &res[i], ok);
	}
	if (q->prio)
		kwq_level_trim_locked(q, b->prio);
	return i;
}

/*
 * Add @keys in order with a record allocated for each, outside q->lock,
 * then one hold of it: the keys of a batch from the first that found no
 * spare record on.
 */
static void kwq_add_allocated(struct kwq *q, const struct kwq_keyref *keys,
			      int *res, struct kwq_item **items, unsigned int n,
			      const struct kwq_add_batch *b, unsigned int *ok)
{
	struct kwq_level *level = NULL;
	unsigned int i, queued;
	unsigned long flags;
	u64 now;

	for (i = 0; i < n; i++) {
		items[i] = kwq_record_alloc(keys[i].len, b->gfp);
		if (!items[i]) {
			res[i] = -ENOMEM;
			continue;
		}
		memcpy(kwq_key_data(&items[i]->key), keys[i].data,
		       keys[i].len);
		items[i]->key.hash = keys[i].hash;
	}
	kwq_record_grow(q, b->gfp);
	if (q->prio)
		level = kwq_level_alloc(b->gfp);

	spin_lock_irqsave(&q->lock, flags);
	queued = q->nr_queued;
	now = kwq_metrics_now();
	for (i = 0; i < n; i++) {
		struct kwq_item *item;
		int err;

		if (!items[i])
			continue;
		item = kwq_record_find_locked(q, keys[i].hash, keys[i].data,
					      keys[i].len);
		err = kwq_add_level_locked(q, item, b, &level);
		if (err) {
			res[i] = err;
			continue;
		}
		item = kwq_accept_prio_locked(q, item, &items[i],
					      b->unlimited, b->prio, false);
		kwq_add_one_locked(q, item, b, now, &res[i], ok);
	}
	if (q->prio)
		kwq_level_trim_locked(q, b->prio);
	queued = q->nr_queued - queued;
	spin_unlock_irqrestore(&q->lock, flags);
	kwq_wake_getters(q, queued);

	for (i = 0; i < n; i++)
		if (items[i])
			kwq_record_free(items[i]);
	kfree(level);
}

/**
 * kwq_add_many() - Add of each of @n keys, in order
 * @q: the queue
 * @keys: the keys, with their hashes
 * @res: out: each key's result (0, or with @b->outcomes WQ_ADDED_*;
 *	-ESHUTDOWN, -EAGAIN, -EDQUOT, -ENOMEM), @n entries
 * @items: scratch space of KWQ_BATCH record pointers (off the stack)
 * @n: 1..KWQ_BATCH
 * @b: how: the adder's CAP_SYS_RESOURCE (kwq_record_hold_locked()), the
 *	keys' priority (a priority queue), whether @res says what each add
 *	did, and how the caller may allocate (records, the key table's
 *	growth, a priority level)
 *
 * Each key as kwq_add_item() without a delay: queued at the tail,
 * coalesced, or marked dirty; a key twice in @keys is coalesced like any
 * other. One hold of q->lock while every key is known to the queue already
 * or finds a spare record (wq_record.h); from the first that does not,
 * the rest get a record each, allocated with the lock dropped, and one
 * more hold. Consumers are woken for the keys queued, after each hold.
 *
 * Context: any context @b->gfp allows; not under q->lock.
 * Return: how many keys were added.
 */
unsigned int kwq_add_many(struct kwq *q, const struct kwq_keyref *keys,
			  int *res, struct kwq_item **items, unsigned int n,
			  const struct kwq_add_batch *b)
{
	struct kwq_level *level = NULL;
	unsigned int i = 0, ok = 0, queued;
	unsigned long flags;
	bool need_level;

	if (WARN_ON_ONCE(n > KWQ_BATCH))
		n = KWQ_BATCH;
	for (;;) {
		spin_lock_irqsave(&q->lock, flags);
		queued = q->nr_queued;
		kwq_record_tag_hold_locked(q);
		i += kwq_add_spared_locked(q, keys + i, res + i, n - i, b,
					   &level, &need_level, &ok);
		kwq_record_untag_hold_locked(q);
		queued = q->nr_queued - queued;
		spin_unlock_irqrestore(&q->lock, flags);
		kwq_wake_getters(q, queued);
		/* a priority new to the queue: its level, then on from there */
		if (!need_level || level)
			break;
		level = kwq_level_alloc(b->gfp);
		if (!level)
			break;
	}
	kfree(level);
	if (i < n)
		kwq_add_allocated(q, keys + i, res + i, items, n - i, b, &ok);
	else
		kwq_record_grow(q, b->gfp);
	return ok;
}
