// SPDX-License-Identifier: GPL-2.0
/*
 * io_uring gets that wait (wq_prep_get(3)): a get submitted on an empty
 * queue does not block the submitter, is parked in the module (no thread
 * waits for it, not even one of io_uring's workers) and takes a key added
 * later by an ioctl (a batch get too); first come, first served between a
 * ring's get and a thread blocked in wq_get (either first); -ESHUTDOWN at
 * shutdown; -ETIMEDOUT at a deadline; -ECANCELED by wq_prep_cancel (which
 * io_uring_prep_cancel64 does not reach), having taken no key; a ring
 * torn down with gets waiting does not hang and loses no key; nor does a
 * child process that leaves with gets waiting (exits, or is killed) while
 * one holds a key; keys a ring's gets took are put back when their handle
 * is closed; a key too long for a get's buffer, or a buffer it cannot
 * write, leaves the key queued, also when the key comes to a get that
 * waited; a parked get runs as submitted, its SQ slot refilled meanwhile.
 * An add that waits for room (WQ_ADD_WAIT) waits the same way, until room
 * or its timeout. (uring_park_test.c: many at once, cancels, the hang.)
 *
 * "Waiting" is seen, not slept on: a ring command parked (the handle's
 * fdinfo) or a thread asleep inside the module (wq_test_uring.h).
 */
#include "wq_test_util.h"
#include "wq_test_uring.h"

WQT_RING_FIXTURE(park)

/* Submits one get of buf (static: valid until it completes), user_data d. */
#define PARK_GET(fd, buf, d) do {					\
		PREP_GET(&self->ring, fd, buf, sizeof(buf), d);		\
		SUBMIT(&self->ring, 1);					\
	} while (0)

/* n threads of this process (gets) wait inside wq. */
#define ASSERT_PARKED(n)						\
	ASSERT_TRUE(wqt_parked(0, n)) TH_LOG("%d gets should wait in wq; %d do", \
					     n, wqt_tasks_in_wq(0))

/* The submitter is not blocked; the get takes a key added later. */
TEST_F(park, get_waits_without_blocking_the_submitter)
{
	static char buf[16];
	int64_t t0 = now_ns();
	int res[2];

	PARK_GET(self->fd, buf, 0);
	EXPECT_GT(UPPER_MS * MS, now_ns() - t0) TH_LOG("io_uring_submit blocked");
	ASSERT_PARKED(1);
	EXPECT_FALSE(wqt_cqe_ready(&self->ring));
	EXPECT_EQ(0, wq_len(self->fd));

	ASSERT_EQ(0, ADD(self->fd, "k"));	/* an ioctl */
	REAP(&self->ring, 1, res);
	EXPECT_EQ(1, res[0]);
	EXPECT_STREQ("k", buf);
	EXPECT_EQ(WQ_KEY_PROCESSING, wqt_kstate(self->fd, "k"));
	PREP_DONE(&self->ring, self->fd, "k", 1);
	SUBMIT(&self->ring, 1);
	REAP(&self->ring, 1, res);
	EXPECT_EQ(0, res[1]);
	EXPECT_QUEUE_EMPTY(self->fd);
}

/* A batch get waits for the first key, then takes what is queued. */
TEST_F(park, batch_get_waits)
{
	struct iovec in[3] = { { "b1", 2 }, { "b2", 2 }, { "b3", 2 } };
	static struct iovec out[4];
	static char buf[64];
	int res[1];

	wq_prep_get_batch(wqt_sqe(&self->ring, 0), self->fd, buf, sizeof(buf),
			  out, 4);
	SUBMIT(&self->ring, 1);
	ASSERT_PARKED(1);
	ASSERT_EQ(3, wq_add_batch(self->fd, in, 3, NULL));
	REAP(&self->ring, 1, res);
	ASSERT_LE(1, res[0]);
	ASSERT_GE(3, res[0]);
	EXPECT_EQ(0, memcmp("b1", out[0].iov_base, 2));
	EXPECT_STATS(self->fd, STAT(processing, (uint32_t)res[0]),
		     STAT(queued, 3 - (uint32_t)res[0]));
}

