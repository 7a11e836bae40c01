// SPDX-License-Identifier: GPL-2.0
/*
 * Queue operations as io_uring submissions (wq_prep_add(3),
 * wq_uring_queue_init(3)), the ones that do not wait: each completion's
 * res is what the matching call returns (WQ_ADDED_* for an add, the key
 * length for a get, 0 for a done); 64 adds, then 64 gets, then 64 dones,
 * each in one io_uring_submit; the operations of one submission take
 * effect in SQE order; the add options and their refusals; the batches;
 * the answers for what is not a queue handle (/dev/zero, a pipe:
 * -EOPNOTSUPP; /dev/null takes every URING_CMD as a no-op; an unbound
 * /dev/wq handle: -EBADF), for a handle's access mode (-EBADF),
 * for a ring without SQE128 (-EINVAL) and for other commands (-ENOTTY);
 * an SQPOLL ring, with no system call at all; and kernel.io_uring_disabled:
 * wq_uring_queue_init fails cleanly, libwq and a WQ_POOL_URING pool go on
 * with the ioctls. The gets that wait are uring_wait_test.c's.
 */
#include <sys/ioctl.h>

#include "wq_test_util.h"
#include "wq_test_uring.h"

WQT_RING_FIXTURE(ring)

#define NMANY	64

#define IOV_S(s)	{ .iov_base = (void *)(s), .iov_len = strlen(s) }

/* What an add did, through the ring, one submission each. */
TEST_F(ring, completions_say_what_each_call_returns)
{
	char buf[64];
	int res[2];

	PREP_ADD(&self->ring, self->fd, "a", 0);
	SUBMIT(&self->ring, 1);
	REAP(&self->ring, 1, res);
	EXPECT_EQ(WQ_ADDED_QUEUED, res[0]);
	PREP_ADD(&self->ring, self->fd, "a", 0);
	SUBMIT(&self->ring, 1);
	REAP(&self->ring, 1, res);
	EXPECT_EQ(WQ_ADDED_COALESCED, res[0]);
	EXPECT_EQ(1, wq_len(self->fd));

	memset(buf, 0, sizeof(buf));
	PREP_GET(&self->ring, self->fd, buf, sizeof(buf), 1);
	SUBMIT(&self->ring, 1);
	REAP(&self->ring, 1, res);
	EXPECT_EQ(1, res[1]);
	EXPECT_STREQ("a", buf);
	EXPECT_EQ(WQ_KEY_PROCESSING, wqt_kstate(self->fd, "a"));

	PREP_ADD(&self->ring, self->fd, "a", 0);
	SUBMIT(&self->ring, 1);
	REAP(&self->ring, 1, res);
	EXPECT_EQ(WQ_ADDED_DIRTY, res[0]);
	PREP_DONE(&self->ring, self->fd, "a", 1);
	SUBMIT(&self->ring, 1);
	REAP(&self->ring, 1, res);
	EXPECT_EQ(0, res[1]);
	EXPECT_EQ(WQ_KEY_QUEUED, wqt_kstate(self->fd, "a"));	/* dirty: again */
	EXPECT_GET(self->fd, "a");
	PREP_DONE(&self->ring, self->fd, "a", 1);
	PREP_DONE(&self->ring, self->fd, "a", 0);	/* not processing */
	SUBMIT(&self->ring, 2);
	REAP(&self->ring, 2, res);
	EXPECT_EQ(0, res[1]);
	EXPECT_EQ(-ENOENT, res[0]);
	EXPECT_QUEUE_EMPTY(self->fd);
}

