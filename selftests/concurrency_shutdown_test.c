// SPDX-License-Identifier: GPL-2.0
/*
 * Consumers that stop, on one queue: a shutdown wakes every blocked
 * getter (threads and processes), a drain waits for queued and in-flight
 * keys while consumers in other processes keep taking them, and consumers
 * killed with SIGKILL lose no work and block no one. Producers and
 * consumers at work: concurrency_test.c.
 *
 * Loop counts are small: the guest runs under QEMU TCG.
 */
#include "wq_test_util.h"

WQT_FIXTURE(conc);

/* ---- shutdown wakes every blocked getter ------------------------------------ */

/* A getter in a process of its own, in shared memory. */
struct blocked_proc {
	const char *name;
	atomic_int returned;
	ssize_t ret;
};

/* Exit 0 when the blocked get ends in -ESHUTDOWN. */
static int blocked_proc(void *p)
{
	struct blocked_proc *g = p;
	char buf[64];
	int fd = wq_open(g->name);

	if (fd < 0)
		return 2;
	g->ret = wq_get(fd, buf, sizeof(buf), -1);
	atomic_store(&g->returned, 1);
	return g->ret == -ESHUTDOWN ? 0 : 1;
}

/* Getters (threads, then processes) that have returned. */
static int getters_returned(struct wqt_bg *th, int nt, struct blocked_proc *pr,
			    int np)
{
	int i, n = 0;

	for (i = 0; i < nt; i++)
		n += wqt_bg_returned(&th[i]);
	for (i = 0; i < np; i++)
		n += atomic_load(&pr[i].returned);
	return n;
}

TEST_F(conc, shutdown_wakes_all_getters)
{
	enum { NT = 8, NPROC = 3 };
	struct blocked_proc *pr = wqt_shared(NPROC * sizeof(*pr));
	struct wqt_bg th[NT];
	pid_t pid[NPROC];
	int fd2 = wq_open(self->name);
	int64_t t0, end;
	int i, n;

	ASSERT_NE(NULL, pr);
	ASSERT_LE(0, fd2);
	for (i = 0; i < NT; i++)
		ASSERT_EQ(0, wqt_bg_start(&th[i], WQT_GET, self->fd,
					  i % 2 ? -1 : 60000));
	for (i = 0; i < NPROC; i++) {
		pr[i].name = self->name;
		pid[i] = wqt_spawn(blocked_proc, &pr[i]);
		ASSERT_LT(0, pid[i]);
	}
	wqt_sleep_ms(500);
	/* braces: TH_LOG belongs to the ASSERT in the loop */
	for (i = 0; i < NT; i++) {
		ASSERT_FALSE(wqt_bg_returned(&th[i]))
			TH_LOG("getter %d returned %zd before shutdown", i, th[i].ret);
	}
	for (i = 0; i < NPROC; i++) {
		ASSERT_EQ(0, atomic_load(&pr[i].returned))
			TH_LOG("getter %d returned %zd before shutdown", NT + i,
			       pr[i].ret);
	}

	t0 = wqt_now_ms();
	ASSERT_EQ(0, wq_shutdown(fd2));
	end = t0 + 5000;
	do {
		n = getters_returned(th, NT, pr, NPROC);
		if (n == NT + NPROC)
			break;
		wqt_sleep_ms(10);
	} while (wqt_now_ms() < end);
	ASSERT_EQ(NT + NPROC, n) TH_LOG("only %d getters woke within 5 s", n);
	for (i = 0; i < NT; i++) {
		wqt_bg_join(&th[i]);
		EXPECT_EQ(-ESHUTDOWN, th[i].ret) TH_LOG("getter %d", i);
	}
	for (i = 0; i < NPROC; i++)
		EXPECT_EQ(0, wqt_wait_child(pid[i], 5000));
	wq_close(fd2);
}

/* ---- drain with queued and in-flight keys -------------------------------- */

struct slow_consumer {
	const char *name;
	atomic_int *dones;	/* incremented just before each wq_done */
};

