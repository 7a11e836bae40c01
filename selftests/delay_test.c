// SPDX-License-Identifier: GPL-2.0
/*
 * DelayingInterface, the delays themselves: wq_add_after. Ports client-go's
 * delaying_queue_test.go D1-D4 to real time (CLOCK_MONOTONIC, the module's
 * clock), then: ready-time order with many keys, zero delay, plain adds of
 * a waiting key, a waiting copy firing into a queued or processing key, and
 * waiting keys in len, the stats and max_items.
 *
 * Timing checks are one-sided (wq_test_time.h). Shutdown, drain and the
 * lifetime of queues with waiting keys are delay_lifecycle_test.c; many
 * keys and threads delay_stress_test.c.
 */
#include "wq_test_util.h"
#include "wq_test_time.h"

WQT_FIXTURE(delay);

/* ---- client-go D1-D4 --------------------------------------------------- */

/* D1 TestSimpleQueue: a delayed key appears once, not before its time. */
TEST_F(delay, d1_simple)
{
	const int64_t d = 300 * MS;
	struct wq_stats st;
	int64_t t0, t, seen;
	int n;

	t0 = now_ns();
	ASSERT_EQ(0, AFTER(self->fd, "foo", d));
	n = wq_len(self->fd);
	if (STAT_BEFORE(self->fd, st, t0 + d)) {
		EXPECT_EQ(0, n);
		EXPECT_STATS_OF(st, STAT(waiting, 1), STAT(queued, 0),
				STAT(keys, 1));
	}
	/* Len becomes 1, never before t0 + d */
	for (;;) {
		n = wq_len(self->fd);
		t = now_ns();
		ASSERT_LE(0, n);
		if (n)
			break;
		ASSERT_GT(t0 + UPPER_MS * MS, t) TH_LOG("foo never fired");
		usleep(500);
	}
	ASSERT_EQ(1, n);
	ASSERT_LE(t0 + d, t) TH_LOG("foo queued %.3f ms early", ms_of(t0 + d - t));
	seen = t;
	EXPECT_GET(self->fd, "foo");
	ASSERT_EQ(0, DONE(self->fd, "foo"));
	/* no second firing (client-go steps the heartbeat here) */
	while (now_ns() < seen + 500 * MS) {
		ASSERT_EQ(0, wq_len(self->fd));
		wqt_sleep_ms(2);
	}
	EXPECT_NOTHING(self->fd);
	EXPECT_STATS(self->fd, STAT(waiting, 0), STAT(keys, 0));
}

/*
 * D2 TestDeduping, first half: a later AddAfter of a waiting key does not
 * postpone it (if it did, foo would wait an hour) and leaves no second
 * waiting entry behind.
 */
TEST_F(delay, d2_later_does_not_postpone)
{
	const int64_t d = 400 * MS;
	struct wq_stats st;
	int64_t t0, t1;

	t0 = now_ns();
	ASSERT_EQ(0, AFTER(self->fd, "foo", d));
	ASSERT_EQ(0, AFTER(self->fd, "foo", LONG_DELAY));
	t1 = now_ns();
	SKIP_IF_STALLED(t1 >= t0 + d, "the first AddAfter may have fired");
	if (STAT_BEFORE(self->fd, st, t0 + d))
		EXPECT_STATS_OF(st, STAT(queued, 0), STAT(waiting, 1),
				STAT(keys, 1));
	EXPECT_GET_AFTER(self->fd, "foo", t0 + d);
	ASSERT_EQ(0, DONE(self->fd, "foo"));
	/* the one-hour request was merged away: nothing waits any more */
	EXPECT_STATS(self->fd, STAT(waiting, 0), STAT(keys, 0));
	EXPECT_NOTHING(self->fd);
}

/* D2, second half: an earlier AddAfter advances a waiting key. */
TEST_F(delay, d2_earlier_advances)
{
	const int64_t d = 300 * MS;
	int64_t t1;

	ASSERT_EQ(0, AFTER(self->fd, "foo", LONG_DELAY));
	t1 = now_ns();
	ASSERT_EQ(0, AFTER(self->fd, "foo", d));
	EXPECT_GET_AFTER(self->fd, "foo", t1 + d);
	ASSERT_EQ(0, DONE(self->fd, "foo"));
	EXPECT_STATS(self->fd, STAT(waiting, 0), STAT(keys, 0));
	EXPECT_NOTHING(self->fd);
}

/*
 * D2 steps 5-7 in real time: AddAfter(foo, 800ms) then AddAfter(foo,
 * 400ms): foo fires once, at the earlier time, and there is no second
 * firing at the discarded later time.
 */
