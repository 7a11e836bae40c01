// SPDX-License-Identifier: GPL-2.0
/*
 * The blocking add (wq_add_batch(3)): wq_add_wait waits for room
 * where wq_add says -EAGAIN. Room is a key that stops being held (a done
 * without re-queue, a discard); one freed slot admits one producer;
 * shutdown ends every wait with -ESHUTDOWN; the timeout ends one with
 * -ETIMEDOUT (never early), a signal with -EINTR; an add of a key the
 * queue already holds (queued, processing, waiting) never waits; an
 * O_NONBLOCK handle never waits. And under load, no wake-up is lost.
 */
#include "wq_test_util.h"
#include "wq_test_jobs.h"

WQT_FIXTURE_ATTR(addw, .limiter = "none", .max_items = 1);

#define ADD_WAIT(fd, s, ms)	wq_add_wait(fd, s, strlen(s), ms)

/* Starts a producer blocked in add_wait of key; waits until it sleeps. */
#define BLOCKED_ADD(job, fd, key) do {					\
		ASSERT_EQ(0, wqt_start_add_wait(job, fd, key, -1));	\
		ASSERT_TRUE(wqt_job_asleep(job));			\
		ASSERT_FALSE(wqt_job_returned(job))			\
			TH_LOG("add_wait %s returned %ld at once", key, (job)->ret); \
	} while (0)

/* The job returns (within UPPER_MS) with want. */
#define RETURNS(job, want) do {						\
		ASSERT_TRUE(wqt_job_wait(job, UPPER_MS)) TH_LOG("still waiting"); \
		EXPECT_EQ((long)(want), (job)->ret);			\
	} while (0)

/* The queue holds its one key: "a", queued. */
#define FULL(self) do {							\
		ASSERT_EQ(0, ADD(self->fd, "a"));			\
		ASSERT_EQ(-EAGAIN, ADD(self->fd, "b"));			\
	} while (0)

TEST_F(addw, room_adds_at_once)
{
	EXPECT_EQ(0, ADD_WAIT(self->fd, "a", -1));
	EXPECT_EQ(1, wq_len(self->fd));
	EXPECT_EQ(-EINVAL, wq_add_wait(self->fd, "", 0, -1));
	EXPECT_EQ(-EINVAL, wq_add_wait(self->fd, "x", WQ_KEY_MAX + 1, -1));
}

/* timeout_ms 0 never waits: the try-enqueue, -EAGAIN. */
TEST_F(addw, timeout_zero_does_not_wait)
{
	FULL(self);
	EXPECT_EQ(-EAGAIN, ADD_WAIT(self->fd, "b", 0));
	EXPECT_STATS(self->fd, STAT(keys, 1), STAT(queued, 1));
}

/* The timeout: -ETIMEDOUT, not before it, and nothing added. */
TEST_F(addw, times_out)
{
	int64_t t0;
	int ret;

	FULL(self);
	t0 = now_ns();
	ret = ADD_WAIT(self->fd, "b", 200);
	EXPECT_EQ(-ETIMEDOUT, ret);
	EXPECT_LE(t0 + 200 * MS, now_ns());
	EXPECT_STATS(self->fd, STAT(keys, 1), STAT(queued, 1));
}

/* A key the queue holds (queued, processing, waiting) never waits. */
TEST_F(addw, held_key_never_waits)
{
	FULL(self);
	EXPECT_EQ(0, ADD_WAIT(self->fd, "a", UPPER_MS));	/* queued */
	EXPECT_EQ(1, wq_len(self->fd));
	EXPECT_GET(self->fd, "a");
	EXPECT_EQ(0, ADD_WAIT(self->fd, "a", UPPER_MS));	/* processing */
	EXPECT_STATS(self->fd, STAT(dirty, 1), STAT(keys, 1));
	EXPECT_EQ(0, DONE(self->fd, "a"));
	EXPECT_GET(self->fd, "a");
	EXPECT_EQ(0, DONE(self->fd, "a"));
	ASSERT_EQ(0, AFTER(self->fd, "w", LONG_DELAY));		/* waiting */
	ASSERT_EQ(-EAGAIN, ADD(self->fd, "b"));
	EXPECT_EQ(0, ADD_WAIT(self->fd, "w", UPPER_MS));
	EXPECT_STATS(self->fd, STAT(keys, 1), STAT(queued, 1), STAT(waiting, 1));
}