/* The options of wq_add_opts(), and the ones it refuses. */
TEST_F(ring, add_options)
{
	struct wq_add_opts after = { .flags = WQ_ADD_AFTER, .delay_ns = LONG_DELAY };
	struct wq_add_opts later = { .flags = WQ_ADD_AFTER, .delay_ns = 2 * LONG_DELAY };
	struct wq_add_opts stray = { .priority = 3 };	/* without its flag */
	struct wq_add_opts delay = { .delay_ns = 1 };	/* without WQ_ADD_AFTER */
	struct wq_add_opts prio = { .flags = WQ_ADD_PRIORITY, .priority = 3 };
	struct wq_add_opts wait0 = { .flags = WQ_ADD_WAIT };	/* a plain add */
	struct wq_add_opts unknown = { .flags = 1u << 20 };
	const struct wq_add_opts *o[] = { &after, &later, &stray, &delay,
					  &prio, &wait0, &unknown };
	const char *k[] = { "w", "w", "s", "d", "p", "n", "u" };
	int res[7], i;

	for (i = 0; i < 7; i++)
		wq_prep_add(wqt_sqe(&self->ring, i), self->fd, k[i], 1, o[i]);
	SUBMIT(&self->ring, 7);
	REAP(&self->ring, 7, res);
	EXPECT_EQ(WQ_ADDED_WAITING, res[0]);
	EXPECT_EQ(WQ_ADDED_KEPT, res[1]);
	EXPECT_EQ(-EINVAL, res[2]);
	EXPECT_EQ(-EINVAL, res[3]);
	EXPECT_EQ(-EINVAL, res[4]) TH_LOG("WQ_ADD_PRIORITY on a plain queue");
	EXPECT_EQ(WQ_ADDED_QUEUED, res[5]);
	EXPECT_EQ(-EINVAL, res[6]);
	EXPECT_EQ(WQ_KEY_WAITING, wqt_kstate(self->fd, "w"));
	EXPECT_STATS(self->fd, STAT(queued, 1), STAT(waiting, 1), STAT(keys, 2));

	wq_prep_add(wqt_sqe(&self->ring, 0), self->fd, "", 0, NULL);
	wq_prep_add(wqt_sqe(&self->ring, 1), self->fd, "x", WQ_KEY_MAX + 1, NULL);
	SUBMIT(&self->ring, 2);
	REAP(&self->ring, 2, res);
	EXPECT_EQ(-EINVAL, res[0]);
	EXPECT_EQ(-EINVAL, res[1]);
}

/* 64 adds, 64 gets, 64 dones: one io_uring_submit each. */
TEST_F(ring, many_keys_one_submission_each)
{
	static char keys[NMANY][WQT_KEY_LEN + 1], bufs[NMANY][16];
	int res[NMANY], i;

	for (i = 0; i < NMANY; i++) {
		wqt_key(keys[i], i);
		PREP_ADD(&self->ring, self->fd, keys[i], i);
	}
	SUBMIT(&self->ring, NMANY);
	REAP(&self->ring, NMANY, res);
	for (i = 0; i < NMANY; i++)
		EXPECT_EQ(WQ_ADDED_QUEUED, res[i]) TH_LOG("add %d", i);
	EXPECT_EQ(NMANY, wq_len(self->fd));

	/* taken in SQE order: get i has key i (FIFO) */
	for (i = 0; i < NMANY; i++)
		PREP_GET(&self->ring, self->fd, bufs[i], sizeof(bufs[i]), i);
	SUBMIT(&self->ring, NMANY);
	REAP(&self->ring, NMANY, res);
	for (i = 0; i < NMANY; i++) {
		EXPECT_EQ(WQT_KEY_LEN, res[i]) TH_LOG("get %d", i);
		EXPECT_EQ(i, wqt_key_index(bufs[i], WQT_KEY_LEN));
	}
	EXPECT_STATS(self->fd, STAT(queued, 0), STAT(processing, NMANY));

	for (i = 0; i < NMANY; i++)
		PREP_DONE(&self->ring, self->fd, keys[i], i);
	SUBMIT(&self->ring, NMANY);
	REAP(&self->ring, NMANY, res);
	for (i = 0; i < NMANY; i++)
		EXPECT_EQ(0, res[i]) TH_LOG("done %d", i);
	EXPECT_QUEUE_EMPTY(self->fd);
}

