// SPDX-License-Identifier: GPL-2.0
/*
 * wq_soak: a producer and a consumer that use io_uring commands
 * (wq_uring.h), one process each, beside the others, where the module
 * takes them (WQ_FEATURE_URING) and the kernel makes SQE128 rings; a
 * quarter of them with an SQPOLL ring (the commands issued by the
 * kernel's thread). Their keys go through the book-keeping of keys.c as
 * every other worker's: the sequence number of an add taken before its
 * submission, a key's holder taken at the completion that handed it out
 * and given up before its done is submitted.
 *
 * The producer submits 1 to 16 commands at a time, on keys and queues at
 * random: adds (plain, AddAfter, AddRateLimited, waiting for room) and
 * batches of adds, and reaps their completions. The consumer keeps three
 * gets outstanding a queue (single or batches, waiting without a deadline
 * in a patient round, else 10 to 70 ms); the keys a get took are done
 * through io_uring (DONE each, or DONE_BATCH) or by the ioctl, and then
 * the get is submitted again; now and then it cancels a get in flight
 * (WQ_IOC_URING_CANCEL of its buffer: the get completes -ECANCELED having
 * taken nothing, or with its key if it came first), or asks io_uring to
 * (IORING_OP_ASYNC_CANCEL, which does not reach a parked get: -ENOENT).
 * It leaves a queue when a get completes -ESHUTDOWN once the round is
 * over.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "soak.h"
#include "wq_uring.h"

#define UP_SQES		16	/* the producer's commands a submission */
#define UP_BATCH	8	/* keys in its batches */
#define UC_GETS		3	/* the consumer's gets a queue */
#define UC_SLOTS	(MAXQ * UC_GETS)
#define UD_DONE		(1ULL << 32)	/* user_data: a DONE (| key index << 16) */
#define UD_BATCH	(2ULL << 32)	/* a DONE_BATCH */
#define UD_CANCEL	(3ULL << 32)	/* an ASYNC_CANCEL */
#define NO_RESULT	0x5555		/* neither a WQ_ADDED_* nor an -errno */

int uring_ok;			/* uring_probe(): the roles run */
const char *uring_why = "";

/* Before the rounds: whether the module and the kernel take the commands. */
void uring_probe(void)
{
	struct wq_module_info mi;
	struct io_uring ring;

	if (module_info(&mi) || !(mi.features & WQ_FEATURE_URING)) {
		uring_why = "the module has no WQ_FEATURE_URING";
		return;
	}
	if (wq_uring_queue_init(4, &ring, 0)) {
		uring_why = "no SQE128 io_uring ring here (no io_uring, io_uring_disabled, or a kernel before 5.19)";
		return;
	}
	io_uring_queue_exit(&ring);
	uring_ok = 1;
}

/* A ring for a worker: SQPOLL a quarter of the time. */
static int ring_make(struct io_uring *ring, unsigned int entries)
{
	int r = -1;

	if (chance(25))
		r = wq_uring_queue_init(entries, ring, IORING_SETUP_SQPOLL);
	if (r)
		r = wq_uring_queue_init(entries, ring, 0);
	if (r)
		fail(F_URING, "io_uring_queue_init: %s", err_name(r));
	return r;
}

/* Submits what is queued, and waits up to ms for a completion. */
static void submit_wait(struct io_uring *ring, unsigned int nr, int ms)
{
	struct __kernel_timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
	struct io_uring_cqe *cqe;
	int r;

	r = io_uring_submit(ring);
	if (r < 0 && r != -EINTR && r != -EAGAIN && r != -EBUSY)
		fail(F_URING, "io_uring_submit: %s", err_name(r));
	if (nr)
		r = io_uring_wait_cqe_timeout(ring, &cqe, ms < 0 ? NULL : &ts);
}

/* ---- the producer ---------------------------------------------------- */

enum { A_ADD, A_AFTER, A_RL, A_WAIT, A_BATCH };

struct uadd {
	int qi, kind;
	unsigned int n, idx[UP_BATCH];
	uint64_t s, delay;
	struct iovec iov[UP_BATCH];
	int res[UP_BATCH];
	char keys[UP_BATCH][WQ_KEY_MAX];
};