/* An add that waits for room: until a key stops being held, or timeout. */
TEST_F(park, add_waits_for_room)
{
	struct wq_add_opts wait = { .flags = WQ_ADD_WAIT, .timeout_ms = -1 };
	struct wq_add_opts brief = { .flags = WQ_ADD_WAIT, .timeout_ms = 300 };
	char name[WQ_NAME_MAX];
	int fd = wqt_create_bounded(name, "room", 1), res[2];
	int64_t t0;

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, ADD(fd, "a"));
	t0 = now_ns();
	wq_prep_add(wqt_sqe(&self->ring, 1), fd, "t", 1, &brief);
	SUBMIT(&self->ring, 1);
	REAP(&self->ring, 1, res);
	EXPECT_EQ(-ETIMEDOUT, res[1]);
	EXPECT_LE(300 * MS, now_ns() - t0) TH_LOG("early");

	wq_prep_add(wqt_sqe(&self->ring, 0), fd, "b", 1, &wait);
	SUBMIT(&self->ring, 1);
	ASSERT_PARKED(1);
	EXPECT_FALSE(wqt_cqe_ready(&self->ring));
	EXPECT_GET(fd, "a");
	ASSERT_EQ(0, DONE(fd, "a"));	/* room */
	REAP(&self->ring, 1, res);
	EXPECT_EQ(WQ_ADDED_QUEUED, res[0]);
	EXPECT_EQ(WQ_KEY_QUEUED, wqt_kstate(fd, "b"));
	wq_close(fd);
	wq_destroy(name);
}

/* A ring's get that waits first gets the first key, a wq_get the next. */
TEST_F_TIMEOUT(park, fifo_ring_get_first, 90)
{
	static char buf[16];
	struct wqt_bg bg;
	int res[1];

	PARK_GET(self->fd, buf, 0);
	ASSERT_PARKED(1);
	ASSERT_EQ(0, wqt_bg_start(&bg, WQT_GET, self->fd, UPPER_MS));
	ASSERT_PARKED(2);
	ASSERT_EQ(0, ADD(self->fd, "first"));
	REAP(&self->ring, 1, res);
	EXPECT_EQ(5, res[0]);
	EXPECT_STREQ("first", buf);
	EXPECT_FALSE(wqt_bg_returned(&bg)) TH_LOG("wq_get took %s", bg.buf);
	ASSERT_EQ(0, ADD(self->fd, "second"));
	ASSERT_TRUE(wqt_bg_wait(&bg, UPPER_MS));
	EXPECT_EQ(6, bg.ret);
	EXPECT_STREQ("second", bg.buf);
}

/* ... and the other way round. */
TEST_F_TIMEOUT(park, fifo_wq_get_first, 90)
{
	static char buf[16];
	struct wqt_bg bg;
	int res[1];

	ASSERT_EQ(0, wqt_bg_start(&bg, WQT_GET, self->fd, UPPER_MS));
	ASSERT_PARKED(1);
	PARK_GET(self->fd, buf, 0);
	ASSERT_PARKED(2);
	ASSERT_EQ(0, ADD(self->fd, "first"));
	ASSERT_TRUE(wqt_bg_wait(&bg, UPPER_MS));
	EXPECT_EQ(5, bg.ret);
	EXPECT_STREQ("first", bg.buf);
	EXPECT_FALSE(wqt_cqe_ready(&self->ring)) TH_LOG("the ring took a key too");
	ASSERT_EQ(0, ADD(self->fd, "second"));
	REAP(&self->ring, 1, res);
	EXPECT_EQ(6, res[0]);
	EXPECT_STREQ("second", buf);
}

/* A shutdown ends every waiting get; a later one fails at once. */
TEST_F(park, shutdown_ends_waiting_gets)
{
	static char buf[4][16];
	int res[4], i;

	for (i = 0; i < 3; i++)
		PREP_GET(&self->ring, self->fd, buf[i], sizeof(buf[i]), i);
	SUBMIT(&self->ring, 3);
	ASSERT_PARKED(3);
	ASSERT_EQ(0, wq_shutdown(self->fd));
	REAP(&self->ring, 3, res);
	for (i = 0; i < 3; i++)
		EXPECT_EQ(-ESHUTDOWN, res[i]) TH_LOG("get %d", i);
	EXPECT_TRUE(wqt_unparked(0));
	PARK_GET(self->fd, buf[3], 3);
	REAP(&self->ring, 1, res);
	EXPECT_EQ(-ESHUTDOWN, res[3]);
}

