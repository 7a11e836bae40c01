// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libwq: the worker loop in one call (wq_done_get(3)). A worker ends the
 * key it finished and takes its next one in one system call,
 * WQ_IOC_DONE_GET (WQ_IOC_DONE_GET_BATCH for batches), instead of two.
 *
 * A module without them (no WQ_FEATURE_DONE_GET: the ioctl is ENOTTY)
 * gets the two calls, wq_done then wq_get (wq_done_batch then
 * wq_get_batch), with the results the module gives: the deadline is taken
 * once, before the done, and a done that fails ends the call. A module
 * that says it lacks the feature is remembered, and not asked again in
 * this process.
 */
#include <errno.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/uio.h>

#include "wq.h"
#include "wq_internal.h"

/* The module has no DONE_GET (it said so): the two calls at once. */
static atomic_bool wq_split;

/*
 * An ioctl as wq_ioctl() returns it, except that ENOTTY stays -ENOTTY:
 * the command is unknown to the module (or fd is not a queue handle, which
 * the two calls then say: -EBADF).
 */
static int wq_ioctl_or_enotty(int fd, unsigned long cmd, void *arg)
{
	int saved = errno, ret;

	ret = ioctl(fd, cmd, arg);
	if (ret < 0) {
		ret = errno == E2BIG ? -EINVAL : -errno;
		errno = saved;
	}
	return ret;
}

/* The combined command, unless the module is known to lack it. */
static int wq_combined(int fd, unsigned long cmd, void *arg)
{
	struct wq_module_info mi;
	int ret;

	if (atomic_load_explicit(&wq_split, memory_order_relaxed))
		return -ENOTTY;
	ret = wq_ioctl_or_enotty(fd, cmd, arg);
	if (ret == -ENOTTY && wq_module_info_fd(fd, &mi) == 0 &&
	    !(mi.features & WQ_FEATURE_DONE_GET))
		atomic_store_explicit(&wq_split, true, memory_order_relaxed);
	return ret;
}

ssize_t wq_done_get_call(int fd, const void *prev, size_t prev_len,
			 void *buf, size_t cap, int timeout_ms, uint32_t flags,
			 int *priority)
{
	struct wq_done_get dg;
	int ret;

	/* nothing happens for a bad argument: checked before either call */
	if (prev_len > WQ_KEY_MAX)
		return -EINVAL;
	if ((prev_len && !prev) || (cap && !buf))
		return -EFAULT;
	memset(&dg, 0, sizeof(dg));
	wq_get_prep(&dg.get, buf, cap, timeout_ms, flags);
	if (prev_len) {
		dg.prev = (uintptr_t)prev;
		dg.prev_len = (uint32_t)prev_len;
	}
	ret = wq_combined(fd, WQ_IOC_DONE_GET, &dg);
	if (ret == -ENOTTY) {
		/* the two calls; prev is read before buf is written */
		if (prev_len) {
			ret = wq_done(fd, prev, prev_len);
			if (ret < 0)
				return ret;
		}
		ret = wq_ioctl(fd, WQ_IOC_GET, &dg.get);
	} else if (ret == 0) {
		/* done made, its key not delivered: the get's own result */
		ret = wq_ioctl(fd, WQ_IOC_GET, &dg.get);
	}
	/* written by a priority queue only; any other leaves the 0 */
	if (ret > 0 && priority)
		*priority = dg.get.priority;
	return ret;
}

ssize_t wq_done_get(int fd, const void *prev, size_t prev_len, void *buf,
		    size_t cap, int timeout_ms)
{
	return wq_done_get_call(fd, prev, prev_len, buf, cap, timeout_ms, 0,
				NULL);
}

ssize_t wq_done_get_batch_call(int fd, const struct iovec *done_keys,
			       unsigned int n_done, int *done_errs, void *buf,
			       size_t cap, struct iovec *keys, unsigned int max,
			       int timeout_ms, uint32_t flags, int *priorities)
{
	struct wq_iov *dcopy = NULL, *gcopy;
	struct wq_done_get_batch d;
	struct wq_batch done;
	ssize_t ret;

	if (n_done > WQ_BATCH_MAX)
		return -EINVAL;
	if ((n_done && !done_keys) || (cap && !buf))
		return -EFAULT;
	memset(&d, 0, sizeof(d));
	/* max 0 or over WQ_BATCH_MAX: -EINVAL; keys NULL: -EFAULT */
	ret = wq_get_batch_prep(&d.get, buf, cap, keys, max, timeout_ms, flags,
				priorities, &gcopy);
	if (ret)
		return ret;
	if (n_done) {
		ret = wq_batch_init(&done, done_keys, n_done, true, &dcopy);
		if (ret)
			goto out;
		d.done_keys = done.keys;
		d.n_done = n_done;
		d.done_results = (uintptr_t)done_errs;
	}
	ret = wq_combined(fd, WQ_IOC_DONE_GET_BATCH, &d);
	if (ret == -ENOTTY) {
		/* the two calls: only an error of the done call ends it */
		if (n_done) {
			ret = wq_done_batch(fd, done_keys, n_done, done_errs);
			if (ret < 0)
				goto out;
		}
		ret = wq_get_batch_run(fd, &d.get, priorities);
	} else if (ret == 0) {
		/* dones made, no key delivered: the get's own result */
		ret = wq_get_batch_run(fd, &d.get, priorities);
	}
out:
	free(dcopy);
	wq_get_batch_out(keys, gcopy, ret);
	return ret;
}

ssize_t wq_done_get_batch(int fd, const struct iovec *done_keys,
			  unsigned int n_done, void *buf, size_t cap,
			  struct iovec *keys, unsigned int max, int timeout_ms)
{
	return wq_done_get_batch_call(fd, done_keys, n_done, NULL, buf, cap,
				      keys, max, timeout_ms, 0, NULL);
}
