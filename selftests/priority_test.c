// SPDX-License-Identifier: GPL-2.0
/*
 * Priority queues (WQ_CREATE_PRIORITY), the kernel's rules through raw
 * ioctls: controller-runtime's priority queue order (higher first, FIFO
 * within a level by the time a key became ready), the maximum kept on
 * re-adds and a raise at the tail of its new level, a dirty key queued
 * again at done with the highest priority given while it was processing,
 * a waiting copy dropped by a plain add, starvation bounded by starve_ns,
 * and a plain queue refusing priorities. What an add did, a key's state,
 * cancelling a delay, batches and metrics are keycalls_test.c.
 */
#include "wq_test_util.h"
#include "wq_test_time.h"
#include "wq_test_prio.h"

FIXTURE(prio) {
	int fd;
};

FIXTURE_SETUP(prio)
{
	struct wq_module_info mi;

	if (!wqt_have_dev())
		SKIP(return, "/dev/wq missing (module not loaded)");
	ASSERT_EQ(0, raw_module_info(&mi));
	ASSERT_TRUE(mi.features & WQ_FEATURE_PRIORITY);
	ASSERT_TRUE(mi.create_flags & WQ_CREATE_PRIORITY);
	self->fd = prio_queue(WQ_CREATE_PRIORITY, 0, NULL);
	ASSERT_LE(0, self->fd);
}

FIXTURE_TEARDOWN(prio)
{
	if (self->fd >= 0)
		close(self->fd);
}

/* Higher first; equal ones in the order they were added; 0 by default. */
TEST_F(prio, higher_first_fifo_within_a_level)
{
	EXPECT_EQ(WQ_ADDED_QUEUED, padd(self->fd, "low1", -5));
	EXPECT_EQ(WQ_ADDED_QUEUED, padd(self->fd, "zero1", 0));
	EXPECT_EQ(WQ_ADDED_QUEUED, padd(self->fd, "high1", 7));
	EXPECT_EQ(WQ_ADDED_QUEUED, padd(self->fd, "low2", -5));
	EXPECT_EQ(WQ_ADDED_QUEUED, padd(self->fd, "high2", 7));
	EXPECT_EQ(WQ_ADDED_QUEUED, padd(self->fd, "max", INT32_MAX));
	EXPECT_EQ(WQ_ADDED_QUEUED, padd(self->fd, "min", INT32_MIN));
	EXPECT_EQ(WQ_ADDED_QUEUED, padd(self->fd, "zero2", 0));
	EXPECT_NEXT(self->fd, "max", INT32_MAX);
	EXPECT_NEXT(self->fd, "high1", 7);
	EXPECT_NEXT(self->fd, "high2", 7);
	EXPECT_NEXT(self->fd, "zero1", 0);
	EXPECT_NEXT(self->fd, "zero2", 0);
	EXPECT_NEXT(self->fd, "low1", -5);
	EXPECT_NEXT(self->fd, "low2", -5);
	EXPECT_NEXT(self->fd, "min", INT32_MIN);
	EXPECT_EQ(-EAGAIN, pget(self->fd, (char[64]){}, NULL));
}

/* Many levels, added in a scrambled order, come out sorted. */
TEST_F(prio, many_levels)
{
	const int n = 500;
	int32_t p, last = INT32_MAX;
	char key[32], buf[64];
	int i, seen[500] = {};

	for (i = 0; i < n; i++) {
		snprintf(key, sizeof(key), "k%d", i);
		p = (int32_t)((i * 7919) % 97) - 48;	/* 97 levels */
		ASSERT_EQ(WQ_ADDED_QUEUED, padd(self->fd, key, p));
	}
	for (i = 0; i < n; i++) {
		int k;

		ASSERT_LT(0, pget(self->fd, buf, &p));
		k = atoi(buf + 1);
		ASSERT_EQ((int32_t)((k * 7919) % 97) - 48, p);
		ASSERT_GE(last, p);
		/* FIFO within a level: keys of a level in index order */
		if (p == last)
			ASSERT_TRUE(seen[k] == 0);
		seen[k] = 1;
		last = p;
	}
	EXPECT_EQ(-EAGAIN, pget(self->fd, buf, NULL));
}