/* A deadline (a raw struct wq_get) ends the wait: -ETIMEDOUT, no key. */
TEST_F(park, deadline_ends_the_wait)
{
	static char buf[16];
	struct wq_get g = { .buf = (uintptr_t)buf, .buf_cap = sizeof(buf) };
	struct wqt_cqe c;

	g.deadline_ns = (uint64_t)(now_ns() + 300 * MS);
	wq_prep_cmd(wqt_sqe(&self->ring, 4), self->fd, WQ_IOC_GET, &g, sizeof(g));
	SUBMIT(&self->ring, 1);
	wqt_reap(&self->ring, UPPER_MS, &c);
	EXPECT_EQ(-ETIMEDOUT, c.res);
	EXPECT_LE((int64_t)g.deadline_ns, now_ns()) TH_LOG("early");
	ASSERT_EQ(0, ADD(self->fd, "k"));
	EXPECT_EQ(WQ_KEY_QUEUED, wqt_kstate(self->fd, "k"));
}

/*
 * io_uring_prep_cancel64 does not reach a parked get (io_uring cancels
 * what it holds itself); wq_prep_cancel of its buffer does: -ECANCELED,
 * and the next key is not lost.
 */
TEST_F(park, cancelled_get_takes_no_key)
{
	static char buf[16];
	int res[10];

	PARK_GET(self->fd, buf, 7);
	ASSERT_PARKED(1);
	io_uring_prep_cancel64(wqt_sqe(&self->ring, 8), 7, 0);
	SUBMIT(&self->ring, 1);
	REAP(&self->ring, 1, res);
	EXPECT_EQ(-ENOENT, res[8]) TH_LOG("io_uring's cancel: %d", res[8]);
	EXPECT_EQ(1, wqt_ring_parked(0));
	wq_prep_cancel(wqt_sqe(&self->ring, 9), self->fd, buf);
	SUBMIT(&self->ring, 1);
	REAP(&self->ring, 2, res);
	EXPECT_EQ(-ECANCELED, res[7]);
	EXPECT_EQ(1, res[9]) TH_LOG("wq's cancel: %d", res[9]);
	EXPECT_TRUE(wqt_unparked(0));
	ASSERT_EQ(0, ADD(self->fd, "k"));
	EXPECT_EQ(1, wq_len(self->fd));
	EXPECT_EQ(WQ_KEY_QUEUED, wqt_kstate(self->fd, "k"));
	EXPECT_GET(self->fd, "k");
	EXPECT_EQ(0, DONE(self->fd, "k"));
}

/*
 * A get that waits for one of io_uring's workers runs as it was submitted,
 * not as its slot of the SQ ring reads by then: the program may fill every
 * slot anew meanwhile (6.12's io_uring leaves the command pointing there).
 */
TEST_F_TIMEOUT(park, waiting_get_keeps_its_own_command, 90)
{
	static char buf1[16], buf2[16];
	unsigned int max[2] = { 1, 1 };	/* one worker: the second get queues */
	struct wqt_cqe c;
	int res[3], i;

	ASSERT_EQ(0, io_uring_register_iowq_max_workers(&self->ring, max));
	PARK_GET(self->fd, buf1, 1);
	ASSERT_PARKED(1);
	PARK_GET(self->fd, buf2, 2);
	for (i = 0; i < WQT_RING_ENTRIES; i++)
		io_uring_prep_nop(wqt_sqe(&self->ring, 100));
	SUBMIT(&self->ring, WQT_RING_ENTRIES);
	for (i = 0; i < WQT_RING_ENTRIES; i++) {
		wqt_reap(&self->ring, UPPER_MS, &c);
		ASSERT_EQ(100u, c.data) TH_LOG("completion %d: res %d", i, c.res);
	}
	ASSERT_EQ(0, ADD(self->fd, "k1"));
	ASSERT_EQ(0, ADD(self->fd, "k22"));
	REAP(&self->ring, 2, res);
	EXPECT_EQ(2, res[1]);
	EXPECT_EQ(3, res[2]) TH_LOG("the second get ran another command");
	EXPECT_EQ(0, memcmp(buf1, "k1", 2));
	EXPECT_EQ(0, memcmp(buf2, "k22", 3));
	EXPECT_STATS(self->fd, STAT(queued, 0), STAT(processing, 2));
}

