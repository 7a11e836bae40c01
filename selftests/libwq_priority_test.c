// SPDX-License-Identifier: GPL-2.0
/*
 * Priority queues through libwq (wq_create(3) attr.priority, wq_add_opts(3)
 * WQ_ADD_PRIORITY, wq_get_priority, the batches), what an add did on them,
 * a key's state (wq_key_state(3)), cancelling a waiting copy
 * (wq_cancel_after), the metrics by level, and the older versions of
 * the calls whose structs grew: wq_create (1.0), wq_create_private (1.2),
 * wq_metrics (1.0), wq_stat and wq_list (1.1).
 */
#include "wq_test_util.h"
#include "wq_test_ioctl.h"

/* libwq's older versions, as a binary built against them binds */
int wq_create_v1_0(const char *name, const void *attr);
int wq_create_private_v1_2(const void *attr);
int wq_metrics_v1_0(int fd, void *m);
int wq_stat_v1_1(int fd, void *st);
int wq_list_v1_1(void *st, size_t cap);
__asm__(".symver wq_create_v1_0, wq_create@WQ_1.0");
__asm__(".symver wq_create_private_v1_2, wq_create_private@WQ_1.2");
__asm__(".symver wq_metrics_v1_0, wq_metrics@WQ_1.0");
__asm__(".symver wq_stat_v1_1, wq_stat@WQ_1.1");
__asm__(".symver wq_list_v1_1, wq_list@WQ_1.1");
#define STATS_SIZE_1_1	offsetof(struct wq_stats, priority)

/* libwq 1.0's struct wq_attr, followed by bytes it never had */
struct old_attr {
	const char *limiter;
	uint32_t max_items;
	mode_t mode;
	unsigned char after[16];
};

/* An add with a priority (flags: more WQ_ADD_*); WQ_ADDED_* or -errno. */
static int addp(int fd, const char *key, int32_t prio, uint32_t flags,
		uint64_t delay_ns)
{
	struct wq_add_opts o = { .flags = WQ_ADD_PRIORITY | flags,
				 .priority = prio, .delay_ns = delay_ns };

	return wq_add_opts(fd, key, strlen(key), &o);
}

/*
 * Takes every queued key without waiting, as "key:prio key:prio ...",
 * each done at once if done is set.
 */
static const char *take_all(int fd, bool done)
{
	static char out[2048];
	char k[WQ_KEY_MAX + 1];
	size_t used = 0;
	ssize_t n;
	int prio;

	out[0] = '\0';
	while (used < sizeof(out) - 64 &&
	       (n = wq_get_priority(fd, k, WQ_KEY_MAX, 0, &prio)) > 0) {
		k[n] = '\0';
		used += (size_t)snprintf(out + used, sizeof(out) - used,
					 "%s%s:%d", used ? " " : "", k, prio);
		if (done)
			wq_done(fd, k, (size_t)n);
	}
	return out;
}

/* The state of a string key; flags 0xdead if the call failed. */
static struct wq_key_state state_of(int fd, const char *key)
{
	struct wq_key_state st;

	memset(&st, 0xa5, sizeof(st));
	if (wq_key_state(fd, key, strlen(key), &st))
		st.flags = 0xdead;
	return st;
}

/* A priority queue with a limiter whose delays never pass in a test. */
WQT_FIXTURE_ATTR(prio, .limiter = "exponential:1h:4h", .priority = 1);
WQT_FIXTURE(plain);

/* ---- queues ---------------------------------------------------------- */

TEST_F(prio, attributes_are_checked_and_reported)
{
	struct wq_attr bad = { .priority = 2 };
	struct wq_module_info mi;
	char other[WQ_NAME_MAX];
	struct wq_stats st;
	int fd;

	ASSERT_EQ(0, raw_module_info(&mi));
	EXPECT_TRUE(mi.features & WQ_FEATURE_PRIORITY);
	EXPECT_TRUE(mi.features & WQ_FEATURE_KEY_CALLS);
	wqt_name(other, "prio.attr");
	EXPECT_EQ(-EINVAL, wq_create(other, &bad));
	bad.priority = 0;
	bad.starve_ns = SEC;			/* starving without priorities */
	EXPECT_EQ(-EINVAL, wq_create(other, &bad));
	EXPECT_EQ(-EINVAL, wq_create_private(&bad));
	EXPECT_EQ(-ENOENT, wq_open(other));	/* nothing made */

	ASSERT_EQ(0, wqt_stat(self->fd, &st));
	EXPECT_EQ(1, st.priority);
	bad.priority = 1;			/* now good: starve 1 s */
	fd = wq_create_private(&bad);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, wqt_stat(fd, &st));
	EXPECT_EQ(1, st.priority);
	EXPECT_EQ(WQ_ADDED_QUEUED, addp(fd, "k", 3, 0, 0));
	EXPECT_STREQ("k:3", take_all(fd, true));
	close(fd);
}