static uint64_t delay_pick(void)
{
	uint32_t p = rn(100);

	return p < 10 ? 0 : p < 60 ? 50000 + rn(1950000) :
	       p < 95 ? 2000000 + rn(18000000) : 300000000;
}

/* An add of some kind (or a batch of them) on a queue at random, prepared. */
static void prep_add(struct io_uring_sqe *sqe, int fd, struct uadd *a)
{
	struct squeue *q = &sh->rd.q[a->qi];
	struct wq_add_opts o = { 0 };
	uint32_t op = rn(100), j;

	a->kind = op < 45 ? A_ADD : op < 60 ? A_AFTER : op < 72 ? A_RL :
		  op < 82 ? A_WAIT : A_BATCH;
	a->n = a->kind == A_BATCH ? 2 + rn(UP_BATCH - 1) : 1;
	for (j = 0; j < a->n; j++) {
		a->idx[j] = j && chance(10) ? a->idx[rn(j)] : rn(q->nkeys);
		a->iov[j].iov_base = a->keys[j];
		a->iov[j].iov_len = make_key(a->keys[j], (unsigned int)a->qi,
					     a->idx[j]);
		a->res[j] = NO_RESULT;
	}
	if (a->kind == A_BATCH) {
		wq_prep_add_batch(sqe, fd, a->iov, a->n, NULL, a->res);
		return;
	}
	if (a->kind == A_AFTER) {
		o.flags = WQ_ADD_AFTER;
		o.delay_ns = a->delay = delay_pick();
	} else if (a->kind == A_RL) {
		o.flags = WQ_ADD_RATE_LIMITED;
	} else if (a->kind == A_WAIT) {
		o.flags = WQ_ADD_WAIT;
		o.timeout_ms = sh->rd.patient ? -1 : 1 + (int)rn(20);
	}
	wq_prep_add(sqe, fd, a->keys[0], a->iov[0].iov_len,
		    a->kind == A_ADD ? NULL : &o);
}

/* One key's add that completed with r (an add's WQ_ADDED_*, or -errno). */
static void added(struct uadd *a, unsigned int j, int r)
{
	struct squeue *q = &sh->rd.q[a->qi];
	int delayed;

	if (a->kind == A_WAIT && r == -ETIMEDOUT) {
		atomic_fetch_add(&q->c.timedout, 1);
		if (!q->max_items)
			fail(F_RESULT, "io_uring add_wait %s: -ETIMEDOUT without a small max_items",
			     q->name);
		return;
	}
	if (r > WQ_ADDED_KEPT) {
		fail(F_RESULT, "io_uring add %s: %d", q->name, r);
		return;
	}
	if (!add_ok(q, r > 0 ? 0 : r, "io_uring add"))
		return;
	/* a rate-limited add reports no delay: what it did says if it waits */
	delayed = a->kind == A_AFTER ? a->delay != 0 :
		  r == WQ_ADDED_WAITING || r == WQ_ADDED_KEPT;
	note_add(q, a->idx[j], a->s, delayed);
	atomic_fetch_add(&sh->ur_adds, 1);
	if (a->kind == A_AFTER || a->kind == A_RL) {
		atomic_fetch_add(a->kind == A_AFTER ? &q->c.afters : &q->c.rls, 1);
		if (delayed)
			atomic_fetch_add(&q->c.delayed, 1);
	} else {
		atomic_fetch_add(&q->c.adds, 1);
	}
}

static void add_done(struct uadd *a, int res)
{
	struct squeue *q = &sh->rd.q[a->qi];
	unsigned int j;
	int ok = 0;

	if (a->kind != A_BATCH) {
		added(a, 0, res);
		return;
	}
	atomic_fetch_add(&q->c.batches, 1);
	if (res < 0) {
		fail(F_RESULT, "io_uring add_batch %s of %u: %s", q->name, a->n,
		     err_name(res));
		return;
	}
	for (j = 0; j < a->n; j++) {
		if (a->res[j] == NO_RESULT) {
			fail(F_RESULT, "io_uring add_batch %s: no result for key %u",
			     q->name, j);
			continue;
		}
		ok += a->res[j] >= 0;
		added(a, j, a->res[j]);
	}
	if (ok != res)
		fail(F_RESULT, "io_uring add_batch %s: completed with %d, %d keys added",
		     q->name, res, ok);
}

