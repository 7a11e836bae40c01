// SPDX-License-Identifier: GPL-2.0
/*
 * fail-nth (wq_test_failnth.h) of /dev/wq's io_uring commands
 * (wq_uring.h), where they run: in the thread that submits
 * (io_uring_enter() issues them inline: ADD, DONE, gets served at once,
 * a get that must wait and is parked, the batches) and in the task work
 * that tries a parked get again when its key comes (armed around the wait
 * of a DEFER_TASKRUN ring, where that task work runs: a get of a key above
 * 64 bytes into a buffer above 64, for which the kernel allocates, and a
 * GET_BATCH with the batch scratch pool held empty). After each failure
 * the command says -ENOMEM (io_uring_enter() -EAGAIN for io_uring's own
 * allocations: the SQEs are submitted again) or succeeded (the fault hit
 * kmemleak's record); one that failed took or changed nothing, every key
 * is where the successful ones put it, once, and the queue works on.
 * Skipped without fail-nth (but on the debug lane, where io_uring and the
 * commands must be there too).
 */
#include <pthread.h>

#include "wq_test_failnth.h"
#include "wq_test_uring.h"

#define CAP		128	/* a get's buffer: above the 64 on the stack */
#define LONG_KEY(j)	(2 + 3 * (j))	/* keys 2, 5, 8, ...: 100 bytes */

static struct io_uring ring;	/* each test's own (a process each) */
static struct io_uring dring;	/* DEFER_TASKRUN: task work when it waits */

/* In a test: ring made (or the test skipped), a first command through it. */
#define URING_UP() do {							\
		int _r = wqt_module_uring() ? uring_up() : -EOPNOTSUPP;	\
		if (_r && _r != -EIO && !getenv("WQ_DEBUG_LANE"))	\
			SKIP(return, "no io_uring commands: %s", strerror(-_r)); \
		ASSERT_EQ(0, _r) TH_LOG("io_uring commands: %s", strerror(-_r)); \
	} while (0)

/*
 * The rings, the plain one's request cache warmed by a first command (a
 * DONE of nothing: -ENOENT).
 */
static int uring_up(void)
{
	struct wqt_cqe c;
	int fd, r;

	r = wq_uring_queue_init(WQT_RING_ENTRIES, &ring, 0);
	if (r)
		return r;
	r = wq_uring_queue_init(8, &dring, WQ_URING_SETUP_FAST);
	if (r)
		return r;
	fd = wq_create_private(NULL);
	if (fd < 0)
		return fd;
	wq_prep_done(wqt_sqe(&ring, 0), fd, "x", 1);
	io_uring_submit(&ring);
	wqt_reap(&ring, UPPER_MS, &c);
	close(fd);
	return c.res == -ENOENT ? 0 : -EIO;
}

/*
 * Submits what is queued while armed (call by call: fnth_step_*); a
 * failure of io_uring's own (nothing submitted) is recorded, and the
 * SQEs submitted again, disarmed. Returns how many were submitted.
 */
static int submit_armed(struct __test_metadata *_metadata,
			FIXTURE_DATA(fnth) *self)
{
	int n;

	fnth_step_arm(_metadata, self);
	n = io_uring_submit(&ring);
	fnth_step_disarm(_metadata, self);
	if (n >= 0)
		return n;
	rec(self, n);
	EXPECT_TRUE(self->fired) TH_LOG("nth %d: io_uring_submit: %s",
					self->nth, strerror(-n));
	return io_uring_submit(&ring);
}

/* One command, submitted armed; its completion (WQT_NO_CQE if none). */
static int call_armed(struct __test_metadata *_metadata,
		      FIXTURE_DATA(fnth) *self)
{
	struct wqt_cqe c;

	if (submit_armed(_metadata, self) != 1)
		return WQT_NO_CQE;
	wqt_reap(&ring, UPPER_MS, &c);
	return (int)rec(self, c.res);
}

/*
 * fnth_down() after a parked command, whose completion lets go of the
 * handle's file as io_uring frees the request: the queue's charge may
 * outlive the close for a moment. Waited for (a bound, not a timing).
 */