/* A re-add keeps the higher priority; a raise goes to its level's tail. */
TEST_F(prio, raise_goes_to_the_tail_lower_is_kept)
{
	EXPECT_EQ(WQ_ADDED_QUEUED, padd(self->fd, "a", 1));
	EXPECT_EQ(WQ_ADDED_QUEUED, padd(self->fd, "b", 5));
	EXPECT_EQ(WQ_ADDED_QUEUED, padd(self->fd, "c", 1));
	EXPECT_EQ(WQ_ADDED_COALESCED, padd(self->fd, "a", 5));	/* raise */
	EXPECT_EQ(WQ_ADDED_COALESCED, padd(self->fd, "b", 0));	/* kept */
	EXPECT_EQ(WQ_ADDED_COALESCED, padd(self->fd, "c", -3));	/* kept */
	EXPECT_NEXT(self->fd, "b", 5);
	EXPECT_NEXT(self->fd, "a", 5);
	EXPECT_NEXT(self->fd, "c", 1);
}

/* A key added while processing comes back with the adds' highest. */
TEST_F(prio, dirty_requeues_at_the_highest_given_meanwhile)
{
	EXPECT_EQ(WQ_ADDED_QUEUED, padd(self->fd, "k", 9));
	EXPECT_NEXT(self->fd, "k", 9);
	EXPECT_EQ(WQ_ADDED_DIRTY, padd(self->fd, "k", 2));
	EXPECT_EQ(WQ_ADDED_DIRTY, padd(self->fd, "k", 4));
	EXPECT_EQ(WQ_ADDED_DIRTY, padd(self->fd, "k", 3));
	EXPECT_EQ(WQ_ADDED_QUEUED, padd(self->fd, "x", 4));
	EXPECT_EQ(WQ_ADDED_QUEUED, padd(self->fd, "y", 3));
	EXPECT_EQ(0, pdone(self->fd, "k"));
	/* at 4 (not 9, the hand-out's), at the tail of level 4 */
	EXPECT_NEXT(self->fd, "x", 4);
	EXPECT_NEXT(self->fd, "k", 4);
	EXPECT_NEXT(self->fd, "y", 3);
	EXPECT_EQ(0, pdone(self->fd, "k"));
	EXPECT_EQ(-ENOENT, pdone(self->fd, "k"));
}

/* A named priority queue and a second handle to it, which the test closes. */
FIXTURE(back) {
	char name[WQ_NAME_MAX];
	int fd, fd2;
};

FIXTURE_SETUP(back)
{
	struct wq_create c;

	self->fd = self->fd2 = -1;
	if (!wqt_have_dev())
		SKIP(return, "/dev/wq missing (module not loaded)");
	wqt_name(self->name, "prio-back");
	self->fd = raw_open_dev();
	ASSERT_LE(0, self->fd);
	memset(&c, 0, sizeof(c));
	c.flags = WQ_CREATE_PRIORITY;
	set_name(c.name, self->name);
	ASSERT_EQ(0, xioctl(self->fd, WQ_IOC_CREATE, &c));
	self->fd2 = wq_open(self->name);
	ASSERT_LE(0, self->fd2);
}

FIXTURE_TEARDOWN(back)
{
	if (self->fd2 >= 0)
		close(self->fd2);
	if (self->fd >= 0) {
		wq_destroy(self->name);
		close(self->fd);
	}
}

/* A key put back by its closing handle keeps the priority it had. */
TEST_F(back, keeps_its_priority)
{
	char buf[64];

	EXPECT_EQ(WQ_ADDED_QUEUED, padd(self->fd, "p", 6));
	EXPECT_EQ(WQ_ADDED_QUEUED, padd(self->fd, "q", 2));
	EXPECT_NEXT(self->fd2, "p", 6);
	EXPECT_EQ(WQ_ADDED_DIRTY, padd(self->fd, "p", 1));
	close(self->fd2);		/* p goes back, at 6 */
	self->fd2 = -1;
	EXPECT_NEXT(self->fd, "p", 6);
	EXPECT_NEXT(self->fd, "q", 2);
	EXPECT_EQ(-EAGAIN, pget(self->fd, buf, NULL));
}

