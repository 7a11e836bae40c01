// SPDX-License-Identifier: GPL-2.0
/*
 * wq_soak: a round, as the parent runs it. Its queues picked (the random
 * choices of a seed), created and opened; its workers forked; in its
 * middle, the victims killed, the handle passed, queues destroyed (and
 * their names made new queues); at its end every queue ended, checked and
 * destroyed; then its line.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "soak.h"

static const char *const limiters[] = {
	"none", "exponential:1ms:20ms", "fastslow:500us:5ms:3",
	"bucket:2000:20", "exponential:100us:10ms,bucket:500:50,maxwait:15ms",
	"default",
};
#define NLIMITERS (sizeof(limiters) / sizeof(limiters[0]))

static const char *const end_name[END_NR] = {
	"drain", "shutdown", "discard", "drain cut short",
};

int pfd[MAXQ] = { -1, -1, -1 };	/* the parent's handles */
int idle_fd = -1;		/* and of the idle queue */

/* The round's children, by role. */
enum {
	C_PROD0, C_PROD1, C_CONS0, C_CONS1, C_CONS2, C_PASS, C_RECV, C_QUOTA,
	C_UPROD, C_UCONS, C_VICTIM, C_NR = C_VICTIM + MAXV
};

static void pick_queue(struct squeue *q, unsigned int i)
{
	static const unsigned int nkeys[] = { 8, 32, 128, 512, 2048 };
	static const unsigned int modes[] = { 0600, 0644, 0666, 0622 };

	snprintf(q->name, sizeof(q->name), "soak.%d.%u.%u", (int)getpid(),
		 round_no, i);
	q->nkeys = nkeys[chance(10) ? 4 : rn(4)];
	q->max_items = chance(25) ? q->nkeys / 4 + 1 : 0;
	q->limiter = rn(NLIMITERS);
	q->unpriv = chance(35);
	q->mode = q->unpriv ? (chance(50) ? 0666 : 0660) : modes[rn(4)];
	q->end = (int)rn(END_NR);
	/* -x blind leaves keys processing for good: a drain would time out */
	if (blind && q->end == END_DRAIN)
		q->end = END_SHUTDOWN;
	q->destroy_early = force_reuse || chance(25);
}

static int create_queue(struct squeue *q)
{
	struct wq_attr attr = {
		.limiter = limiters[q->limiter],
		.max_items = q->max_items,
		.mode = q->mode,
	};

	return wq_create(q->name, &attr);
}

/* uid 1000 creates the round's queues it owns (one child for all). */
static int owner_main(struct child *c)
{
	struct round *rd = &sh->rd;
	int i, fd;

	(void)c;
	if (drop_to(UID_OWNER))
		return 3;
	usage_is(0, 0, "before creating its queues");
	for (i = 0; i < rd->nq; i++) {
		if (!rd->q[i].unpriv)
			continue;
		fd = create_queue(&rd->q[i]);
		call();
		if (fd < 0) {
			fail(F_RESULT, "uid %d: create %s: %s", UID_OWNER,
			     rd->q[i].name, err_name(fd));
			return 1;
		}
		close(fd);
	}
	return 0;
}

/*
 * -x reuse: every consumer thread with a second handle opens it again
 * while the name is the new queue's, and sends its next calls through it.
 */
static void ask_reopen(struct squeue *q)
{
	uint32_t want = atomic_load(&q->users);
	int64_t end = now_ms() + 10000;

	atomic_store(&q->reopened, 0);
	atomic_store(&q->reopen_now, 1);
	while (atomic_load(&q->reopened) < want && now_ms() < end)
		sleep_ms(1);
	if (atomic_load(&q->reopened) < want)
		fail(F_HANG, "%s: %u of %u consumer threads answered in 10 s",
		     q->name, atomic_load(&q->reopened), want);
	tot.reopens += want;
}

/*
 * A queue destroyed but still open: its name makes a new queue, which is
 * another one (the old handles stay on the old queue, and a handle opened
 * by name now reaches the new one: its id says so).
 *
 * Its handles: the parent's two, and any a consumer holds for a moment:
 * a consumer may open the name at any time (its second handle, again)
 * and closes a handle that reached another queue (reopen_alt()). Those
 * are bounded by the opens begun before the stat's end less those over
 * before its start; anything beyond (a handle of the old queue counted on
 * the new one) is the kernel's.
 */