/* One submission: add, get, add (dirty), done, get, done, in SQE order. */
TEST_F(ring, one_submission_takes_effect_in_order)
{
	char b1[16] = "", b2[16] = "";
	int res[6];

	PREP_ADD(&self->ring, self->fd, "x", 0);
	PREP_GET(&self->ring, self->fd, b1, sizeof(b1), 1);
	PREP_ADD(&self->ring, self->fd, "x", 2);
	PREP_DONE(&self->ring, self->fd, "x", 3);
	PREP_GET(&self->ring, self->fd, b2, sizeof(b2), 4);
	PREP_DONE(&self->ring, self->fd, "x", 5);
	SUBMIT(&self->ring, 6);
	REAP(&self->ring, 6, res);
	EXPECT_EQ(WQ_ADDED_QUEUED, res[0]);
	EXPECT_EQ(1, res[1]);
	EXPECT_STREQ("x", b1);
	EXPECT_EQ(WQ_ADDED_DIRTY, res[2]);
	EXPECT_EQ(0, res[3]);
	EXPECT_EQ(1, res[4]) TH_LOG("the dirty key queued again by the done");
	EXPECT_STREQ("x", b2);
	EXPECT_EQ(0, res[5]);
	EXPECT_QUEUE_EMPTY(self->fd);
}

/* The batches: per-key results, FIFO, the call-level errors. */
TEST_F(ring, batches)
{
	struct iovec in[4] = { IOV_S("b1"), IOV_S("b2"), IOV_S("b1"), IOV_S("b3") };
	struct iovec out[8], fin[4] = { IOV_S("b1"), IOV_S("b2"), IOV_S("b3"),
					IOV_S("zz") };
	int results[4] = { 9, 9, 9, 9 }, errs[4], res[3];
	char buf[64], tiny[1];

	wq_prep_add_batch(wqt_sqe(&self->ring, 0), self->fd, in, 4, NULL, results);
	wq_prep_get_batch(wqt_sqe(&self->ring, 1), self->fd, tiny, sizeof(tiny), out, 8);
	wq_prep_get_batch(wqt_sqe(&self->ring, 2), self->fd, buf, sizeof(buf), out, 8);
	SUBMIT(&self->ring, 3);
	REAP(&self->ring, 3, res);
	EXPECT_EQ(4, res[0]);
	EXPECT_EQ(WQ_ADDED_QUEUED, results[0]);
	EXPECT_EQ(WQ_ADDED_QUEUED, results[1]);
	EXPECT_EQ(WQ_ADDED_COALESCED, results[2]);
	EXPECT_EQ(WQ_ADDED_QUEUED, results[3]);
	EXPECT_EQ(-EMSGSIZE, res[1]) TH_LOG("nothing taken");
	ASSERT_EQ(3, res[2]);
	for (int i = 0; i < 3; i++) {
		EXPECT_EQ(2u, out[i].iov_len);
		EXPECT_TRUE((char *)out[i].iov_base >= buf &&
			    (char *)out[i].iov_base < buf + sizeof(buf));
		EXPECT_EQ(0, memcmp(fin[i].iov_base, out[i].iov_base, 2));
	}

	wq_prep_done_batch(wqt_sqe(&self->ring, 0), self->fd, fin, 4, errs);
	wq_prep_done_batch(wqt_sqe(&self->ring, 1), self->fd, fin, 0, NULL);
	wq_prep_add_batch(wqt_sqe(&self->ring, 2), self->fd, in,
			  WQ_BATCH_MAX + 1, NULL, NULL);
	SUBMIT(&self->ring, 3);
	REAP(&self->ring, 3, res);
	EXPECT_EQ(3, res[0]);
	EXPECT_EQ(0, errs[0]);
	EXPECT_EQ(0, errs[2]);
	EXPECT_EQ(-ENOENT, errs[3]);
	EXPECT_EQ(-EINVAL, res[1]);
	EXPECT_EQ(-EINVAL, res[2]);
	EXPECT_QUEUE_EMPTY(self->fd);
}