TEST_F(delay, d2_no_second_firing)
{
	const int64_t d_late = 800 * MS, d_early = 400 * MS;
	int64_t t0, t1, t1a;

	t0 = now_ns();
	ASSERT_EQ(0, AFTER(self->fd, "foo", d_late));
	t1 = now_ns();
	ASSERT_EQ(0, AFTER(self->fd, "foo", d_early));
	t1a = now_ns();
	SKIP_IF_STALLED(t1a >= t0 + d_early, "foo may have fired in between");
	EXPECT_STATS(self->fd, STAT(keys, 1));
	EXPECT_GET_AFTER(self->fd, "foo", t1 + d_early);
	ASSERT_EQ(0, DONE(self->fd, "foo"));
	/* well past the discarded ready time */
	sleep_until_ns(t1a + d_late + 400 * MS);
	ASSERT_EQ(0, wq_len(self->fd));
	EXPECT_NOTHING(self->fd);
	EXPECT_STATS(self->fd, STAT(waiting, 0), STAT(keys, 0));
}

/* The same both ways round with many keys: earliest wins for each. */
TEST_F(delay, d2_earliest_wins_many_keys)
{
	enum { N = 40 };
	const int64_t d = 300 * MS;
	int64_t t0, t1, end;
	int i, got = 0, seen[N] = { 0 };
	char k[WQT_KEY_LEN + 1];

	t0 = now_ns();
	for (i = 0; i < N; i++) {
		wqt_key(k, i);
		/* even keys: late then early; odd keys: early then late */
		ASSERT_EQ(0, wq_add_after(self->fd, k, WQT_KEY_LEN,
					  i % 2 ? d : LONG_DELAY));
		ASSERT_EQ(0, wq_add_after(self->fd, k, WQT_KEY_LEN,
					  i % 2 ? LONG_DELAY : d));
	}
	t1 = now_ns();
	SKIP_IF_STALLED(t1 >= t0 + d, "keys may have fired in between");
	end = now_ns() + UPPER_MS * MS;
	while (got < N && now_ns() < end) {
		i = wqt_get_i(self->fd, 200);
		if (i == -ETIMEDOUT)
			continue;
		ASSERT_LE(0, i);
		ASSERT_GT(N, i);
		ASSERT_LE(t0 + d, now_ns());
		seen[i]++;
		got++;
		ASSERT_EQ(0, wqt_done_i(self->fd, i));
	}
	ASSERT_EQ(N, got) TH_LOG("only %d of %d keys fired", got, N);
	for (i = 0; i < N; i++) {
		EXPECT_EQ(1, seen[i]) TH_LOG("key %d", i);
	}
	EXPECT_STATS(self->fd, STAT(waiting, 0), STAT(keys, 0));
}

/* D3 TestAddTwoFireEarly: the earlier key fires first; a key never done
 * does not hold the others back. */
TEST_F(delay, d3_two_fire_early)
{
	const int64_t d_foo = 1500 * MS, d_bar = 200 * MS, d_baz = 2000 * MS;
	int64_t t0, t_bar, t2;
	int n;

	t0 = now_ns();
	ASSERT_EQ(0, AFTER(self->fd, "foo", d_foo));
	t_bar = now_ns();
	ASSERT_EQ(0, AFTER(self->fd, "bar", d_bar));
	n = wq_len(self->fd);
	if (now_ns() < t_bar + d_bar)
		EXPECT_EQ(0, n);
	EXPECT_GET_AFTER(self->fd, "bar", t_bar + d_bar);
	/* bar is never done */
	t2 = now_ns();
	ASSERT_EQ(0, AFTER(self->fd, "baz", d_baz));
	EXPECT_GET_AFTER(self->fd, "foo", t0 + d_foo);
	EXPECT_GET_AFTER(self->fd, "baz", t2 + d_baz);
	EXPECT_STATS(self->fd, STAT(processing, 3), STAT(waiting, 0),
		     STAT(queued, 0));
}

/*
 * D4 TestCopyShifting: keys added with decreasing delays and all ready by
 * the time anyone looks come out in ready-time order, not add order.
 */
TEST_F(delay, d4_ready_order)
{
	const char *key[3] = { "foo", "bar", "baz" };
	const int64_t d[3] = { 900 * MS, 600 * MS, 300 * MS };
	int64_t tb[3], last = 0, t;
	int i;

	for (i = 0; i < 3; i++) {
		tb[i] = now_ns();
		ASSERT_EQ(0, AFTER(self->fd, key[i], d[i]));
	}
	t = now_ns();
	SKIP_IF_STALLED(t - tb[0] >= 300 * MS,
			"ready times are not 300 ms apart");
	for (i = 0; i < 3; i++)
		if (tb[i] + d[i] > last)
			last = tb[i] + d[i];
	sleep_until_ns(last + 100 * MS);
	/* all three ready: Len 3 (eventually: the timer may run late) */
	ASSERT_EQ(3, wait_len(self->fd, 3));
	EXPECT_GET(self->fd, "baz");
	EXPECT_GET(self->fd, "bar");
	EXPECT_GET(self->fd, "foo");
}

