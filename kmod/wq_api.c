// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel API (<wq/kwq.h>): wq's queues for other modules, exported in
 * the WQ symbol namespace. Every exported symbol of wq is here, and nothing
 * else: thin wrappers that validate their arguments and call the layers
 * (wq_queue.h lists them) and the registry (wq_registry.c).
 */
#include <linux/export.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/string.h>

#include <wq/kwq.h>

#include "wq_metrics.h"
#include "wq_queue.h"
#include "wq_add.h"
#include "wq_api.h"
#include "wq_ipc.h"
#include "wq_ratelimit.h"
#include "wq_record.h"
#include "wq_registry.h"

/*
 * kwq_default_limiter: client-go's DefaultControllerRateLimiter (the
 * definition is the uapi's, shared with libwq).
 */
const struct wq_limiter kwq_default_limiter = WQ_LIMITER_DEFAULT_INIT;
EXPORT_SYMBOL_NS_GPL(kwq_default_limiter, WQ_NS);

int kwq_check_key(const void *key, size_t len)
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

/**
 * kwq_put() - drop a reference; the last one frees the queue and its keys
 * @q: the queue
 *
 * Context: process context: the last put sleeps (it waits for the delay
 * timer and the queue's work items); nobody may be waiting on the queue
 * when the last reference goes (waiters hold references through their
 * handles).
 */
void kwq_put(struct kwq *q)
{
	kwq_queue_put(q);
}
EXPORT_SYMBOL_NS_GPL(kwq_put, WQ_NS);

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

ssize_t kwq_get_common(struct kwq *q, void *buf, size_t cap,
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
	return kwq_check_key(key, len) ?: kwq_queue_done(q, NULL, key, len);
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

/**
 * kwq_len() - Len: number of queued keys
 * @q: the queue
 *
 * Context: any context (it takes no lock).
 * Return: keys ready to be handed out (not processing, not waiting).
 */
unsigned int kwq_len(struct kwq *q)
{
	return kwq_queue_len(q);
}
EXPORT_SYMBOL_NS_GPL(kwq_len, WQ_NS);

/**
 * kwq_shutdown() - ShutDown: refuse new keys, wake every waiter
 * @q: the queue
 *
 * Queued keys are still handed out; waiting (AddAfter) keys are dropped
 * (beyond the first 64, by a work item soon after: they are counted as
 * held until then). Every drain waiting at this moment returns -ECANCELED
 * (0 if the queue is drained by then). Idempotent.
 *
 * Context: any context (on PREEMPT_RT, where q->lock is a sleeping lock,
 * not from a non-threaded hard interrupt nor with interrupts or preemption
 * disabled or a raw spinlock held).
 */
void kwq_shutdown(struct kwq *q)
{
	kwq_queue_shutdown(q);
}
EXPORT_SYMBOL_NS_GPL(kwq_shutdown, WQ_NS);

/**
 * kwq_shutting_down() - ShuttingDown
 * @q: the queue
 *
 * Context: any context (on PREEMPT_RT, where q->lock is a sleeping lock,
 * not from a non-threaded hard interrupt nor with interrupts or preemption
 * disabled or a raw spinlock held).
 * Return: true once the queue is shutting down.
 */
bool kwq_shutting_down(struct kwq *q)
{
	return kwq_queue_shutting_down(q);
}
EXPORT_SYMBOL_NS_GPL(kwq_shutting_down, WQ_NS);

/**
 * kwq_metrics() - the queue's metrics, as WQ_IOC_METRICS reports them
 * @q: the queue
 * @m: filled in: client-go's workqueue metrics (depth, adds, retries,
 *	queue and work duration histograms, unfinished work, longest
 *	running) and wq's own counters; see struct wq_metrics_info
 *
 * One hold of the queue's lock: the gauges are exact at that moment and
 * consistent with the counters, which never go back while the queue
 * exists. With wq loaded with metrics=N the histograms and the two time
 * gauges stay 0 (struct wq_metrics_info).
 *
 * Context: any context (on PREEMPT_RT, where q->lock is a sleeping lock,
 * not from a non-threaded hard interrupt nor with interrupts or preemption
 * disabled or a raw spinlock held).
 */
void kwq_metrics(struct kwq *q, struct wq_metrics_info *m)
{
	kwq_metrics_fill(q, m);
}
EXPORT_SYMBOL_NS_GPL(kwq_metrics, WQ_NS);