/* What is not a queue handle, or not one that may make the call. */
TEST_F(ring, handles_that_may_not)
{
	int zero = open("/dev/zero", O_RDWR), unbound = raw_open_dev();
	int ro = wq_open_flags(self->name, O_RDONLY);
	int wo = wq_open_flags(self->name, O_WRONLY);
	int res[7], pfd[2];
	char buf[16];

	ASSERT_LE(0, zero);
	ASSERT_EQ(0, pipe(pfd));
	ASSERT_LE(0, unbound);
	ASSERT_LE(0, ro);
	ASSERT_LE(0, wo);
	ASSERT_EQ(0, ADD(self->fd, "q"));
	PREP_ADD(&self->ring, zero, "k", 0);
	PREP_GET(&self->ring, pfd[0], buf, sizeof(buf), 6);
	PREP_ADD(&self->ring, unbound, "k", 1);
	PREP_GET(&self->ring, unbound, buf, sizeof(buf), 2);
	PREP_ADD(&self->ring, ro, "k", 3);
	PREP_GET(&self->ring, wo, buf, sizeof(buf), 4);
	PREP_DONE(&self->ring, wo, "q", 5);
	SUBMIT(&self->ring, 7);
	REAP(&self->ring, 7, res);
	EXPECT_EQ(-EOPNOTSUPP, res[0]);
	EXPECT_EQ(-EOPNOTSUPP, res[6]);
	EXPECT_EQ(-EBADF, res[1]);
	EXPECT_EQ(-EBADF, res[2]);
	EXPECT_EQ(-EBADF, res[3]) TH_LOG("an add on a read-only handle");
	EXPECT_EQ(-EBADF, res[4]) TH_LOG("a get on a write-only handle");
	EXPECT_EQ(-EBADF, res[5]);
	EXPECT_STATS(self->fd, STAT(queued, 1), STAT(keys, 1));

	/* what each may do, it does */
	PREP_GET(&self->ring, ro, buf, sizeof(buf), 0);
	PREP_ADD(&self->ring, wo, "w", 1);
	SUBMIT(&self->ring, 2);
	REAP(&self->ring, 2, res);
	EXPECT_EQ(1, res[0]);
	EXPECT_EQ(WQ_ADDED_QUEUED, res[1]);
	close(zero);
	close(pfd[0]);
	close(pfd[1]);
	close(unbound);
	wq_close(ro);	/* puts q back */
	wq_close(wo);
	EXPECT_EQ(2, wait_len(self->fd, 2));
}

/* Other commands than the six: -ENOTTY, and nothing happened. */
TEST_F(ring, other_commands_are_not_taken)
{
	static const unsigned int cmds[] = { WQ_IOC_STAT, WQ_IOC_FORGET,
		WQ_IOC_SHUTDOWN, WQ_IOC_METRICS, WQ_IOC_KEY_STATE, 0x1234 };
	unsigned char zero[WQ_URING_CMD_MAX] = { 0 };
	int res[6], i;

	for (i = 0; i < 6; i++)
		wq_prep_cmd(wqt_sqe(&self->ring, i), self->fd, cmds[i], zero,
			    sizeof(zero));
	SUBMIT(&self->ring, 6);
	REAP(&self->ring, 6, res);
	for (i = 0; i < 6; i++)
		EXPECT_EQ(-ENOTTY, res[i]) TH_LOG("command %#x", cmds[i]);
	EXPECT_EQ(0, wq_shutting_down(self->fd));
}

/*
 * Calls that may not wait complete at once, inline, as the ioctls do: a
 * WQ_GET_NONBLOCK get of an empty queue and an add of a full queue are
 * -EAGAIN, not handed to io_uring's workers, and the add is counted as
 * refused once; a WQ_ADD_WAIT add that times out is not refused at all.
 * Registered buffers and multishot are not for these commands (-EINVAL).
 */
