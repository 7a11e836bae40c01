// SPDX-License-Identifier: GPL-2.0
/*
 * wq_soak: the consumers. A process of one or two threads (sharing the
 * process's handles), each thread with a second handle of its own per
 * queue: gets of every kind, dones and done_batches through either
 * handle, re-adds of keys it is processing, the second handle closed and
 * opened by name again (checked by the queue's id), until every queue it
 * has is shut down and the round is over.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "soak.h"

struct cctx {
	struct child *c;
	int *fds;
	int alt[MAXQ];		/* a second handle of its own per queue */
	unsigned int opens[MAXQ];	/* times alt was opened */
	int asked[MAXQ];	/* -x reuse: reopened since reopen_now */
	int get_alt[MAXQ];	/* -x reuse: the next get goes through alt */
	int done_alt[MAXQ];	/* ... and the next done of keys from the main one */
	int oflags;
	int rdwr;
	uint32_t id;
	int ret;
};

/*
 * A handle for failure lines: which of the consumer's it is, how often
 * it was opened, and what its queue says now (its id tells whether it is
 * the round's queue).
 */
static const char *handle_desc(const struct cctx *x, int qi, int fd)
{
	static __thread char buf[320];
	struct wq_stats st;
	int n, r = wq_stat(fd, &st);

	if (x && fd == x->fds[qi])
		n = snprintf(buf, sizeof(buf), "main handle fd %d", fd);
	else if (x)
		n = snprintf(buf, sizeof(buf), "second handle fd %d (opened %u times)",
			     fd, x->opens[qi]);
	else
		n = snprintf(buf, sizeof(buf), "handle fd %d", fd);
	if (r)
		snprintf(buf + n, sizeof(buf) - (size_t)n, ", stat %s", err_name(r));
	else
		snprintf(buf + n, sizeof(buf) - (size_t)n,
			 ", queue id %llu (round's %llu): queued %u processing %u dirty %u waiting %u keys %u handles %u%s%s",
			 (unsigned long long)st.id,
			 (unsigned long long)sh->rd.q[qi].id, st.queued,
			 st.processing, st.dirty, st.waiting, st.keys, st.handles,
			 st.unlinked ? " unlinked" : "",
			 st.shutting_down ? " shutting down" : "");
	return buf;
}

/* Takes the n keys just handed out; their indexes in b->idx. */
void took(struct squeue *q, int qi, struct cbuf *b, unsigned int n)
{
	unsigned int j;

	for (j = 0; j < n; j++) {
		b->idx[j] = key_index(b->iov[j].iov_base, b->iov[j].iov_len,
				      (unsigned int)qi);
		if (b->idx[j] < 0) {
			fail(F_RESULT, "%s handed out a key that is not ours (%zu bytes: %.40s) to a %s",
			     q->name, b->iov[j].iov_len,
			     (const char *)b->iov[j].iov_base, b->where);
			atomic_fetch_add(&q->c.gets, 1);
			continue;
		}
		take(q, (unsigned int)b->idx[j]);
	}
}

/* The done of n keys as one done_batch: how many succeeded. */
static unsigned int finish_batch(int fd, struct squeue *q, struct cbuf *b,
				 unsigned int n, const char *via)
{
	unsigned int ok, j;
	int r;

	for (j = 0; j < n; j++)
		b->errs[j] = 1;
	r = wq_done_batch(fd, b->iov, n, b->errs);
	call();
	atomic_fetch_add(&q->c.batches, 1);
	if (r < 0) {
		fail(F_RESULT, "done_batch %s of %u through %s: %s (keys from a %s)",
		     q->name, n, via, err_name(r), b->where);
		return 0;
	}
	for (ok = 0, j = 0; j < n; j++) {
		if (b->errs[j] == 0)
			ok++;
		else
			fail(F_RESULT, "done_batch %s key %d through %s: %s (taken by a %s)",
			     q->name, b->idx[j], via, err_name(b->errs[j]),
			     b->where);
	}
	if ((int)ok != r)
		fail(F_RESULT, "done_batch %s returned %d, %u done", q->name, r, ok);
	return ok;
}

