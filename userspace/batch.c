// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libwq: batches, the throughput path (wq_add_batch(3)): many keys in one
 * system call (WQ_IOC_ADD_BATCH, GET_BATCH, DONE_BATCH), with what each
 * add did and each key's priority where asked.
 *
 * The caller's struct iovec array is the ABI's struct wq_iov array on LP64
 * (checked at compile time below) and goes to the kernel as it is; where
 * the two differ (ILP32), the keys are copied into a struct wq_iov array
 * and, for a get, back.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>

#include "wq.h"
#include "wq_internal.h"

/* Whether struct iovec and struct wq_iov share their layout. */
#define WQ_IOVEC_IS_WQ_IOV						\
	(sizeof(struct iovec) == sizeof(struct wq_iov) &&		\
	 sizeof(void *) == sizeof(__u64) &&				\
	 sizeof(size_t) == sizeof(__u64) &&				\
	 offsetof(struct iovec, iov_base) == offsetof(struct wq_iov, base) && \
	 offsetof(struct iovec, iov_len) == offsetof(struct wq_iov, len))

#ifdef __LP64__
_Static_assert(WQ_IOVEC_IS_WQ_IOV,
	       "on LP64, struct iovec must be struct wq_iov (uapi/linux/wq.h)");
#endif
_Static_assert(sizeof(int) == sizeof(__s32),
	       "per-key results are __s32 in the ABI, int in libwq");
/* wq.h defines WQ_BATCH_MAX too: a different value would not compile. */

/*
 * What every batch starts with: the call-level checks, before the
 * kernel's (-EINVAL, -EFAULT), and *b zeroed but for its count and keys.
 * b->keys is the caller's array itself, or *copy, a converted one (the
 * keys copied in when in is set) that the caller frees; *copy is NULL
 * when none is needed. -ENOMEM.
 */
int wq_batch_init(struct wq_batch *b, const struct iovec *keys,
		  unsigned int n, bool in, struct wq_iov **copy)
{
	*copy = NULL;
	if (n == 0 || n > WQ_BATCH_MAX)
		return -EINVAL;
	if (!keys)
		return -EFAULT;
	memset(b, 0, sizeof(*b));
	b->count = n;
	if (WQ_IOVEC_IS_WQ_IOV) {
		b->keys = (uintptr_t)keys;
		return 0;
	}
	*copy = calloc(n, sizeof(**copy));
	if (!*copy)
		return -ENOMEM;
	for (unsigned int i = 0; in && i < n; i++) {
		(*copy)[i].base = (uintptr_t)keys[i].iov_base;
		(*copy)[i].len = keys[i].iov_len;
	}
	b->keys = (uintptr_t)*copy;
	return 0;
}

/*
 * Whether the module behind fd lacks what a batch call that failed with
 * -EINVAL asked of it: the WQ_ADD_* bits in want (ADD_BATCH), or
 * priority queues (GET_BATCH's priorities). Then the call is made again
 * without (it changed nothing).
 */
static bool wq_batch_older_module(int fd, uint32_t want_add_flags)
{
	struct wq_module_info mi;

	if (wq_module_info_fd(fd, &mi) < 0)
		return false;
	if (want_add_flags)
		return (mi.add_flags & want_add_flags) != want_add_flags;
	return !(mi.features & WQ_FEATURE_PRIORITY);
}

/*
 * ADD_BATCH and DONE_BATCH: keys in, per-key results out; an add with
 * flags (WQ_ADD_OUTCOME, WQ_ADD_PRIORITY) and priority.
 */
static int wq_batch_keys(int fd, unsigned long cmd, const struct iovec *keys,
			 unsigned int n, int *errs, uint32_t flags,
			 int32_t priority)
{
	struct wq_iov *copy;
	struct wq_batch b;
	int ret;

	ret = wq_batch_init(&b, keys, n, true, &copy);
	if (ret)
		return ret;
	b.flags = flags;
	b.priority = priority;
	b.results = (uintptr_t)errs;
	ret = wq_ioctl(fd, cmd, &b);
	/* no outcomes from an older module: each add's 0 reads as QUEUED */
	if (ret == -EINVAL && flags == WQ_ADD_OUTCOME &&
	    wq_batch_older_module(fd, WQ_ADD_OUTCOME)) {
		b.flags = 0;
		ret = wq_ioctl(fd, cmd, &b);
	}
	free(copy);
	return ret;
}

int wq_add_batch(int fd, const struct iovec *keys, unsigned int n, int *errs)
{
	return wq_batch_keys(fd, WQ_IOC_ADD_BATCH, keys, n, errs, 0, 0);
}

