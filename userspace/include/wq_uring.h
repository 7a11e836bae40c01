/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * wq_uring.h: libwq's io_uring helpers, in liburing's style (wq_prep_add(3),
 * wq_uring_queue_init(3)). Header-only: a program that includes it links
 * liburing (-luring), libwq itself does not need it.
 *
 * A /dev/wq handle takes io_uring passthrough commands
 * (IORING_OP_URING_CMD): sqe->cmd_op is the ioctl's command, the SQE's
 * command area holds the ioctl's struct, as the ioctl takes it. That area
 * is 80 bytes in a ring made with IORING_SETUP_SQE128 only, which is what
 * wq_uring_queue_init() adds: use the wq_prep_*() helpers on SQEs of such
 * a ring (they write 80 bytes into the SQE's command area; a plain ring's
 * SQE has 16 there).
 *
 * Each helper fills the SQE completely, but for its user_data
 * (io_uring_sqe_set_data()), like liburing's io_uring_prep_*(). The
 * completion's res is what the matching libwq call returns: an add's
 * WQ_ADDED_* (as wq_add_opts()), a get's key length, 0 for a done, or a
 * batch's count, or -errno. Commands of one submission take effect in
 * their order in the submission queue. A get that finds nothing queued
 * does not block the submitter and takes no thread: it is parked in the
 * module, in line with other waiting gets and blocked wq_get() callers
 * (first come, first served), and completes with a key, -ESHUTDOWN, or
 * -ECANCELED when wq_prep_cancel() or wq_uring_cancel() ends it, when the
 * submitting process closes a descriptor of the handle, when the ring is
 * torn down or the submitting task exits (io_uring_prep_cancel() does not
 * reach it: io_uring cancels only what it holds itself). A cancelled get
 * has taken no key. Before 6.7, where the kernel cannot cancel a parked
 * command, one parked for 10 s completes with -EINTR: submit it again.
 * Completions of parked commands run in the submitting task: with
 * IORING_SETUP_DEFER_TASKRUN (WQ_URING_SETUP_FAST), when it waits for
 * completions.
 *
 * Keys, buffers and arrays an SQE points at are read (or written) when the
 * command runs, not when it is prepared: they must stay valid until its
 * completion. A key a get took is held by the handle the SQE names (put
 * back on the queue when that handle is closed), as a wq_get()'s.
 *
 * Errors beyond those of the matching call: -EOPNOTSUPP (fd is not a
 * /dev/wq handle: io_uring's answer for a file without passthrough
 * commands; /dev/null takes any as a no-op, res 0), -EBADF (a /dev/wq handle not bound
 * to a queue, or one whose access does not allow the command), -EINVAL (a
 * ring without IORING_SETUP_SQE128), -ECANCELED.
 */
#ifndef LIBWQ_WQ_URING_H
#define LIBWQ_WQ_URING_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
#include <sys/ioctl.h>
#include <sys/uio.h>

#include <liburing.h>
#include <wq.h>

/* The ioctl ABI: the tree's copy in the source tree, else the installed one. */
#if defined(__has_include)
#if __has_include("../../uapi/linux/wq.h")
#include "../../uapi/linux/wq.h"
#else
#include <linux/wq.h>
#endif
#else
#include <linux/wq.h>
#endif

#ifdef __cplusplus
extern "C" {
#define WQ_URING_ASSERT(c, msg)	static_assert(c, msg)
#else
#define WQ_URING_ASSERT(c, msg)	_Static_assert(c, msg)
#endif

WQ_URING_ASSERT(sizeof(struct wq_add) <= WQ_URING_CMD_MAX &&
		sizeof(struct wq_get) <= WQ_URING_CMD_MAX &&
		sizeof(struct wq_key) <= WQ_URING_CMD_MAX &&
		sizeof(struct wq_batch) <= WQ_URING_CMD_MAX,
		"every command's struct fits an SQE128 command area");

/*
 * The setup flags of a ring one thread drives: its completions (parked
 * commands' too) run only when it waits for them, batched, and io_uring
 * takes no lock for a second submitter. Kernels from 6.1 have them;
 * wq_uring_queue_init() sets the ring up without them where the kernel
 * refuses them.
 */
#if defined(IORING_SETUP_DEFER_TASKRUN) && defined(IORING_SETUP_SINGLE_ISSUER)
#define WQ_URING_SETUP_FAST	(IORING_SETUP_DEFER_TASKRUN | \
				 IORING_SETUP_SINGLE_ISSUER)