/*
 * D4 with many keys and random delays: everything is ready before the
 * first Get, so the queue's order is the order in which the keys became
 * ready. For any two keys whose ready times are certainly ordered (the
 * intervals [before call + delay, after call + delay] do not overlap), the
 * earlier one must come out first.
 */
TEST_F(delay, ready_order_many)
{
	enum { N = 64 };
	int64_t lo[N], hi[N], last = 0;
	int order[N], pos[N], i, j, bad = 0;
	unsigned int seed = 4242;
	char k[WQT_KEY_LEN + 1];

	for (i = 0; i < N; i++) {
		int64_t d = 200 * MS + (int64_t)(rand_r(&seed) % 600000) * 1000;

		wqt_key(k, i);
		lo[i] = now_ns() + d;
		ASSERT_EQ(0, wq_add_after(self->fd, k, WQT_KEY_LEN, d));
		hi[i] = now_ns() + d;
		if (hi[i] > last)
			last = hi[i];
	}
	sleep_until_ns(last + 100 * MS);
	ASSERT_EQ(N, wait_len(self->fd, N));
	for (i = 0; i < N; i++) {
		order[i] = wqt_get_i(self->fd, 0);
		ASSERT_LE(0, order[i]);
		ASSERT_GT(N, order[i]);
		pos[order[i]] = i;
	}
	for (i = 0; i < N; i++) {
		for (j = 0; j < N; j++) {
			if (hi[i] >= lo[j] || pos[i] < pos[j])
				continue;
			if (++bad <= 5)
				TH_LOG("key %d (ready by %+.3f ms) came out after key %d (ready from %+.3f ms)",
				       i, ms_of(hi[i] - lo[0]), j,
				       ms_of(lo[j] - lo[0]));
		}
	}
	EXPECT_EQ(0, bad);
}

/* ---- zero delay, and plain adds of waiting keys --------------------------- */

TEST_F(delay, zero_delay_is_add)
{
	ASSERT_EQ(0, AFTER(self->fd, "z", 0));
	ASSERT_EQ(1, wq_len(self->fd));
	EXPECT_STATS(self->fd, STAT(waiting, 0), STAT(queued, 1));
	/* coalesces with a queued copy */
	ASSERT_EQ(0, AFTER(self->fd, "a", 0));
	ASSERT_EQ(0, AFTER(self->fd, "z", 0));
	ASSERT_EQ(2, wq_len(self->fd));
	EXPECT_GET(self->fd, "z");
	/* dirty while processing, queued again at done */
	ASSERT_EQ(0, AFTER(self->fd, "z", 0));
	ASSERT_EQ(1, wq_len(self->fd));
	EXPECT_STATS(self->fd, STAT(dirty, 1));
	EXPECT_GET(self->fd, "a");
	EXPECT_NOTHING(self->fd);
	ASSERT_EQ(0, DONE(self->fd, "z"));
	EXPECT_GET(self->fd, "z");
	ASSERT_EQ(0, DONE(self->fd, "z"));
	ASSERT_EQ(0, DONE(self->fd, "a"));
	/* zero delay of a waiting key queues it now; the waiting copy stays */
	ASSERT_EQ(0, AFTER(self->fd, "w", LONG_DELAY));
	ASSERT_EQ(0, wq_len(self->fd));
	ASSERT_EQ(0, AFTER(self->fd, "w", 0));
	ASSERT_EQ(1, wq_len(self->fd));
	EXPECT_STATS(self->fd, STAT(waiting, 1), STAT(queued, 1),
		     STAT(keys, 1));
	EXPECT_GET(self->fd, "w");
	ASSERT_EQ(0, DONE(self->fd, "w"));
	EXPECT_STATS(self->fd, STAT(waiting, 1), STAT(keys, 1));
}

/*
 * A plain add of a waiting key queues it now and does not cancel the
 * waiting copy; when that fires while the key is still queued, it
 * coalesces: one queued copy, handed out once.
 */
