// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libwq: a worker's own io_uring (wq_pool_start(3), WQ_POOL_URING), made
 * with the raw system calls (io_uring_setup, io_uring_enter and mmap):
 * libwq does not need liburing.
 *
 * A worker of a WQ_POOL_URING pool owns one small ring (4 SQEs of 128
 * bytes: wq's commands need IORING_SETUP_SQE128), set up for one thread
 * (IORING_SETUP_DEFER_TASKRUN and SINGLE_ISSUER where the kernel has
 * them: the completion of a parked get runs when the worker waits for
 * it), and makes its loop's one call, the done of the key in hand and the
 * get of the next, as one WQ_IOC_DONE_GET command. The worker waits in
 * io_uring_enter for its completion while the get is parked in the
 * module, in line with the queue's other getters, holding no thread. One
 * system call a key, as wq_done_get() makes; the worker's thread is never
 * blocked inside a wq command. A module whose ring does not take
 * DONE_GET gets the done and the get as two commands of one submission,
 * in that order (commands of one submission take effect in it).
 *
 * The done's key is copied into the ring's own buffer before the
 * submission: the get may write the caller's buffer (where the key in
 * hand usually is) before the done has read it, were the done ever
 * issued late.
 *
 * A ring that cannot be made (a kernel without io_uring or SQE128 rings,
 * io_uring disabled by the sysctl kernel.io_uring_disabled, the memlock
 * limit) is not made: the worker uses the ioctls. One whose commands the
 * module refuses (-EOPNOTSUPP: a module without io_uring commands) is
 * dropped at that call, which is then made again with the ioctls: a
 * command refused took no effect, so the done is made once.
 */
#include <errno.h>
#include <limits.h>
#include <linux/io_uring.h>	/* 5.19's at least: SQE128, URING_CMD */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "wq.h"
#include "wq_internal.h"

/* user_data of the two commands */
enum { WQ_RING_DONE = 1, WQ_RING_GET = 2 };

/* a result not completed yet (no command's res is INT_MIN) */
#define WQ_RING_PENDING	INT_MIN

#define WQ_RING_ENTRIES	4	/* at most two in flight */
#define WQ_RING_SQE_SIZE 128	/* an SQE of an IORING_SETUP_SQE128 ring */
#define WQ_RING_CMD_OFF	48	/* the command area in an SQE */

struct wq_ring {
	int fd;			/* the queue handle */
	int ring_fd;		/* -1: the ring was dropped */
	unsigned int *sq_head, *sq_tail, *sq_mask, *sq_array;
	unsigned int *cq_head, *cq_tail, *cq_mask;
	unsigned char *sqes;	/* WQ_RING_SQE_SIZE bytes each */
	unsigned char *cqes;	/* struct io_uring_cqe */
	void *rings;		/* SQ and CQ rings: one mapping */
	size_t rings_len, sqes_len;
	bool split;		/* the module takes no DONE_GET on a ring */
	char prev[WQ_KEY_MAX];	/* the done's key */
};

_Static_assert(sizeof(struct io_uring_sqe) * 2 == WQ_RING_SQE_SIZE &&
	       offsetof(struct io_uring_sqe, cmd) == WQ_RING_CMD_OFF &&
	       sizeof(struct wq_key) <= WQ_URING_CMD_MAX &&
	       sizeof(struct wq_get) <= WQ_URING_CMD_MAX &&
	       sizeof(struct wq_done_get) <= WQ_URING_CMD_MAX,
	       "the SQE128 layout wq's commands use");

static int wq_ring_setup(unsigned int entries, struct io_uring_params *p)
{
	int saved = errno;
	long ret = syscall(__NR_io_uring_setup, entries, p);

	if (ret < 0) {
		ret = -errno;
		errno = saved;
	}
	return (int)ret;
}

static int wq_ring_enter(int ring_fd, unsigned int submit, unsigned int wait)
{
	int saved = errno;
	long ret = syscall(__NR_io_uring_enter, ring_fd, submit, wait,
			   wait ? IORING_ENTER_GETEVENTS : 0, NULL, 0);

	if (ret < 0) {
		ret = -errno;
		errno = saved;
	}
	return (int)ret;
}

static void *wq_ring_map(int ring_fd, size_t len, off_t off)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_POPULATE, ring_fd, off);

	return p == MAP_FAILED ? NULL : p;
}

static unsigned int *wq_ring_u32(void *base, uint32_t off)
{
	return (unsigned int *)((char *)base + off);
}

struct wq_ring *wq_ring_new(int fd)
{
	struct io_uring_params p;
	struct wq_ring *r;
	size_t sq_len, cq_len;