#else
#define WQ_URING_SETUP_FAST	0
#endif

/**
 * wq_uring_queue_init() - io_uring_queue_init() of a ring wq's commands fit
 * @entries: as io_uring_queue_init()'s
 * @ring: the ring to set up
 * @flags: IORING_SETUP_* (IORING_SETUP_SQPOLL, WQ_URING_SETUP_FAST, ...),
 *	to which IORING_SETUP_SQE128 is added; WQ_URING_SETUP_FAST is
 *	dropped again where the kernel refuses it
 *
 * Return: 0, or -errno as io_uring_queue_init() returns it: -ENOSYS (a
 * kernel without io_uring), -EPERM (io_uring disabled by the sysctl
 * kernel.io_uring_disabled), -EINVAL (a kernel without SQE128 rings,
 * older than 5.19, or bad flags), -ENOMEM, -EMFILE. Tear the ring down
 * with io_uring_queue_exit().
 */
static inline int wq_uring_queue_init(unsigned entries, struct io_uring *ring,
				      unsigned flags)
{
	int ret = io_uring_queue_init(entries, ring,
				      flags | IORING_SETUP_SQE128);

	if (ret == -EINVAL && (flags & WQ_URING_SETUP_FAST) &&
	    WQ_URING_SETUP_FAST)
		ret = io_uring_queue_init(entries, ring,
					  (flags & ~WQ_URING_SETUP_FAST) |
					  IORING_SETUP_SQE128);
	return ret;
}

/**
 * wq_prep_cmd() - an SQE of one wq command: its struct in the command area
 * @sqe: an SQE of a ring made by wq_uring_queue_init()
 * @fd: the queue handle
 * @cmd_op: WQ_IOC_ADD, WQ_IOC_GET, WQ_IOC_DONE, WQ_IOC_ADD_BATCH,
 *	WQ_IOC_GET_BATCH or WQ_IOC_DONE_BATCH
 * @arg: the command's struct, as the ioctl takes it
 * @size: its size, at most WQ_URING_CMD_MAX
 *
 * The helpers below are made of it. io_uring_prep_rw() clears the fields
 * that overlap the command area only in part: the whole area is zeroed
 * before the struct is copied in.
 */
static inline void wq_prep_cmd(struct io_uring_sqe *sqe, int fd,
			       unsigned int cmd_op, const void *arg,
			       size_t size)
{
	void *cmd;

	io_uring_prep_rw(IORING_OP_URING_CMD, sqe, fd, NULL, 0, 0);
	sqe->cmd_op = cmd_op;
	cmd = sqe->cmd;
	memset(cmd, 0, WQ_URING_CMD_MAX);
	memcpy(cmd, arg, size < WQ_URING_CMD_MAX ? size : WQ_URING_CMD_MAX);
}

/* A key length as the ABI's __u32: one too long stays too long (-EINVAL). */
static inline uint32_t wq_uring_key_len(size_t len)
{
	return len > WQ_KEY_MAX ? WQ_KEY_MAX + 1 : (uint32_t)len;
}

