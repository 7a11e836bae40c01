// SPDX-License-Identifier: GPL-2.0
/*
 * The Interface of one queue, seen from a single process: add, get, done,
 * len; de-duplication, dirty keys, FIFO order, key bytes, wq_get timeouts,
 * signals and -EMSGSIZE, and max_items. Ports client-go's queue_test.go
 * Q3, Q4, Q5 (the part without Touch), Q6 and Q11.
 */
#include "wq_test_util.h"

WQT_FIXTURE(queue);

/* wq_get with timeout 0 and a real buffer; for checking -EAGAIN. */
static ssize_t get_empty(int fd)
{
	char buf[WQ_KEY_MAX];

	return wq_get(fd, buf, sizeof(buf), 0);
}

TEST_F(queue, add_get_done)
{
	char buf[64];

	ASSERT_EQ(0, wq_len(self->fd));
	ASSERT_EQ(0, ADD(self->fd, "ns/name"));
	ASSERT_EQ(1, wq_len(self->fd));
	ASSERT_EQ(7, get_str(self->fd, buf, sizeof(buf), 0));
	ASSERT_STREQ("ns/name", buf);
	ASSERT_EQ(0, wq_len(self->fd));
	EXPECT_STATS(self->fd, STAT(processing, 1), STAT(keys, 1));
	ASSERT_EQ(0, DONE(self->fd, "ns/name"));
	ASSERT_EQ(0, wq_len(self->fd));
	ASSERT_EQ(-EAGAIN, wq_get(self->fd, buf, sizeof(buf), 0));
}

/* Q3 TestLen: Len counts queued keys once. */
TEST_F(queue, len_dedup)
{
	ASSERT_EQ(0, ADD(self->fd, "foo"));
	ASSERT_EQ(1, wq_len(self->fd));
	ASSERT_EQ(0, ADD(self->fd, "bar"));
	ASSERT_EQ(2, wq_len(self->fd));
	ASSERT_EQ(0, ADD(self->fd, "foo"));
	ASSERT_EQ(2, wq_len(self->fd));
}

/* Len counts neither processing nor waiting keys. */
TEST_F(queue, len_counts_only_queued)
{
	char buf[16];

	ASSERT_EQ(0, ADD(self->fd, "a"));
	ASSERT_EQ(0, ADD(self->fd, "b"));
	ASSERT_EQ(1, get_str(self->fd, buf, sizeof(buf), 0));
	ASSERT_EQ(1, wq_len(self->fd));
	ASSERT_EQ(0, ADD(self->fd, "a"));	/* dirty, not queued */
	ASSERT_EQ(1, wq_len(self->fd));
	ASSERT_EQ(0, wq_add_after(self->fd, "c", 1, 60ULL * 1000000000ULL));
	ASSERT_EQ(1, wq_len(self->fd));
	EXPECT_STATS(self->fd, STAT(queued, 1), STAT(processing, 1),
		     STAT(dirty, 1), STAT(waiting, 1), STAT(keys, 3));
}

TEST_F(queue, fifo_order)
{
	char k[16];
	int i;

	for (i = 0; i < 50; i++) {
		snprintf(k, sizeof(k), "item-%d", i);
		ASSERT_EQ(0, ADD(self->fd, k));
	}
	ASSERT_EQ(50, wq_len(self->fd));
	for (i = 0; i < 50; i++) {
		snprintf(k, sizeof(k), "item-%d", i);
		EXPECT_GET(self->fd, k);
	}
	ASSERT_EQ(0, wq_len(self->fd));
}

/* A coalesced add keeps the key's place (order of first add). */
TEST_F(queue, dedup_keeps_place)
{
	ASSERT_EQ(0, ADD(self->fd, "a"));
	ASSERT_EQ(0, ADD(self->fd, "b"));
	ASSERT_EQ(0, ADD(self->fd, "c"));
	ASSERT_EQ(0, ADD(self->fd, "a"));
	ASSERT_EQ(0, ADD(self->fd, "b"));
	ASSERT_EQ(3, wq_len(self->fd));
	EXPECT_GET(self->fd, "a");
	EXPECT_GET(self->fd, "b");
	EXPECT_GET(self->fd, "c");
	ASSERT_EQ(-EAGAIN, get_empty(self->fd));
}