static void reuse_name(struct squeue *q)
{
	struct wq_stats st = { .queued = 0 };
	uint64_t over, begun;
	int fd, fd2, r, rs = -1;

	fd = wq_create(q->name, NULL);
	call();
	if (fd < 0) {
		fail(F_END, "create %s again after its destroy: %s", q->name,
		     err_name(fd));
		return;
	}
	r = wq_add(fd, "reused", 6);
	call();
	if (force_reuse)
		ask_reopen(q);
	fd2 = wq_open(q->name);
	call();
	over = atomic_load(&q->reopen_over);
	if (fd2 >= 0)
		rs = wq_stat(fd2, &st);
	begun = atomic_load(&q->reopen_begun);
	if (st.handles > 2 && st.handles - 2 <= begun - over)
		tot.reuse_seen++;
	if (r || rs || st.queued != 1 || st.unlinked || st.handles < 2 ||
	    st.handles - 2 > begun - over || st.id <= q->id) {
		fail(F_END, "%s created again: add %s, open %s, queued %u handles %u (%llu consumers' opens in flight) unlinked %d id %llu (the old queue's %llu)",
		     q->name, err_name(r), err_name(fd2), st.queued, st.handles,
		     (unsigned long long)(begun - over), st.unlinked,
		     (unsigned long long)st.id, (unsigned long long)q->id);
		print_holders(st.id);
	}
	r = wq_destroy(q->name);
	call();
	if (r)
		fail(F_END, "destroy %s again: %s", q->name, err_name(r));
	if (fd2 >= 0)
		wq_close(fd2);
	wq_close(fd);
	tot.reused++;
}

/*
 * The round's queues: picked, then created (root's by the parent, uid
 * 1000's by a child), opened by the parent, their ids noted. Returns how
 * many are uid 1000's.
 */
static unsigned int make_queues(void)
{
	struct round *rd = &sh->rd;
	unsigned int unpriv = 0;
	struct child owner;
	int qi, r;

	for (qi = 0; qi < rd->nq; qi++) {
		pick_queue(&rd->q[qi], (unsigned int)qi);
		unpriv += (unsigned int)rd->q[qi].unpriv;
	}
	/* the queues: root's by the parent, uid 1000's by a child */
	for (qi = 0; qi < rd->nq; qi++) {
		if (rd->q[qi].unpriv)
			continue;
		pfd[qi] = create_queue(&rd->q[qi]);
		call();
		if (pfd[qi] < 0) {
			fail(F_RESULT, "create %s: %s", rd->q[qi].name,
			     err_name(pfd[qi]));
			exit(1);
		}
	}
	if (unpriv) {
		child_init(&owner, 0, 0, UID_OWNER);
		if (spawn(&owner, "owner", owner_main) || reap(&owner, 30000))
			exit(1);
		for (qi = 0; qi < rd->nq; qi++) {
			if (!rd->q[qi].unpriv)
				continue;
			pfd[qi] = wq_open(rd->q[qi].name);
			call();
			if (pfd[qi] < 0) {
				fail(F_RESULT, "open %s: %s", rd->q[qi].name,
				     err_name(pfd[qi]));
				exit(1);
			}
		}
	}
	for (qi = 0; qi < rd->nq; qi++) {
		struct wq_stats st;

		r = wq_stat(pfd[qi], &st);
		call();
		if (r || !st.id) {
			fail(F_RESULT, "stat %s: %s, id %llu", rd->q[qi].name,
			     err_name(r), r ? 0ULL : (unsigned long long)st.id);
			exit(1);
		}
		rd->q[qi].id = st.id;
		check_stat(pfd[qi], &rd->q[qi]);
	}
	return unpriv;
}

/* The round's workers, their ids and roles drawn (1 to MAXV victims). */
static unsigned int init_workers(struct child *ch)
{
	struct round *rd = &sh->rd;
	unsigned int nvictims, i;

	memset(ch, 0, sizeof(*ch) * C_NR);
	child_init(&ch[C_PROD0], 1, -1, 0);
	child_init(&ch[C_PROD1], 1, -1, chance(40) ? UID_OWNER : 0);
	child_init(&ch[C_CONS0], 2, -1, 0);
	child_init(&ch[C_CONS1], 1, -1, 0);
	child_init(&ch[C_CONS2], 1, -1, chance(40) ? UID_OWNER : 0);
	child_init(&ch[C_PASS], 1, (int)rn((uint32_t)rd->nq), 0);
	child_init(&ch[C_RECV], 1, -1, 0);
	child_init(&ch[C_QUOTA], 0, -1, UID_QUOTA + round_no % 2);
	if (uring_ok) {		/* io_uring's (uring.c) */
		child_init(&ch[C_UPROD], 1, -1, 0);
		child_init(&ch[C_UCONS], 1, -1, 0);
	}
	nvictims = 1 + rn(MAXV);
	for (i = 0; i < MAXV; i++) {
		child_init(&ch[C_VICTIM + i], 1, (int)rn((uint32_t)rd->nq), 0);
		ch[C_VICTIM + i].block = (int)rn(i + 1 == nvictims ? BLOCK_NR :
						  BLOCK_DRAIN);
	}
	return nvictims;
}

