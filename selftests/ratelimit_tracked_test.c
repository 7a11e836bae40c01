// SPDX-License-Identifier: GPL-2.0
/*
 * max_tracked: the most keys a queue keeps only for their rate-limiter
 * failures (idle: neither queued, waiting nor processing). Beyond it the
 * least recently used idle failure record is forgotten and counted in
 * evicted; held keys are never forgotten. The module's default applies
 * to queues created with 0, libwq's among them.
 *
 * libwq reads max_tracked and evicted (struct wq_stats) but creates
 * queues with the default only, and does not report the module's
 * default_max_tracked: those two go through the raw ioctls.
 */
#include "wq_test_util.h"
#include "wq_test_ioctl.h"
#include "wq_test_ratelimit.h"

/* exponential:BASE:MAX as an ABI limiter description */
static struct wq_limiter exp_limiter(uint64_t base, uint64_t max)
{
	const struct wq_limiter lim = {
		.nr_terms = 1,
		.terms = { { .kind = WQ_LIMITER_EXPONENTIAL,
			     .exponential = { .base_ns = base, .max_ns = max } } },
	};

	return lim;
}

/* A new queue of the fixture, by the raw WQ_IOC_CREATE, with max_tracked;
 * its fd or -errno. */
static int rl_new_raw(FIXTURE_DATA(rl) *self, const char *tag,
		      const struct wq_limiter *lim, uint32_t max_items,
		      uint32_t max_tracked)
{
	int i = self->n, fd, err;

	if (i >= RL_QUEUES)
		return -ENOSPC;
	fd = raw_open_dev();
	if (fd < 0)
		return fd;
	wqt_name(self->name[i], tag);
	err = raw_create(fd, self->name[i], lim, max_items, max_tracked);
	if (err) {
		close(fd);
		self->name[i][0] = '\0';
		return -err;
	}
	self->fd[i] = fd;
	self->n++;
	return fd;
}

#define NEWQ_RAW(fd, lim, max_items, max_tracked) do {			\
		fd = rl_new_raw(self, _metadata->name, lim, max_items,	\
				max_tracked);				\
		ASSERT_LE(0, fd) TH_LOG("WQ_IOC_CREATE: %s", strerror(-fd)); \
	} while (0)

/*
 * Fails key s once (exponential:1ns:2ns: it waits a nanosecond or two), takes
 * it and marks it done: afterwards the queue keeps it only for its failures.
 * 0, or a negative error / -1000 for a wrong key.
 */
static int make_idle(int fd, const char *s)
{
	char buf[WQ_KEY_MAX + 1];
	ssize_t n;
	int r = ARL(fd, s, NULL);

	if (r)
		return r;
	n = get_str(fd, buf, sizeof(buf), UPPER_MS);
	if (n < 0)
		return (int)n;
	if (strcmp(buf, s))
		return -1000;
	return DONE(fd, s);
}

#define MAKE_IDLE(fd, s)						\
	ASSERT_EQ(0, make_idle(fd, s)) TH_LOG("make_idle(%s)", s)

#define EXPECT_TRACKED(fd, want_tracked, want_evicted) do {		\
		struct wq_stats _st;					\
		ASSERT_EQ(0, wqt_stat(fd, &_st));			\
		EXPECT_EQ((uint32_t)(want_tracked), _st.tracked);	\
		EXPECT_EQ((uint64_t)(want_evicted), _st.evicted);	\
	} while (0)

/*
 * On a queue with max_tracked 2: makes the keys idle in turn (two records,
 * none evicted), then one more key "c": still two records, one evicted.
 */
static void fill_then_evict(struct __test_metadata *_metadata, int fd,
			    const char *const *keys, int n)
{
	int i;

	for (i = 0; i < n; i++)
		MAKE_IDLE(fd, keys[i]);
	EXPECT_TRACKED(fd, 2, 0);
	MAKE_IDLE(fd, "c");
	EXPECT_TRACKED(fd, 2, 1);
}

TEST_F(rl, max_tracked_default)
{
	struct wq_limiter lim = exp_limiter(1, 2);
	struct wq_module_info mi;
	struct wq_stats st;
	int fd;

	ASSERT_EQ(0, raw_module_info(&mi));
	ASSERT_LT(0U, mi.default_max_tracked);
	NEWQ_RAW(fd, &lim, 0, 0);
	ASSERT_EQ(0, wqt_stat(fd, &st));
	EXPECT_EQ(mi.default_max_tracked, st.max_tracked);
	EXPECT_EQ(0ULL, (unsigned long long)st.evicted);
	NEWQ_RAW(fd, &lim, 0, 2);
	EXPECT_STATS(fd, STAT(max_tracked, 2));
	/* libwq's queues get the default */
	NEWQ(fd, "exponential:1ns:2ns", 0);
	EXPECT_STATS(fd, STAT(max_tracked, mi.default_max_tracked));
}