/*
 * A done linked behind a get that waits runs when the get completes, in
 * io_uring's worker, as submitted (its SQE left alone meanwhile, as links
 * need before 6.14).
 */
TEST_F(park, done_linked_behind_a_waiting_get)
{
	static char buf[16];
	struct io_uring_sqe *sqe;
	int res[3];

	sqe = wqt_sqe(&self->ring, 1);
	wq_prep_get(sqe, self->fd, buf, sizeof(buf));
	sqe->flags |= IOSQE_IO_LINK;
	PREP_DONE(&self->ring, self->fd, "k", 2);
	SUBMIT(&self->ring, 2);
	ASSERT_PARKED(1);
	ASSERT_EQ(0, ADD(self->fd, "k"));
	REAP(&self->ring, 2, res);
	EXPECT_EQ(1, res[1]);
	EXPECT_EQ(0, res[2]) TH_LOG("the linked done ran another command");
	EXPECT_EQ(0, wqt_kstate(self->fd, "k"));
	EXPECT_EQ(0, wq_len(self->fd));
}

/*
 * The ring torn down with gets waiting: no hang, no key lost; the gets
 * end at once (before 6.7: within the module's lease, 10 s).
 */
TEST_F_TIMEOUT(park, ring_teardown_loses_no_key, 90)
{
	static char buf[4][16];
	int h = wq_open(self->name), i;
	int64_t t0;

	ASSERT_LE(0, h);
	for (i = 0; i < 4; i++)
		PREP_GET(&self->ring, h, buf[i], sizeof(buf[i]), i);
	SUBMIT(&self->ring, 4);
	ASSERT_PARKED(4);
	t0 = now_ns();
	io_uring_queue_exit(&self->ring);
	self->ring_up = false;
	EXPECT_GT(UPPER_MS * MS, now_ns() - t0) TH_LOG("io_uring_queue_exit hung");
	EXPECT_TRUE(wqt_unparked_within(0, wqt_teardown_ms()))
		TH_LOG("gets still wait");
	for (i = 0; i < 4; i++)
		ASSERT_EQ(0, wqt_add_i(self->fd, i));
	EXPECT_STATS(self->fd, STAT(queued, 4), STAT(processing, 0));
	wq_close(h);
	EXPECT_EQ(4, wait_len(self->fd, 4));
}

/* ---- a child that leaves with gets waiting --------------------------------- */

struct parker {
	char name[WQ_NAME_MAX];
	int ready[2], go[2];
};

#define NPARK	3

/* Its own handle and ring, NPARK gets waiting; leaves when told. */
static int park_and_leave(void *arg)
{
	static char buf[NPARK][16];
	struct parker *p = arg;
	struct io_uring ring;
	int fd = wq_open(p->name), i;
	char c;

	if (fd < 0)
		return 10;
	if (wq_uring_queue_init(8, &ring, 0))
		return 11;
	for (i = 0; i < NPARK; i++)
		wq_prep_get(io_uring_get_sqe(&ring), fd, buf[i], sizeof(buf[i]));
	if (io_uring_submit(&ring) != NPARK)
		return 12;
	if (write(p->ready[1], "r", 1) != 1)
		return 13;
	return read(p->go[0], &c, 1) == 1 ? 0 : 14;	/* exit, ring and all */
}

/*
 * The child parks its gets; one takes k1; the child exits (or is
 * killed). Its exit does not hang, k1 comes back with its handle, and the
 * keys added after are all queued.
 */
static void child_leaves(struct __test_metadata *_metadata,
			 const char *name, int fd, bool kill_it)
{
	struct parker p;
	pid_t pid;
	char c;
	int st;

	snprintf(p.name, sizeof(p.name), "%s", name);
	ASSERT_EQ(0, pipe(p.ready));
	ASSERT_EQ(0, pipe(p.go));
	pid = wqt_spawn(park_and_leave, &p);
	ASSERT_LT(0, pid);
	close(p.ready[1]);
	ASSERT_EQ(1, read(p.ready[0], &c, 1)) TH_LOG("the child failed");
	ASSERT_TRUE(wqt_parked(pid, NPARK)) TH_LOG("%d of the child's gets wait",
						   wqt_waiting(pid));
	ASSERT_EQ(0, ADD(fd, "k1"));
	ASSERT_LE(0, WAIT_STAT(fd, processing, 1u)) TH_LOG("no get took k1");
	if (kill_it)
		kill(pid, SIGKILL);
	else
		ASSERT_EQ(1, write(p.go[1], "g", 1));
	st = wqt_wait_child(pid, UPPER_MS);
	EXPECT_EQ(kill_it ? 128 + SIGKILL : 0, st) TH_LOG("the child's exit");
	EXPECT_EQ(1, wait_len(fd, 1)) TH_LOG("k1 not put back");
	ASSERT_EQ(0, ADD(fd, "k2"));
	ASSERT_EQ(0, ADD(fd, "k3"));
	EXPECT_STATS(fd, STAT(queued, 3), STAT(processing, 0), STAT(keys, 3));
	close(p.ready[0]);
	close(p.go[0]);
	close(p.go[1]);
}