/* Ends the n keys of b (done or done_batch) through fd. */
static void finish(const struct cctx *x, int qi, int fd, struct cbuf *b,
		   unsigned int n)
{
	struct squeue *q = &sh->rd.q[qi];
	char via[320];
	unsigned int j, ok = 0;
	int r;

	snprintf(via, sizeof(via), "%s", handle_desc(x, qi, fd));
	for (j = 0; j < n; j++)
		if (b->idx[j] >= 0)
			release(q, (unsigned int)b->idx[j]);
	if (n > 1 && chance(50)) {
		ok = finish_batch(fd, q, b, n, via);
	} else {
		for (j = 0; j < n; j++) {
			r = wq_done(fd, b->iov[j].iov_base, b->iov[j].iov_len);
			call();
			if (!r)
				ok++;
			else
				fail(F_RESULT, "done %s key %d through %s: %s (taken by a %s)",
				     q->name, b->idx[j], via, err_name(r),
				     b->where);
		}
	}
	atomic_fetch_add(&q->c.dones, ok);
	for (j = 0; j < n; j++)
		if (b->idx[j] >= 0)
			after_done(q, (unsigned int)b->idx[j]);
}

/* A consumer with a read-write handle adds a key it is processing. */
static void readd(int fd, struct squeue *q, struct cbuf *b, unsigned int j)
{
	uint64_t s, d = 0;
	int r;

	if (b->idx[j] < 0)
		return;
	s = tick();
	if (chance(60)) {
		r = wq_add(fd, b->iov[j].iov_base, b->iov[j].iov_len);
		call();
		if (add_ok(q, r, "add (processing)")) {
			note_add(q, (unsigned int)b->idx[j], s, 0);
			atomic_fetch_add(&q->c.adds, 1);
		}
		return;
	}
	r = wq_add_rate_limited(fd, b->iov[j].iov_base, b->iov[j].iov_len, &d);
	call();
	if (add_ok(q, r, "add_rate_limited (processing)")) {
		note_add(q, (unsigned int)b->idx[j], s, d != 0);
		atomic_fetch_add(&q->c.rls, 1);
		if (d)
			atomic_fetch_add(&q->c.delayed, 1);
	}
}

/*
 * The consumer's second handle of queue qi, closed and opened by name
 * again. The name may be another queue's by now (the round's was
 * destroyed and the name given to a new one): the queue's id tells, and
 * such a handle is closed, as if the name were gone.
 */
static void reopen_alt(struct cctx *x, int qi)
{
	struct squeue *q = &sh->rd.q[qi];
	struct wq_stats st;
	int fd, r;

	wq_close(x->alt[qi]);
	x->alt[qi] = -1;
	/* the parent's reuse_name() allows for this handle while it is open */
	atomic_fetch_add(&q->reopen_begun, 1);
	fd = wq_open_flags(q->name, x->oflags);
	call();
	if (fd < 0) {
		atomic_fetch_add(&q->reopen_over, 1);
		/* gone, or another queue's whose mode refuses us */
		if ((fd == -ENOENT || fd == -EACCES) && q->destroy_early)
			atomic_fetch_add(&sh->relanded, fd == -EACCES);
		else
			fail(F_RESULT, "open %s again: %s", q->name, err_name(fd));
		return;
	}
	x->opens[qi]++;
	r = wq_stat(fd, &st);
	call();
	if (r == 0 && (st.id == q->id || blind)) {
		/* kept: a handle of this queue (blind: of either) */
		if (!blind)
			atomic_fetch_add(&q->reopen_over, 1);
		x->alt[qi] = fd;
		return;
	}
	if (r)
		fail(F_RESULT, "stat %s after opening it again: %s", q->name,
		     err_name(r));
	else if (!q->destroy_early)
		fail(F_RESULT, "open %s again reached queue id %llu, not %llu, though the name was never destroyed",
		     q->name, (unsigned long long)st.id,
		     (unsigned long long)q->id);
	else
		atomic_fetch_add(&sh->relanded, 1);
	wq_close(fd);
	atomic_fetch_add(&q->reopen_over, 1);
}

