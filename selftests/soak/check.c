// SPDX-License-Identifier: GPL-2.0
/*
 * wq_soak: the end of a round's queue. Its end (shutdown_with_drain,
 * shutdown, shutdown_discard, or a drain in another process cut short by
 * a shutdown or a discard), what is left swept, then the checks: every key
 * accounted for, nothing left in the queue, its counters against what its
 * clients counted; then its destroy and close, and the totals.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "soak.h"

static int drain_fd = -1;

/*
 * The drain another process waits in while the parent shuts down, on a
 * handle it inherits (the queue may have been destroyed already).
 */
static int drainer_main(struct child *c)
{
	int fd = drain_fd, r;

	ready(c);
	r = wq_shutdown_with_drain(fd, 60000);
	call();
	send_u32(c->from[1], (uint32_t)r);
	close(fd);
	return 0;
}

static void end_cancel(int qi, int64_t *discard_ret)
{
	struct squeue *q = &sh->rd.q[qi];
	struct child d;
	uint32_t v, res;
	int r;

	child_init(&d, 0, qi, 0);
	drain_fd = dup(pfd[qi]);
	r = spawn(&d, "drainer", drainer_main);
	close(drain_fd);
	if (r) {
		fail(F_END, "fork: %s", strerror(-r));
		return;
	}
	if (recv_u32(d.from[0], &v, 20000))
		fail(F_END, "drainer of %s not ready", q->name);
	sleep_ms(5 + (int)rn(20));
	if (chance(50)) {
		r = wq_shutdown(pfd[qi]);
		call();
		if (r)
			fail(F_END, "shutdown %s under a drain: %s", q->name,
			     err_name(r));
	} else {
		atomic_store(&q->discarding, 1);
		r = wq_shutdown_discard(pfd[qi]);
		call();
		if (r < 0)
			fail(F_END, "shutdown_discard %s under a drain: %s",
			     q->name, err_name(r));
		*discard_ret = r < 0 ? 0 : r;
		tot.cut_discard++;
	}
	if (recv_u32(d.from[0], &res, 70000)) {
		fail(F_END, "drain of %s did not return after a shutdown", q->name);
	} else {
		r = (int)res;
		if (r == -ECANCELED)
			tot.cancelled++;
		else if (r)
			fail(F_END, "drain of %s under a shutdown: %s (0 or -ECANCELED)",
			     q->name, err_name(r));
	}
	reap(&d, 20000);
}

void end_one(int qi, int64_t *discard_ret)
{
	struct squeue *q = &sh->rd.q[qi];
	int r;

	*discard_ret = -1;
	atomic_store(&q->ending, 1);
	if (q->end == END_CANCEL) {
		end_cancel(qi, discard_ret);
	} else if (q->end == END_DRAIN) {
		r = wq_shutdown_with_drain(pfd[qi], 60000);
		call();
		if (r)
			fail(F_END, "shutdown_with_drain %s: %s", q->name, err_name(r));
	} else if (q->end == END_SHUTDOWN) {
		r = wq_shutdown(pfd[qi]);
		call();
		if (r)
			fail(F_END, "shutdown %s: %s", q->name, err_name(r));
		r = wq_shutdown(pfd[qi]);
		call();
		if (r)
			fail(F_END, "second shutdown %s: %s", q->name, err_name(r));
	} else {
		atomic_store(&q->discarding, 1);
		r = wq_shutdown_discard(pfd[qi]);
		call();
		if (r < 0)
			fail(F_END, "shutdown_discard %s: %s", q->name, err_name(r));
		*discard_ret = r < 0 ? 0 : r;
		r = wq_shutdown_discard(pfd[qi]);
		call();
		if (r)
			fail(F_END, "second shutdown_discard %s: %s, not 0", q->name,
			     err_name(r));
	}
	r = wq_shutting_down(pfd[qi]);
	call();
	if (r != 1)
		fail(F_END, "shutting_down %s after its end: %s", q->name,
		     err_name(r));
	tot.ends[q->end]++;
}

/* Whatever is still queued once the consumers left (none should be). */
unsigned int sweep(int qi)
{
	struct squeue *q = &sh->rd.q[qi];
	char buf[WQ_KEY_MAX];
	unsigned int n = 0;

	for (;;) {
		ssize_t r = wq_get(pfd[qi], buf, sizeof(buf), 0);
		int i;

		call();
		if (r == -ESHUTDOWN)
			break;
		if (r <= 0) {
			fail(F_END, "get %s after its end: %s", q->name,
			     err_name((int)r));
			break;
		}
		n++;
		i = key_index(buf, (size_t)r, (unsigned int)qi);
		if (i < 0) {
			fail(F_RESULT, "%s handed out a key that is not ours", q->name);
			atomic_fetch_add(&q->c.gets, 1);
		} else {
			take(q, (unsigned int)i);
			release(q, (unsigned int)i);
		}
		r = wq_done(pfd[qi], buf, (size_t)r);
		call();
		if (r)
			fail(F_RESULT, "done %s: %s", q->name, err_name((int)r));
		else
			atomic_fetch_add(&q->c.dones, 1);
	}
	return n;
}