TEST_F(delay, add_while_waiting_coalesces)
{
	const int64_t d = 400 * MS;
	struct wq_stats st;
	int64_t t0;

	t0 = now_ns();
	ASSERT_EQ(0, AFTER(self->fd, "k", d));
	ASSERT_EQ(0, ADD(self->fd, "k"));
	ASSERT_EQ(1, wq_len(self->fd));
	if (STAT_BEFORE(self->fd, st, t0 + d))
		EXPECT_EQ(1U, st.waiting) TH_LOG("the add cancelled the waiting copy");
	EXPECT_STATS_OF(st, STAT(queued, 1), STAT(keys, 1));
	/* the waiting copy fires (never early) ... */
	EXPECT_FIRED_AFTER(self->fd, waiting, 0U, t0 + d, "k");
	/* ... into the queued copy */
	ASSERT_EQ(1, wq_len(self->fd));
	EXPECT_STATS(self->fd, STAT(keys, 1), STAT(dirty, 0));
	EXPECT_GET(self->fd, "k");
	EXPECT_NOTHING(self->fd);
	ASSERT_EQ(0, DONE(self->fd, "k"));
	EXPECT_NOTHING(self->fd);
	EXPECT_STATS(self->fd, STAT(keys, 0));
}

/*
 * A waiting copy that fires while the key is processing makes it dirty:
 * not handed to a second consumer, queued again at done.
 */
TEST_F(delay, fire_while_processing_is_dirty)
{
	const int64_t d = 400 * MS;
	int64_t t0;

	t0 = now_ns();
	ASSERT_EQ(0, AFTER(self->fd, "k", d));
	ASSERT_EQ(0, ADD(self->fd, "k"));
	EXPECT_GET(self->fd, "k");
	ASSERT_EQ(0, wq_len(self->fd));
	EXPECT_FIRED_AFTER(self->fd, dirty, 1U, t0 + d, "k");
	EXPECT_STATS(self->fd, STAT(waiting, 0), STAT(processing, 1),
		     STAT(queued, 0), STAT(keys, 1));
	ASSERT_EQ(0, wq_len(self->fd));
	EXPECT_NOTHING(self->fd);
	ASSERT_EQ(0, DONE(self->fd, "k"));
	ASSERT_EQ(1, wq_len(self->fd));
	EXPECT_GET(self->fd, "k");
	ASSERT_EQ(0, DONE(self->fd, "k"));
	EXPECT_NOTHING(self->fd);

	/* the same with an AddAfter made while the key is processing */
	ASSERT_EQ(0, ADD(self->fd, "p"));
	EXPECT_GET(self->fd, "p");
	t0 = now_ns();
	ASSERT_EQ(0, AFTER(self->fd, "p", d));
	EXPECT_FIRED_AFTER(self->fd, dirty, 1U, t0 + d, "p");
	EXPECT_NOTHING(self->fd);
	ASSERT_EQ(0, DONE(self->fd, "p"));
	EXPECT_GET(self->fd, "p");
	ASSERT_EQ(0, DONE(self->fd, "p"));
	EXPECT_NOTHING(self->fd);
	EXPECT_STATS(self->fd, STAT(keys, 0));
}

/* ---- waiting keys: len, stats, max_items ------------------------------------ */

TEST_F(delay, waiting_not_in_len)
{
	char k[WQT_KEY_LEN + 1];
	int i;

	for (i = 0; i < 5; i++) {
		wqt_key(k, i);
		ASSERT_EQ(0, wq_add_after(self->fd, k, WQT_KEY_LEN, LONG_DELAY));
	}
	ASSERT_EQ(0, wq_len(self->fd));
	EXPECT_NOTHING(self->fd);
	EXPECT_STATS(self->fd, STAT(waiting, 5), STAT(keys, 5), STAT(queued, 0),
		     STAT(processing, 0));
	ASSERT_EQ(0, wqt_add_i(self->fd, 100));
	ASSERT_EQ(0, wqt_add_i(self->fd, 101));
	ASSERT_EQ(2, wq_len(self->fd));
	EXPECT_STATS(self->fd, STAT(waiting, 5), STAT(keys, 7),
		     STAT(queued, 2));
	/* a waiting key also queued counts once in keys */
	ASSERT_EQ(0, wqt_add_i(self->fd, 0));
	ASSERT_EQ(3, wq_len(self->fd));
	EXPECT_STATS(self->fd, STAT(waiting, 5), STAT(keys, 7));
}

/*
 * Waiting keys count toward max_items: a new key is refused (plain or
 * delayed) when max_items keys wait; an AddAfter or Add of a key already
 * held never fails for capacity; a fired and done key frees its slot.
 */
