// SPDX-License-Identifier: GPL-2.0
/*
 * Parked io_uring commands (uapi: io_uring passthrough): a thousand gets
 * wait with no thread behind them; waiting gets do not starve a waiting
 * add of the same task; WQ_IOC_URING_CANCEL by buffer and by handle,
 * racing an add or gets as they park (no key lost or handed out twice);
 * a close ends the closing process's commands only; DONE_GET(_BATCH) on
 * the ring; teardown racing adds; a woken add beaten to the room; a
 * DEFER_TASKRUN ring; deadlines passing as a get parks. Whom a wake-up
 * wakes, and its pass-on: wake_test.c.
 */
#include "wq_test_util.h"
#include "wq_test_jobs.h"
#include "wq_test_uring.h"
#include "wq_test_users.h"

#include <pthread.h>
#include <sys/wait.h>

WQT_RING_FIXTURE(many)

#define MANY		1000
#define MANY_RING	1024

/* Voluntary context switches of this process's task (the submitter). */
static long voluntary_switches(void)
{
	char line[128];
	long n = -1;
	FILE *f = fopen("/proc/thread-self/status", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "voluntary_ctxt_switches: %ld", &n) == 1)
			break;
	fclose(f);
	return n;
}

/*
 * A thousand gets submitted on an empty queue: all parked, no io_uring
 * worker and no thread of this process waits for them; a thousand keys
 * added at once each go to one get, none twice.
 */
TEST_F_TIMEOUT(many, a_thousand_gets_hold_no_thread, 120)
{
	static char bufs[MANY][16];
	static struct iovec keys[MANY];
	static char names[MANY][16];
	static unsigned char seen[MANY];
	struct io_uring big;
	struct wqt_cqe c;
	long sw0, sw1;
	int i, done = 0;

	ASSERT_EQ(0, wq_uring_queue_init(MANY_RING, &big, 0));
	for (i = 0; i < MANY; i++)
		wq_prep_get(wqt_sqe(&big, i), self->fd, bufs[i], sizeof(bufs[i]));
	ASSERT_EQ(MANY, io_uring_submit(&big));
	ASSERT_TRUE(wqt_parked(0, MANY)) TH_LOG("%d parked", wqt_ring_parked(0));
	EXPECT_EQ(MANY, wqt_ring_parked(0));
	EXPECT_EQ(0, wqt_iowq_threads(0)) TH_LOG("io_uring workers wait");
	EXPECT_EQ(0, wqt_tasks_in_wq(0) > 0) TH_LOG("a thread waits in wq");
	sw0 = voluntary_switches();
	wqt_sleep_ms(200);
	sw1 = voluntary_switches();
	EXPECT_GE(2, sw1 - sw0) TH_LOG("the submitter switched %ld times",
				       sw1 - sw0);
	for (i = 0; i < MANY; i++) {
		keys[i].iov_len = (size_t)snprintf(names[i], sizeof(names[i]),
						   "m%04d", i);
		keys[i].iov_base = names[i];
	}
	ASSERT_EQ(MANY, wq_add_batch(self->fd, keys, MANY, NULL));
	while (done < MANY) {
		wqt_reap(&big, UPPER_MS, &c);
		ASSERT_NE(WQT_NO_CQE, c.res) TH_LOG("%d of %d came", done, MANY);
		ASSERT_EQ(5, c.res);
		i = atoi(bufs[c.data] + 1);
		ASSERT_EQ(0, seen[i]) TH_LOG("m%04d handed out twice", i);
		seen[i] = 1;
		done++;
	}
	EXPECT_STATS(self->fd, STAT(processing, MANY), STAT(queued, 0));
	EXPECT_EQ(0, wqt_ring_parked(0));
	EXPECT_EQ(0, wqt_iowq_threads(0));
	io_uring_queue_exit(&big);
}

#define HOLD	4	/* max_items of the hang's queue, all taken */

