// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel API of priorities and of what client-go's users have asked
 * of a key for years: one add of any kind that says what it did
 * (kwq_add_opts()), a get that says the key's priority
 * (kwq_get_priority()), a key's state (kwq_key_state()) and cancelling a
 * delay (kwq_cancel_after()). The twins of WQ_IOC_ADD's options,
 * WQ_IOC_GET's priority, WQ_IOC_KEY_STATE and WQ_IOC_CANCEL_AFTER; the
 * rest of the API is in wq_api.c.
 */
#include <linux/export.h>
#include <linux/module.h>

#include <wq/kwq.h>

#include "wq_add.h"
#include "wq_api.h"
#include "wq_delay.h"

/**
 * kwq_add_opts() - one add of any kind, saying what it did
 * @q: the queue
 * @key: the key bytes (copied; must not change during the call)
 * @len: 1..WQ_KEY_MAX
 * @o: the kind of add; NULL for a plain kwq_add(). Flags: WQ_ADD_AFTER
 *	(AddAfter @o->delay_ns, also of 0), WQ_ADD_RATE_LIMITED (the
 *	queue's limiter says how long; with WQ_ADD_AFTER, on a priority
 *	queue only, the shorter of the two), WQ_ADD_PRIORITY (@o->priority;
 *	a priority queue only: a key added without it has priority 0). A
 *	field a flag does not use must be 0
 * @delay_ns: if not NULL, receives the delay used (rate-limited adds)
 * @gfp: as for kwq_add()
 *
 * On a priority queue (kwq_attr.flags WQ_CREATE_PRIORITY) an add of a key
 * the queue holds keeps the higher priority, and a raise moves the key to
 * the tail of its new level; a key added while processing is queued again
 * at kwq_done() with the highest priority given by the adds made
 * meanwhile; an add without a delay of a waiting key makes it ready now
 * and drops the waiting copy; a delayed add of a queued key changes only
 * its priority.
 *
 * Context: as kwq_add().
 * Return: what the add did (>= 0): WQ_ADDED_QUEUED, WQ_ADDED_COALESCED
 * (queued already: kept its place, or was raised), WQ_ADDED_DIRTY
 * (processing: queued again at done), WQ_ADDED_WAITING, WQ_ADDED_KEPT
 * (waiting already for an earlier time); or kwq_add()'s errors, and
 * -EINVAL for flags or fields the queue does not take.
 */
int kwq_add_opts(struct kwq *q, const void *key, size_t len,
		 const struct kwq_add_opts *o, u64 *delay_ns, gfp_t gfp)
{
	static const struct kwq_add_opts plain;
	unsigned int flags = 0;
	u64 delay;
	int ret;

	if (!o)
		o = &plain;
	ret = kwq_check_key(key, len);
	if (ret)
		return ret;
	if ((o->flags & ~(WQ_ADD_AFTER | WQ_ADD_RATE_LIMITED |
			  WQ_ADD_PRIORITY)) ||
	    ((o->flags & WQ_ADD_PRIORITY) ? !q->prio : o->priority) ||
	    (!(o->flags & WQ_ADD_AFTER) && o->delay_ns) ||
	    ((o->flags & WQ_ADD_RATE_LIMITED) &&
	     (o->flags & WQ_ADD_AFTER) && !q->prio))
		return -EINVAL;
	if (o->flags & WQ_ADD_AFTER)
		flags |= KWQ_ADD_AFTER;
	if (o->flags & WQ_ADD_RATE_LIMITED)
		flags |= KWQ_ADD_RATE_LIMITED;
	delay = o->delay_ns;
	ret = kwq_add_key(q, key, len, &delay, flags, o->priority, gfp,
			  KTIME_MAX);
	if (ret >= 0 && delay_ns)
		*delay_ns = (flags & KWQ_ADD_RATE_LIMITED) ? delay : o->delay_ns;
	return ret;
}
EXPORT_SYMBOL_NS_GPL(kwq_add_opts, WQ_NS);

/**
 * kwq_get_priority() - kwq_get_timeout() that also says the key's priority
 * @q: the queue
 * @buf: receives the key
 * @cap: size of @buf
 * @timeout_ns: longest wait; KWQ_TIMEOUT_NONE waits without limit, 0 not at
 *	all (then -EAGAIN when nothing is queued)
 * @flags: 0 or KWQ_GET_KILLABLE
 * @priority: if not NULL, receives the priority the key is handed out
 *	with (0 on a plain queue)
 *
 * On a priority queue the key is the first of the highest priority, or
 * the oldest ready key once it has waited longer than the queue's
 * starve_ns.
 *
 * Context: process context; sleeps (not with @timeout_ns 0).
 * Return: as kwq_get_timeout(), or -EAGAIN.
 */
ssize_t kwq_get_priority(struct kwq *q, void *buf, size_t cap,
			 u64 timeout_ns, unsigned int flags, int *priority)
{
	s32 prio = 0;
	ssize_t ret;

	if (flags & ~KWQ_GET_KILLABLE)
		return -EINVAL;
	if (timeout_ns)
		might_sleep();
	else
		flags |= KWQ_GET_NONBLOCK;
	ret = kwq_get_common(q, buf, cap,
			     kwq_time_after(ktime_get(), timeout_ns), flags,
			     &prio);
	if (ret >= 0 && priority)
		*priority = prio;
	return ret;
}
EXPORT_SYMBOL_NS_GPL(kwq_get_priority, WQ_NS);

/**
 * kwq_key_state() - what the queue holds of a key
 * @q: the queue
 * @key: the key bytes
 * @len: 1..WQ_KEY_MAX
 * @info: receives the state (WQ_KEY_*: 0 for a key the queue neither
 *	holds nor counts failures of), the priority (a key in processing:
 *	the one it was handed out with), the ready time of a waiting key and
 *	its failures, from one look under the queue's lock
 *
 * The answer may be stale as soon as the call returns.
 *
 * Context: as kwq_add() (takes the queue's lock).
 * Return: 0, or -EINVAL (bad key, @info NULL).
 */
int kwq_key_state(struct kwq *q, const void *key, size_t len,
		  struct kwq_key_info *info)
{
	int ret = kwq_check_key(key, len);

	if (ret || !info)
		return ret ?: -EINVAL;
	kwq_queue_key_state(q, key, len, info);
	return 0;
}
EXPORT_SYMBOL_NS_GPL(kwq_key_state, WQ_NS);

/**
 * kwq_cancel_after() - drop a key's waiting copy (AddAfter, AddRateLimited)
 * @q: the queue
 * @key: the key bytes
 * @len: 1..WQ_KEY_MAX
 *
 * A key also queued or processing stays so; one held only by its delay
 * stops being held (its failures are kept: kwq_forget() drops those).
 *
 * Context: as kwq_add() (takes the queue's lock).
 * Return: 1 if a waiting copy was dropped, 0 if the key was not waiting,
 * -EINVAL (bad key).
 */
int kwq_cancel_after(struct kwq *q, const void *key, size_t len)
{
	return kwq_check_key(key, len) ?: kwq_delay_cancel(q, key, len);
}
EXPORT_SYMBOL_NS_GPL(kwq_cancel_after, WQ_NS);
