/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libwq internals shared between its files and with wqctl, which links
 * libwq.a statically. Not installed: the rules written here once are the
 * userspace side of what the module checks again.
 */
#ifndef LIBWQ_INTERNAL_H
#define LIBWQ_INTERNAL_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <time.h>

#include "wq.h"
#include "../uapi/linux/wq.h"

#define WQ_NSEC_PER_MSEC	1000000ULL
#define WQ_NSEC_PER_SEC		1000000000ULL

/*
 * Symbol versions (libwq.map): a function whose ABI changed is defined as
 * impl and exported as name@@WQ_ver, the version new binaries and static
 * links bind to; compat.c defines the old ones as name@WQ_old.
 */
#define WQ_SYMVER_DEFAULT(name, impl, ver) \
	__asm__(".symver " #impl ", " #name "@@WQ_" ver)
#define WQ_SYMVER_COMPAT(name, impl, ver) \
	__asm__(".symver " #impl ", " #name "@WQ_" ver)

/* Rate-limiter spec text <-> the ABI's fixed-width description. */
int wq_limiter_parse(const char *spec, struct wq_limiter *lim);
int wq_limiter_format(const struct wq_limiter *lim, char *buf, size_t cap);

/* A queue name: [A-Za-z0-9._-]{1,63}. */
static inline bool wq_name_valid(const char *name)
{
	static const char chars[] = "abcdefghijklmnopqrstuvwxyz"
				    "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-";
	size_t len = strnlen(name, WQ_NAME_MAX);

	return len > 0 && len < WQ_NAME_MAX && strspn(name, chars) == len;
}

/* A key: 1 to WQ_KEY_MAX bytes. */
static inline bool wq_key_len_valid(size_t len)
{
	return len >= 1 && len <= WQ_KEY_MAX;
}

/* The struct wq_key of a call on key, flags and value 0; -EINVAL: no key. */
static inline int wq_key_arg(struct wq_key *k, const void *key, size_t len)
{
	if (!wq_key_len_valid(len))
		return -EINVAL;
	memset(k, 0, sizeof(*k));
	k->key_len = (uint32_t)len;
	k->key = (uintptr_t)key;
	return 0;
}

/* The clock of every deadline_ns in the ABI. */
static inline uint64_t wq_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * WQ_NSEC_PER_SEC + (uint64_t)ts.tv_nsec;
}

/*
 * The deadline delay_ns from now. It saturates one short of
 * WQ_DEADLINE_NONE: a finite wait, however long, must not become an
 * endless one.
 */
static inline uint64_t wq_deadline_after(uint64_t delay_ns)
{
	uint64_t now = wq_now_ns();

	return delay_ns > WQ_DEADLINE_NONE - 1 - now ?
	       WQ_DEADLINE_NONE - 1 : now + delay_ns;
}

/* The deadline of a libwq timeout_ms: < 0 none, else that long from now. */
static inline uint64_t wq_deadline_ms(int timeout_ms)
{
	if (timeout_ms < 0)
		return WQ_DEADLINE_NONE;
	return wq_deadline_after((uint64_t)timeout_ms * WQ_NSEC_PER_MSEC);
}

/*
 * An ioctl of /dev/wq as libwq returns it: >= 0, or -errno with errno
 * left as it was. ENOTTY means fd is not a /dev/wq handle: -EBADF. E2BIG
 * means a module older than the struct was given a field it does not
 * know (a non-zero tail): -EINVAL, as an unknown flag is.
 */
static inline int wq_ioctl(int fd, unsigned long cmd, void *arg)
{
	int saved = errno, ret;

	ret = ioctl(fd, cmd, arg);
	if (ret < 0) {
		ret = errno == ENOTTY ? -EBADF :
		      errno == E2BIG ? -EINVAL : -errno;
		errno = saved;
	}
	return ret;
}

/*
 * What the module behind fd (any /dev/wq file) supports; 0 or -errno. A
 * call that fails on an older module asks it, to say why.
 */
static inline int wq_module_info_fd(int fd, struct wq_module_info *mi)
{
	memset(mi, 0, sizeof(*mi));
	return wq_ioctl(fd, WQ_IOC_MODULE_INFO, mi);
}

/*
 * The calls behind the public ones, with what wqctl needs besides:
 * WQ_GET_* flags (WQ_GET_DETACH) for a get with its priority, and the
 * delay an add used.
 */
ssize_t wq_get_call(int fd, void *buf, size_t cap, int timeout_ms,
		    uint32_t flags, int *priority);
ssize_t wq_get_batch_call(int fd, void *buf, size_t cap, struct iovec *keys,
			  unsigned int n, int timeout_ms, uint32_t flags,
			  int *priorities);
int wq_add_opts_delay(int fd, const void *key, size_t len,
		      const struct wq_add_opts *o, uint64_t *delay_ns);

/*
 * The worker loop in one call (done_get.c), with what wqctl needs
 * besides: WQ_GET_* flags, the priorities, and each done's result
 * (done_errs, n_done entries, may be NULL).
 */
ssize_t wq_done_get_call(int fd, const void *prev, size_t prev_len,
			 void *buf, size_t cap, int timeout_ms, uint32_t flags,
			 int *priority);
ssize_t wq_done_get_batch_call(int fd, const struct iovec *done_keys,
			       unsigned int n_done, int *done_errs, void *buf,
			       size_t cap, struct iovec *keys, unsigned int max,
			       int timeout_ms, uint32_t flags, int *priorities);

/* What done_get.c shares of the get and batch calls (libwq.c, batch.c). */
void wq_get_prep(struct wq_get *g, void *buf, size_t cap, int timeout_ms,
		 uint32_t flags);
int wq_batch_init(struct wq_batch *b, const struct iovec *keys,
		  unsigned int n, bool in, struct wq_iov **copy);
int wq_get_batch_prep(struct wq_batch *b, void *buf, size_t cap,
		      struct iovec *keys, unsigned int n, int timeout_ms,
		      uint32_t flags, int *priorities, struct wq_iov **copy);
ssize_t wq_get_batch_run(int fd, struct wq_batch *b, int *priorities);
void wq_get_batch_out(struct iovec *keys, struct wq_iov *copy, ssize_t ret);

/*
 * A worker's own io_uring (pool_uring.c): wq_ring_new() makes it for the
 * handle fd (NULL: no ring, use the ioctls); wq_ring_done_get() is
 * wq_done_get(fd, prev, prev_len, buf, cap, -1) made as two commands of
 * one submission, but for a done that fails, which does not stop the get
 * (its error is not reported: the key is no longer in hand either way);
 * a ring the module refuses is dropped and the call made with the ioctls.
 */
struct wq_ring;
struct wq_ring *wq_ring_new(int fd);
void wq_ring_free(struct wq_ring *r);
ssize_t wq_ring_done_get(struct wq_ring *r, const void *prev, size_t prev_len,
			 void *buf, size_t cap);

#endif /* LIBWQ_INTERNAL_H */