/*
 * The hang: a task takes every key a full queue holds, submits more
 * waiting gets than io_uring has bound workers for it (here 1, and 4 x
 * CPUs + 4 as the kernel's default would allow), then an add of a new key
 * that waits for room, then the dones. The dones make room, the add
 * queues its key, a get takes it: everything finishes.
 */
TEST_F_TIMEOUT(many, waiting_gets_do_not_starve_a_waiting_add, 90)
{
	struct wq_add_opts wait = { .flags = WQ_ADD_WAIT, .timeout_ms = -1 };
	int ngets = 4 * (int)sysconf(_SC_NPROCESSORS_ONLN) + 4, i, got = 0;
	unsigned int max[2] = { 1, 1 };
	static char bufs[64][16], held[HOLD][16];
	char name[WQ_NAME_MAX];
	struct wqt_cqe c;
	int fd, added = WQT_NO_CQE;

	ASSERT_GE(64, ngets);
	fd = wqt_create_bounded(name, "hang", HOLD);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, io_uring_register_iowq_max_workers(&self->ring, max));
	for (i = 0; i < HOLD; i++) {
		ASSERT_EQ(0, wqt_add_i(fd, i));
		ASSERT_LT(0, get_str(fd, held[i], sizeof(held[i]), 0));
	}
	for (i = 0; i < ngets; i++)
		PREP_GET(&self->ring, fd, bufs[i], sizeof(bufs[i]), i);
	wq_prep_add(wqt_sqe(&self->ring, 100), fd, "new", 3, &wait);
	SUBMIT(&self->ring, ngets + 1);
	ASSERT_TRUE(wqt_parked(0, ngets + 1));
	for (i = 0; i < HOLD; i++)
		PREP_DONE(&self->ring, fd, held[i], 200 + i);
	SUBMIT(&self->ring, HOLD);
	while (added == WQT_NO_CQE || !got) {
		wqt_reap(&self->ring, UPPER_MS, &c);
		ASSERT_NE(WQT_NO_CQE, c.res) TH_LOG("it hangs");
		if (c.data == 100)
			added = c.res;
		else if (c.data < 64)
			got += c.res == 3 && !strcmp(bufs[c.data], "new");
		else
			EXPECT_EQ(0, c.res) TH_LOG("a done: %d", c.res);
	}
	EXPECT_EQ(WQ_ADDED_QUEUED, added);
	EXPECT_EQ(1, got);
	EXPECT_EQ(ngets - 1, wq_uring_cancel(fd, NULL));
	for (i = 0; i < ngets - 1; i++) {
		wqt_reap(&self->ring, UPPER_MS, &c);
		EXPECT_EQ(-ECANCELED, c.res);
	}
	EXPECT_STATS(fd, STAT(processing, 1), STAT(queued, 0));
	wq_close(fd);
	wq_destroy(name);
}

/*
 * WQ_IOC_URING_CANCEL: the parked get of one buffer, then every one of
 * the handle's; each -ECANCELED, the queue's keys untouched.
 */
TEST_F(many, cancel_by_buffer_then_all)
{
	struct wq_uring_cancel bad = { 0 };
	static char b[3][16];
	int res[4], i;

	for (i = 0; i < 3; i++)
		PREP_GET(&self->ring, self->fd, b[i], sizeof(b[i]), i);
	SUBMIT(&self->ring, 3);
	ASSERT_TRUE(wqt_parked(0, 3));
	EXPECT_EQ(0, wq_uring_cancel(self->fd, "not a parked buffer"));
	EXPECT_EQ(1, wq_uring_cancel(self->fd, b[1]));
	REAP(&self->ring, 1, res);
	EXPECT_EQ(-ECANCELED, res[1]);
	wq_prep_cancel(wqt_sqe(&self->ring, 3), self->fd, NULL);
	SUBMIT(&self->ring, 1);
	REAP(&self->ring, 3, res);
	EXPECT_EQ(-ECANCELED, res[0]);
	EXPECT_EQ(-ECANCELED, res[2]);
	EXPECT_EQ(2, res[3]);
	EXPECT_TRUE(wqt_unparked(0));
	bad.flags = WQ_URING_CANCEL_ALL;
	bad.addr = (uintptr_t)b[0];		/* both: which? */
	EXPECT_EQ(EINVAL, xioctl(self->fd, WQ_IOC_URING_CANCEL, &bad));
	bad.flags = 0;
	bad.addr = 0;				/* neither */
	EXPECT_EQ(EINVAL, xioctl(self->fd, WQ_IOC_URING_CANCEL, &bad));
}