TEST_F(plain, a_plain_queue_has_no_priorities)
{
	struct iovec keys[2] = { { "a", 1 }, { "b", 1 } };
	int prios[2] = { 7, 7 }, prio = 7, results[2] = { 9, 9 };
	struct wq_add_opts o = { .flags = WQ_ADD_PRIORITY, .priority = 1 };
	/* the shorter of the two: a priority queue's */
	struct wq_add_opts rl = { .flags = WQ_ADD_AFTER | WQ_ADD_RATE_LIMITED,
				  .delay_ns = SEC };
	struct wq_metrics m;
	struct wq_stats st;
	char buf[64];

	ASSERT_EQ(0, wqt_stat(self->fd, &st));
	EXPECT_EQ(0, st.priority);
	EXPECT_EQ(-EINVAL, addp(self->fd, "a", 1, 0, 0));
	EXPECT_EQ(-EINVAL, wq_add_opts(self->fd, "a", 1, &rl));
	EXPECT_EQ(-EINVAL, wq_add_batch_opts(self->fd, keys, 2, &o, results));
	EXPECT_EQ(9, results[0]);		/* a failed call writes nothing */
	EXPECT_QUEUE_EMPTY(self->fd);
	EXPECT_EQ(2, wq_add_batch_opts(self->fd, keys, 2, NULL, results));
	EXPECT_EQ(WQ_ADDED_QUEUED, results[0]);
	EXPECT_EQ(1, wq_get_priority(self->fd, buf, sizeof(buf), 0, &prio));
	EXPECT_EQ(0, prio);
	EXPECT_EQ(1, wq_get_batch_priority(self->fd, buf, sizeof(buf), keys, 2,
					   0, prios));
	EXPECT_EQ(0, prios[0]);
	EXPECT_EQ(0, wq_metrics(self->fd, &m));
	EXPECT_EQ(0U, m.nr_levels);
	EXPECT_EQ(0, state_of(self->fd, "a").priority);
	EXPECT_EQ((uint32_t)WQ_KEY_PROCESSING, state_of(self->fd, "a").flags);
}

/* ---- the order --------------------------------------------------------- */

TEST_F(prio, higher_first_then_in_order_of_readiness)
{
	EXPECT_EQ(WQ_ADDED_QUEUED, addp(self->fd, "a", 0, 0, 0));
	EXPECT_EQ(WQ_ADDED_QUEUED, addp(self->fd, "b", 5, 0, 0));
	EXPECT_EQ(0, ADD(self->fd, "c"));		/* priority 0 */
	EXPECT_EQ(WQ_ADDED_QUEUED, addp(self->fd, "d", -1, 0, 0));
	EXPECT_EQ(WQ_ADDED_QUEUED, addp(self->fd, "e", INT32_MAX, 0, 0));
	EXPECT_EQ(WQ_ADDED_QUEUED, addp(self->fd, "f", 5, 0, 0));
	EXPECT_EQ(WQ_ADDED_QUEUED, addp(self->fd, "g", INT32_MIN, 0, 0));
	EXPECT_STREQ("e:2147483647 b:5 f:5 a:0 c:0 d:-1 g:-2147483648",
		     take_all(self->fd, true));
}