static void uring_down(struct __test_metadata *_metadata,
		       FIXTURE_DATA(fnth) *self)
{
	int64_t end = wqt_now_ms() + UPPER_MS;
	struct wq_module_info mi;

	fnth_cleanup(self);
	while (raw_module_info(&mi) == 0 && wqt_now_ms() < end &&
	       (mi.user_queues != self->base.user_queues ||
		mi.user_key_bytes != self->base.user_key_bytes))
		wqt_sleep_ms(1);
	fnth_down(_metadata, self);
}

/* A get of key 2 ended with @r: taken (then done), or still queued. */
static void key2_outcome(struct __test_metadata *_metadata,
			 FIXTURE_DATA(fnth) *self, int fd, const char *buf,
			 int r)
{
	if (r >= 0) {
		EXPECT_EQ(2, key_index(buf, r));
		EXPECT_STATS(fd, STAT(processing, 1), STAT(queued, 0));
		EXPECT_EQ(0, DONE_I(fd, 2));
	} else {
		EXPECT_STATS(fd, STAT(processing, 0), STAT(queued, 1));
		drain_order(_metadata, self, fd, (int[]){ 2 }, 1, -EAGAIN);
	}
}

/* ---- the submitter ----------------------------------------------------- */

/*
 * Six adds of new keys (6, 56 and 100 bytes) and an add of the first
 * again, in one submission: each queued or -ENOMEM, the re-add coalesced
 * (or queued, if the first failed); the queue holds the keys added, in
 * the order they were first added.
 */
TEST_F_TIMEOUT(fnth, uring_add, 300)
{
	int res[7], order[6], n, i, k, fd;
	bool added[6];

	URING_UP();
	FOR_EACH_NTH(self) {
		fd = fnth_up(_metadata, self, true, NULL);
		for (i = 0; i < 7; i++)
			wq_prep_add(wqt_sqe(&ring, (uint64_t)i), fd,
				    keys[i % 6], klen[i % 6], NULL);
		fnth_step_start(self);
		ASSERT_EQ(7, submit_armed(_metadata, self));
		REAP(&ring, 7, res);
		memset(added, 0, sizeof(added));
		for (i = n = 0; i < 7; i++) {
			k = i % 6;
			rec(self, res[i]);
			if (res[i] < 0)
				continue;
			EXPECT_EQ(added[k] ? WQ_ADDED_COALESCED : WQ_ADDED_QUEUED,
				  res[i]) TH_LOG("nth %d: add %d", self->nth, i);
			if (!added[k])
				order[n++] = k;
			added[k] = true;
		}
		check_results(_metadata, self, -EAGAIN, 0);
		drain_order(_metadata, self, fd, order, n, -EAGAIN);
		fnth_down(_metadata, self);
	}
	fnth_report(_metadata, self);
}

/*
 * Dones of three keys in processing (6, 56, 100 bytes), in one
 * submission: each 0 or -ENOMEM, and a key whose done failed is still in
 * processing (done then by the ioctl).
 */
TEST_F_TIMEOUT(fnth, uring_done, 300)
{
	int res[3], i, fd;
	struct wq_key_state st;

	URING_UP();
	FOR_EACH_NTH(self) {
		fd = fnth_up(_metadata, self, true, NULL);
		for (i = 0; i < 3; i++)
			ASSERT_EQ(0, ADD_I(fd, i));
		for (i = 0; i < 3; i++) {
			ASSERT_EQ(i, fnth_get_prio(fd, &(int32_t){ 0 }));
			wq_prep_done(wqt_sqe(&ring, (uint64_t)i), fd, keys[i],
				     klen[i]);
		}
		fnth_step_start(self);
		ASSERT_EQ(3, submit_armed(_metadata, self));
		REAP(&ring, 3, res);
		for (i = 0; i < 3; i++) {
			rec(self, res[i]);
			ASSERT_EQ(0, wq_key_state(fd, keys[i], klen[i], &st));
			EXPECT_EQ(res[i] ? WQ_KEY_PROCESSING : 0, st.flags)
				TH_LOG("nth %d: key %d, done %d", self->nth, i,
				       res[i]);
			if (res[i])
				EXPECT_EQ(0, DONE_I(fd, i));
		}
		check_results(_metadata, self, -EAGAIN, 0);
		EXPECT_QUEUE_EMPTY(fd);
		fnth_down(_metadata, self);
	}
	fnth_report(_metadata, self);
}