/* The deadline timeout_ms (> 0) from now, CLOCK_MONOTONIC as the ABI's. */
static inline uint64_t wq_uring_deadline_ms(int timeout_ms)
{
	struct timespec ts;
	uint64_t now;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	now = (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
	return now + (uint64_t)timeout_ms * 1000000ULL;
}

/**
 * wq_uring_add_args() - struct wq_add of an add of wq_add_opts()'s kind
 * @a: filled in
 * @key: the key's bytes
 * @len: its length
 * @o: as wq_add_opts()'s: NULL for a plain add
 *
 * The rules of wq_add_opts(): fields a flag does not use must be 0, and
 * flags other than WQ_ADD_AFTER, WQ_ADD_RATE_LIMITED, WQ_ADD_WAIT and
 * WQ_ADD_PRIORITY are refused; such options make a struct the module
 * refuses (its completion is -EINVAL). WQ_ADD_WAIT with a timeout_ms of 0
 * is a plain add (-EAGAIN when full); its deadline counts from the prep.
 */
static inline void wq_uring_add_args(struct wq_add *a, const void *key,
				     size_t len, const struct wq_add_opts *o)
{
	uint32_t flags;

	memset(a, 0, sizeof(*a));
	a->key_len = wq_uring_key_len(len);
	a->key = (uintptr_t)key;
	if (!o)
		return;
	flags = o->flags;
	if ((flags & ~(uint32_t)(WQ_ADD_RATE_LIMITED | WQ_ADD_AFTER |
				 WQ_ADD_WAIT | WQ_ADD_PRIORITY)) ||
	    (!(flags & WQ_ADD_PRIORITY) && o->priority) ||
	    (!(flags & WQ_ADD_AFTER) && o->delay_ns) ||
	    (!(flags & WQ_ADD_WAIT) && o->timeout_ms)) {
		a->flags = UINT32_MAX;	/* unknown flags: -EINVAL */
		return;
	}
	if (flags & WQ_ADD_WAIT) {
		if (o->timeout_ms == 0)
			flags &= ~(uint32_t)WQ_ADD_WAIT;
		else if (o->timeout_ms < 0)
			a->deadline_ns = WQ_DEADLINE_NONE;
		else
			a->deadline_ns = wq_uring_deadline_ms(o->timeout_ms);
	}
	a->flags = flags;
	a->delay_ns = o->delay_ns;
	a->priority = o->priority;
}

/**
 * wq_prep_add() - an add, as wq_add_opts()
 * @sqe: an SQE of a ring made by wq_uring_queue_init()
 * @fd: a queue handle with write access
 * @key: the key's bytes, valid until the completion
 * @len: its length, 1 to WQ_KEY_MAX
 * @o: options as wq_add_opts()'s (delay, rate limit, waiting for room,
 *	priority), or NULL for a plain add
 *
 * The completion's res is what the add did, WQ_ADDED_QUEUED,
 * WQ_ADDED_COALESCED, WQ_ADDED_DIRTY, WQ_ADDED_WAITING or WQ_ADDED_KEPT
 * (a rate-limited add's delay is not reported), or wq_add_opts()'s
 * -errno. An add that waits for room (WQ_ADD_WAIT) waits in io_uring's
 * worker threads, its timeout counted from this call.
 */
static inline void wq_prep_add(struct io_uring_sqe *sqe, int fd,
			       const void *key, size_t len,
			       const struct wq_add_opts *o)
{
	struct wq_add a;

	wq_uring_add_args(&a, key, len, o);
	wq_prep_cmd(sqe, fd, WQ_IOC_ADD, &a, sizeof(a));
}

/**
 * wq_prep_get() - a get, as wq_get() without a time limit
 * @sqe: an SQE of a ring made by wq_uring_queue_init()
 * @fd: a queue handle with read access
 * @buf: receives the key, valid and writable until the completion
 * @cap: its size (WQ_KEY_MAX holds any key)
 *
 * The completion's res is the key's length; the key is processing, held
 * by the handle @fd names, as after wq_get(). With nothing queued the get
 * waits (the submitter does not) until a key comes (first come, first
 * served among waiting gets and blocked wq_get() callers), the queue shuts
 * down (-ESHUTDOWN) or io_uring cancels it (-ECANCELED, having taken no
 * key); on an O_NONBLOCK handle it fails with -EAGAIN instead. A head key
 * longer than @cap (-EMSGSIZE) or a @buf it cannot write (-EFAULT) stays
 * queued.
 */
static inline void wq_prep_get(struct io_uring_sqe *sqe, int fd, void *buf,
			       size_t cap)
{
	struct wq_get g;

	memset(&g, 0, sizeof(g));
	g.buf = (uintptr_t)buf;
	g.buf_cap = cap > UINT32_MAX ? UINT32_MAX : (uint32_t)cap;
	g.deadline_ns = WQ_DEADLINE_NONE;
	wq_prep_cmd(sqe, fd, WQ_IOC_GET, &g, sizeof(g));
}

/**
 * wq_prep_done() - a done, as wq_done()
 * @sqe: an SQE of a ring made by wq_uring_queue_init()
 * @fd: a queue handle with read access
 * @key: the key's bytes, valid until the completion
 * @len: its length
 *
 * The completion's res is 0, or wq_done()'s -errno (-ENOENT: the key is
 * not being processed).
 */
static inline void wq_prep_done(struct io_uring_sqe *sqe, int fd,
				const void *key, size_t len)
{
	struct wq_key k;

	memset(&k, 0, sizeof(k));
	k.key_len = wq_uring_key_len(len);
	k.key = (uintptr_t)key;
	wq_prep_cmd(sqe, fd, WQ_IOC_DONE, &k, sizeof(k));
}

/*
 * The batches pass the caller's struct iovec arrays to the module, whose
 * struct wq_iov is the layout of struct iovec on LP64: they exist there.
 */
#if __SIZEOF_POINTER__ == 8 && __SIZEOF_SIZE_T__ == 8

/**
 * wq_prep_add_batch() - adds of keys[0..n), as wq_add_batch_opts()
 * @sqe: an SQE of a ring made by wq_uring_queue_init()
 * @fd: a queue handle with write access
 * @keys: n keys, the array and the bytes valid until the completion
 * @n: 1 to WQ_BATCH_MAX
 * @o: NULL, or WQ_ADD_PRIORITY and a priority given every key (a
 *	priority queue only); its other fields 0
 * @results: NULL, or n ints that receive each key's WQ_ADDED_* or -errno,
 *	writable until the completion
 *
 * The completion's res is how many keys were added, or a call-level
 * -errno (-EINVAL, -EFAULT, -EBADF) that changed nothing.
 */
static inline void wq_prep_add_batch(struct io_uring_sqe *sqe, int fd,
				     const struct iovec *keys, unsigned int n,
				     const struct wq_add_opts *o, int *results)
{
	struct wq_batch b;

	memset(&b, 0, sizeof(b));
	b.flags = WQ_ADD_OUTCOME;
	b.count = n;
	b.keys = (uintptr_t)keys;
	b.results = (uintptr_t)results;
	if (o) {
		if ((o->flags & ~(uint32_t)WQ_ADD_PRIORITY) || o->delay_ns ||
		    o->timeout_ms || (!(o->flags & WQ_ADD_PRIORITY) &&
				      o->priority))
			b.flags = UINT32_MAX;	/* refused: -EINVAL */
		else
			b.flags |= o->flags;
		b.priority = o->priority;
	}
	wq_prep_cmd(sqe, fd, WQ_IOC_ADD_BATCH, &b, sizeof(b));
}

/**
 * wq_prep_get_batch() - a get of up to n keys, as wq_get_batch()
 * @sqe: an SQE of a ring made by wq_uring_queue_init()
 * @fd: a queue handle with read access
 * @buf: receives the keys, packed, writable until the completion
 * @cap: its size
 * @keys: n iovecs that receive the keys (pointing into @buf), writable
 *	until the completion
 * @n: 1 to WQ_BATCH_MAX
 *
 * Waits as wq_prep_get() for the first key, then takes what is queued, up
 * to @n and as many as fit. The completion's res is how many keys were
 * taken, or -EMSGSIZE (the first does not fit: nothing taken), or the
 * errors of wq_prep_get().
 */
static inline void wq_prep_get_batch(struct io_uring_sqe *sqe, int fd,
				     void *buf, size_t cap,
				     struct iovec *keys, unsigned int n)
{
	struct wq_batch b;

	memset(&b, 0, sizeof(b));
	b.count = n;
	b.keys = (uintptr_t)keys;
	b.buf = (uintptr_t)buf;
	b.buf_cap = cap;
	b.deadline_ns = WQ_DEADLINE_NONE;
	wq_prep_cmd(sqe, fd, WQ_IOC_GET_BATCH, &b, sizeof(b));
}

/**
 * wq_prep_done_batch() - dones of keys[0..n), as wq_done_batch()
 * @sqe: an SQE of a ring made by wq_uring_queue_init()
 * @fd: a queue handle with read access
 * @keys: n keys, the array and the bytes valid until the completion
 * @n: 1 to WQ_BATCH_MAX
 * @errs: NULL, or n ints that receive each key's 0 or -errno (-ENOENT:
 *	not being processed), writable until the completion
 *
 * The completion's res is how many keys were done, or a call-level -errno.
 */
static inline void wq_prep_done_batch(struct io_uring_sqe *sqe, int fd,
				      const struct iovec *keys,
				      unsigned int n, int *errs)
{
	struct wq_batch b;

	memset(&b, 0, sizeof(b));
	b.count = n;
	b.keys = (uintptr_t)keys;
	b.results = (uintptr_t)errs;
	wq_prep_cmd(sqe, fd, WQ_IOC_DONE_BATCH, &b, sizeof(b));
}

/**
 * wq_prep_done_get() - the worker loop's call, as wq_done_get()
 * @sqe: an SQE of a ring made by wq_uring_queue_init()
 * @fd: a queue handle with read access
 * @prev: the key to end first, valid until the completion; NULL with
 *	@prev_len 0 for none
 * @prev_len: its length, 0 to WQ_KEY_MAX
 * @buf: receives the next key, writable until the completion
 * @cap: its size
 *
 * The completion's res is the get's (the key's length, or -errno), or the
 * done's -ENOENT or -EFAULT, which ends the call; 0 when the done was
 * made and the get could not deliver its key (the buffer unwritable: the
 * key stays queued). A get that waits is parked, its done made once.
 */
static inline void wq_prep_done_get(struct io_uring_sqe *sqe, int fd,
				    const void *prev, size_t prev_len,
				    void *buf, size_t cap)
{
	struct wq_done_get d;

	memset(&d, 0, sizeof(d));
	d.get.buf = (uintptr_t)buf;
	d.get.buf_cap = cap > WQ_KEY_MAX ? WQ_KEY_MAX : (uint32_t)cap;
	d.get.deadline_ns = WQ_DEADLINE_NONE;
	d.prev = (uintptr_t)prev;
	d.prev_len = wq_uring_key_len(prev_len);
	wq_prep_cmd(sqe, fd, WQ_IOC_DONE_GET, &d, sizeof(d));
}

/**
 * wq_prep_done_get_batch() - the worker loop's call for many keys, as
 *	wq_done_get_batch()
 * @sqe: an SQE of a ring made by wq_uring_queue_init()
 * @fd: a queue handle with read access
 * @done: n_done keys to end first (array and bytes valid until the
 *	completion); NULL with @n_done 0 for none
 * @n_done: 0 to WQ_BATCH_MAX
 * @buf: receives the keys got, packed, writable until the completion
 * @cap: its size
 * @keys: @n places, set to the keys in @buf
 * @n: 1 to WQ_BATCH_MAX
 *
 * The completion's res is how many keys were got, or -errno (the done's
 * call-level error ends it first). The dones' own results are not
 * reported. A get that waits is parked, its dones made once.
 */
static inline void wq_prep_done_get_batch(struct io_uring_sqe *sqe, int fd,
					  const struct iovec *done,
					  unsigned int n_done, void *buf,
					  size_t cap, struct iovec *keys,
					  unsigned int n)
{
	struct wq_done_get_batch d;

	memset(&d, 0, sizeof(d));
	d.get.count = n;
	d.get.keys = (uintptr_t)keys;
	d.get.buf = (uintptr_t)buf;
	d.get.buf_cap = cap;
	d.get.deadline_ns = WQ_DEADLINE_NONE;
	d.done_keys = (uintptr_t)done;
	d.n_done = n_done;
	wq_prep_cmd(sqe, fd, WQ_IOC_DONE_GET_BATCH, &d, sizeof(d));
}

/**
 * wq_prep_cancel() - end parked commands of a handle
 * @sqe: an SQE of a ring made by wq_uring_queue_init()
 * @fd: a queue handle
 * @addr: the buffer (of a get) or key (of an add) of the parked command to
 *	end; NULL to end every command parked on @fd
 *
 * Each command it ends completes with -ECANCELED, having taken nothing
 * (one whose key came at the same moment may complete with it). The
 * completion's res is how many commands it ended.
 */
static inline void wq_prep_cancel(struct io_uring_sqe *sqe, int fd,
				  const void *addr)
{
	struct wq_uring_cancel c;

	memset(&c, 0, sizeof(c));
	c.addr = (uintptr_t)addr;
	c.flags = addr ? 0 : WQ_URING_CANCEL_ALL;
	wq_prep_cmd(sqe, fd, WQ_IOC_URING_CANCEL, &c, sizeof(c));
}

/**
 * wq_uring_cancel() - wq_prep_cancel() as a system call
 * @fd: a queue handle
 * @addr: as wq_prep_cancel()'s
 *
 * Return: how many commands it ended, or -errno (-EINVAL, -EBADF; -ENOTTY
 * from a module without parked commands).
 */
static inline int wq_uring_cancel(int fd, const void *addr)
{
	struct wq_uring_cancel c;
	int ret;

	memset(&c, 0, sizeof(c));
	c.addr = (uintptr_t)addr;
	c.flags = addr ? 0 : WQ_URING_CANCEL_ALL;
	ret = ioctl(fd, WQ_IOC_URING_CANCEL, &c);
	return ret < 0 ? -errno : ret;
}

#endif /* LP64 */

#undef WQ_URING_ASSERT

#ifdef __cplusplus
}
#endif

#endif /* LIBWQ_WQ_URING_H */