TEST_F(prio, an_add_keeps_the_higher_and_a_raise_goes_to_the_tail)
{
	EXPECT_EQ(WQ_ADDED_QUEUED, addp(self->fd, "a", 1, 0, 0));
	EXPECT_EQ(WQ_ADDED_QUEUED, addp(self->fd, "b", 1, 0, 0));
	EXPECT_EQ(WQ_ADDED_QUEUED, addp(self->fd, "c", 1, 0, 0));
	EXPECT_EQ(WQ_ADDED_QUEUED, addp(self->fd, "d", 5, 0, 0));
	EXPECT_EQ(WQ_ADDED_COALESCED, addp(self->fd, "a", 0, 0, 0));
	EXPECT_EQ(WQ_ADDED_COALESCED, wq_add_opts(self->fd, "a", 1, NULL));
	EXPECT_EQ(1, state_of(self->fd, "a").priority);	/* never lowered */
	EXPECT_EQ(WQ_ADDED_COALESCED, addp(self->fd, "b", 5, 0, 0));
	EXPECT_EQ(5, state_of(self->fd, "b").priority);
	EXPECT_EQ(WQ_ADDED_COALESCED, addp(self->fd, "b", 5, 0, 0));
	EXPECT_STREQ("d:5 b:5 a:1 c:1", take_all(self->fd, true));
}

/* Queued again at done with the highest of the adds made meanwhile. */
TEST_F(prio, a_dirty_key_comes_back_with_the_adds_priority)
{
	struct wq_key_state st;

	EXPECT_EQ(WQ_ADDED_QUEUED, addp(self->fd, "a", 1, 0, 0));
	EXPECT_STREQ("a:1", take_all(self->fd, false));
	EXPECT_EQ(WQ_ADDED_DIRTY, addp(self->fd, "a", 3, 0, 0));
	EXPECT_EQ(WQ_ADDED_DIRTY, addp(self->fd, "a", 2, 0, 0));
	st = state_of(self->fd, "a");
	EXPECT_EQ((uint32_t)(WQ_KEY_PROCESSING | WQ_KEY_DIRTY), st.flags);
	EXPECT_EQ(1, st.priority);		/* as it was handed out */
	EXPECT_EQ(WQ_ADDED_QUEUED, addp(self->fd, "b", 2, 0, 0));
	EXPECT_EQ(WQ_ADDED_QUEUED, addp(self->fd, "c", 3, 0, 0));
	EXPECT_EQ(0, DONE(self->fd, "a"));	/* the tail of level 3 */
	EXPECT_EQ(3, state_of(self->fd, "a").priority);
	EXPECT_STREQ("c:3 a:3 b:2", take_all(self->fd, true));

	/* an add without a priority gives 0: not the one handed out with */
	EXPECT_EQ(WQ_ADDED_QUEUED, addp(self->fd, "x", 4, 0, 0));
	EXPECT_STREQ("x:4", take_all(self->fd, false));
	EXPECT_EQ(0, ADD(self->fd, "x"));
	EXPECT_EQ(0, DONE(self->fd, "x"));
	EXPECT_EQ(WQ_ADDED_QUEUED, addp(self->fd, "y", 1, 0, 0));
	EXPECT_STREQ("y:1 x:0", take_all(self->fd, true));
}

/* ---- delays ---------------------------------------------------------- */

TEST_F(prio, delays_on_a_priority_queue)
{
	struct wq_key_state st;
	int64_t t0 = now_ns();

	EXPECT_EQ(WQ_ADDED_WAITING, addp(self->fd, "w", 4, WQ_ADD_AFTER, HOUR));
	st = state_of(self->fd, "w");
	EXPECT_EQ((uint32_t)WQ_KEY_WAITING, st.flags);
	EXPECT_EQ(4, st.priority);
	EXPECT_LE((uint64_t)(t0 + HOUR), st.ready_ns);
	EXPECT_GE((uint64_t)(now_ns() + HOUR), st.ready_ns);
	/* a later time is kept out, a higher priority is not */
	EXPECT_EQ(WQ_ADDED_KEPT, addp(self->fd, "w", 6, WQ_ADD_AFTER, 2 * HOUR));
	EXPECT_EQ(6, state_of(self->fd, "w").priority);
	EXPECT_EQ(st.ready_ns, state_of(self->fd, "w").ready_ns);
	/* an add without a delay: ready now, the waiting copy gone */
	EXPECT_EQ(WQ_ADDED_QUEUED, addp(self->fd, "w", 0, 0, 0));
	st = state_of(self->fd, "w");
	EXPECT_EQ((uint32_t)WQ_KEY_QUEUED, st.flags);
	EXPECT_EQ(0U, st.ready_ns);
	EXPECT_EQ(6, st.priority);
	EXPECT_STATS(self->fd, STAT(queued, 1), STAT(waiting, 0));
	/* a delayed add of a queued key: only its priority */
	EXPECT_EQ(WQ_ADDED_COALESCED, addp(self->fd, "w", 8, WQ_ADD_AFTER, HOUR));
	EXPECT_EQ((uint32_t)WQ_KEY_QUEUED, state_of(self->fd, "w").flags);
	EXPECT_EQ(8, state_of(self->fd, "w").priority);
	EXPECT_STATS(self->fd, STAT(queued, 1), STAT(waiting, 0));

	/* a fired delay is ready at its priority */
	EXPECT_EQ(WQ_ADDED_QUEUED, addp(self->fd, "y", 1, 0, 0));
	EXPECT_EQ(WQ_ADDED_WAITING, addp(self->fd, "z", 9, WQ_ADD_AFTER, 20 * MS));
	ASSERT_LT(0, WAIT_STAT(self->fd, waiting, 0));
	EXPECT_STREQ("z:9 w:8 y:1", take_all(self->fd, true));
}