/*
 * -x reuse: while the parent holds a new queue under the destroyed
 * name, every consumer thread opens its second handle again, acks, and
 * sends its next get and done through it.
 */
static void reopen_if_asked(struct cctx *x, int qi)
{
	struct squeue *q = &sh->rd.q[qi];

	if (!atomic_load(&q->reopen_now) || x->asked[qi])
		return;
	x->asked[qi] = 1;
	if (x->alt[qi] >= 0) {
		reopen_alt(x, qi);
		x->get_alt[qi] = x->done_alt[qi] = 1;
	}
	atomic_fetch_add(&q->reopened, 1);
}

/*
 * The handle of a call: the second one in pct% of the calls, or when
 * forced (*force, then cleared).
 */
static int pick_fd(struct cctx *x, int qi, uint32_t pct, int *force)
{
	int alt = x->alt[qi];

	if (alt >= 0 && *force) {
		*force = 0;
		return alt;
	}
	return alt >= 0 && chance(pct) ? alt : x->fds[qi];
}

/* A get of some kind into b: how many keys it took, or an error. */
static ssize_t get_some(int fd, int timeout, struct cbuf *b, const char **how,
			int *batch)
{
	uint32_t op = rn(100);
	ssize_t r;

	*batch = 0;
	if (op < 65) {
		*how = op < 55 ? "get" : op < 60 ? "detached get" : "get into 24 bytes";
		if (op < 55)
			r = wq_get(fd, b->buf, WQ_KEY_MAX, timeout);
		else if (op < 60)
			r = wq_get_detached(fd, b->buf, WQ_KEY_MAX, timeout);
		else
			r = wq_get(fd, b->buf, 24, 0);
		if (r <= 0)
			return r == -EMSGSIZE && op >= 60 ? -EAGAIN : r;
		b->iov[0].iov_base = b->buf;
		b->iov[0].iov_len = (size_t)r;
		return 1;
	}
	*batch = 1;
	if (op < 95) {
		*how = "batch get";
		return wq_get_batch(fd, b->buf, BATCH_BUF, b->iov, 1 + rn(16),
				    timeout);
	}
	*how = "detached batch get";
	return wq_get_batch_detached(fd, b->buf, BATCH_BUF, b->iov, 1 + rn(8),
				     timeout);
}

/* What a get that took no key means: 0 go on, -1 the queue is done. */
static int got_nothing(const struct cctx *x, int qi, int fd, ssize_t r,
		       const char *how)
{
	struct squeue *q = &sh->rd.q[qi];

	if (r == -EAGAIN || r == -ETIMEDOUT)
		return 0;
	if (r == -EINTR) {
		atomic_fetch_add(&q->c.intr, 1);
		return 0;
	}
	if (r == -ESHUTDOWN) {
		if (!atomic_load(&q->ending))
			fail(F_RESULT, "%s %s through %s: -ESHUTDOWN before the shutdown",
			     how, q->name, handle_desc(x, qi, fd));
		if (atomic_load(&sh->rd.over))
			return -1;
		sleep_ms(1);
		return 0;
	}
	fail(F_RESULT, "%s %s through %s: %s", how, q->name,
	     handle_desc(x, qi, fd), err_name((int)r));
	sleep_ms(1);
	return 0;
}