static int slow_consumer_proc(void *p)
{
	struct slow_consumer *s = p;
	char buf[64];
	int fd = wq_open(s->name);
	ssize_t n;

	if (fd < 0)
		return 2;
	for (;;) {
		n = wq_get(fd, buf, sizeof(buf), -1);
		if (n == -ESHUTDOWN)
			return 0;
		if (n < 0)
			return 3;
		wqt_sleep_ms(40);
		atomic_fetch_add(s->dones, 1);
		if (wq_done(fd, buf, n))
			return 4;
	}
}

/*
 * The drain returns only when every key, queued or in flight when it
 * started, has been done; consumers in other processes keep taking keys.
 */
TEST_F(conc, drain_with_queued_and_inflight)
{
	enum { NKEYS = 24, NCONS = 3 };
	atomic_int *dones = wqt_shared(sizeof(*dones));
	struct slow_consumer s = { self->name, dones };
	struct wq_stats st;
	pid_t pid[NCONS];
	int64_t end;
	int i, r;

	ASSERT_NE(NULL, dones);
	for (i = 0; i < NKEYS; i++)
		ASSERT_EQ(0, wqt_add_i(self->fd, i));
	for (i = 0; i < NCONS; i++) {
		pid[i] = wqt_spawn(slow_consumer_proc, &s);
		ASSERT_LT(0, pid[i]);
	}
	end = wqt_now_ms() + 5000;
	do {
		ASSERT_EQ(0, wqt_stat(self->fd, &st));
		if (st.processing)
			break;
		wqt_sleep_ms(2);
	} while (wqt_now_ms() < end);
	ASSERT_LT(0U, st.processing);
	ASSERT_LT(0U, st.queued);

	r = wq_shutdown_with_drain(self->fd, 20000);
	ASSERT_EQ(0, r);
	ASSERT_EQ(NKEYS, atomic_load(dones)) TH_LOG("drain returned before all dones");
	EXPECT_QUEUE_EMPTY(self->fd);
	for (i = 0; i < NCONS; i++)
		EXPECT_EQ(0, wqt_wait_child(pid[i], 5000));
}

/* ---- SIGKILL ---------------------------------------------------------- */

struct holder {
	const char *name;
	int take;		/* keys to get */
	int detached;		/* of which the first ones detached */
	int ready[2];		/* pipe: one byte once the keys are taken */
};

/* Takes keys, says so, then waits to be killed. */
static int holder_proc(void *p)
{
	struct holder *h = p;
	char buf[64];
	int fd = wq_open(h->name), i;
	ssize_t n;

	if (fd < 0)
		return 2;
	for (i = 0; i < h->take; i++) {
		n = i < h->detached ? wq_get_detached(fd, buf, sizeof(buf), 5000)
				    : wq_get(fd, buf, sizeof(buf), 5000);
		if (n < 0)
			return 3;
	}
	if (write(h->ready[1], "r", 1) != 1)
		return 4;
	for (;;)
		pause();
}

static pid_t start_holder(struct holder *h)
{
	pid_t pid;
	char c;

	if (pipe(h->ready))
		return -1;
	pid = wqt_spawn(holder_proc, h);
	if (pid > 0 && read(h->ready[0], &c, 1) != 1)
		pid = -1;
	close(h->ready[0]);
	close(h->ready[1]);
	return pid;
}

/* A consumer killed while holding keys loses no work: another gets them. */
TEST_F(conc, sigkill_holder_keys_return)
{
	struct holder h = { .name = self->name, .take = 3 };
	struct wq_stats st;
	bool seen[5] = { false };
	pid_t pid;
	int i, k;

	for (i = 0; i < 5; i++)
		ASSERT_EQ(0, wqt_add_i(self->fd, i));
	pid = start_holder(&h);
	ASSERT_LT(0, pid);
	ASSERT_EQ(0, wqt_stat(self->fd, &st));
	ASSERT_EQ(3U, st.processing);
	ASSERT_EQ(2, wq_len(self->fd));
	ASSERT_EQ(0, wqt_add_i(self->fd, 1));	/* key 1 becomes dirty */

	wqt_kill_child(pid);
	/* all five come back, key 1 only once */
	for (i = 0; i < 5; i++) {
		k = wqt_get_i(self->fd, 5000);
		ASSERT_LE(0, k) TH_LOG("get #%d: %d", i, k);
		ASSERT_GT(5, k);
		ASSERT_FALSE(seen[k]) TH_LOG("key %d handed out twice", k);
		seen[k] = true;
	}
	ASSERT_EQ(-EAGAIN, wqt_get_i(self->fd, 0));
	for (i = 0; i < 5; i++)
		ASSERT_EQ(0, wqt_done_i(self->fd, i));
	EXPECT_QUEUE_EMPTY(self->fd);
}