int uring_producer_main(struct child *c)
{
	struct uadd *a = calloc(UP_SQES, sizeof(*a));
	struct io_uring ring;
	struct io_uring_cqe *cqe;
	int fds[MAXQ], n, j, got;

	if (!a || ring_make(&ring, UP_SQES))
		return 2;
	open_all(fds, chance(50) ? O_WRONLY : O_RDWR, 0);
	ready(c);
	wait_go();
	while (!atomic_load(&sh->rd.stop)) {
		n = 1 + (int)rn(UP_SQES);
		for (j = 0; j < n; j++) {
			struct io_uring_sqe *sqe = io_uring_get_sqe(&ring);

			a[j].qi = (int)rn((uint32_t)sh->rd.nq);
			if (!sqe || fds[a[j].qi] < 0)
				break;
			prep_add(sqe, fds[a[j].qi], &a[j]);
			io_uring_sqe_set_data64(sqe, (uint64_t)j);
			a[j].s = tick();
		}
		for (n = j, got = 0; got < n;) {
			submit_wait(&ring, 1, -1);
			while (io_uring_peek_cqe(&ring, &cqe) == 0) {
				call();
				add_done(&a[io_uring_cqe_get_data64(cqe)], cqe->res);
				io_uring_cqe_seen(&ring, cqe);
				got++;
			}
		}
		if (chance(30))
			usleep(rn(400));
	}
	io_uring_queue_exit(&ring);
	free(a);
	return 0;
}

/* ---- the consumer ---------------------------------------------------- */

enum { S_IDLE, S_GET, S_DONE, S_LEFT };

struct uget {
	int qi, state, batch;
	unsigned int n;		/* keys the get took */
	unsigned int waiting;	/* completions of their dones to come */
	unsigned int ok;	/* dones that succeeded */
	int64_t retry_at;	/* ms: no get before */
	struct cbuf b;
};

struct ucons {
	struct io_uring ring;
	int fds[MAXQ];
	int cancels;		/* in flight */
	struct uget s[UC_SLOTS];
};

static void get_submit(struct ucons *x, int k)
{
	struct uget *g = &x->s[k];
	struct io_uring_sqe *sqe = io_uring_get_sqe(&x->ring);
	uint64_t deadline = sh->rd.patient ? WQ_DEADLINE_NONE :
			    wq_uring_deadline_ms(10 + (int)rn(60));
	struct wq_batch b = { .deadline_ns = deadline };
	struct wq_get one = { .deadline_ns = deadline };

	if (!sqe)
		return;
	g->batch = chance(35);
	if (g->batch) {
		b.flags = chance(10) ? WQ_GET_DETACH : 0;
		b.count = 1 + rn(8);
		b.keys = (uintptr_t)g->b.iov;
		b.buf = (uintptr_t)g->b.buf;
		b.buf_cap = BATCH_BUF;
		wq_prep_cmd(sqe, x->fds[g->qi], WQ_IOC_GET_BATCH, &b, sizeof(b));
	} else {
		one.flags = chance(10) ? WQ_GET_DETACH : 0;
		one.buf = (uintptr_t)g->b.buf;
		one.buf_cap = WQ_KEY_MAX;
		wq_prep_cmd(sqe, x->fds[g->qi], WQ_IOC_GET, &one, sizeof(one));
	}
	io_uring_sqe_set_data64(sqe, (uint64_t)k);
	g->state = S_GET;
}

/* A done of key j of get k by the ioctl. */
static void done_ioctl(struct ucons *x, int k, unsigned int j)
{
	struct uget *g = &x->s[k];
	struct squeue *q = &sh->rd.q[g->qi];
	int r;

	r = wq_done(x->fds[g->qi], g->b.iov[j].iov_base, g->b.iov[j].iov_len);
	call();
	if (r)
		fail(F_RESULT, "done %s key %d: %s (taken by an %s)", q->name,
		     g->b.idx[j], err_name(r), g->b.where);
	g->ok += !r;
}

/*
 * The dones of the keys get k took (their holders given up first): one
 * DONE each, one DONE_BATCH of them all, or the ioctl's.
 */