	r = calloc(1, sizeof(*r));
	if (!r)
		return NULL;
	r->fd = fd;
	memset(&p, 0, sizeof(p));
	p.flags = IORING_SETUP_SQE128 | IORING_SETUP_DEFER_TASKRUN |
		  IORING_SETUP_SINGLE_ISSUER;
	r->ring_fd = wq_ring_setup(WQ_RING_ENTRIES, &p);
	if (r->ring_fd == -EINVAL) {	/* older than 6.1: without them */
		memset(&p, 0, sizeof(p));
		p.flags = IORING_SETUP_SQE128;
		r->ring_fd = wq_ring_setup(WQ_RING_ENTRIES, &p);
	}
	if (r->ring_fd < 0)
		goto fail;
	if (!(p.features & IORING_FEAT_SINGLE_MMAP))
		goto fail;	/* older than 5.4: SQE128 is newer still */
	sq_len = p.sq_off.array + p.sq_entries * sizeof(unsigned int);
	cq_len = p.cq_off.cqes + p.cq_entries * sizeof(struct io_uring_cqe);
	r->rings_len = sq_len > cq_len ? sq_len : cq_len;
	r->rings = wq_ring_map(r->ring_fd, r->rings_len, IORING_OFF_SQ_RING);
	if (!r->rings)
		goto fail;
	r->sqes_len = p.sq_entries * (size_t)WQ_RING_SQE_SIZE;
	r->sqes = wq_ring_map(r->ring_fd, r->sqes_len, IORING_OFF_SQES);
	if (!r->sqes)
		goto fail;
	r->sq_head = wq_ring_u32(r->rings, p.sq_off.head);
	r->sq_tail = wq_ring_u32(r->rings, p.sq_off.tail);
	r->sq_mask = wq_ring_u32(r->rings, p.sq_off.ring_mask);
	r->sq_array = wq_ring_u32(r->rings, p.sq_off.array);
	r->cq_head = wq_ring_u32(r->rings, p.cq_off.head);
	r->cq_tail = wq_ring_u32(r->rings, p.cq_off.tail);
	r->cq_mask = wq_ring_u32(r->rings, p.cq_off.ring_mask);
	r->cqes = (unsigned char *)r->rings + p.cq_off.cqes;
	return r;
fail:
	wq_ring_free(r);
	return NULL;
}

/* Drops the ring (the worker goes on with the ioctls). */
static void wq_ring_drop(struct wq_ring *r)
{
	if (r->sqes)
		munmap(r->sqes, r->sqes_len);
	if (r->rings)
		munmap(r->rings, r->rings_len);
	if (r->ring_fd >= 0)
		close(r->ring_fd);
	r->sqes = NULL;
	r->rings = NULL;
	r->ring_fd = -1;
}

/* Queues one command (not submitted yet): its struct in the SQE's area. */
static void wq_ring_push(struct wq_ring *r, unsigned int cmd_op,
			 const void *arg, size_t size, uint64_t user_data)
{
	unsigned int tail = *r->sq_tail, idx = tail & *r->sq_mask;
	struct io_uring_sqe *sqe;

	sqe = (struct io_uring_sqe *)(r->sqes + idx * WQ_RING_SQE_SIZE);
	memset(sqe, 0, WQ_RING_SQE_SIZE);
	sqe->opcode = IORING_OP_URING_CMD;
	sqe->fd = r->fd;
	sqe->cmd_op = cmd_op;
	sqe->user_data = user_data;
	memcpy((unsigned char *)sqe + WQ_RING_CMD_OFF, arg, size);
	r->sq_array[idx] = idx;
	__atomic_store_n(r->sq_tail, tail + 1, __ATOMIC_RELEASE);
}

/* SQEs queued and not yet taken by the kernel. */
static unsigned int wq_ring_unsubmitted(const struct wq_ring *r)
{
	return *r->sq_tail - __atomic_load_n(r->sq_head, __ATOMIC_ACQUIRE);
}

/*
 * Reaps the completions: the done's result into *done, the get's into
 * *get (each left alone if it has not completed).
 */
static void wq_ring_reap(struct wq_ring *r, int *done, int *get)
{
	unsigned int head = *r->cq_head;
	unsigned int tail = __atomic_load_n(r->cq_tail, __ATOMIC_ACQUIRE);

	for (; head != tail; head++) {
		const struct io_uring_cqe *cqe = (const struct io_uring_cqe *)
			(r->cqes + (head & *r->cq_mask) * sizeof(*cqe));

		if (cqe->user_data == WQ_RING_DONE)
			*done = cqe->res;
		else if (cqe->user_data == WQ_RING_GET)
			*get = cqe->res;
	}
	__atomic_store_n(r->cq_head, head, __ATOMIC_RELEASE);
}

/* A result that says the module does not take the command from a ring. */
static bool wq_ring_refused(int res)
{
	return res == -EOPNOTSUPP || res == -ENOTTY || res == -EINVAL;
}

static void wq_ring_backoff(void)
{
	struct timespec ts = { 0, 1000000L };

	nanosleep(&ts, NULL);
}