/* One get of some kind on queue qi: 1 on keys, 0 nothing, -1 finished. */
static int consume_one(struct cctx *x, int qi, struct cbuf *b)
{
	struct squeue *q = &sh->rd.q[qi];
	int timeout = chance(25) ? 0 : sh->rd.patient ? -1 : 10 + (int)rn(60);
	const char *how = "get";
	unsigned int n, j;
	int fd, done_fd, batch, no_force, *force;
	ssize_t r;

	reopen_if_asked(x, qi);
	fd = pick_fd(x, qi, 15, &x->get_alt[qi]);
	if (timeout)
		atomic_store(&sh->rd.w[self_id].asleep, now_ms());
	r = get_some(fd, timeout, b, &how, &batch);
	atomic_store(&sh->rd.w[self_id].asleep, 0);
	call();
	if (r <= 0)
		return got_nothing(x, qi, fd, r, how);
	snprintf(b->where, sizeof(b->where), "%s through %s", how,
		 fd == x->fds[qi] ? "the main handle" : "the second handle");
	n = (unsigned int)r;
	if (n > BATCH) {
		fail(F_RESULT, "%s %s: %u keys", how, q->name, n);
		return 0;
	}
	if (batch)
		atomic_fetch_add(&q->c.batches, 1);
	took(q, qi, b, n);
	if (x->rdwr)
		for (j = 0; j < n; j++)
			if (chance(15))
				readd(fd, q, b, j);
	if (chance(20))
		usleep(rn(500));
	/* any handle may end a key's processing */
	if (fd != x->fds[qi])	/* forced: a done of keys from the main one */
		no_force = 0, force = &no_force;
	else
		force = &x->done_alt[qi];
	done_fd = pick_fd(x, qi, 25, force);
	if (done_fd != fd)
		atomic_fetch_add(&q->c.cross, n);
	finish(x, qi, done_fd, b, n);
	/* its second handle goes (holding nothing) and comes again */
	if (x->alt[qi] >= 0 && chance(3))
		reopen_alt(x, qi);
	return 1;
}

static void *consumer_thread(void *arg)
{
	struct cctx *x = arg;
	int finished[MAXQ] = { 0 }, left, qi, r;
	struct cbuf *b = malloc(sizeof(*b));

	self_id = x->id;
	seed_rng(x->id + 2000);
	if (!b) {
		x->ret = 2;
		return NULL;
	}
	for (qi = 0, left = 0; qi < sh->rd.nq; qi++) {
		if (x->fds[qi] < 0)
			finished[qi] = 1;
		else
			left++;
	}
	while (left) {
		qi = (int)rn((uint32_t)sh->rd.nq);
		if (finished[qi])
			continue;
		r = consume_one(x, qi, b);
		if (r < 0) {
			finished[qi] = 1;
			left--;
		}
	}
	for (qi = 0; qi < sh->rd.nq; qi++)
		if (x->alt[qi] >= 0)
			wq_close(x->alt[qi]);
	free(b);
	return NULL;
}

int consumer_main(struct child *c)
{
	struct cctx x[2];
	pthread_t t;
	int fds[MAXQ], rdwr = !c->uid, i, qi;

	if (c->uid && drop_to(c->uid))
		return 3;
	open_all(fds, rdwr ? O_RDWR : O_RDONLY, c->uid);
	memset(x, 0, sizeof(x));
	for (i = 0; i < c->nthreads; i++) {
		x[i].oflags = rdwr ? O_RDWR : O_RDONLY;
		for (qi = 0; qi < MAXQ; qi++) {
			x[i].alt[qi] = -1;
			if (qi < sh->rd.nq && fds[qi] >= 0) {
				x[i].alt[qi] = wq_open_flags(sh->rd.q[qi].name,
							     x[i].oflags);
				call();
			}
			if (x[i].alt[qi] >= 0)
				x[i].opens[qi] = 1;
			if (qi < sh->rd.nq && fds[qi] >= 0)
				atomic_fetch_add(&sh->rd.q[qi].users, 1);
		}
	}
	catch_signals();
	ready(c);
	wait_go();
	for (i = 0; i < c->nthreads; i++) {
		x[i].c = c;
		x[i].fds = fds;
		x[i].rdwr = rdwr;
		x[i].id = c->id + (uint32_t)i;
		x[i].ret = 0;
	}
	if (c->nthreads > 1 && pthread_create(&t, NULL, consumer_thread, &x[1]))
		return 4;
	consumer_thread(&x[0]);
	if (c->nthreads > 1)
		pthread_join(t, NULL);
	return x[0].ret | (c->nthreads > 1 ? x[1].ret : 0);
}