#define EXPECT_EQ(what, a, b) do {					\
	if ((uint64_t)(a) != (uint64_t)(b))				\
		fail(F_COUNT, "%s %s: queue %llu, clients %llu", q->name, \
		     what, (unsigned long long)(a),			\
		     (unsigned long long)(b));				\
} while (0)

/* What the end of a queue found of its keys. */
struct tally {
	unsigned int lost;	/* not handed out after a discarding end */
	unsigned int excused;	/* ... of those, done or put back after it */
	unsigned int delayed;	/* last added with a delay, never handed out */
	unsigned int held;	/* still held by a worker */
	unsigned int back;	/* put back by a closing handle */
};

/* Every key accounted for. */
static void check_keys(struct squeue *q, int64_t discard_ret, struct tally *t)
{
	unsigned int i;

	for (i = 0; i < q->nkeys; i++) {
		struct keyrec *k = &q->key[i];
		uint32_t h = atomic_load(&k->holder);
		uint64_t la = atomic_load(&k->last_add);
		uint64_t lg = atomic_load(&k->last_get);

		if (h != HOLDER_NONE && h != HOLDER_BACK) {
			t->held++;
			fail(F_LOST, "%s key %u still held by worker %u at the end",
			     q->name, i, h);
			continue;
		}
		if (h == HOLDER_BACK)
			t->back++;
		if (!(la && (la >> 1) > lg) && h != HOLDER_BACK)
			continue;
		if (discard_ret >= 0) {
			if (atomic_load(&k->excused))
				t->excused++;
			else
				t->lost++;
		} else if (h == HOLDER_BACK) {
			fail(F_KILL, "%s key %u: put back by a closing handle, never handed out again",
			     q->name, i);
		} else if (la & 1) {
			t->delayed++;
		} else {
			fail(F_LOST, "%s key %u: last added at seq %llu, last handed out at %llu",
			     q->name, i, (unsigned long long)(la >> 1),
			     (unsigned long long)lg);
		}
	}
}

/* No more keys dropped than the queue counted, and nothing left in it. */
static void check_left(struct squeue *q, int64_t discard_ret, const struct tally *t,
		       const struct wq_stats *st, const struct wq_metrics *m)
{
	/* (a drain before a discard may have dropped waiting keys too) */
	if (discard_ret >= 0 && t->lost > m->discarded_total)
		fail(F_LOST, "%s: %u keys never handed out after their last add, %llu dropped",
		     q->name, t->lost, (unsigned long long)m->discarded_total);
	if (t->delayed > m->discarded_total)
		fail(F_LOST, "%s: %u keys last added with a delay never handed out, %llu dropped",
		     q->name, t->delayed, (unsigned long long)m->discarded_total);
	/* the queue's gauges: nothing left */
	if (st->queued || st->processing || st->waiting || st->dirty || st->keys ||
	    !st->shutting_down || st->draining || st->handles != 1 ||
	    st->unlinked != (q->destroy_early ? 1 : 0) || m->depth || m->queued ||
	    m->processing || m->waiting)
		fail(F_COUNT, "%s (id %llu) at the end: queued %u processing %u waiting %u dirty %u keys %u shutting_down %d draining %d handles %u unlinked %d depth %llu",
		     q->name, (unsigned long long)st->id, st->queued,
		     st->processing, st->waiting, st->dirty, st->keys,
		     st->shutting_down, st->draining, st->handles, st->unlinked,
		     (unsigned long long)m->depth);
}

