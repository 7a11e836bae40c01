// SPDX-License-Identifier: GPL-2.0
/*
 * Get: take up to n queued keys in FIFO order and mark them processing
 * (the hand-out generation, the metrics' start), undo a take whose keys
 * could not be delivered, and Len. See wq_queue.h for the record states
 * and the locking rules.
 */
#include <linux/export.h>
#include <linux/sched.h>
#include <linux/string.h>

#include "wq_metrics.h"
#include "wq_queue.h"
#include "wq_ready.h"
#include "wq_record.h"
#include "wq_trace.h"

/*
 * Take the head key into @t: 0, -EMSGSIZE (stays queued), -ENOENT (none).
 * @now: kwq_metrics_now() of this hold of q->lock.
 */
static int kwq_take_one_locked(struct kwq *q, struct kwq_take *t, u32 *off,
			       u64 now)
{
	struct kwq_item *item;
	u32 i = t->taken;

	item = kwq_ready_first_locked(q);
	if (!item || q->discarded)
		return -ENOENT;
	if (item->key.len > t->cap - *off) {
		if (!i)
			t->lens[0] = item->key.len;
		return -EMSGSIZE;
	}
	memcpy(t->buf + *off, kwq_key_data(&item->key), item->key.len);
	*off += item->key.len;
	t->lens[i] = item->key.len;

	kwq_ready_take_locked(q, item);
	WRITE_ONCE(q->nr_queued, q->nr_queued - 1);
	item->flags = (item->flags & ~KWQ_ITEM_QUEUED) | KWQ_ITEM_PROCESSING;
	if (t->prios)
		t->prios[i] = q->prio ? item->prio_out : 0;
	q->nr_processing++;
	if (t->holder)
		kwq_holder_held_locked(t->holder, item);
	if (t->recs) {
		kwq_record_pin_locked(q, item);
		t->recs[i] = item;
	}
	/* per queue, so a record freed and made again never repeats one */
	t->gens[i] = ++q->gen_seq;
	item->gen = t->gens[i];
	trace_kwq_get(q, item, now - item->dirty_ns, 0);
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
	unsigned int counted = t->n;	/* in: the most it takes */
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
		/* a key queued: no wait queue entry made and taken off */
		spin_lock_irqsave(&q->lock, irqflags);
		ret = kwq_take_locked(q, t);
		spin_unlock_irqrestore(&q->lock, irqflags);
		if (!ret)
			goto out;	/* no wake-up was used */
		if (ret == -EAGAIN)
			ret = kwq_wait(q, &q->getters, true, &counted,
				       deadline, state, kwq_take_cond, t);
		/*
		 * An exclusive waiter may have been woken for keys it did
		 * not take (it left without them, or took fewer than it was
		 * counted for): while keys are queued it passes the wake-up
		 * on, so no key is stranded while other consumers sleep. A
		 * probe's caller Gets again at once and takes one; if that
		 * second Get fails, it passes on the one it was counted for.
		 */
		if (ret == -EMSGSIZE && (flags & KWQ_GET_PROBE))
			kwq_getter_pass_on(q, counted, 1);
		else if (ret != -ESHUTDOWN)
			kwq_getter_pass_on(q, counted, ret ? 0 : t->taken);
	}
out:
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
 * @prio: set to the key's priority (0 on a plain queue); may be NULL
 * @deadline: absolute CLOCK_MONOTONIC time to give up, or KTIME_MAX
 * @flags: KWQ_GET_*
 *
 * kwq_queue_take() of one key.
 *
 * Context: as kwq_queue_take().
 * Return: as kwq_queue_take().
 */
int kwq_queue_get(struct kwq *q, struct kwq_holder *holder, void *buf,
		  u32 cap, u32 *len, u64 *gen, s32 *prio, ktime_t deadline,
		  unsigned int flags)
{
	u64 g = 0;
	s32 p = 0;
	struct kwq_take t = {
		.holder = holder, .buf = buf, .cap = cap, .n = 1,
		.lens = len, .gens = &g, .prios = &p,
	};
	int ret;

	*len = 0;
	ret = kwq_queue_take(q, &t, deadline, flags);
	if (gen)
		*gen = g;
	if (prio)
		*prio = p;
	return ret;
}

/**
 * kwq_queue_unget_many() - undo a kwq_queue_take() whose keys could not be
 * delivered
 * @q: the queue
 * @keys: the keys taken, in the order they were taken
 * @gens: their generations, from kwq_queue_take()
 * @n: how many, 1..KWQ_BATCH
 *
 * Puts the keys still processing from that very take (not done, not
 * handed out again since) back at the head of the queue, in their order,
 * in one hold of q->lock (no other consumer sees some back and not
 * others). The generations say which keys those are: each take numbers
 * its keys from q->gen_seq, never reused, so a key processing with the
 * same generation is still the one the take gave its holder.
 *
 * Context: any context.
 */
void kwq_queue_unget_many(struct kwq *q, const struct kwq_keyref *keys,
			  const u64 *gens, unsigned int n)
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
		    item->gen == gens[n])
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
 * @key: the key
 * @len: its length
 * @gen: the generation kwq_queue_get() returned
 *
 * kwq_queue_unget_many() of one key.
 *
 * Context: any context.
 */
void kwq_queue_unget(struct kwq *q, const void *key, u32 len, u64 gen)
{
	struct kwq_keyref k = {
		.data = key, .len = len, .hash = kwq_record_hash(q, key, len),
	};

	kwq_queue_unget_many(q, &k, &gen, 1);
}

/**
 * kwq_len() - Len: number of queued keys
 * @q: the queue
 *
 * Context: any context (it takes no lock).
 * Return: keys ready to be handed out (not processing, not waiting).
 */
unsigned int kwq_len(struct kwq *q)
{
	return READ_ONCE(q->nr_queued);
}
EXPORT_SYMBOL_NS_GPL(kwq_len, WQ_NS);