/*
 * Three gets served at once (the queue holds keys of 100, 6 and 56 bytes;
 * buffers of CAP), in one submission: each takes the head key or fails
 * with -ENOMEM leaving it there, so the gets that succeed took the first
 * keys in order, and the rest are still queued, in order.
 */
TEST_F_TIMEOUT(fnth, uring_get_inline, 300)
{
	static const int fifo[3] = { 2, 0, 1 };
	static char buf[3][CAP];
	int res[3], got, i, fd;

	URING_UP();
	FOR_EACH_NTH(self) {
		fd = fnth_up(_metadata, self, true, NULL);
		for (i = 0; i < 3; i++) {
			ASSERT_EQ(0, ADD_I(fd, fifo[i]));
			wq_prep_get(wqt_sqe(&ring, (uint64_t)i), fd, buf[i], CAP);
		}
		fnth_step_start(self);
		ASSERT_EQ(3, submit_armed(_metadata, self));
		REAP(&ring, 3, res);
		for (i = got = 0; i < 3; i++) {
			rec(self, res[i]);
			if (res[i] < 0)
				continue;
			EXPECT_EQ(fifo[got], key_index(buf[i], res[i]))
				TH_LOG("nth %d: get %d", self->nth, i);
			EXPECT_EQ(0, DONE_I(fd, fifo[got]));
			got++;
		}
		check_results(_metadata, self, -EAGAIN, 0);
		drain_order(_metadata, self, fd, fifo + got, 3 - got, -EAGAIN);
		fnth_down(_metadata, self);
	}
	fnth_report(_metadata, self);
}

/*
 * A get on an empty queue, which must wait: the submitter's fault is in
 * what parks it. Then a key of 100 bytes comes (by the ioctl): the get
 * takes it, or it failed (-ENOMEM) and the key stays queued.
 */
TEST_F_TIMEOUT(fnth, uring_get_park, 300)
{
	static char buf[CAP];
	struct wqt_cqe c;
	int r, fd;

	URING_UP();
	FOR_EACH_NTH(self) {
		fd = fnth_up(_metadata, self, true, NULL);
		wq_prep_get(wqt_sqe(&ring, 0), fd, buf, CAP);
		fnth_step_start(self);
		ASSERT_EQ(1, submit_armed(_metadata, self));
		ASSERT_EQ(0, ADD_I(fd, 2));
		wqt_reap(&ring, UPPER_MS, &c);
		ASSERT_NE(WQT_NO_CQE, c.res) TH_LOG("nth %d: no completion",
						    self->nth);
		r = (int)rec(self, c.res);
		key2_outcome(_metadata, self, fd, buf, r);
		check_results(_metadata, self, -EAGAIN, 0);
		EXPECT_QUEUE_EMPTY(fd);
		uring_down(_metadata, self);
	}
	fnth_report(_metadata, self);
}

/* ---- batches ------------------------------------------------------------ */


static struct iovec in[B_ENTRIES], out[B_ENTRIES];
static int errs[B_ENTRIES], derrs[B_ENTRIES];
static char gbuf[8192];

/*
 * ADD_BATCH, GET_BATCH, DONE_BATCH through the ring, each armed as it is
 * submitted (the fault at the nth allocation of the three), one that
 * fails as a whole (-ENOMEM) sent again: the results as the ioctls'
 * (failnth_batch_test.c); *n, *g, *d the three calls' results.
 */
static void batch_calls(struct __test_metadata *_metadata,
			FIXTURE_DATA(fnth) *self, int fd, int *n, int *g,
			int *d)
{
	int t;

	memset(errs, 0x55, sizeof(errs));
	memset(derrs, 0x55, sizeof(derrs));
	memset(out, 0, sizeof(out));
	fnth_step_start(self);
	for (t = 0, *n = -ENOMEM; t < 2 && *n == -ENOMEM; t++) {
		wq_prep_add_batch(wqt_sqe(&ring, 0), fd, in, B_ENTRIES, NULL,
				  errs);
		*n = call_armed(_metadata, self);
	}
	for (t = 0, *g = -ENOMEM; t < 2 && *g == -ENOMEM; t++) {
		wq_prep_get_batch(wqt_sqe(&ring, 1), fd, gbuf, sizeof(gbuf),
				  out, B_ENTRIES);
		*g = call_armed(_metadata, self);
	}
	for (t = 0, *d = *g > 0 ? -ENOMEM : 0; t < 2 && *d == -ENOMEM; t++) {
		wq_prep_done_batch(wqt_sqe(&ring, 2), fd, out, (unsigned int)*g,
				   derrs);
		*d = call_armed(_metadata, self);
	}
}

