// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel API (<wq/kwq.h>): wq's queues for other modules, exported in
 * the WQ symbol namespace: the calls that validate their arguments and
 * call the layers (wq_queue.h lists them) and the registry
 * (wq_registry.c). Calls that need no checking are exported where they
 * are made: kwq_put() (wq_queue.c), kwq_len() (wq_get.c), kwq_shutdown()
 * and kwq_shutting_down() (wq_wait.c), kwq_metrics() (wq_metrics.c).
 */
#include <linux/export.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/string.h>

#include <wq/kwq.h>

#include "wq_metrics.h"
#include "wq_queue.h"
#include "wq_add.h"
#include "wq_ipc.h"
#include "wq_record.h"
#include "wq_registry.h"
#include "wq_delay.h"

/*
 * kwq_default_limiter: client-go's DefaultControllerRateLimiter (the
 * definition is the uapi's, shared with libwq).
 */
const struct wq_limiter kwq_default_limiter = WQ_LIMITER_DEFAULT_INIT;
EXPORT_SYMBOL_NS_GPL(kwq_default_limiter, WQ_NS);

static int kwq_check_key(const void *key, size_t len)
{
	return key ? kwq_check_key_len(len) : -EINVAL;
}

/**
 * kwq_create() - create a queue
 * @name: a name ([A-Za-z0-9._-]{1,63}) to register the queue under, so that
 *	userspace (/dev/wq) and other modules can open it; NULL for a private
 *	queue. Kernel names live in the initial IPC namespace; the prefix
 *	WQ_KERNEL_PREFIX ("kernel.mydriver") reserves the name: users cannot
 *	create it.
 * @attr: limits, rate limiter, mode and order (a priority queue with
 *	WQ_CREATE_PRIORITY in @attr->flags); NULL for the defaults
 *
 * Context: process context; sleeps.
 * Return: the queue with a reference for the caller (kwq_put()), or an
 * ERR_PTR: -EINVAL (bad name or attributes), -EEXIST (name taken),
 * -EDQUOT (the kernel API's budget of queues, module parameter
 * kernel_max_queues, is used up), -ENOMEM.
 */
struct kwq *kwq_create(const char *name, const struct kwq_attr *attr)
{
	static const struct kwq_attr defaults;
	char buf[WQ_NAME_MAX];
	struct wq_new n;
	struct kwq *q;
	int ret;

	might_sleep();
	if (!attr)
		attr = &defaults;
	if ((name && wq_copy_name(buf, name)) ||
	    (attr->flags & ~WQ_CREATE_PRIORITY))
		return ERR_PTR(-EINVAL);
	n = (struct wq_new) {
		.max_items = attr->max_items,
		.max_tracked = attr->max_tracked,
		.items_ceil = U32_MAX,
		.tracked_ceil = U32_MAX,
		.limiter = attr->limiter ?: &kwq_default_limiter,
		.prio = attr->flags & WQ_CREATE_PRIORITY,
		.starve_ns = attr->starve_ns,
		.mode = attr->mode ?: 0600,
		.uid = GLOBAL_ROOT_UID,
		.gid = GLOBAL_ROOT_GID,
	};
	ret = wq_registry_new(wq_ipc_kernel(), name ? buf : NULL, &n,
			      WQ_BUDGET_KERNEL, GFP_KERNEL, &q);
	return ret ? ERR_PTR(ret) : q;
}
EXPORT_SYMBOL_NS_GPL(kwq_create, WQ_NS);

/**
 * kwq_open() - find a named queue
 * @name: its name
 *
 * Kernel callers are not subject to the queue's permission bits.
 *
 * Context: process context; sleeps.
 * Return: the queue with a reference for the caller, or ERR_PTR(-ENOENT)
 * (or -EINVAL for a bad name).
 */
struct kwq *kwq_open(const char *name)
{
	char buf[WQ_NAME_MAX];
	struct kwq *q;
	int ret;

	might_sleep();
	if (wq_copy_name(buf, name))
		return ERR_PTR(-EINVAL);
	ret = wq_registry_open(wq_ipc_kernel(), buf, 0, &q);
	return ret ? ERR_PTR(ret) : q;
}
EXPORT_SYMBOL_NS_GPL(kwq_open, WQ_NS);