/* WQ_ADD_RATE_LIMITED with WQ_ADD_AFTER: the shorter (the limiter: 1 h). */
TEST_F(prio, rate_limited_after_waits_the_shorter)
{
	const uint32_t rl_after = WQ_ADD_AFTER | WQ_ADD_RATE_LIMITED;
	struct wq_key_state st;
	int64_t t0 = now_ns();

	EXPECT_EQ(WQ_ADDED_WAITING, addp(self->fd, "r", 2, rl_after, 20 * MS));
	EXPECT_EQ(1U, state_of(self->fd, "r").requeues);
	ASSERT_EQ(1, wait_len(self->fd, 1));	/* not in an hour */
	EXPECT_STREQ("r:2", take_all(self->fd, true));

	EXPECT_EQ(WQ_ADDED_WAITING, addp(self->fd, "s", 0, rl_after, 3 * HOUR));
	st = state_of(self->fd, "s");
	EXPECT_EQ(1U, st.requeues);
	EXPECT_LE((uint64_t)(t0 + HOUR), st.ready_ns);
	EXPECT_GE((uint64_t)(now_ns() + HOUR), st.ready_ns);
}

/* A key ready longer than starve_ns goes first; FIFO among those. */
TEST(starving_keys_go_first)
{
	struct wq_attr attr = { .priority = 1, .starve_ns = 100 * MS };
	int64_t t0;
	int fd;

	if (!wqt_have_dev())
		SKIP(return, "/dev/wq missing (module not loaded)");
	fd = wq_create_private(&attr);
	ASSERT_LE(0, fd);
	t0 = now_ns();
	EXPECT_EQ(WQ_ADDED_QUEUED, addp(fd, "old0", 0, 0, 0));
	EXPECT_EQ(WQ_ADDED_QUEUED, addp(fd, "old1", 1, 0, 0));
	EXPECT_EQ(WQ_ADDED_QUEUED, addp(fd, "raised", 0, 0, 0));
	sleep_until_ns(t0 + 250 * MS);
	/* a raise keeps the age: still starved, after old1 */
	EXPECT_EQ(WQ_ADDED_COALESCED, addp(fd, "raised", 7, 0, 0));
	EXPECT_EQ(WQ_ADDED_QUEUED, addp(fd, "new", 10, 0, 0));
	SKIP_IF_STALLED(now_ns() - t0 > 2 * SEC, "the new key starved too");
	EXPECT_STREQ("old0:0 old1:1 raised:7 new:10", take_all(fd, true));
	close(fd);

	/* without starve_ns the priorities alone decide */
	attr.starve_ns = 0;
	fd = wq_create_private(&attr);
	ASSERT_LE(0, fd);
	EXPECT_EQ(WQ_ADDED_QUEUED, addp(fd, "old", 0, 0, 0));
	wqt_sleep_ms(150);
	EXPECT_EQ(WQ_ADDED_QUEUED, addp(fd, "new", 10, 0, 0));
	EXPECT_STREQ("new:10 old:0", take_all(fd, true));
	close(fd);
}

/* ---- a key's state, cancelling a delay ------------------------------ */