/*
 * The workers forked (the idle queue and the passing channel first), each
 * ready: how many were.
 */
static unsigned int start_workers(struct child *ch, unsigned int nvictims)
{
	unsigned int i, nready = 0;
	uint32_t v;
	int r, k;

	idle_setup();
	pass_open(ch[C_PASS].id);
	r = spawn(&ch[C_PROD0], "producer", producer_main);
	r = r ?: spawn(&ch[C_PROD1], "producer", producer_main);
	r = r ?: spawn(&ch[C_CONS0], "consumer", consumer_main);
	r = r ?: spawn(&ch[C_CONS1], "consumer", consumer_main);
	if (ch[C_CONS2].uid)
		r = r ?: spawn(&ch[C_CONS2], "consumer", consumer_main);
	r = r ?: spawn(&ch[C_PASS], "passer", passer_main);
	r = r ?: spawn(&ch[C_RECV], "receiver", receiver_main);
	r = r ?: spawn(&ch[C_QUOTA], "quota user", quota_main);
	if (ch[C_UPROD].id)
		r = r ?: spawn(&ch[C_UPROD], "io_uring producer",
			       uring_producer_main);
	if (ch[C_UCONS].id)
		r = r ?: spawn(&ch[C_UCONS], "io_uring consumer",
			       uring_consumer_main);
	for (i = 0; i < nvictims; i++)
		r = r ?: spawn(&ch[C_VICTIM + i], "victim", victim_main);
	pass_close();
	if (r) {
		fprintf(stderr, "wq_soak: fork: %s\n", strerror(-r));
		exit(1);
	}
	monitor_signal(ch[C_PROD0].pid, ch[C_CONS1].pid);
	for (k = 0; k < C_NR; k++) {
		if (!ch[k].pid)
			continue;
		if (recv_u32(ch[k].from[0], &v, 30000))
			fail(F_HANG, "%s not ready", ch[k].what);
		else
			nready++;
	}
	return nready;
}

/*
 * A queue destroyed in mid-round (its handles keep working, its name is
 * gone), and sometimes its name made a new queue at once.
 */
static void destroy_early(struct squeue *q, int qi)
{
	struct wq_stats st;
	int r;

	r = wq_destroy(q->name);
	call();
	if (r)
		fail(F_END, "destroy %s in mid-round: %s", q->name,
		     err_name(r));
	r = wq_open(q->name);
	call();
	if (r != -ENOENT)
		fail(F_END, "open %s after its destroy: %s",
		     q->name, err_name(r));
	r = wq_stat(pfd[qi], &st);
	call();
	if (r || !st.unlinked)
		fail(F_END, "stat %s after its destroy: %s, unlinked %d",
		     q->name, err_name(r), r ? -1 : st.unlinked);
	tot.early++;
	if (force_reuse || chance(50))
		reuse_name(q);
}

/* The middle: kills, a passed handle, destroys. */
static void round_middle(struct child *ch, unsigned int nvictims, int64_t t0,
			 int duration_ms)
{
	struct round *rd = &sh->rd;
	unsigned int i;
	uint32_t v;
	int qi;

	for (i = 0; i < nvictims; i++) {
		until(t0, duration_ms * (2 + (int)i) / 10);
		kill_victim(&ch[C_VICTIM + i]);
	}
	idle_abandon(ch[C_VICTIM + nvictims - 1].block == BLOCK_DRAIN);
	until(t0, duration_ms / 2);
	send_u32(ch[C_PASS].to[1], 1);
	for (qi = 0; qi < rd->nq; qi++)
		if (rd->q[qi].destroy_early)
			destroy_early(&rd->q[qi], qi);
	reap(&ch[C_PASS], 30000);
	if (recv_u32(ch[C_RECV].from[0], &v, 60000))
		fail(F_PASS, "the receiver did not report");
	else if (pass_scm)
		tot.passed_scm++;
	else
		tot.passed++;
	reap(&ch[C_RECV], 30000);
}