TEST_F(ring, calls_that_may_not_wait_do_not)
{
	struct wq_attr attr = { .max_items = 1 };
	struct wq_get g = { .flags = WQ_GET_NONBLOCK, .buf_cap = 16 };
	struct wq_add a = { .key_len = 1, .key = (uintptr_t)"b" };
	char name[WQ_NAME_MAX], buf[16];
	struct io_uring_sqe *sqe;
	struct wq_metrics m;
	int res[5], fd;

	wqt_name(name, "nowait");
	fd = wq_create(name, &attr);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, ADD(fd, "a"));
	PREP_ADD(&self->ring, fd, "b", 0);	/* full: -EAGAIN, refused once */
	a.flags = WQ_ADD_WAIT;			/* waits 50 ms: not refused */
	a.deadline_ns = now_ns() + 50 * MS;
	wq_prep_cmd(wqt_sqe(&self->ring, 1), fd, WQ_IOC_ADD, &a, sizeof(a));
	SUBMIT(&self->ring, 2);
	REAP(&self->ring, 2, res);
	EXPECT_EQ(-EAGAIN, res[0]);
	EXPECT_EQ(-ETIMEDOUT, res[1]);
	ASSERT_EQ(0, wq_metrics(fd, &m));
	EXPECT_EQ(1, m.refused_total);
	EXPECT_EQ(1, wq_len(fd));

	ASSERT_EQ(1, wq_get(fd, buf, sizeof(buf), 0));	/* now empty */
	g.buf = (uintptr_t)buf;
	wq_prep_cmd(wqt_sqe(&self->ring, 2), fd, WQ_IOC_GET, &g, sizeof(g));
	PREP_ADD(&self->ring, fd, "c", 4);	/* a still held: full */
	SUBMIT(&self->ring, 2);
	REAP(&self->ring, 2, res);
	EXPECT_EQ(-EAGAIN, res[2]) TH_LOG("a nonblocking get waited");
	EXPECT_EQ(-EAGAIN, res[4]) TH_LOG("a is still processing: full");
	EXPECT_TRUE(wqt_unparked(0));
	/* io_uring itself may refuse it first (no buffers registered) */
	sqe = wqt_sqe(&self->ring, 3);
	wq_prep_done(sqe, fd, "a", 1);
	sqe->uring_cmd_flags = IORING_URING_CMD_FIXED;
	SUBMIT(&self->ring, 1);
	REAP(&self->ring, 1, res);
	EXPECT_TRUE(res[3] == -EINVAL || res[3] == -EFAULT) TH_LOG("%d", res[3]);
	EXPECT_EQ(WQ_KEY_PROCESSING, wqt_kstate(fd, "a"));
	EXPECT_EQ(0, wq_done(fd, "a", 1));
	EXPECT_EQ(0, wq_len(fd));
	wq_close(fd);
	wq_destroy(name);
}

/* A ring without SQE128: the struct does not fit, -EINVAL, no add. */
TEST_F(ring, plain_ring_is_refused)
{
	struct io_uring plain;
	struct io_uring_sqe *sqe;
	struct wq_add a = { .key_len = 1, .key = (uintptr_t)"p" };
	struct wqt_cqe c;

	ASSERT_EQ(0, io_uring_queue_init(8, &plain, 0));
	sqe = io_uring_get_sqe(&plain);
	ASSERT_NE(NULL, sqe);
	io_uring_prep_rw(IORING_OP_URING_CMD, sqe, self->fd, NULL, 0, 0);
	sqe->cmd_op = WQ_IOC_ADD;
	/* all a 64-byte SQE holds */
	memcpy((char *)sqe + offsetof(struct io_uring_sqe, cmd), &a, 16);
	io_uring_sqe_set_data64(sqe, 5);
	EXPECT_EQ(1, io_uring_submit(&plain));
	wqt_reap(&plain, UPPER_MS, &c);
	io_uring_queue_exit(&plain);
	EXPECT_EQ(5u, c.data);
	EXPECT_EQ(-EINVAL, c.res);
	EXPECT_EQ(0, wq_len(self->fd));
}

