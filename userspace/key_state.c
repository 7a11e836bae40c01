// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libwq: what the queue holds of one key (wq_key_state(3)), and dropping
 * a key's waiting copy (WQ_IOC_KEY_STATE, WQ_IOC_CANCEL_AFTER).
 *
 * A module older than these calls answers -ENOTTY, which wq_ioctl() takes
 * for "not a /dev/wq handle" (-EBADF); the module's features tell the two
 * apart, and the call then fails with -EOPNOTSUPP.
 */
#include <errno.h>
#include <string.h>

#include "wq.h"
#include "wq_internal.h"

/* The WQ_KEY_* bits of struct wq_key_state: what the queue holds. */
#define WQ_KEY_HELD \
	(WQ_KEY_QUEUED | WQ_KEY_PROCESSING | WQ_KEY_DIRTY | WQ_KEY_WAITING)

/* An ioctl of the key calls: -EOPNOTSUPP from a module without them. */
static int wq_key_calls_ioctl(int fd, unsigned long cmd, void *arg)
{
	struct wq_module_info mi;
	int ret = wq_ioctl(fd, cmd, arg);

	if (ret == -EBADF && wq_module_info_fd(fd, &mi) == 0 &&
	    !(mi.features & WQ_FEATURE_KEY_CALLS))
		return -EOPNOTSUPP;
	return ret;
}

int wq_key_state(int fd, const void *key, size_t len, struct wq_key_state *st)
{
	struct wq_key_info ki;
	int ret;

	if (!wq_key_len_valid(len))
		return -EINVAL;
	if (!st)
		return -EFAULT;
	memset(&ki, 0, sizeof(ki));
	ki.key_len = (uint32_t)len;
	ki.key = (uintptr_t)key;
	ret = wq_key_calls_ioctl(fd, WQ_IOC_KEY_STATE, &ki);
	if (ret < 0)
		return ret;
	memset(st, 0, sizeof(*st));
	/* a key only counted by the limiter (WQ_KEY_TRACKED) is not held */
	st->flags = ki.state & WQ_KEY_HELD;
	st->priority = ki.priority;
	st->ready_ns = (ki.state & WQ_KEY_WAITING) ? ki.ready_ns : 0;
	st->requeues = ki.requeues;
	return 0;
}

int wq_cancel_after(int fd, const void *key, size_t len)
{
	struct wq_key k;
	int ret = wq_key_arg(&k, key, len);

	return ret ? ret : wq_key_calls_ioctl(fd, WQ_IOC_CANCEL_AFTER, &k);
}