static void dones_submit(struct ucons *x, int k)
{
	struct uget *g = &x->s[k];
	struct squeue *q = &sh->rd.q[g->qi];
	int fd = x->fds[g->qi];
	uint32_t how = rn(100);
	struct io_uring_sqe *sqe;
	unsigned int j;

	for (j = 0; j < g->n; j++)
		if (g->b.idx[j] >= 0)
			release(q, (unsigned int)g->b.idx[j]);
	g->ok = 0;
	g->waiting = 0;
	g->state = S_DONE;
	if (how >= 15 && how < 55 && g->n > 1 &&
	    (sqe = io_uring_get_sqe(&x->ring))) {
		for (j = 0; j < g->n; j++)
			g->b.errs[j] = 1;
		wq_prep_done_batch(sqe, fd, g->b.iov, g->n, g->b.errs);
		io_uring_sqe_set_data64(sqe, UD_BATCH | (uint64_t)k);
		g->waiting = 1;
		return;
	}
	for (j = 0; j < g->n; j++) {
		sqe = how < 15 ? NULL : io_uring_get_sqe(&x->ring);
		if (!sqe) {
			done_ioctl(x, k, j);
			continue;
		}
		wq_prep_done(sqe, fd, g->b.iov[j].iov_base, g->b.iov[j].iov_len);
		io_uring_sqe_set_data64(sqe, UD_DONE | (uint64_t)j << 16 |
					(uint64_t)k);
		g->waiting++;
	}
}

/* All of get k's dones are in: counted, and the get goes again. */
static void dones_over(struct ucons *x, int k)
{
	struct uget *g = &x->s[k];
	struct squeue *q = &sh->rd.q[g->qi];
	unsigned int j;

	atomic_fetch_add(&q->c.dones, g->ok);
	for (j = 0; j < g->n; j++)
		if (g->b.idx[j] >= 0)
			after_done(q, (unsigned int)g->b.idx[j]);
	g->state = S_IDLE;
	g->retry_at = 0;
}

/* A get that took nothing: go on, wait a little, or leave the queue. */
static void got_nothing(struct uget *g, int res)
{
	struct squeue *q = &sh->rd.q[g->qi];

	g->state = S_IDLE;
	if (res == -ETIMEDOUT)
		return;
	if (res == -EINTR) {	/* a stop or a freeze of the process: again */
		atomic_fetch_add(&q->c.intr, 1);
		return;
	}
	if (res == -ECANCELED) {
		atomic_fetch_add(&sh->ur_cancelled, 1);
		return;
	}
	if (res == -ESHUTDOWN) {
		if (!atomic_load(&q->ending))
			fail(F_RESULT, "io_uring %s %s: -ESHUTDOWN before the shutdown",
			     g->batch ? "batch get" : "get", q->name);
		if (atomic_load(&sh->rd.over))
			g->state = S_LEFT;
		else
			g->retry_at = now_ms() + 1;
		return;
	}
	fail(F_RESULT, "io_uring %s %s: %s", g->batch ? "batch get" : "get",
	     q->name, err_name(res));
	g->retry_at = now_ms() + 1;
}

static void get_done(struct ucons *x, int k, int res)
{
	struct uget *g = &x->s[k];
	struct squeue *q = &sh->rd.q[g->qi];

	if (res <= 0) {
		got_nothing(g, res);
		return;
	}
	g->n = g->batch ? (unsigned int)res : 1;
	if (g->n > 8) {
		fail(F_RESULT, "io_uring batch get %s: %u keys of 8", q->name, g->n);
		g->state = S_IDLE;
		return;
	}
	if (!g->batch) {
		g->b.iov[0].iov_base = g->b.buf;
		g->b.iov[0].iov_len = (size_t)res;
	} else {
		atomic_fetch_add(&q->c.batches, 1);
	}
	snprintf(g->b.where, sizeof(g->b.where), "io_uring %s",
		 g->batch ? "batch get" : "get");
	took(q, g->qi, &g->b, g->n);
	atomic_fetch_add(&sh->ur_gets, g->n);
	dones_submit(x, k);
	if (!g->waiting)
		dones_over(x, k);
}