/* Put back while it also waits: queued once, its waiting copy dropped. */
TEST_F(back, drops_the_waiting_copy)
{
	struct wq_key_info ks;
	char buf[64];

	EXPECT_EQ(WQ_ADDED_QUEUED, padd(self->fd, "w", 2));
	EXPECT_NEXT(self->fd2, "w", 2);
	EXPECT_EQ(WQ_ADDED_WAITING, padd_after(self->fd, "w", 2, 200 * MS));
	close(self->fd2);		/* w goes back, ready now */
	self->fd2 = -1;
	ASSERT_EQ(0, pstate(self->fd, "w", &ks));
	EXPECT_EQ(WQ_KEY_QUEUED, ks.state);
	EXPECT_NEXT(self->fd, "w", 2);
	EXPECT_EQ(0, pdone(self->fd, "w"));
	wqt_sleep_ms(400);
	EXPECT_EQ(-EAGAIN, pget(self->fd, buf, NULL));	/* once, not twice */
}

/*
 * A plain add of a waiting key queues it at once and drops the waiting
 * copy: it is handed out once, not twice.
 */
TEST_F(prio, plain_add_of_a_waiting_key_drops_its_delay)
{
	struct wq_key_info ks;
	char buf[64];

	EXPECT_EQ(WQ_ADDED_WAITING, padd_after(self->fd, "w", 3, 200 * MS));
	EXPECT_EQ(WQ_ADDED_QUEUED, padd(self->fd, "w", 1));
	ASSERT_EQ(0, pstate(self->fd, "w", &ks));
	EXPECT_EQ(WQ_KEY_QUEUED, ks.state);
	EXPECT_EQ(3, ks.priority);		/* the higher kept */
	EXPECT_NEXT(self->fd, "w", 3);
	EXPECT_EQ(0, pdone(self->fd, "w"));
	wqt_sleep_ms(400);
	EXPECT_EQ(-EAGAIN, pget(self->fd, buf, NULL));
	ASSERT_EQ(0, pstate(self->fd, "w", &ks));
	EXPECT_EQ(0U, ks.state);
}

/* A delayed add of a queued key changes its priority, nothing else. */
TEST_F(prio, delayed_add_of_a_queued_key_only_raises)
{
	struct wq_key_info ks;

	EXPECT_EQ(WQ_ADDED_QUEUED, padd(self->fd, "a", 0));
	EXPECT_EQ(WQ_ADDED_QUEUED, padd(self->fd, "b", 1));
	EXPECT_EQ(WQ_ADDED_COALESCED, padd_after(self->fd, "a", 2, HOUR));
	ASSERT_EQ(0, pstate(self->fd, "a", &ks));
	EXPECT_EQ(WQ_KEY_QUEUED, ks.state);	/* no waiting copy */
	EXPECT_EQ(0ULL, ks.ready_ns);
	EXPECT_NEXT(self->fd, "a", 2);
	/* a dirty key is ready too: no waiting copy either */
	EXPECT_EQ(WQ_ADDED_DIRTY, padd(self->fd, "a", 0));
	EXPECT_EQ(WQ_ADDED_DIRTY, padd_after(self->fd, "a", 0, HOUR));
	ASSERT_EQ(0, pstate(self->fd, "a", &ks));
	EXPECT_EQ(WQ_KEY_PROCESSING | WQ_KEY_DIRTY, ks.state);
	EXPECT_EQ(2, ks.priority);		/* the hand-out's */
}

