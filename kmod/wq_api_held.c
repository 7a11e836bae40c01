// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel API's worker fast path: kwq_get_held() hands out a key with a
 * handle (struct kwq_held) naming its record, and kwq_done_held() ends its
 * processing through that handle, without hashing the key or looking it up
 * in the key table. A handle pins its record (wq_record.h), so it stays
 * safe to give back whatever became of the key meanwhile. The rest of the
 * API is in wq_api.c and wq_api_key.c.
 */
#include <linux/export.h>
#include <linux/module.h>
#include <linux/string.h>

#include <wq/kwq.h>

#include "wq_api.h"

/**
 * kwq_get_held() - Get with a handle for kwq_done_held()
 * @q: the queue
 * @buf: receives the key (owned by the caller)
 * @cap: size of @buf (WQ_KEY_MAX fits every key)
 * @timeout_ns: longest wait: 0 does not wait (as kwq_try_get()),
 *	KWQ_TIMEOUT_NONE waits without limit (as kwq_get())
 * @flags: 0 (interruptible) or KWQ_GET_KILLABLE
 * @held: out: the handle and the key's priority; cleared unless a key is
 *	handed out
 *
 * The key is handed out as by kwq_get(), and is processing as any other:
 * kwq_done() of its bytes, by anyone, also ends it. The handle goes back
 * with kwq_done_held() all the same, once (see struct kwq_held).
 *
 * Context: process context; sleeps, unless @timeout_ns is 0 (then the
 * context of kwq_try_get()).
 * Return: the key length; -EAGAIN (nothing queued, @timeout_ns 0);
 * -ETIMEDOUT; -ESHUTDOWN; -ERESTARTSYS (signal); -EMSGSIZE (@cap too
 * small: the key stays queued); -EINVAL.
 */
ssize_t kwq_get_held(struct kwq *q, void *buf, size_t cap, u64 timeout_ns,
		     unsigned int flags, struct kwq_held *held)
{
	struct kwq_item *rec = NULL;
	ktime_t deadline = 0;
	u32 len = 0;
	s32 prio = 0;
	u64 gen = 0;
	struct kwq_take t = {
		.buf = buf, .cap = min_t(size_t, cap, WQ_KEY_MAX), .n = 1,
		.lens = &len, .gens = &gen, .prios = &prio, .recs = &rec,
	};
	int ret;

	if (!held)
		return -EINVAL;
	memset(held, 0, sizeof(*held));
	if ((cap && !buf) || (flags & ~KWQ_GET_KILLABLE))
		return -EINVAL;
	if (timeout_ns) {
		might_sleep();
		deadline = kwq_time_after(ktime_get(), timeout_ns);
	} else {
		flags |= KWQ_GET_NONBLOCK;
	}
	ret = kwq_queue_take(q, &t, deadline, flags);
	if (ret)
		return ret;
	held->priority = prio;
	held->q = q;
	held->rec = rec;
	held->gen = gen;
	return len;
}
EXPORT_SYMBOL_NS_GPL(kwq_get_held, WQ_NS);

/**
 * kwq_done_held() - Done of the key a handle names, without a look-up
 * @q: the queue the handle's key came from
 * @held: a handle from kwq_get_held(); cleared (given back) by the call,
 *	unless it is refused with -EINVAL
 *
 * As kwq_done() of the key's bytes: a key added while it was processed is
 * queued again at the tail. If the key's processing has ended since it was
 * handed out with the handle (kwq_done() of its bytes), and even if it has
 * been handed out again since, nothing changes but the handle is given
 * back.
 *
 * Context: any context (on PREEMPT_RT, where q->lock is a sleeping lock,
 * not from a non-threaded hard interrupt nor with interrupts or preemption
 * disabled or a raw spinlock held).
 * Return: 0; -ENOENT if that hand-out is not processing any more; -EINVAL
 * (a cleared handle, or one of another queue: nothing changes).
 */
int kwq_done_held(struct kwq *q, struct kwq_held *held)
{
	struct kwq_item *rec;
	u64 gen;

	if (!held || !held->rec || held->q != q)
		return -EINVAL;
	rec = held->rec;
	gen = held->gen;
	memset(held, 0, sizeof(*held));
	return kwq_queue_done_held(q, rec, gen);
}
EXPORT_SYMBOL_NS_GPL(kwq_done_held, WQ_NS);