/* Q5 TestCollapse without the Touch hook: Add twice, one Get, Len 0. */
TEST_F(queue, collapse)
{
	ASSERT_EQ(0, ADD(self->fd, "bar"));
	ASSERT_EQ(0, ADD(self->fd, "bar"));
	EXPECT_GET(self->fd, "bar");
	ASSERT_EQ(0, DONE(self->fd, "bar"));
	ASSERT_EQ(0, wq_len(self->fd));
	ASSERT_EQ(-EAGAIN, get_empty(self->fd));
}

/* Q4 TestReinsert. */
TEST_F(queue, reinsert_while_processing)
{
	EXPECT_EQ(0, ADD(self->fd, "foo"));
	EXPECT_GET(self->fd, "foo");
	ASSERT_EQ(0, ADD(self->fd, "foo"));
	ASSERT_EQ(0, wq_len(self->fd));	/* dirty, not handed out again yet */
	ASSERT_EQ(-EAGAIN, get_empty(self->fd));
	ASSERT_EQ(0, DONE(self->fd, "foo"));
	ASSERT_EQ(1, wq_len(self->fd));
	EXPECT_GET(self->fd, "foo");
	ASSERT_EQ(0, DONE(self->fd, "foo"));
	ASSERT_EQ(0, wq_len(self->fd));
}

/* A dirty key goes to the tail at done, behind keys added meanwhile. */
TEST_F(queue, done_requeues_at_tail)
{
	EXPECT_EQ(0, ADD(self->fd, "a"));
	EXPECT_GET(self->fd, "a");
	ASSERT_EQ(0, ADD(self->fd, "b"));
	ASSERT_EQ(0, ADD(self->fd, "a"));
	ASSERT_EQ(0, ADD(self->fd, "c"));
	ASSERT_EQ(0, DONE(self->fd, "a"));
	ASSERT_EQ(3, wq_len(self->fd));
	EXPECT_GET(self->fd, "b");
	EXPECT_GET(self->fd, "c");
	EXPECT_GET(self->fd, "a");
}

/*
 * Q6 TestCollapseWhileProcessing: a key added twice while processing is
 * dirty, not queued: a second Get blocks until Done re-queues it.
 */
TEST_F(queue, collapse_while_processing)
{
	struct wqt_bg g;

	ASSERT_EQ(0, ADD(self->fd, "foo"));
	EXPECT_GET(self->fd, "foo");
	ASSERT_EQ(0, ADD(self->fd, "foo"));
	ASSERT_EQ(0, ADD(self->fd, "foo"));
	ASSERT_EQ(0, wqt_bg_start(&g, WQT_GET, self->fd, -1));
	wqt_sleep_ms(200);
	ASSERT_FALSE(wqt_bg_returned(&g))
		TH_LOG("second Get returned %zd while foo was processing", g.ret);
	ASSERT_EQ(0, wq_len(self->fd));
	EXPECT_STATS(self->fd, STAT(dirty, 1), STAT(processing, 1));
	ASSERT_EQ(0, DONE(self->fd, "foo"));
	ASSERT_TRUE(wqt_bg_wait(&g, 5000));
	ASSERT_EQ(3, g.ret);
	ASSERT_STREQ("foo", g.buf);
	ASSERT_EQ(0, DONE(self->fd, "foo"));
	ASSERT_EQ(0, wq_len(self->fd));
	/* Two adds while processing give one more run, not two. */
	ASSERT_EQ(-EAGAIN, get_empty(self->fd));
}

/* A stray Done is -ENOENT and never duplicates a key (it does in client-go). */
TEST_F(queue, done_not_processing)
{
	ASSERT_EQ(-ENOENT, DONE(self->fd, "never-added"));
	ASSERT_EQ(0, ADD(self->fd, "x"));
	ASSERT_EQ(-ENOENT, DONE(self->fd, "x"));
	ASSERT_EQ(-ENOENT, DONE(self->fd, "x"));
	ASSERT_EQ(1, wq_len(self->fd));
	EXPECT_GET(self->fd, "x");
	ASSERT_EQ(-EAGAIN, get_empty(self->fd));
	ASSERT_EQ(0, DONE(self->fd, "x"));
	ASSERT_EQ(-ENOENT, DONE(self->fd, "x"));
	ASSERT_EQ(0, wq_len(self->fd));
	ASSERT_EQ(-EAGAIN, get_empty(self->fd));
}

/* Q11 TestGarbageCollection: after Done the queue holds nothing. */
TEST_F(queue, nothing_retained_after_done)
{
	ASSERT_EQ(0, ADD(self->fd, "obj"));
	EXPECT_GET(self->fd, "obj");
	ASSERT_EQ(0, DONE(self->fd, "obj"));
	EXPECT_STATS(self->fd, STAT(keys, 0), STAT(queued, 0),
		     STAT(processing, 0), STAT(dirty, 0), STAT(waiting, 0));
}