/*
 * A cancel after the wake-up, before the woken get's try (a DEFER_TASKRUN
 * ring runs it when it waits): the try wins if the key is still there;
 * if another consumer took it, the get ends -ECANCELED, not parked again.
 */
TEST_F(many, cancel_after_the_wake_up)
{
	static char b[16], k[16];
	struct io_uring ring;
	struct wqt_cqe c;

	ASSERT_EQ(0, wq_uring_queue_init(8, &ring, WQ_URING_SETUP_FAST));
	wq_prep_get(wqt_sqe(&ring, 1), self->fd, b, sizeof(b));
	ASSERT_EQ(1, io_uring_submit(&ring));
	ASSERT_TRUE(wqt_parked(0, 1));
	ASSERT_EQ(0, ADD(self->fd, "k"));		/* woken */
	EXPECT_EQ(1, wq_uring_cancel(self->fd, b));	/* its try wins */
	wqt_reap(&ring, UPPER_MS, &c);
	EXPECT_EQ(1, c.res);
	EXPECT_STREQ("k", b);
	ASSERT_EQ(0, DONE(self->fd, "k"));

	wq_prep_get(wqt_sqe(&ring, 2), self->fd, b, sizeof(b));
	ASSERT_EQ(1, io_uring_submit(&ring));
	ASSERT_TRUE(wqt_parked(0, 1));
	ASSERT_EQ(0, ADD(self->fd, "k"));		/* woken */
	ASSERT_EQ(1, get_str(self->fd, k, sizeof(k), 0));	/* beaten */
	EXPECT_EQ(1, wq_uring_cancel(self->fd, b));
	wqt_reap(&ring, UPPER_MS, &c);
	EXPECT_EQ(2u, c.data);
	EXPECT_EQ(-ECANCELED, c.res);
	EXPECT_EQ(0, wqt_ring_parked(0));
	ASSERT_EQ(0, DONE(self->fd, "k"));
	EXPECT_QUEUE_EMPTY(self->fd);
	io_uring_queue_exit(&ring);
}

struct racer {
	int fd;
	pthread_barrier_t go;
};

static void *add_k(void *arg)
{
	struct racer *r = arg;

	pthread_barrier_wait(&r->go);
	return (void *)(long)ADD(r->fd, "k");
}

/*
 * A cancel racing an add from another thread: the get is cancelled (the
 * key stays queued) or has the key (it is processing), never both.
 */
TEST_F_TIMEOUT(many, cancel_racing_an_add_loses_no_key, 120)
{
	struct racer r = { .fd = self->fd };
	int i, got = 0, cancelled = 0;
	static char b[16];
	struct wqt_cqe c;
	pthread_t t;
	void *ret;

	ASSERT_EQ(0, pthread_barrier_init(&r.go, NULL, 2));
	for (i = 0; i < 200; i++) {
		PREP_GET(&self->ring, self->fd, b, sizeof(b), 1);
		SUBMIT(&self->ring, 1);
		ASSERT_TRUE(wqt_parked(0, 1));
		ASSERT_EQ(0, pthread_create(&t, NULL, add_k, &r));
		pthread_barrier_wait(&r.go);
		wq_uring_cancel(self->fd, b);
		ASSERT_EQ(0, pthread_join(t, &ret));
		ASSERT_EQ(0, (long)ret);
		wqt_reap(&self->ring, UPPER_MS, &c);
		if (c.res == 1) {
			got++;
			ASSERT_EQ(WQ_KEY_PROCESSING, wqt_kstate(self->fd, "k"));
		} else {
			ASSERT_EQ(-ECANCELED, c.res);
			cancelled++;
			ASSERT_EQ(WQ_KEY_QUEUED, wqt_kstate(self->fd, "k"));
			EXPECT_GET(self->fd, "k");
		}
		ASSERT_EQ(0, DONE(self->fd, "k"));
		ASSERT_EQ(0, wqt_ring_parked(0));
	}
	TH_LOG("%d got the key, %d cancelled", got, cancelled);
	EXPECT_QUEUE_EMPTY(self->fd);
	pthread_barrier_destroy(&r.go);
}

