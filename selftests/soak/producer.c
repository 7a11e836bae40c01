// SPDX-License-Identifier: GPL-2.0
/*
 * wq_soak: the producers. Each opens the round's queues (write-only or
 * read-write; as uid 1000 where the modes say so) and, until the round
 * stops, makes calls of every kind that adds or asks, on keys at random:
 * add, add_after, add_rate_limited, forget, num_requeues, add_batch,
 * add_wait, and stat, metrics, len and shutting_down checked.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "soak.h"

struct pbuf {
	char keys[BATCH][WQ_KEY_MAX];
	struct iovec iov[BATCH];
	unsigned int idx[BATCH];
	int errs[BATCH];
};

static uint64_t pick_delay(void)
{
	uint32_t p = rn(100);

	if (p < 10)
		return 0;
	if (p < 60)
		return 50000 + rn(1950000);
	if (p < 95)
		return 2000000 + rn(18000000);
	return 300000000;
}

/* stat, metrics, len and shutting_down through fd: consistent with q. */
void check_stat(int fd, struct squeue *q)
{
	struct wq_metrics m;
	struct wq_stats st;
	int r;

	r = wq_stat(fd, &st);
	call();
	if (r) {
		fail(F_RESULT, "stat %s: %s", q->name, err_name(r));
		return;
	}
	if (st.id != q->id)
		fail(F_RESULT, "stat %s: queue id %llu, not the round's %llu",
		     q->name, (unsigned long long)st.id,
		     (unsigned long long)q->id);
	if (strcmp(st.name, q->name) || st.queued + st.processing > st.keys ||
	    st.dirty > st.processing || (q->max_items && st.keys > q->max_items) ||
	    st.shutting_down < 0 || st.shutting_down > 1 ||
	    st.mode != q->mode || st.uid != (q->unpriv ? UID_OWNER : 0))
		fail(F_RESULT, "stat %s: name %s queued %u processing %u dirty %u keys %u mode %o uid %u",
		     q->name, st.name, st.queued, st.processing, st.dirty,
		     st.keys, st.mode, st.uid);
	if (st.shutting_down && !atomic_load(&q->ending))
		fail(F_RESULT, "stat %s: shutting down before the shutdown", q->name);
	r = wq_metrics(fd, &m);
	call();
	if (r)
		fail(F_RESULT, "metrics %s: %s", q->name, err_name(r));
	else if (m.depth < m.queued || m.queue_duration.count < m.work_duration.count)
		fail(F_RESULT, "metrics %s: depth %llu queued %llu gets %llu dones %llu",
		     q->name, (unsigned long long)m.depth,
		     (unsigned long long)m.queued,
		     (unsigned long long)m.queue_duration.count,
		     (unsigned long long)m.work_duration.count);
	r = wq_len(fd);
	call();
	if (r < 0)
		fail(F_RESULT, "len %s: %s", q->name, err_name(r));
	r = wq_shutting_down(fd);
	call();
	if (r < 0 || r > 1 || (r && !atomic_load(&q->ending)))
		fail(F_RESULT, "shutting_down %s: %s", q->name, err_name(r));
}

/* An immediate add of key i. */
static void produce_add(int fd, struct squeue *q, unsigned int i,
			const char *key, size_t len)
{
	uint64_t s;
	int r;

	s = tick();
	r = wq_add(fd, key, len);
	call();
	if (add_ok(q, r, "add")) {
		note_add(q, i, s, 0);
		atomic_fetch_add(&q->c.adds, 1);
	}
}

/* An add_after of key i (a delay of 0 to 20 ms, a few of 300 ms). */
static void produce_after(int fd, struct squeue *q, unsigned int i,
			  const char *key, size_t len)
{
	uint64_t s, d;
	int r;

	d = pick_delay();
	s = tick();
	r = wq_add_after(fd, key, len, d);
	call();
	if (add_ok(q, r, "add_after")) {
		note_add(q, i, s, d != 0);
		atomic_fetch_add(&q->c.afters, 1);
		if (d)
			atomic_fetch_add(&q->c.delayed, 1);
	}
}

/* An add_rate_limited of key i: the delay it reports is its own. */
static void produce_rate_limited(int fd, struct squeue *q, unsigned int i,
				 const char *key, size_t len)
{
	uint64_t s, d;
	int r;

	d = UINT64_MAX;
	s = tick();
	r = wq_add_rate_limited(fd, key, len, &d);
	call();
	if (add_ok(q, r, "add_rate_limited")) {
		if (d == UINT64_MAX)
			fail(F_RESULT, "add_rate_limited %s: no delay reported",
			     q->name);
		note_add(q, i, s, d != 0);
		atomic_fetch_add(&q->c.rls, 1);
		if (d)
			atomic_fetch_add(&q->c.delayed, 1);
	}
}