struct waiter {
	const char *name;
	atomic_int got;		/* key index + 1 */
};

static int waiter_proc(void *p)
{
	struct waiter *w = p;
	int fd = wq_open(w->name), k;

	if (fd < 0)
		return 2;
	k = wqt_get_i(fd, -1);
	if (k < 0)
		return 3;
	atomic_store(&w->got, k + 1);
	return wqt_done_i(fd, k) ? 4 : 0;
}

/* The key of a killed consumer goes to a consumer already blocked in get. */
TEST_F(conc, sigkill_wakes_blocked_getter)
{
	struct holder h = { .name = self->name, .take = 1 };
	struct waiter *w = wqt_shared(sizeof(*w));
	pid_t holder, waiter;

	ASSERT_NE(NULL, w);
	w->name = self->name;
	ASSERT_EQ(0, wqt_add_i(self->fd, 7));
	holder = start_holder(&h);
	ASSERT_LT(0, holder);
	waiter = wqt_spawn(waiter_proc, w);
	ASSERT_LT(0, waiter);
	wqt_sleep_ms(300);
	ASSERT_EQ(0, atomic_load(&w->got));
	wqt_kill_child(holder);
	ASSERT_EQ(0, wqt_wait_child(waiter, 5000)) TH_LOG("blocked getter not woken");
	ASSERT_EQ(8, atomic_load(&w->got));
	EXPECT_QUEUE_EMPTY(self->fd);
}

/* Detached keys of a killed process stay processing until someone's done. */
TEST_F(conc, sigkill_keeps_detached_keys)
{
	struct holder h = { .name = self->name, .take = 2, .detached = 1 };
	pid_t pid;

	ASSERT_EQ(0, wqt_add_i(self->fd, 0));
	ASSERT_EQ(0, wqt_add_i(self->fd, 1));
	pid = start_holder(&h);
	ASSERT_LT(0, pid);
	wqt_kill_child(pid);
	/* key 1 (plain get) is back; key 0 (detached) is still processing */
	ASSERT_EQ(1, wqt_get_i(self->fd, 5000));
	ASSERT_EQ(-EAGAIN, wqt_get_i(self->fd, 0));
	EXPECT_STATS(self->fd, STAT(processing, 2));
	ASSERT_EQ(0, wqt_done_i(self->fd, 0));
	ASSERT_EQ(0, wqt_done_i(self->fd, 1));
	EXPECT_QUEUE_EMPTY(self->fd);
}

static int blocked_forever_proc(void *p)
{
	const char *name = p;
	int fd = wq_open(name);

	if (fd < 0)
		return 2;
	wqt_get_i(fd, -1);
	return 3;	/* must not get anything: it is killed first */
}

/* Killing a process blocked in get leaves the queue intact: the next key
 * is not swallowed by the dead waiter. */
TEST_F(conc, sigkill_blocked_getter_harmless)
{
	pid_t pid;

	pid = wqt_spawn(blocked_forever_proc, self->name);
	ASSERT_LT(0, pid);
	wqt_sleep_ms(300);
	wqt_kill_child(pid);
	ASSERT_EQ(0, wqt_add_i(self->fd, 3));
	ASSERT_EQ(3, wqt_get_i(self->fd, 5000));
	ASSERT_EQ(0, wqt_done_i(self->fd, 3));
	EXPECT_STATS(self->fd, STAT(handles, 1));
}

TEST_HARNESS_MAIN