/* A done that frees the slot admits the waiting producer. */
TEST_F(addw, woken_by_done)
{
	struct wqt_job j;

	FULL(self);
	EXPECT_GET(self->fd, "a");
	BLOCKED_ADD(&j, self->fd, "b");
	ASSERT_EQ(0, DONE(self->fd, "a"));
	RETURNS(&j, 0);
	EXPECT_GET(self->fd, "b");
}

/* A done that queues a dirty key again frees nothing. */
TEST_F(addw, not_woken_by_done_of_dirty_key)
{
	struct wqt_job j;

	FULL(self);
	EXPECT_GET(self->fd, "a");
	ASSERT_EQ(0, ADD(self->fd, "a"));
	BLOCKED_ADD(&j, self->fd, "b");
	ASSERT_EQ(0, DONE(self->fd, "a"));	/* "a" queued again: still full */
	wqt_sleep_ms(200);
	EXPECT_FALSE(wqt_job_returned(&j)) TH_LOG("returned %ld", j.ret);
	EXPECT_STATS(self->fd, STAT(keys, 1), STAT(queued, 1));
	EXPECT_GET(self->fd, "a");
	ASSERT_EQ(0, DONE(self->fd, "a"));
	RETURNS(&j, 0);
}

TEST_F(addw, woken_by_shutdown)
{
	struct wqt_job j;

	FULL(self);
	BLOCKED_ADD(&j, self->fd, "b");
	ASSERT_EQ(0, wq_shutdown(self->fd));
	RETURNS(&j, -ESHUTDOWN);
	EXPECT_EQ(-ESHUTDOWN, ADD_WAIT(self->fd, "c", -1));
}

TEST_F(addw, woken_by_discard)
{
	struct wqt_job j;

	FULL(self);
	BLOCKED_ADD(&j, self->fd, "b");
	EXPECT_EQ(1, wq_shutdown_discard(self->fd));
	RETURNS(&j, -ESHUTDOWN);
	EXPECT_STATS(self->fd, STAT(keys, 0));
}

/* One freed slot admits one of three producers, two slots two. */
TEST_F(addw, one_slot_one_producer)
{
	static const char *const keys[] = { "x", "y", "z" };
	struct wqt_job j[3];
	int i, done = 0, added = 0;

	FULL(self);
	EXPECT_GET(self->fd, "a");
	for (i = 0; i < 3; i++)
		BLOCKED_ADD(&j[i], self->fd, keys[i]);
	ASSERT_EQ(0, DONE(self->fd, "a"));
	ASSERT_EQ(1, wait_len(self->fd, 1));
	wqt_sleep_ms(200);
	for (i = 0; i < 3; i++) {
		if (!wqt_job_returned(&j[i]))
			continue;
		done++;
		added += j[i].ret == 0;
	}
	EXPECT_EQ(1, done);
	EXPECT_EQ(1, added);
	EXPECT_STATS(self->fd, STAT(keys, 1), STAT(queued, 1));
	ASSERT_EQ(0, wq_shutdown(self->fd));
	for (i = 0; i < 3; i++) {
		ASSERT_TRUE(wqt_job_wait(&j[i], UPPER_MS));
		EXPECT_TRUE(j[i].ret == 0 || j[i].ret == -ESHUTDOWN)
			TH_LOG("%s: %ld", keys[i], j[i].ret);
	}
}

/* Two slots freed in one call admit two producers: no wake-up is lost. */
TEST_F(addw, two_slots_two_producers)
{
	static const char *const keys[] = { "x", "y", "z" };
	struct iovec held[] = { IOV("a"), IOV("b") };
	struct wq_attr attr = { .limiter = "none", .max_items = 2 };
	struct wqt_job j[3];
	char name[WQ_NAME_MAX];
	int fd, i, added = 0;
	char buf[64];
	struct iovec got[2];

	wqt_name(name, "two");
	fd = wq_create(name, &attr);
	ASSERT_LE(0, fd);
	ASSERT_EQ(2, wq_add_batch(fd, held, 2, NULL));
	ASSERT_EQ(2, wq_get_batch(fd, buf, sizeof(buf), got, 2, 0));
	for (i = 0; i < 3; i++)
		BLOCKED_ADD(&j[i], fd, keys[i]);
	EXPECT_EQ(2, wq_done_batch(fd, held, 2, NULL));
	EXPECT_EQ(2, wait_len(fd, 2));
	wqt_sleep_ms(200);
	for (i = 0; i < 3; i++)
		added += wqt_job_returned(&j[i]) && j[i].ret == 0;
	EXPECT_EQ(2, added);
	EXPECT_EQ(2, wq_len(fd));
	ASSERT_EQ(0, wq_shutdown(fd));
	for (i = 0; i < 3; i++)
		ASSERT_TRUE(wqt_job_wait(&j[i], UPPER_MS));
	wq_close(fd);
	wq_destroy(name);
}