/*
 * The end: each queue ended, the workers reaped (producers first, then
 * the consumers, free to leave), what is left swept, every queue checked
 * and destroyed, wq's record cache checked.
 */
static void round_end(struct child *ch, int64_t t0, int duration_ms)
{
	struct round *rd = &sh->rd;
	int64_t discard_ret[MAXQ];
	unsigned int n;
	int qi, k;

	until(t0, duration_ms);
	for (qi = 0; qi < rd->nq; qi++)
		end_one(qi, &discard_ret[qi]);
	monitor_signal(0, 0);
	atomic_store(&rd->stop, 1);
	reap(&ch[C_PROD0], 30000);
	reap(&ch[C_PROD1], 30000);
	reap(&ch[C_UPROD], 30000);
	reap(&ch[C_QUOTA], 60000);
	atomic_store(&rd->over, 1);
	reap(&ch[C_CONS0], 60000);
	reap(&ch[C_CONS1], 60000);
	reap(&ch[C_CONS2], 60000);
	reap(&ch[C_UCONS], 60000);
	for (k = 0; k < C_NR; k++)
		if (ch[k].pid)
			reap(&ch[k], 1000);
	for (qi = 0; qi < rd->nq; qi++) {
		n = sweep(qi);
		if (n && verbose)
			printf("# round %u: %s: %u keys left after the consumers\n",
			       round_no, rd->q[qi].name, n);
	}
	for (qi = 0; qi < rd->nq; qi++) {
		check_queue(qi, discard_ret[qi]);
		add_totals(&rd->q[qi].c);
	}
	check_items();
}

/* The round's line: its queues as picked, and whether anything failed. */
static void round_line(int64_t t0, uint64_t calls0, unsigned int nvictims,
		       unsigned int nready, int failed)
{
	struct round *rd = &sh->rd;
	char line[512];
	size_t off = 0;
	int qi;

	for (qi = 0; qi < rd->nq; qi++) {
		struct squeue *q = &rd->q[qi];

		off += (size_t)snprintf(line + off, sizeof(line) - off,
				"%s%s%s %u keys%s %o '%s' %s%s", qi ? "; " : "",
				q->unpriv ? "uid 1000 " : "", q->name + 5, q->nkeys,
				q->max_items ? " (max_items small)" : "", q->mode,
				limiters[q->limiter], end_name[q->end],
				q->destroy_early ? " (destroyed early)" : "");
		if (off >= sizeof(line))
			break;
	}
	printf("# round %u: %.1f s, %llu calls, %u kills, %u workers%s: %s%s\n",
	       round_no, (double)(now_ms() - t0) / 1000,
	       (unsigned long long)(atomic_load(&sh->calls) - calls0), nvictims,
	       nready, rd->patient ? " (waiting without timeouts)" : "", line,
	       failed ? " -- FAILED" : "");
}

/*
 * A round: its queues, its workers on them for duration_ms, its kills,
 * passed handle and destroys in the middle, its end and checks, its line.
 */
void run_round(int duration_ms)
{
	struct round *rd = &sh->rd;
	struct child ch[C_NR];
	uint64_t calls0 = atomic_load(&sh->calls);
	uint64_t fails0 = fail_count();
	unsigned int nvictims, nready, unpriv;
	int64_t t0;

	memset(rd, 0, sizeof(*rd));
	seed_rng(0);
	children_reset();
	atomic_store(&rd->w[PARENT_ID].state, W_ALIVE);
	monitor_reset();
	rd->patient = !force_reuse && chance(25);
	rd->nq = rd->patient ? 1 : 1 + (int)rn(MAXQ);
	unpriv = make_queues();

	/* the workers */
	nvictims = init_workers(ch);
	nready = start_workers(ch, nvictims);
	t0 = now_ms();
	atomic_store(&rd->go, 1);

	round_middle(ch, nvictims, t0, duration_ms);
	round_end(ch, t0, duration_ms);
	tot.rounds++;
	tot.queues += (unsigned int)rd->nq;
	tot.unpriv_queues += unpriv;

	round_line(t0, calls0, nvictims, nready, fail_count() != fails0);
	tot.patient += (unsigned int)rd->patient;
	fflush(stdout);
}