/* A child closes its copy of the descriptor: only its own gets end. */
static int close_own_copy(void *arg)
{
	int *fds = arg;
	static char b[16];
	struct io_uring ring;
	struct io_uring_cqe *cqe;

	CHILD_CHECK(wq_uring_queue_init(8, &ring, 0) == 0);
	wq_prep_get(io_uring_get_sqe(&ring), fds[0], b, sizeof(b));
	CHILD_CHECK(io_uring_submit(&ring) == 1);
	/* the open file's count: the parent's get and this one */
	CHILD_CHECK(wqt_parked(0, 2));
	close(fds[0]);				/* its process's close */
	CHILD_CHECK(io_uring_wait_cqe(&ring, &cqe) == 0);
	CHILD_CHECK(cqe->res == -ECANCELED);
	return 0;
}

/*
 * close(2) of a descriptor of the handle ends the parked commands of the
 * process that closes it (as it drops that process's POSIX locks), not
 * those of another process sharing the open file.
 */
TEST_F(many, close_ends_the_closing_process_parked_gets)
{
	static char b[16];
	int fds[1], res[1];

	fds[0] = wq_open(self->name);
	ASSERT_LE(0, fds[0]);
	PREP_GET(&self->ring, fds[0], b, sizeof(b), 0);
	SUBMIT(&self->ring, 1);
	ASSERT_TRUE(wqt_parked(0, 1));
	EXPECT_EQ(0, wqt_wait_child(wqt_spawn(close_own_copy, fds), 30000));
	EXPECT_FALSE(wqt_cqe_ready(&self->ring)) TH_LOG("the child ended ours");
	close(fds[0]);
	REAP(&self->ring, 1, res);
	EXPECT_EQ(-ECANCELED, res[0]);
	ASSERT_EQ(0, ADD(self->fd, "k"));
	EXPECT_EQ(WQ_KEY_QUEUED, wqt_kstate(self->fd, "k"));
}

/* DONE_GET on the ring: the done made once, the get parked, then a key. */
TEST_F(many, done_get_on_the_ring)
{
	static char b[16];
	static struct iovec out[4];
	struct iovec done[1] = { { "b1", 2 } };
	int res[2];

	ASSERT_EQ(0, ADD(self->fd, "a"));
	EXPECT_GET(self->fd, "a");
	wq_prep_done_get(wqt_sqe(&self->ring, 0), self->fd, "a", 1, b,
			 sizeof(b));
	SUBMIT(&self->ring, 1);
	ASSERT_TRUE(wqt_parked(0, 1));
	EXPECT_EQ(0, wqt_kstate(self->fd, "a"));	/* done */
	ASSERT_EQ(0, ADD(self->fd, "a"));		/* again, a new hand-out */
	REAP(&self->ring, 1, res);
	EXPECT_EQ(1, res[0]);
	EXPECT_EQ(WQ_KEY_PROCESSING, wqt_kstate(self->fd, "a"));
	ASSERT_EQ(0, DONE(self->fd, "a"));

	ASSERT_EQ(0, ADD(self->fd, "b1"));
	EXPECT_GET(self->fd, "b1");
	wq_prep_done_get_batch(wqt_sqe(&self->ring, 1), self->fd, done, 1, b,
			       sizeof(b), out, 4);
	SUBMIT(&self->ring, 1);
	ASSERT_TRUE(wqt_parked(0, 1));
	EXPECT_EQ(0, wqt_kstate(self->fd, "b1"));
	ASSERT_EQ(0, ADD(self->fd, "b1"));
	REAP(&self->ring, 1, res);
	EXPECT_EQ(1, res[1]);
	EXPECT_EQ(WQ_KEY_PROCESSING, wqt_kstate(self->fd, "b1"));
}