/*
 * Each key's result of the ADD_BATCH (with WQ_ADD_OUTCOME: what the add
 * did, or -ENOMEM); the GET_BATCH took the keys first added, in order,
 * and the DONE_BATCH ended them all.
 */
TEST_F_TIMEOUT(fnth, uring_batch, 300)
{
	int i, k, fd, nok, distinct, n, g, d, order[B_KEYS];
	bool seen[NKEYS];

	URING_UP();
	batch_fill(in);
	FOR_EACH_NTH(self) {
		fd = fnth_up(_metadata, self, true, NULL);
		batch_calls(_metadata, self, fd, &n, &g, &d);
		check_results(_metadata, self, -EAGAIN, 0);
		memset(seen, 0, sizeof(seen));
		for (i = nok = distinct = 0; i < B_ENTRIES; i++) {
			k = batch_key(i);
			ASSERT_TRUE(errs[i] >= 0 || errs[i] == -ENOMEM)
				TH_LOG("nth %d: key %d: %d", self->nth, i, errs[i]);
			if (errs[i] < 0)
				continue;
			EXPECT_EQ(seen[k] ? WQ_ADDED_COALESCED : WQ_ADDED_QUEUED,
				  errs[i]) TH_LOG("nth %d: key %d", self->nth, i);
			nok++;
			if (!seen[k])
				order[distinct++] = k;
			seen[k] = true;
		}
		EXPECT_EQ(nok, n);
		ASSERT_EQ(distinct, g);
		EXPECT_EQ(g, d);
		expect_got_in_order(_metadata, self->nth, order, out, derrs, g);
		EXPECT_QUEUE_EMPTY(fd);
		fnth_down(_metadata, self);
	}
	fnth_report(_metadata, self);
}

/* ---- the parked command's try ------------------------------------------- */

/* The command of dring's SQE submitted unarmed, and parked. */
static void parked_submit(struct __test_metadata *_metadata)
{
	ASSERT_EQ(1, io_uring_submit(&dring));
	ASSERT_TRUE(wqt_parked(0, 1));
}

/*
 * The keys the parked command waits for added (ioctls: its task work is
 * queued, not run); then the wait for its completion armed, in which
 * the task work tries it.
 */
static int parked_try(struct __test_metadata *_metadata,
		      FIXTURE_DATA(fnth) *self, int fd,
		      const struct iovec *add, int nadd)
{
	struct wqt_cqe c;
	int i;

	/* one by one: an ADD_BATCH would give the scratch pool one */
	for (i = 0; i < nadd; i++)
		ASSERT_EQ(0, wq_add(fd, add[i].iov_base, add[i].iov_len));
	fnth_step_arm(_metadata, self);
	wqt_reap(&dring, UPPER_MS, &c);
	fnth_step_disarm(_metadata, self);
	ASSERT_NE(WQT_NO_CQE, c.res) TH_LOG("nth %d: no completion", self->nth);
	return (int)rec(self, c.res);
}

/*
 * A parked get of a 100-byte key into a buffer of CAP, tried again armed:
 * it takes the key (which is then in processing), or fails with -ENOMEM
 * and the key is queued.
 */
TEST_F_TIMEOUT(fnth, uring_parked_get, 300)
{
	struct iovec k2 = { keys[2], 0 };
	static char buf[CAP];
	int fd, r;

	k2.iov_len = klen[2];
	URING_UP();
	FOR_EACH_NTH(self) {
		fd = fnth_up(_metadata, self, true, NULL);
		wq_prep_get(wqt_sqe(&dring, 0), fd, buf, CAP);
		parked_submit(_metadata);
		fnth_step_start(self);
		r = parked_try(_metadata, self, fd, &k2, 1);
		check_results(_metadata, self, 0, 0);
		key2_outcome(_metadata, self, fd, buf, r);
		EXPECT_QUEUE_EMPTY(fd);
		uring_down(_metadata, self);
	}
	fnth_report(_metadata, self);
}