/*
 * Submits what is queued and waits until the get, and the done before it
 * (has_done), have completed: the done reads the ring's prev, which the
 * next call overwrites. Returns the get's result, or -EOPNOTSUPP when the
 * module refused the commands or the ring failed before the get was
 * submitted, *done_made then saying whether the done took effect; or the
 * ring's error with the get in flight (the worker leaves, as for -EBADF).
 */
static int wq_ring_run(struct wq_ring *r, bool has_done, bool *done_made)
{
	int done = has_done ? WQ_RING_PENDING : 0, get = WQ_RING_PENDING;

	while (get == WQ_RING_PENDING || done == WQ_RING_PENDING) {
		int ret = wq_ring_enter(r->ring_fd, wq_ring_unsubmitted(r), 1);

		wq_ring_reap(r, &done, &get);
		if (ret >= 0 || ret == -EINTR)
			continue;
		if (ret == -EAGAIN || ret == -EBUSY || ret == -ENOMEM) {
			wq_ring_backoff();
			continue;
		}
		/* the ring failed */
		if (!wq_ring_unsubmitted(r))
			return ret;
		/* the get was not submitted: the done was if it was not last */
		*done_made = has_done && wq_ring_unsubmitted(r) == 1 &&
			     !wq_ring_refused(done);
		return -EOPNOTSUPP;
	}
	*done_made = has_done && !wq_ring_refused(done);
	return wq_ring_refused(get) ? -EOPNOTSUPP : get;
}

/*
 * The loop's call as one WQ_IOC_DONE_GET command: its result, or
 * -EOPNOTSUPP if the module refused it (nothing done: the two commands
 * from now on). r->prev holds the done's key.
 */
static int wq_ring_one(struct wq_ring *r, size_t prev_len, void *buf,
		       size_t cap)
{
	bool done_made = false;
	struct wq_done_get d;
	int ret;

	memset(&d, 0, sizeof(d));
	d.get.buf = (uintptr_t)buf;
	d.get.buf_cap = cap > UINT32_MAX ? UINT32_MAX : (uint32_t)cap;
	d.get.deadline_ns = WQ_DEADLINE_NONE;
	if (prev_len) {
		d.prev = (uintptr_t)r->prev;
		d.prev_len = (uint32_t)prev_len;
	}
	wq_ring_push(r, WQ_IOC_DONE_GET, &d, sizeof(d), WQ_RING_GET);
	ret = wq_ring_run(r, false, &done_made);
	if (ret == -EOPNOTSUPP && !wq_ring_unsubmitted(r))
		r->split = true;	/* refused, not made */
	/* done made, the key not delivered (the buffer): the get alone */
	if (ret == 0)
		ret = wq_done_get(r->fd, NULL, 0, buf, cap, -1);
	return ret;
}

ssize_t wq_ring_done_get(struct wq_ring *r, const void *prev, size_t prev_len,
			 void *buf, size_t cap)
{
	bool done_made = false;
	struct wq_key k;
	struct wq_get g;
	int ret;

	if (r->ring_fd < 0)
		return wq_done_get(r->fd, prev, prev_len, buf, cap, -1);
	if (prev_len > WQ_KEY_MAX)
		return -EINVAL;
	if (prev_len)
		memcpy(r->prev, prev, prev_len);
	if (!r->split) {
		ret = wq_ring_one(r, prev_len, buf, cap);
		if (ret != -EOPNOTSUPP)
			return ret == -ECANCELED ? -EINTR : ret;
		if (!r->split) {	/* the ring failed before the command went */
			wq_ring_drop(r);
			return wq_done_get(r->fd, r->prev, prev_len, buf, cap,
					   -1);
		}
	}
	if (prev_len) {
		memset(&k, 0, sizeof(k));
		k.key_len = (uint32_t)prev_len;
		k.key = (uintptr_t)r->prev;
		wq_ring_push(r, WQ_IOC_DONE, &k, sizeof(k), WQ_RING_DONE);
	}
	memset(&g, 0, sizeof(g));
	g.buf = (uintptr_t)buf;
	g.buf_cap = cap > UINT32_MAX ? UINT32_MAX : (uint32_t)cap;
	g.deadline_ns = WQ_DEADLINE_NONE;
	wq_ring_push(r, WQ_IOC_GET, &g, sizeof(g), WQ_RING_GET);
	ret = wq_ring_run(r, prev_len != 0, &done_made);
	if (ret != -EOPNOTSUPP)
		return ret == -ECANCELED ? -EINTR : ret;
	/* refused: the ioctls from now on, the done unless it was made */
	wq_ring_drop(r);
	return wq_done_get(r->fd, r->prev, done_made ? 0 : prev_len, buf, cap,
			   -1);
}

void wq_ring_free(struct wq_ring *r)
{
	if (!r)
		return;
	wq_ring_drop(r);
	free(r);
}