TEST_F(prio, key_state_says_what_the_queue_holds)
{
	struct wq_key_state st;
	char big[WQ_KEY_MAX + 1];

	st = state_of(self->fd, "nobody");
	EXPECT_EQ(0U, st.flags);
	EXPECT_EQ(0, st.priority);
	EXPECT_EQ(0U, st.ready_ns);
	EXPECT_EQ(0U, st.requeues);
	EXPECT_EQ(WQ_ADDED_QUEUED, addp(self->fd, "k", -3, 0, 0));
	st = state_of(self->fd, "k");
	EXPECT_EQ((uint32_t)WQ_KEY_QUEUED, st.flags);
	EXPECT_EQ(-3, st.priority);
	EXPECT_STREQ("k:-3", take_all(self->fd, false));
	EXPECT_EQ((uint32_t)WQ_KEY_PROCESSING, state_of(self->fd, "k").flags);
	EXPECT_EQ(WQ_ADDED_WAITING, addp(self->fd, "k", 0, WQ_ADD_AFTER, HOUR));
	EXPECT_EQ((uint32_t)(WQ_KEY_PROCESSING | WQ_KEY_WAITING),
		  state_of(self->fd, "k").flags);
	EXPECT_EQ(0, DONE(self->fd, "k"));
	EXPECT_EQ((uint32_t)WQ_KEY_WAITING, state_of(self->fd, "k").flags);

	/* only counted by the limiter: not held, its failures said */
	EXPECT_EQ(0, wq_add_rate_limited(self->fd, "r", 1, NULL));
	ASSERT_EQ(1, wq_cancel_after(self->fd, "r", 1));
	st = state_of(self->fd, "r");
	EXPECT_EQ(0U, st.flags);
	EXPECT_EQ(1U, st.requeues);

	/* bad calls */
	memset(big, 'x', sizeof(big));
	EXPECT_EQ(-EINVAL, wq_key_state(self->fd, "k", 0, &st));
	EXPECT_EQ(-EINVAL, wq_key_state(self->fd, big, sizeof(big), &st));
	EXPECT_EQ(-EFAULT, wq_key_state(self->fd, "k", 1, NULL));
	EXPECT_EQ(-EBADF, wq_key_state(-1, "k", 1, &st));
	EXPECT_EQ(-EBADF, wq_key_state(0, "k", 1, &st));	/* not a queue */
}

TEST_F(prio, cancel_after_drops_the_waiting_copy_only)
{
	int ro = wq_open_flags(self->name, O_RDONLY);

	ASSERT_LE(0, ro);
	EXPECT_EQ(0, wq_cancel_after(self->fd, "none", 4));
	EXPECT_EQ(WQ_ADDED_WAITING, addp(self->fd, "w", 1, WQ_ADD_AFTER, HOUR));
	EXPECT_EQ(-EBADF, wq_cancel_after(ro, "w", 1));	/* needs write */
	EXPECT_EQ(1, wq_cancel_after(self->fd, "w", 1));
	EXPECT_EQ(0, wq_cancel_after(self->fd, "w", 1));
	EXPECT_EQ(0U, state_of(self->fd, "w").flags);
	EXPECT_STATS(self->fd, STAT(waiting, 0), STAT(keys, 0));

	/* processing and waiting: it stays processing */
	EXPECT_EQ(WQ_ADDED_QUEUED, addp(self->fd, "p", 1, 0, 0));
	EXPECT_STREQ("p:1", take_all(self->fd, false));
	EXPECT_EQ(WQ_ADDED_WAITING, addp(self->fd, "p", 1, WQ_ADD_AFTER, HOUR));
	EXPECT_EQ(1, wq_cancel_after(self->fd, "p", 1));
	EXPECT_EQ((uint32_t)WQ_KEY_PROCESSING, state_of(self->fd, "p").flags);
	EXPECT_EQ(0, DONE(self->fd, "p"));
	EXPECT_QUEUE_EMPTY(self->fd);

	EXPECT_EQ(-EINVAL, wq_cancel_after(self->fd, "p", 0));
	EXPECT_EQ(-EBADF, wq_cancel_after(-1, "p", 1));
	wq_close(ro);
}

/* ---- batches ------------------------------------------------------- */