/* Keys are byte strings: NUL inside is fine, equality is byte equality. */
TEST_F(queue, binary_keys)
{
	static const char k1[] = { 'a', '\0', 'b' };
	static const char k2[] = { 'a', '\0', 'c' };
	static const char k3[] = { 'a' };
	static const char k4[] = { 'a', '\0' };
	static const char k5[] = { '\0' };
	static const char k6[] = { (char)0xff, (char)0x80, '\n', '/' };
	const struct { const char *k; size_t n; } keys[] = {
		{ k1, sizeof(k1) }, { k2, sizeof(k2) }, { k3, sizeof(k3) },
		{ k4, sizeof(k4) }, { k5, sizeof(k5) }, { k6, sizeof(k6) },
	};
	char buf[16];
	size_t i;

	for (i = 0; i < 6; i++)
		ASSERT_EQ(0, wq_add(self->fd, keys[i].k, keys[i].n));
	for (i = 0; i < 6; i++)	/* all present already: coalesce */
		ASSERT_EQ(0, wq_add(self->fd, keys[i].k, keys[i].n));
	ASSERT_EQ(6, wq_len(self->fd));
	for (i = 0; i < 6; i++) {
		memset(buf, 0x55, sizeof(buf));
		ASSERT_EQ((ssize_t)keys[i].n, wq_get(self->fd, buf, sizeof(buf), 0));
		ASSERT_EQ(0, memcmp(buf, keys[i].k, keys[i].n)) TH_LOG("key %zu", i);
	}
	/* done must match the exact bytes too */
	ASSERT_EQ(-ENOENT, wq_done(self->fd, "a\0d", 3));
	for (i = 0; i < 6; i++)
		ASSERT_EQ(0, wq_done(self->fd, keys[i].k, keys[i].n));
	ASSERT_EQ(0, wq_len(self->fd));
}

TEST_F(queue, key_length_limits)
{
	static char big[WQ_KEY_MAX + 1];
	static char out[WQ_KEY_MAX + 16];
	size_t i;

	for (i = 0; i < sizeof(big); i++)
		big[i] = (char)(i * 7 + 3);	/* includes NUL bytes */
	ASSERT_EQ(-EINVAL, wq_add(self->fd, big, 0));
	ASSERT_EQ(-EINVAL, wq_add(self->fd, big, WQ_KEY_MAX + 1));
	ASSERT_EQ(-EINVAL, wq_add_after(self->fd, big, 0, 1000000));
	ASSERT_EQ(-EINVAL, wq_add_after(self->fd, big, WQ_KEY_MAX + 1, 1000000));
	ASSERT_EQ(-EINVAL, wq_done(self->fd, big, 0));
	ASSERT_EQ(-EINVAL, wq_done(self->fd, big, WQ_KEY_MAX + 1));
	ASSERT_EQ(0, wq_len(self->fd));

	ASSERT_EQ(0, wq_add(self->fd, big, WQ_KEY_MAX));
	ASSERT_EQ(0, wq_add(self->fd, big, 1));
	ASSERT_EQ(2, wq_len(self->fd));
	ASSERT_EQ(-EMSGSIZE, wq_get(self->fd, out, WQ_KEY_MAX - 1, 0));
	ASSERT_EQ(WQ_KEY_MAX, wq_get(self->fd, out, sizeof(out), 0));
	ASSERT_EQ(0, memcmp(out, big, WQ_KEY_MAX));
	ASSERT_EQ(1, wq_get(self->fd, out, sizeof(out), 0));
	ASSERT_EQ(big[0], out[0]);
	ASSERT_EQ(0, wq_done(self->fd, big, WQ_KEY_MAX));
	ASSERT_EQ(0, wq_done(self->fd, big, 1));
}

/* -EMSGSIZE leaves the key queued, at the head; a bigger buffer gets it. */
TEST_F(queue, get_emsgsize)
{
	char buf[64];

	ASSERT_EQ(0, ADD(self->fd, "hello"));
	ASSERT_EQ(0, ADD(self->fd, "z"));
	ASSERT_EQ(-EMSGSIZE, wq_get(self->fd, buf, 4, 0));
	ASSERT_EQ(-EMSGSIZE, wq_get(self->fd, buf, 0, 0));
	ASSERT_EQ(-EMSGSIZE, wq_get(self->fd, buf, 4, 1000));
	ASSERT_EQ(2, wq_len(self->fd));
	EXPECT_STATS(self->fd, STAT(processing, 0));
	ASSERT_EQ(5, wq_get(self->fd, buf, 5, 0));
	ASSERT_EQ(0, memcmp(buf, "hello", 5));
	EXPECT_GET(self->fd, "z");
}