/**
 * kwq_destroy() - unlink a named queue; references keep it alive
 * @name: its name
 *
 * Context: process context; sleeps.
 * Return: 0, -ENOENT, or -EINVAL for a bad name.
 */
int kwq_destroy(const char *name)
{
	char buf[WQ_NAME_MAX];

	might_sleep();
	if (wq_copy_name(buf, name))
		return -EINVAL;
	return wq_registry_unlink(wq_ipc_kernel(), buf, false);
}
EXPORT_SYMBOL_NS_GPL(kwq_destroy, WQ_NS);

/**
 * kwq_unlink() - unlink a queue's name; references keep it alive
 * @q: a queue made by kwq_create() with a name
 *
 * Prefer it to kwq_destroy() for a queue you created: if the name was
 * destroyed and taken by another queue meanwhile, that one is left alone.
 *
 * Context: process context; sleeps.
 * Return: 0, or -ENOENT if @q has no name (any more).
 */
int kwq_unlink(struct kwq *q)
{
	might_sleep();
	return wq_registry_unlink_queue(q);
}
EXPORT_SYMBOL_NS_GPL(kwq_unlink, WQ_NS);

/**
 * kwq_ref() - take another reference (for a worker, say)
 * @q: the queue
 *
 * Context: any context (it takes no lock).
 * Return: @q.
 */
struct kwq *kwq_ref(struct kwq *q)
{
	kref_get(&q->ref);
	return q;
}
EXPORT_SYMBOL_NS_GPL(kwq_ref, WQ_NS);

static int kwq_add_common(struct kwq *q, const void *key, size_t len,
			  u64 *delay_ns, unsigned int flags, gfp_t gfp)
{
	int ret = kwq_check_key(key, len);

	if (ret)
		return ret;
	/* a key the queue holds already: no allocation (kwq_add_key()) */
	ret = kwq_add_key(q, key, len, delay_ns, flags, 0, gfp, KTIME_MAX);
	return ret < 0 ? ret : 0;	/* not what it did (WQ_ADDED_*) */
}

/**
 * kwq_add() - Add: make a key pending
 * @q: the queue
 * @key: the key bytes (copied; must not change during the call)
 * @len: 1..WQ_KEY_MAX
 * @gfp: GFP_KERNEL where the caller may sleep, GFP_ATOMIC in atomic context
 *
 * The key is queued at the tail, coalesced with a queued copy (which keeps
 * its place), or marked dirty if it is being processed (queued again at
 * kwq_done()).
 *
 * Context: any context that @gfp allows: process, softirq, hardirq, also
 * under the caller's spinlocks with GFP_ATOMIC. On PREEMPT_RT, where the
 * queue's spinlock_t sleeps: not from a non-threaded hard interrupt, nor
 * with interrupts or preemption disabled or a raw spinlock held.
 * Return: 0; -ESHUTDOWN once the queue is shutting down; -EAGAIN if a new
 * key would exceed max_items; -EDQUOT if it would exceed the kernel API's
 * budget of key bytes (kernel_max_key_bytes); -EINVAL (bad key); -ENOMEM.
 */
int kwq_add(struct kwq *q, const void *key, size_t len, gfp_t gfp)
{
	u64 delay = 0;

	return kwq_add_common(q, key, len, &delay, 0, gfp);
}
EXPORT_SYMBOL_NS_GPL(kwq_add, WQ_NS);

/**
 * kwq_add_after() - AddAfter: make a key pending after a delay
 * @q: the queue
 * @key: the key bytes (copied; must not change during the call)
 * @len: 1..WQ_KEY_MAX
 * @delay_ns: wait at least this long (CLOCK_MONOTONIC); 0 adds at once
 * @gfp: as for kwq_add()
 *
 * A key already waiting keeps the earlier of its two ready times. Every
 * call that does not fail counts in retries_total, also with a delay of 0
 * (as client-go counts every AddAfter).
 *
 * Context: as kwq_add().
 * Return: as kwq_add().
 */