TEST_F(prio, batch_adds_say_what_they_did)
{
	struct iovec keys[4] = { { "a", 1 }, { "b", 1 }, { "a", 1 }, { "", 0 } };
	struct wq_add_opts o = { .flags = WQ_ADD_PRIORITY, .priority = 4 };
	int res[4] = { 9, 9, 9, 9 }, prio = 0;
	char buf[8];

	EXPECT_EQ(3, wq_add_batch_opts(self->fd, keys, 4, &o, res));
	EXPECT_EQ(WQ_ADDED_QUEUED, res[0]);
	EXPECT_EQ(WQ_ADDED_QUEUED, res[1]);
	EXPECT_EQ(WQ_ADDED_COALESCED, res[2]);
	EXPECT_EQ(-EINVAL, res[3]);
	ASSERT_EQ(1, wq_get_priority(self->fd, buf, sizeof(buf), 0, &prio));
	EXPECT_EQ('a', buf[0]);
	EXPECT_EQ(4, prio);
	o.priority = 9;		/* raises b; a is processing: dirty */
	EXPECT_EQ(2, wq_add_batch_opts(self->fd, keys, 2, &o, res));
	EXPECT_EQ(WQ_ADDED_DIRTY, res[0]);
	EXPECT_EQ(WQ_ADDED_COALESCED, res[1]);
	EXPECT_EQ(9, state_of(self->fd, "b").priority);
	EXPECT_EQ(2, wq_add_batch_opts(self->fd, keys, 2, NULL, NULL));
	EXPECT_EQ(2, wq_add_batch(self->fd, keys, 2, res));	/* as before */
	EXPECT_EQ(0, res[0]);
	EXPECT_EQ(0, res[1]);

	/* what a batch cannot carry, and bad batches: nothing done */
	res[0] = 9;
	o.flags = WQ_ADD_PRIORITY | WQ_ADD_AFTER;
	o.delay_ns = SEC;
	EXPECT_EQ(-EINVAL, wq_add_batch_opts(self->fd, keys, 2, &o, res));
	o = (struct wq_add_opts){ .priority = 1 };	/* without the flag */
	EXPECT_EQ(-EINVAL, wq_add_batch_opts(self->fd, keys, 2, &o, res));
	o = (struct wq_add_opts){ .timeout_ms = 1 };
	EXPECT_EQ(-EINVAL, wq_add_batch_opts(self->fd, keys, 2, &o, res));
	EXPECT_EQ(-EINVAL, wq_add_batch_opts(self->fd, keys, 0, NULL, res));
	EXPECT_EQ(-EINVAL, wq_add_batch_opts(self->fd, keys, WQ_BATCH_MAX + 1,
					     NULL, res));
	EXPECT_EQ(-EFAULT, wq_add_batch_opts(self->fd, NULL, 2, NULL, res));
	EXPECT_EQ(9, res[0]);
	EXPECT_EQ(0, DONE(self->fd, "a"));	/* dirty at 9: after b */
	EXPECT_STREQ("b:9 a:9", take_all(self->fd, true));
}

TEST_F(prio, batch_gets_in_order_with_priorities)
{
	struct iovec keys[8];
	char buf[256];
	int prios[8];
	ssize_t n;

	for (int i = 0; i < 6; i++) {
		char k[8];

		snprintf(k, sizeof(k), "k%d", i);
		ASSERT_EQ(WQ_ADDED_QUEUED, addp(self->fd, k, i % 3, 0, 0));
	}
	memset(prios, 0x55, sizeof(prios));
	n = wq_get_batch_priority(self->fd, buf, sizeof(buf), keys, 4, 0, prios);
	ASSERT_EQ(4, n);
	EXPECT_EQ(0, memcmp(keys[0].iov_base, "k2", 2));
	EXPECT_EQ(0, memcmp(keys[1].iov_base, "k5", 2));
	EXPECT_EQ(0, memcmp(keys[2].iov_base, "k1", 2));
	EXPECT_EQ(0, memcmp(keys[3].iov_base, "k4", 2));
	EXPECT_EQ(2, prios[0]);
	EXPECT_EQ(2, prios[1]);
	EXPECT_EQ(1, prios[2]);
	EXPECT_EQ(1, prios[3]);
	/* without priorities wanted, the same order */
	n = wq_get_batch_priority(self->fd, buf, sizeof(buf), keys, 8, 0, NULL);
	ASSERT_EQ(2, n);
	EXPECT_EQ(0, memcmp(keys[0].iov_base, "k0", 2));
	EXPECT_EQ(-EAGAIN, wq_get_batch_priority(self->fd, buf, sizeof(buf),
						 keys, 8, 0, prios));
	EXPECT_EQ(-EINVAL, wq_get_batch_priority(self->fd, buf, sizeof(buf),
						 keys, 0, 0, prios));
	EXPECT_EQ(-EFAULT, wq_get_batch_priority(self->fd, buf, sizeof(buf),
						 NULL, 2, 0, prios));
}