/* Beyond max_tracked idle records, the oldest is forgotten and counted. */
TEST_F(rl, max_tracked_evicts_oldest)
{
	struct wq_limiter lim = exp_limiter(1, 2);
	uint64_t d = 0;
	int fd;

	NEWQ_RAW(fd, &lim, 0, 2);
	fill_then_evict(_metadata, fd, (const char *const []){ "a", "b" }, 2);
	EXPECT_REQUEUES(fd, "a", 0);
	EXPECT_REQUEUES(fd, "b", 1);
	EXPECT_REQUEUES(fd, "c", 1);
	EXPECT_STATS(fd, STAT(keys, 0), STAT(waiting, 0));
	/* a starts again from its first failure (1ns), b goes now */
	ASSERT_EQ(0, ARL(fd, "a", &d));
	ASSERT_EQ(1ULL, d);
	EXPECT_TRACKED(fd, 3, 1);	/* a is held: not capped */
	ASSERT_EQ(1, wait_len(fd, 1));
	EXPECT_GET(fd, "a");
	ASSERT_EQ(0, DONE(fd, "a"));
	EXPECT_TRACKED(fd, 2, 2);
	EXPECT_REQUEUES(fd, "b", 0);
	EXPECT_REQUEUES(fd, "c", 1);
	EXPECT_REQUEUES(fd, "a", 1);
	/* Forget of an idle record is not an eviction */
	ASSERT_EQ(0, FORGET(fd, "c"));
	EXPECT_TRACKED(fd, 1, 2);
	MAKE_IDLE(fd, "d");
	EXPECT_TRACKED(fd, 2, 2);
	EXPECT_REQUEUES(fd, "a", 1);
	EXPECT_REQUEUES(fd, "d", 1);
}

/* Least recently used: a key that was held again goes to the back. */
TEST_F(rl, max_tracked_lru_order)
{
	struct wq_limiter lim = exp_limiter(1, 2);
	int fd;

	NEWQ_RAW(fd, &lim, 0, 2);
	/* a again: 2 failures, now newer than b */
	fill_then_evict(_metadata, fd, (const char *const []){ "a", "b", "a" },
			3);
	EXPECT_REQUEUES(fd, "b", 0);
	EXPECT_REQUEUES(fd, "a", 2);
	EXPECT_REQUEUES(fd, "c", 1);
}

/* Keys that are processing, waiting or queued are never evicted. */
TEST_F(rl, max_tracked_held_never_evicted)
{
	struct wq_limiter lim = exp_limiter(1, 2);
	char buf[16];
	int fd;

	NEWQ_RAW(fd, &lim, 0, 1);
	/* p: processing */
	ASSERT_EQ(0, ARL(fd, "p", NULL));
	ASSERT_EQ(1, get_str(fd, buf, sizeof(buf), UPPER_MS));
	ASSERT_STREQ("p", buf);
	/* w: waiting (an hour) */
	ASSERT_EQ(0, ARL(fd, "w", NULL));
	ASSERT_EQ(1, get_str(fd, buf, sizeof(buf), UPPER_MS));
	ASSERT_STREQ("w", buf);
	ASSERT_EQ(0, wq_add_after(fd, "w", 1, 1 * HOUR));
	ASSERT_EQ(0, DONE(fd, "w"));
	/* a: idle, within max_tracked */
	MAKE_IDLE(fd, "a");
	EXPECT_TRACKED(fd, 3, 0);
	/* q: queued behind b; b goes idle and pushes a out */
	ASSERT_EQ(0, ARL(fd, "b", NULL));
	ASSERT_EQ(1, wait_len(fd, 1));
	ASSERT_EQ(0, ARL(fd, "q", NULL));
	ASSERT_EQ(2, wait_len(fd, 2));
	EXPECT_GET(fd, "b");
	ASSERT_EQ(0, DONE(fd, "b"));
	EXPECT_TRACKED(fd, 4, 1);	/* p, w, q held; b idle */
	EXPECT_REQUEUES(fd, "a", 0);
	EXPECT_REQUEUES(fd, "b", 1);
	EXPECT_REQUEUES(fd, "p", 1);
	EXPECT_REQUEUES(fd, "w", 1);
	EXPECT_REQUEUES(fd, "q", 1);
	/* churn more idle keys through the cap: held keys stay */
	EXPECT_STATS(fd, STAT(keys, 3), STAT(queued, 1), STAT(processing, 1),
		     STAT(waiting, 1));
	EXPECT_GET(fd, "q");		/* q: processing now */
	MAKE_IDLE(fd, "c");
	MAKE_IDLE(fd, "d");
	MAKE_IDLE(fd, "e");
	EXPECT_TRACKED(fd, 4, 4);
	EXPECT_REQUEUES(fd, "p", 1);
	EXPECT_REQUEUES(fd, "w", 1);
	EXPECT_REQUEUES(fd, "q", 1);
	EXPECT_REQUEUES(fd, "e", 1);
	EXPECT_REQUEUES(fd, "d", 0);
	/* once done, p and q are idle too and the cap applies to them */
	ASSERT_EQ(0, DONE(fd, "p"));
	ASSERT_EQ(0, DONE(fd, "q"));
	EXPECT_TRACKED(fd, 2, 6);	/* w held, q idle */
	EXPECT_REQUEUES(fd, "q", 1);
	EXPECT_REQUEUES(fd, "p", 0);
	EXPECT_REQUEUES(fd, "e", 0);
	EXPECT_REQUEUES(fd, "w", 1);
}

TEST_HARNESS_MAIN