/* Adds racing a ring's teardown with gets parked: no key lost or doubled. */
static void *add_many(void *arg)
{
	int *a = arg, i;

	for (i = 0; i < 64; i++)
		wqt_add_i(a[0], a[1] * 64 + i);
	return NULL;
}

TEST_F_TIMEOUT(many, teardown_racing_adds_loses_no_key, 120)
{
	static char b[8][16];
	struct io_uring ring;
	pthread_t t;
	int round, i, h, a[2];

	for (round = 0; round < 8; round++) {
		h = wq_open(self->name);
		ASSERT_LE(0, h);
		ASSERT_EQ(0, wq_uring_queue_init(16, &ring, 0));
		for (i = 0; i < 8; i++)
			wq_prep_get(io_uring_get_sqe(&ring), h, b[i], sizeof(b[i]));
		ASSERT_EQ(8, io_uring_submit(&ring));
		a[0] = self->fd;
		a[1] = round;
		ASSERT_EQ(0, pthread_create(&t, NULL, add_many, a));
		io_uring_queue_exit(&ring);	/* keys arrive meanwhile */
		pthread_join(t, NULL);
		EXPECT_TRUE(wqt_unparked_within(0, wqt_teardown_ms()));
		wq_close(h);	/* keys its gets took go back */
		EXPECT_STATS(self->fd, STAT(processing, 0),
			     STAT(queued, (uint32_t)(round + 1) * 64));
	}
}

/*
 * A parked add woken by room another producer takes first parks again
 * (its task work does not wait for room in the submitter: a DEFER_TASKRUN
 * ring's wait for completions returns on time), and queues its key once
 * there is room.
 */
TEST_F_TIMEOUT(many, a_woken_add_beaten_to_the_room_parks_again, 60)
{
	struct wq_add_opts wait = { .flags = WQ_ADD_WAIT, .timeout_ms = -1 };
	struct __kernel_timespec ts = { 0, 300 * 1000000 };
	char name[WQ_NAME_MAX], key[16];
	struct io_uring_cqe *cqe;
	struct io_uring ring;
	struct wqt_cqe c;
	int fd;

	fd = wqt_create_bounded(name, "beaten", 1);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, wq_uring_queue_init(8, &ring, WQ_URING_SETUP_FAST));
	ASSERT_EQ(0, ADD(fd, "a"));
	wq_prep_add(wqt_sqe(&ring, 7), fd, "new", 3, &wait);
	ASSERT_EQ(1, io_uring_submit(&ring));
	ASSERT_TRUE(wqt_parked(0, 1));
	ASSERT_EQ(1, get_str(fd, key, sizeof(key), 0));
	ASSERT_EQ(0, DONE(fd, "a"));		/* room: the add is woken */
	ASSERT_EQ(0, ADD(fd, "other"));		/* and beaten to it */
	EXPECT_EQ(-ETIME, io_uring_wait_cqe_timeout(&ring, &cqe, &ts));
	EXPECT_EQ(1, wqt_ring_parked(0));
	EXPECT_STATS(fd, STAT(queued, 1));
	ASSERT_EQ(5, get_str(fd, key, sizeof(key), 0));
	EXPECT_STREQ("other", key);
	ASSERT_EQ(0, DONE(fd, "other"));
	wqt_reap(&ring, UPPER_MS, &c);
	EXPECT_EQ(7u, c.data);
	EXPECT_EQ(WQ_ADDED_QUEUED, c.res);
	EXPECT_STATS(fd, STAT(queued, 1));
	io_uring_queue_exit(&ring);
	wq_close(fd);
	wq_destroy(name);
}