int kwq_add_after(struct kwq *q, const void *key, size_t len, u64 delay_ns,
		  gfp_t gfp)
{
	return kwq_add_common(q, key, len, &delay_ns, KWQ_ADD_AFTER, gfp);
}
EXPORT_SYMBOL_NS_GPL(kwq_add_after, WQ_NS);

/**
 * kwq_add_rate_limited() - AddRateLimited: count a failure of the key and
 * add it after the delay the queue's rate limiter gives
 * @q: the queue
 * @key: the key bytes (copied; must not change during the call)
 * @len: 1..WQ_KEY_MAX
 * @delay_ns: if not NULL, receives the delay used
 * @gfp: as for kwq_add()
 *
 * Context: as kwq_add().
 * Return: as kwq_add(); a call that fails counts no failure.
 */
int kwq_add_rate_limited(struct kwq *q, const void *key, size_t len,
			 u64 *delay_ns, gfp_t gfp)
{
	u64 delay = 0;
	int ret = kwq_add_common(q, key, len, &delay, KWQ_ADD_RATE_LIMITED, gfp);

	if (!ret && delay_ns)
		*delay_ns = delay;
	return ret;
}
EXPORT_SYMBOL_NS_GPL(kwq_add_rate_limited, WQ_NS);

static ssize_t kwq_get_common(struct kwq *q, void *buf, size_t cap,
			      ktime_t deadline, unsigned int flags, s32 *prio)
{
	u32 len = 0;
	int ret;

	if ((cap && !buf) || (flags & ~(KWQ_GET_KILLABLE | KWQ_GET_NONBLOCK)))
		return -EINVAL;
	ret = kwq_queue_get(q, NULL, buf, min_t(size_t, cap, WQ_KEY_MAX), &len,
			    NULL, prio, deadline, flags);
	return ret ? ret : (ssize_t)len;	/* not "?:": int vs u32 */
}

/**
 * kwq_get() - Get: wait for the head key, copy it out, mark it processing
 * @q: the queue
 * @buf: receives the key (owned by the caller)
 * @cap: size of @buf (WQ_KEY_MAX fits every key)
 * @flags: 0 (interruptible) or KWQ_GET_KILLABLE
 *
 * Keys queued before a shutdown are still handed out; then -ESHUTDOWN.
 *
 * Context: process context; sleeps.
 * Return: the key length; -ESHUTDOWN; -ERESTARTSYS (signal); -EMSGSIZE
 * (@cap too small: the key stays queued); -EINVAL.
 */
ssize_t kwq_get(struct kwq *q, void *buf, size_t cap, unsigned int flags)
{
	might_sleep();
	if (flags & ~KWQ_GET_KILLABLE)
		return -EINVAL;
	return kwq_get_common(q, buf, cap, KTIME_MAX, flags, NULL);
}
EXPORT_SYMBOL_NS_GPL(kwq_get, WQ_NS);

/**
 * kwq_get_timeout() - kwq_get(), giving up after a while
 * @q: the queue
 * @buf: receives the key
 * @cap: size of @buf
 * @timeout_ns: longest wait; KWQ_TIMEOUT_NONE waits without limit
 * @flags: as for kwq_get()
 *
 * Context: process context; sleeps.
 * Return: as kwq_get(), or -ETIMEDOUT.
 */
ssize_t kwq_get_timeout(struct kwq *q, void *buf, size_t cap, u64 timeout_ns,
			unsigned int flags)
{
	might_sleep();
	if (flags & ~KWQ_GET_KILLABLE)
		return -EINVAL;
	return kwq_get_common(q, buf, cap,
			      kwq_time_after(ktime_get(), timeout_ns), flags,
			      NULL);
}
EXPORT_SYMBOL_NS_GPL(kwq_get_timeout, WQ_NS);

/**
 * kwq_try_get() - kwq_get() without waiting
 * @q: the queue
 * @buf: receives the key
 * @cap: size of @buf
 *
 * Context: any context (on PREEMPT_RT, where q->lock is a sleeping lock,
 * not from a non-threaded hard interrupt nor with interrupts or preemption
 * disabled or a raw spinlock held).
 * Return: the key length; -EAGAIN if nothing is queued; -ESHUTDOWN;
 * -EMSGSIZE; -EINVAL.
 */