TEST_F_TIMEOUT(park, child_exits_with_gets_waiting, 90)
{
	child_leaves(_metadata, self->name, self->fd, false);
}

TEST_F_TIMEOUT(park, child_killed_with_gets_waiting, 90)
{
	child_leaves(_metadata, self->name, self->fd, true);
}

/* ---- what a get took, and what it could not take --------------------------- */

/* Keys a ring's gets took are the handle's: put back when it closes. */
TEST_F(park, handle_close_puts_back_ring_keys)
{
	static char buf[2][16];
	int h = wq_open(self->name), res[2];

	ASSERT_LE(0, h);
	ASSERT_EQ(0, ADD(self->fd, "a"));
	ASSERT_EQ(0, ADD(self->fd, "b"));
	PREP_GET(&self->ring, h, buf[0], sizeof(buf[0]), 0);
	PREP_GET(&self->ring, h, buf[1], sizeof(buf[1]), 1);
	SUBMIT(&self->ring, 2);
	REAP(&self->ring, 2, res);
	EXPECT_EQ(1, res[0]);
	EXPECT_EQ(1, res[1]);
	EXPECT_STATS(self->fd, STAT(queued, 0), STAT(processing, 2));
	wq_close(h);
	EXPECT_EQ(2, wait_len(self->fd, 2));
	EXPECT_STATS(self->fd, STAT(queued, 2), STAT(processing, 0));
}

/* -EMSGSIZE and -EFAULT leave the key queued: at once, and after a wait. */
TEST_F(park, key_too_long_or_unwritable_stays_queued)
{
	static char small[3];
	char *ro = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	int res[4];

	ASSERT_NE(MAP_FAILED, ro);
	ASSERT_EQ(0, ADD(self->fd, "long-key"));
	PREP_GET(&self->ring, self->fd, small, sizeof(small), 0);
	PREP_GET(&self->ring, self->fd, ro, 64, 1);
	SUBMIT(&self->ring, 2);
	REAP(&self->ring, 2, res);
	EXPECT_EQ(-EMSGSIZE, res[0]);
	EXPECT_EQ(-EFAULT, res[1]);
	EXPECT_EQ(WQ_KEY_QUEUED, wqt_kstate(self->fd, "long-key"));
	EXPECT_GET(self->fd, "long-key");
	ASSERT_EQ(0, DONE(self->fd, "long-key"));

	PARK_GET(self->fd, small, 2);
	ASSERT_PARKED(1);
	ASSERT_EQ(0, ADD(self->fd, "long-key"));
	REAP(&self->ring, 1, res);
	EXPECT_EQ(-EMSGSIZE, res[2]);
	EXPECT_EQ(WQ_KEY_QUEUED, wqt_kstate(self->fd, "long-key"));
	EXPECT_GET(self->fd, "long-key");
	ASSERT_EQ(0, DONE(self->fd, "long-key"));

	PREP_GET(&self->ring, self->fd, ro, 64, 3);
	SUBMIT(&self->ring, 1);
	ASSERT_PARKED(1);
	ASSERT_EQ(0, ADD(self->fd, "k"));
	REAP(&self->ring, 1, res);
	EXPECT_EQ(-EFAULT, res[3]);
	EXPECT_EQ(WQ_KEY_QUEUED, wqt_kstate(self->fd, "k"));
	EXPECT_STATS(self->fd, STAT(queued, 1), STAT(processing, 0));
	munmap(ro, 4096);
}

TEST_HARNESS_MAIN