/* A delayed key waits, then comes at its (possibly raised) priority. */
TEST_F(prio, delayed_key_becomes_ready_at_its_priority)
{
	struct wq_key_info ks;
	int64_t t0 = now_ns();

	EXPECT_EQ(WQ_ADDED_WAITING, padd_after(self->fd, "d", 1, 150 * MS));
	EXPECT_EQ(WQ_ADDED_KEPT, padd_after(self->fd, "d", 8, HOUR));
	ASSERT_EQ(0, pstate(self->fd, "d", &ks));
	EXPECT_EQ(WQ_KEY_WAITING, ks.state);
	EXPECT_EQ(8, ks.priority);
	EXPECT_LE((uint64_t)t0 + 150 * MS, ks.ready_ns);
	EXPECT_EQ(WQ_ADDED_QUEUED, padd(self->fd, "e", 5));
	while (wq_len(self->fd) < 2)
		wqt_sleep_ms(5);
	EXPECT_LE(t0 + 150 * MS, now_ns());
	EXPECT_NEXT(self->fd, "d", 8);
	EXPECT_NEXT(self->fd, "e", 5);
}

/* Rate-limited with a delay waits the shorter of the two. */
TEST_F(prio, rate_limited_after_waits_the_shorter)
{
	struct wq_limiter lim = {
		.nr_terms = 1,
		.terms = { { .kind = WQ_LIMITER_EXPONENTIAL,
			     .exponential = { .base_ns = HOUR,
					      .max_ns = 2 * HOUR } } },
	};
	uint64_t delay = 0;
	int fd = prio_queue(WQ_CREATE_PRIORITY, 0, &lim);

	ASSERT_LE(0, fd);
	EXPECT_EQ(WQ_ADDED_WAITING,
		  padd_full(fd, "r", WQ_ADD_RATE_LIMITED | WQ_ADD_AFTER, 0,
			    50 * MS, &delay));
	EXPECT_EQ(50 * MS, (int64_t)delay);
	EXPECT_EQ(WQ_ADDED_KEPT,
		  padd_full(fd, "r", WQ_ADD_RATE_LIMITED | WQ_ADD_AFTER, 0,
			    2 * HOUR, &delay));
	EXPECT_EQ(2 * HOUR, (int64_t)delay);	/* the limiter's, 2nd failure */
	close(fd);
}

/*
 * A stream of high keys does not starve a low one past starve_ns: the
 * oldest ready key goes first once it is older than that.
 */
TEST_F(prio, starve_ns_bounds_the_wait)
{
	const int64_t starve = 300 * MS;
	int fd = prio_queue(WQ_CREATE_PRIORITY, starve, NULL);
	char key[32], buf[64];
	int64_t t0 = now_ns();
	int32_t p;
	int i;

	ASSERT_LE(0, fd);
	ASSERT_EQ(WQ_ADDED_QUEUED, padd(fd, "low", -1));
	/* a worker that always has a fresh high key to take */
	for (i = 0;; i++) {
		snprintf(key, sizeof(key), "high%d", i);
		ASSERT_EQ(WQ_ADDED_QUEUED, padd(fd, key, 10));
		ASSERT_LT(0, pget(fd, buf, &p));
		if (!strcmp(buf, "low"))
			break;
		ASSERT_EQ(0, pdone(fd, buf));
		ASSERT_GT(t0 + 60 * SEC, now_ns()) TH_LOG("low starved");
		wqt_sleep_ms(5);
	}
	EXPECT_EQ(-1, p);
	EXPECT_LE(t0 + starve, now_ns()) TH_LOG("low went early");
	close(fd);
}

/* Among starved keys, FIFO: the oldest first, whatever the priorities. */
TEST_F(prio, starved_keys_go_in_age_order)
{
	int fd = prio_queue(WQ_CREATE_PRIORITY, 100 * MS, NULL);

	ASSERT_LE(0, fd);
	ASSERT_EQ(WQ_ADDED_QUEUED, padd(fd, "old-low", -9));
	ASSERT_EQ(WQ_ADDED_QUEUED, padd(fd, "mid", 0));
	ASSERT_EQ(WQ_ADDED_QUEUED, padd(fd, "young-high", 9));
	/* a raise keeps the age */
	ASSERT_EQ(WQ_ADDED_COALESCED, padd(fd, "mid", 5));
	wqt_sleep_ms(300);
	ASSERT_EQ(WQ_ADDED_QUEUED, padd(fd, "fresh", 100));
	EXPECT_NEXT(fd, "old-low", -9);
	EXPECT_NEXT(fd, "mid", 5);
	EXPECT_NEXT(fd, "young-high", 9);
	EXPECT_NEXT(fd, "fresh", 100);
	close(fd);
}