TEST_F(queue, get_nonblocking_empty)
{
	int64_t t0 = wqt_now_ms();
	char buf[16];

	ASSERT_EQ(-EAGAIN, wq_get(self->fd, buf, sizeof(buf), 0));
	ASSERT_GT(t0 + 2000, wqt_now_ms()) TH_LOG("timeout 0 waited");
	/* processing or dirty keys are not queued either */
	ASSERT_EQ(0, ADD(self->fd, "p"));
	ASSERT_EQ(1, wq_get(self->fd, buf, sizeof(buf), 0));
	ASSERT_EQ(0, ADD(self->fd, "p"));
	ASSERT_EQ(-EAGAIN, wq_get(self->fd, buf, sizeof(buf), 0));
}

TEST_F(queue, get_timeout)
{
	char buf[16];
	int64_t t0 = wqt_now_ms(), dt;

	ASSERT_EQ(-ETIMEDOUT, wq_get(self->fd, buf, sizeof(buf), 300));
	dt = wqt_now_ms() - t0;
	ASSERT_LE(300, dt);
	ASSERT_GT(10000, dt) TH_LOG("300 ms timeout took %lld ms", (long long)dt);
}

struct delayed_add {
	int fd;
	int delay_ms;
	const char *key;
	int ret;
};

static void *delayed_add_fn(void *arg)
{
	struct delayed_add *d = arg;

	wqt_sleep_ms(d->delay_ms);
	d->ret = wq_add(d->fd, d->key, strlen(d->key));
	return NULL;
}

/* timeout < 0 waits until a key arrives, however long that takes. */
TEST_F(queue, get_waits_forever)
{
	struct delayed_add d = { .fd = self->fd, .delay_ms = 1500, .key = "late" };
	char buf[16];
	int64_t t0 = wqt_now_ms();
	pthread_t th;

	ASSERT_EQ(0, pthread_create(&th, NULL, delayed_add_fn, &d));
	ASSERT_EQ(4, get_str(self->fd, buf, sizeof(buf), -1));
	ASSERT_STREQ("late", buf);
	ASSERT_LE(1500, wqt_now_ms() - t0);
	pthread_join(th, NULL);
	ASSERT_EQ(0, d.ret);
}

/* A getter waiting with a timeout is woken by an add from another handle. */
TEST_F(queue, get_woken_by_add)
{
	int fd2 = wq_open(self->name);
	struct delayed_add d = { .fd = fd2, .delay_ms = 200, .key = "wake" };
	char buf[16];
	pthread_t th;

	ASSERT_LE(0, fd2);
	ASSERT_EQ(0, pthread_create(&th, NULL, delayed_add_fn, &d));
	ASSERT_EQ(4, get_str(self->fd, buf, sizeof(buf), 20000));
	ASSERT_STREQ("wake", buf);
	pthread_join(th, NULL);
	ASSERT_EQ(0, d.ret);
	wq_close(fd2);
}

/* ---- signals ---------------------------------------------------------- */

static atomic_int sig_count;

static void on_sigusr1(int sig)
{
	(void)sig;
	atomic_fetch_add(&sig_count, 1);
}

static void install_handler(int flags)
{
	struct sigaction sa = { .sa_handler = on_sigusr1, .sa_flags = flags };

	sigemptyset(&sa.sa_mask);
	sigaction(SIGUSR1, &sa, NULL);
	atomic_store(&sig_count, 0);
}

struct pinger {
	pthread_t target;
	int first_ms, every_ms, count;
	atomic_int stop;
};

/* Sends SIGUSR1 to target after first_ms, then every every_ms, count times. */
static void *pinger_fn(void *arg)
{
	struct pinger *p = arg;
	int i;

	wqt_sleep_ms(p->first_ms);
	for (i = 0; i < p->count && !atomic_load(&p->stop); i++) {
		pthread_kill(p->target, SIGUSR1);
		wqt_sleep_ms(p->every_ms);
	}
	return NULL;
}