/* ---- metrics --------------------------------------------------------- */

TEST_F(prio, metrics_give_the_depth_by_level)
{
	struct wq_metrics m;
	uint64_t sum = 0;
	char k[8];
	int prio;

	ASSERT_EQ(0, wq_metrics(self->fd, &m));
	EXPECT_EQ(0U, m.nr_levels);
	EXPECT_EQ(WQ_ADDED_QUEUED, addp(self->fd, "a", 2, 0, 0));
	EXPECT_EQ(WQ_ADDED_QUEUED, addp(self->fd, "b", 2, 0, 0));
	EXPECT_EQ(WQ_ADDED_QUEUED, addp(self->fd, "c", -5, 0, 0));
	EXPECT_EQ(WQ_ADDED_QUEUED, addp(self->fd, "d", 7, 0, 0));
	ASSERT_EQ(1, wq_get_priority(self->fd, k, sizeof(k), 0, &prio));
	EXPECT_EQ('d', k[0]);
	EXPECT_EQ(7, prio);
	EXPECT_EQ(WQ_ADDED_DIRTY, addp(self->fd, "d", 1, 0, 0));  /* dirty at 1 */
	ASSERT_EQ(0, wq_metrics(self->fd, &m));
	EXPECT_EQ(4U, m.depth);
	ASSERT_EQ(3U, m.nr_levels);
	EXPECT_EQ(0U, m.levels_summed);
	EXPECT_EQ(2, m.levels[0].priority);
	EXPECT_EQ(2U, m.levels[0].depth);
	EXPECT_EQ(1, m.levels[1].priority);
	EXPECT_EQ(1U, m.levels[1].depth);
	EXPECT_EQ(-5, m.levels[2].priority);
	EXPECT_EQ(1U, m.levels[2].depth);

	/* more levels than reported one by one: the last sums the rest */
	for (int i = 0; i < 20; i++) {
		snprintf(k, sizeof(k), "l%d", i);
		ASSERT_EQ(WQ_ADDED_QUEUED, addp(self->fd, k, 100 + i, 0, 0));
	}
	ASSERT_EQ(0, wq_metrics(self->fd, &m));
	ASSERT_EQ((uint32_t)WQ_LEVELS_MAX, m.nr_levels);
	EXPECT_EQ(23U - (WQ_LEVELS_MAX - 1), m.levels_summed);
	EXPECT_EQ(119, m.levels[0].priority);
	EXPECT_EQ(105, m.levels[WQ_LEVELS_MAX - 2].priority);
	EXPECT_EQ(104, m.levels[WQ_LEVELS_MAX - 1].priority);
	EXPECT_EQ(9U, m.levels[WQ_LEVELS_MAX - 1].depth);  /* 104..100, 2, 1, -5 */
	for (int i = 0; i < WQ_LEVELS_MAX; i++)
		sum += m.levels[i].depth;
	EXPECT_EQ(m.depth, sum);
	EXPECT_EQ(24U, sum);
}

/* ---- the older versions of the calls whose structs grew ------------- */

TEST(libwq_1_0_create_reads_the_old_struct_only)
{
	struct old_attr old;
	char name[WQ_NAME_MAX];
	struct wq_stats st;
	int fd;

	if (!wqt_have_dev())
		SKIP(return, "/dev/wq missing (module not loaded)");
	memset(&old, 0xff, sizeof(old));	/* a priority of -1 after it */
	old.limiter = "none";
	old.max_items = 7;
	old.mode = 0600;
	wqt_name(name, "prio.old");
	fd = wq_create_v1_0(name, &old);
	ASSERT_LE(0, fd) TH_LOG("wq_create@WQ_1.0: %s", strerror(-fd));
	ASSERT_EQ(0, wqt_stat(fd, &st));
	EXPECT_EQ(0, st.priority);
	EXPECT_EQ(7U, st.max_items);
	EXPECT_STREQ("none", st.limiter);
	EXPECT_EQ(0600U, st.mode);
	wq_close(fd);
	EXPECT_EQ(0, wq_destroy(name));
	fd = wq_create_v1_0(name, NULL);
	ASSERT_LE(0, fd);
	wq_close(fd);
	EXPECT_EQ(0, wq_destroy(name));
	EXPECT_EQ(-EINVAL, wq_create_v1_0(NULL, &old));

	fd = wq_create_private_v1_2(&old);
	ASSERT_LE(0, fd) TH_LOG("wq_create_private@WQ_1.2: %s", strerror(-fd));
	ASSERT_EQ(0, wqt_stat(fd, &st));
	EXPECT_EQ(0, st.priority);
	EXPECT_EQ(7U, st.max_items);
	EXPECT_EQ(-EINVAL, addp(fd, "k", 1, 0, 0));	/* a plain queue */
	close(fd);
}