/* A DEFER_TASKRUN ring: a parked get's completion comes when it waits. */
TEST_F(many, defer_taskrun_ring)
{
	static char b[16];
	struct io_uring ring;
	struct wqt_cqe c;

	ASSERT_EQ(0, wq_uring_queue_init(8, &ring, WQ_URING_SETUP_FAST));
	wq_prep_get(wqt_sqe(&ring, 5), self->fd, b, sizeof(b));
	ASSERT_EQ(1, io_uring_submit(&ring));
	ASSERT_TRUE(wqt_parked(0, 1));
	ASSERT_EQ(0, ADD(self->fd, "k"));
	wqt_reap(&ring, UPPER_MS, &c);
	EXPECT_EQ(5u, c.data);
	EXPECT_EQ(1, c.res);
	EXPECT_STREQ("k", b);
	io_uring_queue_exit(&ring);
}

/* A get of buf whose deadline is @us microseconds from now. */
static void prep_get_until(struct io_uring_sqe *sqe, int fd, void *buf,
			   size_t cap, int us)
{
	struct wq_get g;

	memset(&g, 0, sizeof(g));
	g.buf = (uintptr_t)buf;
	g.buf_cap = (uint32_t)cap;
	g.deadline_ns = (uint64_t)now_ns() + (uint64_t)us * 1000;
	wq_prep_cmd(sqe, fd, WQ_IOC_GET, &g, sizeof(g));
}

/*
 * Deadlines that pass while the get parks or while its task work is
 * queued: each get ends -ETIMEDOUT, neither parked for good nor -EINTR.
 */
TEST_F_TIMEOUT(many, deadlines_passing_while_parking_end_it, 300)
{
	static char b[16];
	struct wqt_cqe c;
	int i;

	for (i = 0; i < 300; i++) {
		prep_get_until(wqt_sqe(&self->ring, i), self->fd, b, sizeof(b),
			       i % 60);
		SUBMIT(&self->ring, 1);
		wqt_reap(&self->ring, UPPER_MS, &c);
		ASSERT_EQ((uint64_t)i, c.data);
		ASSERT_EQ(-ETIMEDOUT, c.res) TH_LOG("get %d, deadline in %d us",
						    i, i % 60);
	}
	EXPECT_EQ(0, wqt_ring_parked(0));
	EXPECT_QUEUE_EMPTY(self->fd);
}

struct canceller {
	int fd;
	atomic_int stop;
	long rounds;
};

static void *cancel_all_loop(void *arg)
{
	struct canceller *k = arg;
	struct wq_uring_cancel all = { .flags = WQ_URING_CANCEL_ALL };

	while (!atomic_load(&k->stop)) {
		ioctl(k->fd, WQ_IOC_URING_CANCEL, &all);
		k->rounds++;
	}
	return NULL;
}

/*
 * Cancels of all the handle's commands, from another thread, racing gets
 * as they park: each get ends -ECANCELED (none parked for good, none
 * waiting on a list it was taken off), and a key added after takes no
 * cancelled get's place.
 */
TEST_F_TIMEOUT(many, cancel_all_racing_gets_as_they_park, 300)
{
	struct canceller k = { .fd = self->fd };
	static char b[16];
	struct wqt_cqe c;
	pthread_t t;
	int i;

	ASSERT_EQ(0, pthread_create(&t, NULL, cancel_all_loop, &k));
	for (i = 0; i < 500; i++) {
		PREP_GET(&self->ring, self->fd, b, sizeof(b), i);
		SUBMIT(&self->ring, 1);
		wqt_reap(&self->ring, UPPER_MS, &c);
		ASSERT_EQ(-ECANCELED, c.res) TH_LOG("get %d", i);
	}
	atomic_store(&k.stop, 1);
	ASSERT_EQ(0, pthread_join(t, NULL));
	TH_LOG("500 gets cancelled by %ld cancels", k.rounds);
	EXPECT_EQ(0, wqt_ring_parked(0));
	ASSERT_EQ(0, ADD(self->fd, "k"));
	EXPECT_GET(self->fd, "k");
	ASSERT_EQ(0, DONE(self->fd, "k"));
}

TEST_HARNESS_MAIN