int wq_add_batch_opts(int fd, const struct iovec *keys, unsigned int n,
		      const struct wq_add_opts *o, int *results)
{
	uint32_t flags = WQ_ADD_OUTCOME;
	int32_t priority = 0;

	if (o) {
		/* a batch adds now: no delay, no wait */
		if (o->flags & ~(uint32_t)WQ_ADD_PRIORITY || o->delay_ns ||
		    o->timeout_ms ||
		    (!(o->flags & WQ_ADD_PRIORITY) && o->priority))
			return -EINVAL;
		if (o->flags & WQ_ADD_PRIORITY) {
			flags |= WQ_ADD_PRIORITY;
			priority = o->priority;
		}
	}
	return wq_batch_keys(fd, WQ_IOC_ADD_BATCH, keys, n, results, flags,
			     priority);
}

int wq_done_batch(int fd, const struct iovec *keys, unsigned int n, int *errs)
{
	return wq_batch_keys(fd, WQ_IOC_DONE_BATCH, keys, n, errs, 0, 0);
}

/*
 * A GET_BATCH of up to n keys into buf[0..cap) and keys, its deadline
 * timeout_ms from now; priorities receives theirs. *copy as for
 * wq_batch_init(); wq_get_batch_out() gives the keys back and frees it.
 */
int wq_get_batch_prep(struct wq_batch *b, void *buf, size_t cap,
		      struct iovec *keys, unsigned int n, int timeout_ms,
		      uint32_t flags, int *priorities, struct wq_iov **copy)
{
	int ret = wq_batch_init(b, keys, n, false, copy);

	if (ret)
		return ret;
	b->flags = flags;
	b->buf = (uintptr_t)buf;
	b->buf_cap = cap;
	b->results = (uintptr_t)priorities;
	if (timeout_ms == 0)	/* as wq_get: never wait */
		b->flags |= WQ_GET_NONBLOCK;
	else
		b->deadline_ns = wq_deadline_ms(timeout_ms);
	return 0;
}

/* GET_BATCH of a prepared *b; a module without priorities gives 0s. */
ssize_t wq_get_batch_run(int fd, struct wq_batch *b, int *priorities)
{
	int ret = wq_ioctl(fd, WQ_IOC_GET_BATCH, b);

	if (ret == -EINVAL && priorities && wq_batch_older_module(fd, 0)) {
		b->results = 0;
		ret = wq_ioctl(fd, WQ_IOC_GET_BATCH, b);
		if (ret > 0)
			memset(priorities, 0, (size_t)ret * sizeof(*priorities));
	}
	return ret;
}

/* The ret keys a GET_BATCH took, from copy (if any) to keys; frees copy. */
void wq_get_batch_out(struct iovec *keys, struct wq_iov *copy, ssize_t ret)
{
	for (ssize_t i = 0; copy && i < ret; i++) {
		keys[i].iov_base = (void *)(uintptr_t)copy[i].base;
		keys[i].iov_len = (size_t)copy[i].len;
	}
	free(copy);
}

/* GET_BATCH; results receives the priorities (a module without: 0s). */
ssize_t wq_get_batch_call(int fd, void *buf, size_t cap, struct iovec *keys,
			  unsigned int n, int timeout_ms, uint32_t flags,
			  int *priorities)
{
	struct wq_iov *copy;
	struct wq_batch b;
	ssize_t ret;

	ret = wq_get_batch_prep(&b, buf, cap, keys, n, timeout_ms, flags,
				priorities, &copy);
	if (ret)
		return ret;
	ret = wq_get_batch_run(fd, &b, priorities);
	wq_get_batch_out(keys, copy, ret);
	return ret;
}

ssize_t wq_get_batch(int fd, void *buf, size_t cap, struct iovec *keys,
		     unsigned int n, int timeout_ms)
{
	return wq_get_batch_call(fd, buf, cap, keys, n, timeout_ms, 0, NULL);
}

ssize_t wq_get_batch_detached(int fd, void *buf, size_t cap,
			      struct iovec *keys, unsigned int n,
			      int timeout_ms)
{
	return wq_get_batch_call(fd, buf, cap, keys, n, timeout_ms,
				 WQ_GET_DETACH, NULL);
}

ssize_t wq_get_batch_priority(int fd, void *buf, size_t cap,
			      struct iovec *keys, unsigned int n,
			      int timeout_ms, int *priorities)
{
	return wq_get_batch_call(fd, buf, cap, keys, n, timeout_ms, 0,
				 priorities);
}