TEST_F(prio, libwq_1_0_metrics_fill_the_old_struct_only)
{
	unsigned char buf[sizeof(struct wq_metrics) + 16];
	struct wq_metrics cur;
	uint64_t depth;
	size_t i;

	EXPECT_EQ(WQ_ADDED_QUEUED, addp(self->fd, "a", 3, 0, 0));
	memset(buf, 0xa5, sizeof(buf));
	ASSERT_EQ(0, wq_metrics_v1_0(self->fd, buf));
	for (i = WQ_METRICS_INFO_SIZE_VER0; i < sizeof(buf); i++)
		ASSERT_EQ(0xa5, buf[i]) TH_LOG("byte %zu written", i);
	memcpy(&depth, buf + offsetof(struct wq_metrics, depth), sizeof(depth));
	EXPECT_EQ(1U, depth);
	ASSERT_EQ(0, wq_metrics(self->fd, &cur));
	EXPECT_EQ(0, memcmp(buf + offsetof(struct wq_metrics, queued),
			    &cur.queued, sizeof(cur.queued)));
	EXPECT_EQ(1U, cur.nr_levels);
	EXPECT_EQ(-EFAULT, wq_metrics_v1_0(self->fd, NULL));
	EXPECT_EQ(-EFAULT, wq_metrics(self->fd, NULL));
}

/* libwq 1.1's struct wq_stats ended before priority. */
TEST_F(prio, libwq_1_1_stat_and_list_fill_the_old_struct_only)
{
	unsigned char buf[2 * sizeof(struct wq_stats)];
	int i;

	memset(buf, 0xa5, sizeof(buf));
	ASSERT_EQ(0, wq_stat_v1_1(self->fd, buf));
	EXPECT_STREQ(self->name, (const char *)buf);
	for (i = STATS_SIZE_1_1; i < (int)sizeof(buf); i++)
		ASSERT_EQ(0xa5, buf[i]) TH_LOG("byte %d written", i);
	ASSERT_LE(1, wq_list_v1_1(buf, 1));	/* one entry, no more */
	for (i = STATS_SIZE_1_1; i < (int)sizeof(buf); i++)
		ASSERT_EQ(0xa5, buf[i]) TH_LOG("byte %d written", i);
}

/* ---- what wq_add_opts() and wq_get_priority() refuse ------------------ */

TEST_F(prio, bad_adds_change_nothing)
{
	struct wq_add_opts o = { .flags = WQ_ADD_PRIORITY, .priority = 1 };
	struct wq_stats st;
	char buf[8];
	int prio = 42;

	o.flags |= 1U << 20;
	EXPECT_EQ(-EINVAL, wq_add_opts(self->fd, "k", 1, &o));
	o = (struct wq_add_opts){ .priority = 1 };	/* without the flag */
	EXPECT_EQ(-EINVAL, wq_add_opts(self->fd, "k", 1, &o));
	o = (struct wq_add_opts){ .flags = WQ_ADD_PRIORITY, .delay_ns = 1 };
	EXPECT_EQ(-EINVAL, wq_add_opts(self->fd, "k", 1, &o));
	o = (struct wq_add_opts){ .flags = WQ_ADD_PRIORITY };
	EXPECT_EQ(-EINVAL, wq_add_opts(self->fd, "k", 0, &o));
	ASSERT_EQ(0, wqt_stat(self->fd, &st));
	EXPECT_EQ(0U, st.keys);
	EXPECT_EQ(0U, st.adds);
	EXPECT_EQ(-EAGAIN, wq_get_priority(self->fd, buf, sizeof(buf), 0, &prio));
	EXPECT_EQ(42, prio);			/* written only with a key */
	EXPECT_EQ(WQ_ADDED_QUEUED, wq_add_opts(self->fd, "k", 1, &o));
	EXPECT_EQ(1, wq_get_priority(self->fd, buf, sizeof(buf), 0, NULL));
}

TEST_HARNESS_MAIN