/*
 * The batch calls' scratch space comes from a pool of at most two per
 * possible CPU, 64 at most, and a GET_BATCH asleep holds one: HOLDERS
 * asleep in GET_BATCH on a queue of their own leave it empty, so that the
 * parked GET_BATCH's try allocates its own.
 */
#define HOLDERS		66

struct holders {
	int fd;
	pthread_t th[HOLDERS];
};

static void *holder(void *arg)
{
	int *fd = arg;
	struct iovec iov;
	char buf[64];

	return (void *)(intptr_t)wq_get_batch(*fd, buf, sizeof(buf), &iov, 1, -1);
}

static void holders_start(struct __test_metadata *_metadata, struct holders *h)
{
	pthread_attr_t attr;
	int i;

	h->fd = wq_create_private(NULL);
	ASSERT_LE(0, h->fd);
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 64 * 1024);
	for (i = 0; i < HOLDERS; i++)
		ASSERT_EQ(0, pthread_create(&h->th[i], &attr, holder, &h->fd));
	pthread_attr_destroy(&attr);
	ASSERT_TRUE(wqt_parked(0, HOLDERS));
}

static void holders_stop(struct __test_metadata *_metadata, struct holders *h)
{
	void *r;
	int i;

	ASSERT_EQ(0, wq_shutdown(h->fd));
	for (i = 0; i < HOLDERS; i++) {
		pthread_join(h->th[i], &r);
		EXPECT_EQ(-ESHUTDOWN, (intptr_t)r);
	}
	close(h->fd);
}

/*
 * A parked GET_BATCH of up to 4 keys, tried again armed, the scratch pool
 * empty: it takes the keys that came (three of 100 bytes), the first in
 * order, or fails with -ENOMEM having taken
 * none.
 */
TEST_F_TIMEOUT(fnth, uring_parked_get_batch, 300)
{
	static const int fifo[3] = { LONG_KEY(0), LONG_KEY(1), LONG_KEY(2) };
	struct iovec add[3], got[4];
	int fd, r, i, xfd;
	struct holders h;
	pthread_t one;
	void *ret;

	for (i = 0; i < 3; i++) {
		add[i].iov_base = keys[fifo[i]];
		add[i].iov_len = klen[fifo[i]];
	}
	URING_UP();
	wqt_failpage_set(_metadata, &self->fs);	/* the scratch: kvmalloc() */
	holders_start(_metadata, &h);
	xfd = wq_create_private(NULL);
	ASSERT_LE(0, xfd);
	FOR_EACH_NTH(self) {
		fd = fnth_up(_metadata, self, true, NULL);
		memset(got, 0, sizeof(got));
		wq_prep_get_batch(wqt_sqe(&dring, 0), fd, gbuf, sizeof(gbuf),
				  got, 4);
		parked_submit(_metadata);
		/* its first try gave the pool a scratch: one more holder */
		ASSERT_EQ(0, pthread_create(&one, NULL, holder, &xfd));
		ASSERT_TRUE(wqt_parked(0, HOLDERS + 2));
		fnth_step_start(self);
		r = parked_try(_metadata, self, fd, add, 3);
		ASSERT_EQ(0, wq_add(xfd, "x", 1));
		ASSERT_EQ(0, pthread_join(one, &ret));
		ASSERT_EQ(1, (intptr_t)ret);
		ASSERT_EQ(0, wq_done(xfd, "x", 1));
		check_results(_metadata, self, 0, 0);
		ASSERT_GE(3, r);
		for (i = 0; i < r; i++) {
			EXPECT_EQ(fifo[i], key_index(got[i].iov_base,
						     got[i].iov_len));
			EXPECT_EQ(0, DONE_I(fd, fifo[i]));
		}
		r = r < 0 ? 0 : r;
		drain_order(_metadata, self, fd, fifo + r, 3 - r, -EAGAIN);
		uring_down(_metadata, self);
	}
	holders_stop(_metadata, &h);
	close(xfd);
	fnth_report(_metadata, self);
}

TEST_HARNESS_MAIN