TEST_F(delay, max_items_waiting)
{
	char name[WQ_NAME_MAX];
	struct wq_stats st;
	int64_t t0;
	int fd;

	fd = wqt_create_bounded(name, "delay-max", 4);
	ASSERT_LE(0, fd);
	t0 = now_ns();
	ASSERT_EQ(0, AFTER(fd, "a", LONG_DELAY));
	ASSERT_EQ(0, AFTER(fd, "b", LONG_DELAY));
	ASSERT_EQ(0, AFTER(fd, "c", LONG_DELAY));
	ASSERT_EQ(0, AFTER(fd, "d", 500 * MS));
	EXPECT_EQ(-EAGAIN, AFTER(fd, "e", LONG_DELAY));
	EXPECT_EQ(-EAGAIN, AFTER(fd, "e", 1 * MS));
	EXPECT_EQ(-EAGAIN, AFTER(fd, "e", 0));
	EXPECT_EQ(-EAGAIN, ADD(fd, "e"));
	/* keys already held: later, earlier, zero, plain */
	EXPECT_EQ(0, AFTER(fd, "a", 2 * LONG_DELAY));
	EXPECT_EQ(0, AFTER(fd, "a", LONG_DELAY / 2));
	EXPECT_EQ(0, AFTER(fd, "b", 0));
	EXPECT_EQ(0, ADD(fd, "c"));
	SKIP_IF_STALLED(now_ns() >= t0 + 500 * MS, "d may have fired before b and c were queued");
	ASSERT_EQ(0, wqt_stat(fd, &st));
	EXPECT_STATS_OF(st, STAT(keys, 4), STAT(queued, 2));
	if (now_ns() < t0 + 500 * MS)
		EXPECT_EQ(4U, st.waiting);
	ASSERT_EQ(-EAGAIN, ADD(fd, "e"));
	/* d fires: queued behind b and c */
	EXPECT_FIRED_AFTER(fd, queued, 3U, t0 + 500 * MS, "d");
	EXPECT_GET(fd, "b");
	EXPECT_GET(fd, "c");
	EXPECT_GET(fd, "d");
	/* d done: its slot is free; b and c done: still waiting, still held */
	ASSERT_EQ(0, DONE(fd, "b"));
	ASSERT_EQ(0, DONE(fd, "c"));
	ASSERT_EQ(-EAGAIN, AFTER(fd, "e", LONG_DELAY));
	ASSERT_EQ(0, DONE(fd, "d"));
	EXPECT_STATS(fd, STAT(keys, 3), STAT(waiting, 3));
	ASSERT_EQ(0, AFTER(fd, "e", LONG_DELAY));
	ASSERT_EQ(-EAGAIN, AFTER(fd, "f", LONG_DELAY));
	ASSERT_EQ(-EAGAIN, ADD(fd, "f"));
	EXPECT_STATS(fd, STAT(keys, 4), STAT(waiting, 4), STAT(queued, 0));
	wq_close(fd);
	wq_destroy(name);
}

/* Every held key (queued or processing) of a full queue may also wait. */
TEST_F(delay, max_items_held_keys_may_wait)
{
	char name[WQ_NAME_MAX];
	int fd, i;

	fd = wqt_create_bounded(name, "delay-full", 4);
	ASSERT_LE(0, fd);
	for (i = 0; i < 4; i++)
		ASSERT_EQ(0, wqt_add_i(fd, i));
	ASSERT_EQ(-EAGAIN, wqt_add_i(fd, 4));
	ASSERT_EQ(0, wqt_get_i(fd, 0));
	ASSERT_EQ(1, wqt_get_i(fd, 0));
	for (i = 0; i < 4; i++) {
		char k[WQT_KEY_LEN + 1];

		wqt_key(k, i);
		ASSERT_EQ(0, wq_add_after(fd, k, WQT_KEY_LEN, LONG_DELAY))
			TH_LOG("key %d", i);
		ASSERT_EQ(0, wq_add_after(fd, k, WQT_KEY_LEN, LONG_DELAY / 2));
	}
	EXPECT_STATS(fd, STAT(keys, 4), STAT(waiting, 4), STAT(queued, 2),
		     STAT(processing, 2), STAT(dirty, 0));
	ASSERT_EQ(-EAGAIN, wq_add_after(fd, "x", 1, LONG_DELAY));
	/* done does not free keys that still wait */
	ASSERT_EQ(0, wqt_done_i(fd, 0));
	ASSERT_EQ(0, wqt_done_i(fd, 1));
	ASSERT_EQ(-EAGAIN, wq_add_after(fd, "x", 1, LONG_DELAY));
	EXPECT_STATS(fd, STAT(keys, 4));
	wq_close(fd);
	wq_destroy(name);
}


TEST_HARNESS_MAIN