/* An add_batch of 2 to BATCH keys, sometimes one of them twice. */
static void produce_batch(int fd, int qi, struct pbuf *b)
{
	struct squeue *q = &sh->rd.q[qi];
	unsigned int n, j;
	uint64_t s;
	int r, ok;

	n = 2 + rn(BATCH - 1);
	for (j = 0; j < n; j++) {
		/* sometimes a key twice in one batch */
		b->idx[j] = j && chance(10) ? b->idx[rn(j)] : rn(q->nkeys);
		b->iov[j].iov_base = b->keys[j];
		b->iov[j].iov_len = make_key(b->keys[j], (unsigned int)qi,
					     b->idx[j]);
		b->errs[j] = 1;
	}
	s = tick();
	r = wq_add_batch(fd, b->iov, n, b->errs);
	call();
	atomic_fetch_add(&q->c.batches, 1);
	if (r < 0) {
		fail(F_RESULT, "add_batch %s of %u: %s", q->name, n,
		     err_name(r));
		return;
	}
	for (ok = 0, j = 0; j < n; j++) {
		if (b->errs[j] > 0) {
			fail(F_RESULT, "add_batch %s: no result for key %u",
			     q->name, j);
			continue;
		}
		if (add_ok(q, b->errs[j], "add_batch")) {
			note_add(q, b->idx[j], s, 0);
			atomic_fetch_add(&q->c.adds, 1);
			ok++;
		}
	}
	if (ok != r)
		fail(F_RESULT, "add_batch %s: returned %d, %d keys added",
		     q->name, r, ok);
}

/*
 * An add_wait of key i: the monitor sees how long it has been asleep
 * (without a timeout in a patient round).
 */
static void produce_wait(int fd, int qi, unsigned int i, const char *key,
			 size_t len)
{
	struct squeue *q = &sh->rd.q[qi];
	uint64_t s;
	int r;

	atomic_store(&sh->rd.w[self_id].adding_q, qi);
	atomic_store(&sh->rd.w[self_id].adding, now_ms());
	s = tick();
	r = wq_add_wait(fd, key, len, sh->rd.patient ? -1 : 1 + (int)rn(20));
	atomic_store(&sh->rd.w[self_id].adding, 0);
	call();
	if (r == -EINTR) {
		atomic_fetch_add(&q->c.intr, 1);
	} else if (r == -ETIMEDOUT) {
		atomic_fetch_add(&q->c.timedout, 1);
		if (!q->max_items)
			fail(F_RESULT, "add_wait %s: -ETIMEDOUT without a small max_items",
			     q->name);
	} else if (add_ok(q, r, "add_wait")) {
		note_add(q, i, s, 0);
		atomic_fetch_add(&q->c.adds, 1);
	}
}

/* One call of some kind on queue qi, on a key drawn at random. */
static void produce_one(int fd, int qi, struct pbuf *b)
{
	struct squeue *q = &sh->rd.q[qi];
	unsigned int i = rn(q->nkeys);
	uint32_t op = rn(100);
	char *key = b->keys[0];
	size_t len = make_key(key, (unsigned int)qi, i);
	int r;

	if (op < 38) {
		produce_add(fd, q, i, key, len);
	} else if (op < 52) {
		produce_after(fd, q, i, key, len);
	} else if (op < 62) {
		produce_rate_limited(fd, q, i, key, len);
	} else if (op < 68) {
		r = wq_forget(fd, key, len);
		call();
		if (r)
			fail(F_RESULT, "forget %s: %s", q->name, err_name(r));
	} else if (op < 71) {
		r = wq_num_requeues(fd, key, len);
		call();
		if (r < 0)
			fail(F_RESULT, "num_requeues %s: %s", q->name, err_name(r));
	} else if (op < 85) {
		produce_batch(fd, qi, b);
	} else if (op < 92) {
		produce_wait(fd, qi, i, key, len);
	} else {
		check_stat(fd, q);
	}
}

int producer_main(struct child *c)
{
	struct pbuf *b;
	int fds[MAXQ];

	if (c->uid && drop_to(c->uid))
		return 3;
	b = malloc(sizeof(*b));
	if (!b)
		return 2;
	open_all(fds, chance(50) ? O_WRONLY : O_RDWR, c->uid);
	catch_signals();
	ready(c);
	wait_go();
	while (!atomic_load(&sh->rd.stop)) {
		int qi = (int)rn((uint32_t)sh->rd.nq);

		if (fds[qi] < 0)
			continue;
		produce_one(fds[qi], qi, b);
		if (chance(30))
			usleep(rn(400));
	}
	free(b);
	return 0;
}