ssize_t kwq_try_get(struct kwq *q, void *buf, size_t cap)
{
	return kwq_get_common(q, buf, cap, 0, KWQ_GET_NONBLOCK, NULL);
}
EXPORT_SYMBOL_NS_GPL(kwq_try_get, WQ_NS);

/**
 * kwq_done() - Done: end processing of a key
 * @q: the queue
 * @key: the key bytes
 * @len: their length
 *
 * A key added while it was processed is queued again at the tail.
 *
 * Context: any context (on PREEMPT_RT, where q->lock is a sleeping lock,
 * not from a non-threaded hard interrupt nor with interrupts or preemption
 * disabled or a raw spinlock held).
 * Return: 0; -ENOENT if the key is not being processed; -EINVAL.
 */
int kwq_done(struct kwq *q, const void *key, size_t len)
{
	struct kwq_keyref k = { .data = key, .len = len };
	int res, ret = kwq_check_key(key, len);

	if (ret)
		return ret;
	kwq_queue_done(q, NULL, &k, &res, 1);
	return res;
}
EXPORT_SYMBOL_NS_GPL(kwq_done, WQ_NS);

/**
 * kwq_forget() - Forget: reset the key's rate-limiter failures
 * @q: the queue
 * @key: the key bytes
 * @len: their length
 *
 * Context: any context (on PREEMPT_RT, where q->lock is a sleeping lock,
 * not from a non-threaded hard interrupt nor with interrupts or preemption
 * disabled or a raw spinlock held).
 * Return: 0 (also for unknown keys), or -EINVAL.
 */
int kwq_forget(struct kwq *q, const void *key, size_t len)
{
	return kwq_check_key(key, len) ?: kwq_ratelimit_forget(q, key, len);
}
EXPORT_SYMBOL_NS_GPL(kwq_forget, WQ_NS);

/**
 * kwq_num_requeues() - NumRequeues: the key's failure count
 * @q: the queue
 * @key: the key bytes
 * @len: their length
 *
 * Context: any context (on PREEMPT_RT, where q->lock is a sleeping lock,
 * not from a non-threaded hard interrupt nor with interrupts or preemption
 * disabled or a raw spinlock held).
 * Return: the count (0 for unknown keys), or -EINVAL.
 */
int kwq_num_requeues(struct kwq *q, const void *key, size_t len)
{
	int ret = kwq_check_key(key, len);

	return ret ?: (int)min_t(unsigned int,
				 kwq_ratelimit_requeues(q, key, len), INT_MAX);
}
EXPORT_SYMBOL_NS_GPL(kwq_num_requeues, WQ_NS);

/**
 * kwq_shutdown_with_drain() - shut down, then wait until nothing is queued
 * and nothing is processing
 * @q: the queue
 * @timeout_ns: longest wait; KWQ_TIMEOUT_NONE waits without limit
 *
 * Context: process context; sleeps.
 * Return: 0; -ETIMEDOUT; -ECANCELED (a kwq_shutdown() cut it short);
 * -EINTR (signal; never restarted, see kwq_queue_drain()).
 */
int kwq_shutdown_with_drain(struct kwq *q, u64 timeout_ns)
{
	return kwq_queue_drain(q, kwq_time_after(ktime_get(), timeout_ns));
}
EXPORT_SYMBOL_NS_GPL(kwq_shutdown_with_drain, WQ_NS);

/*
 * Priorities and what client-go's users have asked of a key for years:
 * one add of any kind that says what it did (kwq_add_opts()), a get that
 * says the key's priority (kwq_get_priority()), a key's state
 * (kwq_key_state()) and cancelling a delay (kwq_cancel_after()): the twins
 * of WQ_IOC_ADD's options, WQ_IOC_GET's priority, WQ_IOC_KEY_STATE and
 * WQ_IOC_CANCEL_AFTER.
 */
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

/*
 * The worker's fast path: kwq_get_held() hands out a key with a handle
 * (struct kwq_held) naming its record, and kwq_done_held() ends its
 * processing through that handle, without hashing the key or looking it
 * up in the key table. A handle pins its record (wq_record.h), so it
 * stays safe to give back whatever became of the key meanwhile.
 */
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