static void on_usr1(int sig)
{
	(void)sig;
}

/* A signal whose handler has no SA_RESTART ends the wait: -EINTR. */
TEST_F(addw, signal_interrupts)
{
	struct sigaction sa = { .sa_handler = on_usr1 };
	struct wqt_job j;

	ASSERT_EQ(0, sigaction(SIGUSR1, &sa, NULL));
	FULL(self);
	BLOCKED_ADD(&j, self->fd, "b");
	ASSERT_EQ(0, pthread_kill(j.th, SIGUSR1));
	RETURNS(&j, -EINTR);
	EXPECT_STATS(self->fd, STAT(keys, 1));
}

/* An O_NONBLOCK handle never waits; a read-only one may not add. */
TEST_F(addw, handle_modes)
{
	int nb, ro;

	FULL(self);
	nb = wq_open_flags(self->name, O_RDWR | O_NONBLOCK);
	ASSERT_LE(0, nb);
	EXPECT_EQ(-EAGAIN, ADD_WAIT(nb, "b", -1));
	EXPECT_EQ(-EAGAIN, ADD_WAIT(nb, "b", UPPER_MS));
	EXPECT_EQ(0, ADD_WAIT(nb, "a", -1));
	ro = wq_open_flags(self->name, O_RDONLY);
	ASSERT_LE(0, ro);
	EXPECT_EQ(-EBADF, ADD_WAIT(ro, "a", -1));
	EXPECT_EQ(-EBADF, ADD_WAIT(ro, "b", 0));
	wq_close(ro);
	wq_close(nb);
	EXPECT_STATS(self->fd, STAT(keys, 1));
}

/* ---- many producers on a small queue ----------------------------------- */

#define PRODUCERS	4
#define EACH		150
#define SLOTS		3

struct producer {
	int fd;
	int first;		/* its keys: first .. first + EACH - 1 */
	atomic_int failed;	/* adds that did not return 0 */
	int last_err;
	pthread_t th;
};

static void *produce(void *p)
{
	struct producer *pr = p;
	char k[WQT_KEY_LEN + 1];
	int i, r;

	for (i = 0; i < EACH; i++) {
		r = wq_add_wait(pr->fd, k, wqt_key(k, pr->first + i), UPPER_MS);
		if (r) {
			atomic_fetch_add(&pr->failed, 1);
			pr->last_err = r;
		}
	}
	return NULL;
}

/* Every add of every producer goes in, each key is handed out once. */
TEST_F_TIMEOUT(addw, many_producers_small_queue, 300)
{
	struct wq_attr attr = { .limiter = "none", .max_items = SLOTS };
	struct producer pr[PRODUCERS];
	static int seen[PRODUCERS * EACH];
	char name[WQ_NAME_MAX];
	int fd, i, got = 0, dup = 0;

	wqt_name(name, "many");
	fd = wq_create(name, &attr);
	ASSERT_LE(0, fd);
	for (i = 0; i < PRODUCERS; i++) {
		pr[i].fd = fd;
		pr[i].first = i * EACH;
		atomic_init(&pr[i].failed, 0);
		pr[i].last_err = 0;
		ASSERT_EQ(0, pthread_create(&pr[i].th, NULL, produce, &pr[i]));
	}
	while (got < PRODUCERS * EACH) {
		int k = wqt_get_i(fd, UPPER_MS);

		ASSERT_LE(0, k) TH_LOG("get after %d keys: %d", got, k);
		ASSERT_LT(k, PRODUCERS * EACH);
		dup += seen[k]++ > 0;
		got++;
		ASSERT_EQ(0, wqt_done_i(fd, k));
	}
	for (i = 0; i < PRODUCERS; i++) {
		pthread_join(pr[i].th, NULL);
		EXPECT_EQ(0, atomic_load(&pr[i].failed))
			TH_LOG("producer %d: last error %d", i, pr[i].last_err);
	}
	EXPECT_EQ(0, dup);
	EXPECT_STATS(fd, STAT(keys, 0));
	wq_close(fd);
	wq_destroy(name);
}

TEST_HARNESS_MAIN