/* A plain queue takes no priority, and reports 0. */
TEST(plain_queue_refuses_priorities)
{
	struct wq_create c;
	struct wq_key_info ks;
	int fd;

	if (!wqt_have_dev())
		SKIP(return, "/dev/wq missing (module not loaded)");
	fd = prio_queue(0, 0, NULL);
	ASSERT_LE(0, fd);
	EXPECT_EQ(-EINVAL, padd(fd, "k", 3));
	EXPECT_EQ(-EINVAL, padd_full(fd, "k", WQ_ADD_RATE_LIMITED |
				     WQ_ADD_AFTER, 0, MS, NULL));
	EXPECT_EQ(0, wq_len(fd));
	EXPECT_EQ(WQ_ADDED_QUEUED, padd(fd, "k", 0));
	ASSERT_EQ(0, pstate(fd, "k", &ks));
	EXPECT_EQ(0, ks.priority);
	EXPECT_NEXT(fd, "k", 0);
	close(fd);
	/* starve_ns without WQ_CREATE_PRIORITY, unknown flags */
	EXPECT_EQ(-EINVAL, prio_queue(0, SEC, NULL));
	EXPECT_EQ(-EINVAL, prio_queue(1U << 7, 0, NULL));
	/* an old (first-version) struct wq_create still makes a plain queue */
	fd = raw_open_dev();
	ASSERT_LE(0, fd);
	memset(&c, 0, sizeof(c));
	c.flags = WQ_CREATE_PRIVATE;
	EXPECT_EQ(0, ioctl(fd, _IOW(WQ_IOC_MAGIC, 0x01,
				    char[offsetof(struct wq_create,
						  starve_ns)]), &c));
	EXPECT_EQ(-EINVAL, padd(fd, "k", 1));
	close(fd);
}

/* Reserved and output fields must be 0, and a bad call changes nothing. */
TEST_F(prio, bad_input_changes_nothing)
{
	struct wq_get g = { .buf = 0, .buf_cap = 0, .priority = 1 };
	struct wq_add a = {
		.key_len = 1, .key = (uintptr_t)"z", .priority = 3,
	};

	EXPECT_EQ(EINVAL, xioctl(self->fd, WQ_IOC_ADD, &a)); /* no flag */
	EXPECT_EQ(EINVAL, xioctl(self->fd, WQ_IOC_GET, &g));
	EXPECT_EQ(0, wq_len(self->fd));
	EXPECT_EQ(-EAGAIN, pget(self->fd, (char[64]){}, NULL));
}

/*
 * A struct whose size ends inside its priority is zero-extended there: the
 * priority is its first bytes (-5 is 0xfffffffb; one byte of it is 251).
 */
TEST_F(prio, a_size_inside_the_priority_keeps_its_first_bytes)
{
	const size_t at = offsetof(struct wq_batch, priority);
	struct wq_iov iov = { .base = (uintptr_t)"k11", .len = 3 };
	struct wq_batch b = {
		.flags = WQ_ADD_PRIORITY, .count = 1, .keys = (uintptr_t)&iov,
		.priority = -5,
	};
	struct wq_add a = {
		.flags = WQ_ADD_PRIORITY, .key_len = 2, .key = (uintptr_t)"k2",
		.priority = -5,
	};

	EXPECT_EQ(1, ioctl(self->fd, IOC_SIZED(WQ_IOC_ADD_BATCH, at + 1), &b));
	EXPECT_EQ(0, ioctl(self->fd, IOC_SIZED(WQ_IOC_ADD,
					       offsetof(struct wq_add,
							priority) + 2), &a));
	EXPECT_NEXT(self->fd, "k2", 0xfffb);
	EXPECT_NEXT(self->fd, "k11", 251);
	iov.base = (uintptr_t)"k12";
	EXPECT_EQ(1, ioctl(self->fd, IOC_SIZED(WQ_IOC_ADD_BATCH, at + 4), &b));
	EXPECT_NEXT(self->fd, "k12", -5);
}

TEST_HARNESS_MAIN