/* A signal whose handler lacks SA_RESTART interrupts a blocked get. */
TEST_F(queue, get_eintr)
{
	struct pinger p = { .target = pthread_self(), .first_ms = 300,
			    .every_ms = 100, .count = 50 };
	char buf[16];
	pthread_t th;
	ssize_t r;

	install_handler(0);
	ASSERT_EQ(0, pthread_create(&th, NULL, pinger_fn, &p));
	r = wq_get(self->fd, buf, sizeof(buf), -1);
	atomic_store(&p.stop, 1);
	pthread_join(th, NULL);
	ASSERT_EQ(-EINTR, r);
	ASSERT_LE(1, atomic_load(&sig_count));

	/* and with a timeout */
	atomic_store(&p.stop, 0);
	ASSERT_EQ(0, pthread_create(&th, NULL, pinger_fn, &p));
	r = wq_get(self->fd, buf, sizeof(buf), 20000);
	atomic_store(&p.stop, 1);
	pthread_join(th, NULL);
	ASSERT_EQ(-EINTR, r);
	/* nothing was taken or lost */
	ASSERT_EQ(0, wq_len(self->fd));
}

/* With SA_RESTART the get goes on after the handler and still gets the key. */
TEST_F(queue, get_sa_restart)
{
	struct pinger p = { .target = pthread_self(), .first_ms = 200,
			    .every_ms = 100, .count = 5 };
	struct delayed_add d = { .fd = self->fd, .delay_ms = 1200, .key = "k" };
	pthread_t th, th2;
	char buf[16];
	ssize_t r;

	install_handler(SA_RESTART);
	ASSERT_EQ(0, pthread_create(&th, NULL, pinger_fn, &p));
	ASSERT_EQ(0, pthread_create(&th2, NULL, delayed_add_fn, &d));
	r = get_str(self->fd, buf, sizeof(buf), -1);
	pthread_join(th, NULL);
	pthread_join(th2, NULL);
	ASSERT_EQ(1, r);
	ASSERT_STREQ("k", buf);
	ASSERT_LE(1, atomic_load(&sig_count));
}

/*
 * A restarted get keeps its original deadline: with a 1.5 s timeout and a
 * signal every 250 ms for 6 s, it must time out near 1.5 s; a get that
 * restarted its timeout at each signal would run until the signals stop
 * (7.5 s at least).
 */
TEST_F(queue, get_sa_restart_keeps_deadline)
{
	struct pinger p = { .target = pthread_self(), .first_ms = 250,
			    .every_ms = 250, .count = 24 };
	char buf[16];
	pthread_t th;
	int64_t t0, dt;
	ssize_t r;

	install_handler(SA_RESTART);
	ASSERT_EQ(0, pthread_create(&th, NULL, pinger_fn, &p));
	t0 = wqt_now_ms();
	r = wq_get(self->fd, buf, sizeof(buf), 1500);
	dt = wqt_now_ms() - t0;
	atomic_store(&p.stop, 1);
	pthread_join(th, NULL);
	ASSERT_EQ(-ETIMEDOUT, r);
	ASSERT_LE(1500, dt);
	ASSERT_GT(5500, dt) TH_LOG("restarted get overran its deadline: %lld ms",
				   (long long)dt);
	ASSERT_LE(2, atomic_load(&sig_count));
}

/* ---- max_items ---------------------------------------------------------- */

/* wqt_create_bounded, and the queue reports that max_items. */
static int create_bounded(struct __test_metadata *_metadata, char *name,
			  uint32_t max_items)
{
	int fd = wqt_create_bounded(name, "bounded", max_items);
	struct wq_stats st;

	if (fd >= 0 && wqt_stat(fd, &st) == 0)
		EXPECT_EQ(max_items, st.max_items);
	return fd;
}