/* The queue's counters against the clients' (gets: loaded first). */
static void check_counters(struct squeue *q, int64_t discard_ret, uint64_t gets,
			   const struct wq_stats *st, const struct wq_metrics *m)
{
	struct qcount *c = &q->c;

	EXPECT_EQ("gets (queue_duration count)", m->queue_duration.count, gets);
	EXPECT_EQ("dones (work_duration count)", m->work_duration.count,
		  atomic_load(&c->dones));
	EXPECT_EQ("retries", m->retries_total,
		  atomic_load(&c->afters) + atomic_load(&c->rls));
	EXPECT_EQ("stat retries", st->retries, m->retries_total);
	EXPECT_EQ("stat adds", st->adds, m->adds_total);
	EXPECT_EQ("refused", m->refused_total, atomic_load(&c->refused));
	EXPECT_EQ("requeued on close", m->requeued_on_close_total,
		  atomic_load(&c->back));
	if (discard_ret >= 0) {
		if (q->end == END_DISCARD)
			EXPECT_EQ("discarded", m->discarded_total, discard_ret);
		else if (m->discarded_total < (uint64_t)discard_ret)
			fail(F_COUNT, "%s: discarded_total %llu, the discard dropped %lld",
			     q->name, (unsigned long long)m->discarded_total,
			     (long long)discard_ret);
		if (m->adds_total + m->requeued_on_close_total < gets)
			fail(F_COUNT, "%s: adds %llu + put back %llu < gets %llu",
			     q->name, (unsigned long long)m->adds_total,
			     (unsigned long long)m->requeued_on_close_total,
			     (unsigned long long)gets);
	} else if (m->adds_total > gets ||
		   gets > m->adds_total + m->requeued_on_close_total) {
		/*
		 * Each add that made a key pending is one hand-out, and so is
		 * each key put back that was not pending already (a dirty
		 * key put back was counted by its add).
		 */
		fail(F_COUNT, "%s: gets %llu not within adds %llu .. adds + put back %llu",
		     q->name, (unsigned long long)gets,
		     (unsigned long long)m->adds_total,
		     (unsigned long long)(m->adds_total + m->requeued_on_close_total));
	}
	if (m->adds_total > atomic_load(&c->adds) + atomic_load(&c->afters) +
			    atomic_load(&c->rls))
		fail(F_COUNT, "%s: adds_total %llu above the adds made", q->name,
		     (unsigned long long)m->adds_total);
}

/* Into the totals; the queue's line when verbose or when keys are held. */
static void report_queue(struct squeue *q, int64_t discard_ret, uint64_t gets,
			 const struct tally *t, const struct wq_metrics *m)
{
	tot.dropped_delayed += t->delayed;
	tot.excused += t->excused;
	if (discard_ret > 0)
		tot.discarded += (uint64_t)discard_ret;
	if (verbose || t->held)
		printf("# round %u: %s: %llu gets, %llu dones, adds_total %llu, retries %llu, refused %llu, put back %llu, discarded %llu; %u delayed keys dropped, %u lost to the discard (%u excused), %u put back, %u held\n",
		       round_no, q->name, (unsigned long long)gets,
		       (unsigned long long)atomic_load(&q->c.dones),
		       (unsigned long long)m->adds_total,
		       (unsigned long long)m->retries_total,
		       (unsigned long long)m->refused_total,
		       (unsigned long long)m->requeued_on_close_total,
		       (unsigned long long)m->discarded_total, t->delayed, t->lost,
		       t->excused, t->back, t->held);
}

/* Destroy, and the name is gone; then the parent's handle closed. */
static void destroy_queue(int qi)
{
	struct squeue *q = &sh->rd.q[qi];
	int r;

	r = wq_destroy(q->name);
	call();
	if (r != (q->destroy_early ? -ENOENT : 0))
		fail(F_END, "destroy %s: %s", q->name, err_name(r));
	r = wq_open(q->name);
	call();
	if (r != -ENOENT)
		fail(F_END, "open %s after its destroy: %s", q->name, err_name(r));
	if (r >= 0)
		close(r);
	r = wq_close(pfd[qi]);
	call();
	if (r)
		fail(F_END, "close %s: %s", q->name, err_name(r));
	pfd[qi] = -1;
	tot.destroys++;
}

/* The round's checks of queue qi, then its destroy and close. */
void check_queue(int qi, int64_t discard_ret)
{
	struct squeue *q = &sh->rd.q[qi];
	uint64_t gets = atomic_load(&q->c.gets);
	struct tally t = { 0, 0, 0, 0, 0 };
	struct wq_metrics m;
	struct wq_stats st;
	int r;

	r = wq_stat(pfd[qi], &st);
	call();
	if (r)
		fail(F_END, "stat %s: %s", q->name, err_name(r));
	r = wq_metrics(pfd[qi], &m);
	call();
	if (r)
		fail(F_END, "metrics %s: %s", q->name, err_name(r));
	check_keys(q, discard_ret, &t);
	check_left(q, discard_ret, &t, &st, &m);
	check_counters(q, discard_ret, gets, &st, &m);
	report_queue(q, discard_ret, gets, &t, &m);
	destroy_queue(qi);
}

void add_totals(const struct qcount *c)
{
	tot.gets += atomic_load(&c->gets);
	tot.dones += atomic_load(&c->dones);
	tot.adds += atomic_load(&c->adds);
	tot.afters += atomic_load(&c->afters);
	tot.rls += atomic_load(&c->rls);
	tot.delayed += atomic_load(&c->delayed);
	tot.refused += atomic_load(&c->refused);
	tot.shut += atomic_load(&c->shut);
	tot.back += atomic_load(&c->back);
	tot.batches += atomic_load(&c->batches);
	tot.dquot += atomic_load(&c->dquot);
	tot.timedout += atomic_load(&c->timedout);
	tot.intr += atomic_load(&c->intr);
	tot.cross += atomic_load(&c->cross);
}