/* A completion of a DONE or DONE_BATCH of get k's keys. */
static void done_done(struct ucons *x, int k, uint64_t ud, int res)
{
	struct uget *g = &x->s[k];
	struct squeue *q = &sh->rd.q[g->qi];
	unsigned int j;

	if ((ud & (3ULL << 32)) == UD_DONE) {
		j = (unsigned int)(ud >> 16) & 0xffff;
		if (res)
			fail(F_RESULT, "io_uring done %s key %d: %s (taken by an %s)",
			     q->name, g->b.idx[j], err_name(res), g->b.where);
		g->ok += !res;
	} else {
		atomic_fetch_add(&q->c.batches, 1);
		for (j = 0; j < g->n; j++)
			if (g->b.errs[j])
				fail(F_RESULT, "io_uring done_batch %s key %d: %s (taken by an %s)",
				     q->name, g->b.idx[j], err_name(g->b.errs[j]),
				     g->b.where);
			else
				g->ok++;
		if (res != (int)g->n)
			fail(F_RESULT, "io_uring done_batch %s of %u: %s", q->name,
			     g->n, err_name(res));
	}
	if (--g->waiting == 0)
		dones_over(x, k);
}

static void complete(struct ucons *x, const struct io_uring_cqe *cqe)
{
	uint64_t ud = io_uring_cqe_get_data64(cqe);
	int k = (int)(ud & 0xffff);

	call();
	if ((ud & (3ULL << 32)) == UD_CANCEL) {
		x->cancels--;
		atomic_fetch_add(&sh->ur_cancels, 1);
		/* wq's: how many it ended; io_uring's: none it could reach */
		if (cqe->res < 0 && cqe->res != -ENOENT && cqe->res != -EALREADY)
			fail(F_URING, "cancel of a get: %s",
			     err_name(cqe->res));
		if (cqe->res > 1)
			fail(F_URING, "a cancel of one buffer ended %d gets",
			     cqe->res);
	} else if (ud >> 32) {
		done_done(x, k, ud, cqe->res);
	} else {
		get_done(x, k, cqe->res);
	}
}

/* A get in flight cancelled. */
static void cancel_one(struct ucons *x)
{
	struct io_uring_sqe *sqe;
	int k = (int)rn(UC_SLOTS);

	if (x->s[k].state != S_GET || x->cancels >= UC_SLOTS)
		return;
	sqe = io_uring_get_sqe(&x->ring);
	if (!sqe)
		return;
	if (chance(80))
		wq_prep_cancel(sqe, x->fds[x->s[k].qi], x->s[k].b.buf);
	else
		io_uring_prep_cancel64(sqe, (uint64_t)k, 0);
	io_uring_sqe_set_data64(sqe, UD_CANCEL | (uint64_t)k);
	x->cancels++;
}

/* Gets for the slots that want one; how many slots are still in. */
static int gets_submit(struct ucons *x)
{
	int64_t now = now_ms();
	int k, in = 0;

	for (k = 0; k < UC_SLOTS; k++) {
		struct uget *g = &x->s[k];

		if (g->state == S_LEFT)
			continue;
		in++;
		if (g->state == S_IDLE && g->retry_at <= now)
			get_submit(x, k);
	}
	return in;
}

int uring_consumer_main(struct child *c)
{
	struct ucons *x = calloc(1, sizeof(*x));
	struct io_uring_cqe *cqe;
	int k;

	if (!x || ring_make(&x->ring, 64))
		return 2;
	open_all(x->fds, O_RDWR, 0);
	for (k = 0; k < UC_SLOTS; k++) {
		x->s[k].qi = k / UC_GETS;
		if (x->s[k].qi >= sh->rd.nq || x->fds[x->s[k].qi] < 0)
			x->s[k].state = S_LEFT;
	}
	ready(c);
	wait_go();
	while (gets_submit(x) || x->cancels) {
		if (chance(3))
			cancel_one(x);
		submit_wait(&x->ring, 1, 2);
		while (io_uring_peek_cqe(&x->ring, &cqe) == 0) {
			complete(x, cqe);
			io_uring_cqe_seen(&x->ring, cqe);
		}
	}
	io_uring_queue_exit(&x->ring);
	free(x);
	return 0;
}