/* SQPOLL: the kernel's thread submits; not one system call is needed. */
TEST_F_TIMEOUT(ring, sqpoll_ring, 60)
{
	struct io_uring sq;
	char buf[16] = "";
	int r, res[4];

	r = wq_uring_queue_init(16, &sq, IORING_SETUP_SQPOLL);
	if (r == -EPERM || r == -EINVAL)
		SKIP(return, "no SQPOLL ring: %s", strerror(-r));
	ASSERT_EQ(0, r);
	PREP_ADD(&sq, self->fd, "s1", 0);
	PREP_ADD(&sq, self->fd, "s2", 1);
	PREP_GET(&sq, self->fd, buf, sizeof(buf), 2);
	PREP_DONE(&sq, self->fd, "s1", 3);
	r = io_uring_submit(&sq);	/* a wake-up at most */
	for (int i = 0; i < 4; i++)
		res[i] = WQT_NO_CQE;
	r = r == 4 ? wqt_reap_n(&sq, 4, res, 4) : r;
	io_uring_queue_exit(&sq);
	ASSERT_EQ(4, r);
	EXPECT_EQ(WQ_ADDED_QUEUED, res[0]);
	EXPECT_EQ(WQ_ADDED_QUEUED, res[1]);
	EXPECT_EQ(2, res[2]);
	EXPECT_STREQ("s1", buf);
	EXPECT_EQ(0, res[3]);
	EXPECT_STATS(self->fd, STAT(queued, 1), STAT(processing, 0), STAT(keys, 1));
}

/* ---- kernel.io_uring_disabled ------------------------------------------- */

#define DISABLED_PATH	"/proc/sys/kernel/io_uring_disabled"

static int read_int(const char *path)
{
	FILE *f = fopen(path, "r");
	int v = -1;

	if (f) {
		if (fscanf(f, "%d", &v) != 1)
			v = -1;
		fclose(f);
	}
	return v;
}

static bool write_int(const char *path, int v)
{
	FILE *f = fopen(path, "w");
	bool ok;

	if (!f)
		return false;
	ok = fprintf(f, "%d\n", v) > 0;
	return fclose(f) == 0 && ok;
}

static atomic_int handled;

static int count_key(const void *key, size_t len, void *arg)
{
	(void)key;
	(void)len;
	(void)arg;
	atomic_fetch_add(&handled, 1);
	return 0;
}

/*
 * io_uring disabled (2): wq_uring_queue_init fails with -EPERM and leaves
 * nothing to tear down; libwq's calls work, and a WQ_POOL_URING pool
 * handles every key with the ioctls. The sysctl is restored before any
 * assertion.
 */
TEST_F_TIMEOUT(ring, io_uring_disabled, 60)
{
	struct wq_pool_attr pa = { .workers = 2, .flags = WQ_POOL_URING };
	int old = read_int(DISABLED_PATH), init, add, start, left;
	struct wq_pool *pool = NULL;
	struct io_uring off;
	int64_t end;

	if (old < 0)
		SKIP(return, "no %s (a kernel older than 6.6)", DISABLED_PATH);
	ASSERT_TRUE(write_int(DISABLED_PATH, 2));
	init = wq_uring_queue_init(8, &off, 0);
	add = ADD(self->fd, "d");
	start = wq_pool_start(self->fd, count_key, &pa, &pool);
	for (int i = 0; start == 0 && i < 8; i++)
		wqt_add_i(self->fd, i);
	for (end = wqt_now_ms() + UPPER_MS;
	     start == 0 && atomic_load(&handled) < 9 && wqt_now_ms() < end;)
		wqt_sleep_ms(2);
	if (start == 0)
		wq_pool_stop(pool, UPPER_MS);
	if (init == 0)
		io_uring_queue_exit(&off);
	left = write_int(DISABLED_PATH, old) ? read_int(DISABLED_PATH) : -1;
	ASSERT_EQ(old, left) TH_LOG("%s not restored", DISABLED_PATH);
	EXPECT_EQ(-EPERM, init);
	EXPECT_EQ(0, add);
	EXPECT_EQ(0, start);
	EXPECT_EQ(9, atomic_load(&handled));
	EXPECT_STATS(self->fd, STAT(keys, 0), STAT(processing, 0));
}

TEST_HARNESS_MAIN