TEST_F(queue, max_items)
{
	char name[WQ_NAME_MAX];
	char buf[16];
	struct wq_stats st;
	int fd;

	fd = create_bounded(_metadata, name, 3);
	ASSERT_LE(0, fd);
	EXPECT_EQ(0, ADD(fd, "a"));
	EXPECT_EQ(0, ADD(fd, "b"));
	EXPECT_EQ(0, ADD(fd, "c"));
	EXPECT_EQ(-EAGAIN, ADD(fd, "d"));
	EXPECT_EQ(3, wq_len(fd));
	/* re-adding a queued key never fails for capacity */
	EXPECT_EQ(0, ADD(fd, "a"));
	/* processing keys count; re-adding one (dirty) never fails */
	EXPECT_EQ(1, get_str(fd, buf, sizeof(buf), 0));
	EXPECT_STREQ("a", buf);
	EXPECT_EQ(-EAGAIN, ADD(fd, "d"));
	EXPECT_EQ(0, ADD(fd, "a"));
	EXPECT_EQ(0, ADD(fd, "a"));
	EXPECT_EQ(-EAGAIN, ADD(fd, "d"));
	EXPECT_EQ(-EAGAIN, wq_add_after(fd, "d", 1, 1000000000ULL));
	EXPECT_EQ(0, wqt_stat(fd, &st));
	EXPECT_EQ(3, st.keys);
	EXPECT_EQ(1, st.dirty);
	/* done of a dirty key re-queues it: still 3 keys held */
	EXPECT_EQ(0, DONE(fd, "a"));
	EXPECT_EQ(-EAGAIN, ADD(fd, "d"));
	/* done of a clean key frees its slot */
	EXPECT_EQ(1, get_str(fd, buf, sizeof(buf), 0));
	EXPECT_STREQ("b", buf);
	EXPECT_EQ(-EAGAIN, ADD(fd, "d"));
	EXPECT_EQ(0, DONE(fd, "b"));
	EXPECT_EQ(0, ADD(fd, "d"));
	EXPECT_EQ(-EAGAIN, ADD(fd, "e"));
	EXPECT_EQ(3, wq_len(fd));
	EXPECT_GET(fd, "c");
	EXPECT_GET(fd, "a");
	EXPECT_GET(fd, "d");
	wq_close(fd);
	wq_destroy(name);
}

/* Waiting (AddAfter) keys count towards max_items. */
TEST_F(queue, max_items_counts_waiting)
{
	char name[WQ_NAME_MAX];
	struct wq_stats st;
	int fd;

	fd = create_bounded(_metadata, name, 2);
	ASSERT_LE(0, fd);
	EXPECT_EQ(0, wq_add_after(fd, "w", 1, 60ULL * 1000000000ULL));
	EXPECT_EQ(0, ADD(fd, "q"));
	EXPECT_EQ(-EAGAIN, ADD(fd, "x"));
	EXPECT_EQ(-EAGAIN, wq_add_after(fd, "x", 1, 60ULL * 1000000000ULL));
	/* the waiting key itself may be added: it is already held */
	EXPECT_EQ(0, ADD(fd, "w"));
	EXPECT_EQ(0, wqt_stat(fd, &st));
	EXPECT_EQ(2, st.keys);
	wq_close(fd);
	wq_destroy(name);
}

/* With max_items 1 the single slot cycles through add, get and done. */
TEST_F(queue, max_items_one_slot_cycles)
{
	char name[WQ_NAME_MAX];
	char k[16];
	int fd, i;

	fd = create_bounded(_metadata, name, 1);
	ASSERT_LE(0, fd);
	for (i = 0; i < 20; i++) {
		snprintf(k, sizeof(k), "key%d", i);
		ASSERT_EQ(0, ADD(fd, k));
		ASSERT_EQ(-EAGAIN, ADD(fd, "other"));
		EXPECT_GET(fd, k);
		ASSERT_EQ(-EAGAIN, ADD(fd, "other"));
		ASSERT_EQ(0, DONE(fd, k));
	}
	wq_close(fd);
	wq_destroy(name);
}

/* A detached get is an ordinary get for add, len and done. */
TEST_F(queue, get_detached)
{
	char buf[16];

	ASSERT_EQ(0, ADD(self->fd, "d"));
	ASSERT_EQ(1, wq_get_detached(self->fd, buf, sizeof(buf), 0));
	ASSERT_EQ('d', buf[0]);
	ASSERT_EQ(-EAGAIN, wq_get_detached(self->fd, buf, sizeof(buf), 0));
	ASSERT_EQ(0, wq_len(self->fd));
	ASSERT_EQ(0, ADD(self->fd, "d"));	/* dirty */
	EXPECT_STATS(self->fd, STAT(processing, 1), STAT(dirty, 1));
	ASSERT_EQ(0, DONE(self->fd, "d"));
	ASSERT_EQ(1, wq_len(self->fd));
	ASSERT_EQ(-EMSGSIZE, wq_get_detached(self->fd, buf, 0, 0));
	ASSERT_EQ(1, wq_get_detached(self->fd, buf, sizeof(buf), 0));
	ASSERT_EQ(0, DONE(self->fd, "d"));
	ASSERT_EQ(-ETIMEDOUT, wq_get_detached(self->fd, buf, sizeof(buf), 100));
}

TEST_HARNESS_MAIN
