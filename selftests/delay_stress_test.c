// SPDX-License-Identifier: GPL-2.0
/*
 * Delays under load: several hundred keys with random delays added while
 * consumer threads take them, each handed out once and never early; and
 * threads mixing wq_add, wq_add_after, wq_get and wq_done for seconds,
 * checked with the shared-memory tracker of wq_test_util.h (no key held
 * twice, no add lost).
 *
 * Timing checks are one-sided (wq_test_time.h).
 */
#include "wq_test_util.h"
#include "wq_test_time.h"

WQT_FIXTURE(delay);

/* ---- never early ------------------------------------------------------------ */

struct early_ctx {
	int fd;
	int nkeys;
	int64_t *t_add;		/* just before each key's wq_add_after */
	int64_t *delay;
	int64_t *t_got;		/* just after the wq_get that handed it out */
	atomic_int *gets;
	atomic_int received;
	atomic_int errors;
	int64_t deadline;
	unsigned int seed;
};

static void *early_producer(void *p)
{
	struct early_ctx *c = p;
	char k[WQT_KEY_LEN + 1];
	int i, r;

	for (i = 0; i < c->nkeys; i++) {
		wqt_key(k, i);
		c->t_add[i] = now_ns();
		r = wq_add_after(c->fd, k, WQT_KEY_LEN, (uint64_t)c->delay[i]);
		if (r)
			atomic_fetch_add(&c->errors, 1);
		if (i % 16 == 15)
			wqt_sleep_ms(rand_r(&c->seed) % 20);
	}
	return NULL;
}

static void *early_consumer(void *p)
{
	struct early_ctx *c = p;
	int i;

	while (atomic_load(&c->received) < c->nkeys && now_ns() < c->deadline) {
		i = wqt_get_i(c->fd, 100);
		if (i == -ETIMEDOUT)
			continue;
		if (i < 0 || i >= c->nkeys) {
			atomic_fetch_add(&c->errors, 1);
			break;
		}
		c->t_got[i] = now_ns();
		atomic_fetch_add(&c->gets[i], 1);
		atomic_fetch_add(&c->received, 1);
		if (wqt_done_i(c->fd, i))
			atomic_fetch_add(&c->errors, 1);
	}
	return NULL;
}

/*
 * Several hundred keys with random delays (0 to 500 ms, in ns), added while
 * consumers take them: each is handed out exactly once and never before
 * (time just before its wq_add_after) + delay.
 */
TEST_F_TIMEOUT(delay, never_early, 90)
{
	enum { N = 400, NC = 3 };
	struct early_ctx c = { .fd = self->fd, .nkeys = N, .seed = 77 };
	pthread_t prod, cons[NC];
	int64_t worst = INT64_MAX;
	int i, early = 0, zero = 0;
	unsigned int seed = 1234;

	c.t_add = calloc(N, sizeof(*c.t_add));
	c.delay = calloc(N, sizeof(*c.delay));
	c.t_got = calloc(N, sizeof(*c.t_got));
	c.gets = calloc(N, sizeof(*c.gets));
	ASSERT_TRUE(c.t_add && c.delay && c.t_got && c.gets);
	for (i = 0; i < N; i++) {
		/* a few exact zeros, else uniform in [1 ns, 500 ms] */
		c.delay[i] = i % 25 == 0 ? 0 :
			     1 + ((int64_t)rand_r(&seed) * 1000 +
				  rand_r(&seed) % 1000) % (500 * MS);
		zero += !c.delay[i];
	}
	c.deadline = now_ns() + 60 * SEC;
	for (i = 0; i < NC; i++)
		ASSERT_EQ(0, pthread_create(&cons[i], NULL, early_consumer, &c));
	ASSERT_EQ(0, pthread_create(&prod, NULL, early_producer, &c));
	pthread_join(prod, NULL);
	for (i = 0; i < NC; i++)
		pthread_join(cons[i], NULL);

	EXPECT_EQ(0, atomic_load(&c.errors));
	ASSERT_EQ(N, atomic_load(&c.received))
		TH_LOG("only %d of %d keys handed out within 60 s",
		       atomic_load(&c.received), N);
	for (i = 0; i < N; i++) {
		int64_t margin = c.t_got[i] - (c.t_add[i] + c.delay[i]);

		EXPECT_EQ(1, atomic_load(&c.gets[i])) TH_LOG("key %d", i);
		if (margin < 0) {
			early++;
			TH_LOG("key %d (delay %.3f ms) handed out %.3f ms early",
			       i, ms_of(c.delay[i]), ms_of(-margin));
		}
		if (margin < worst)
			worst = margin;
	}
	EXPECT_EQ(0, early);
	TH_LOG("%d keys (%d with zero delay), smallest margin %.3f ms",
	       N, zero, ms_of(worst));
	/* nothing more comes */
	wqt_sleep_ms(100);
	EXPECT_NOTHING(self->fd);
	EXPECT_STATS(self->fd, STAT(waiting, 0), STAT(keys, 0));
	free(c.t_add);
	free(c.delay);
	free(c.t_got);
	free(c.gets);
}

/* ---- stress ------------------------------------------------------------------ */

struct mixer {
	struct wqt_tracker *t;
	int fd;
	int nkeys;
	int64_t mix_until;	/* then only consume */
	atomic_int *stop;	/* set once everything has been handed out */
	atomic_int *mixed;	/* threads done with the mixed phase */
	atomic_int *after_calls;
	unsigned int seed;
	pthread_t th;
};

static uint64_t rand_delay(unsigned int *seed)
{
	/* 0 now and then, else up to 50 ms */
	if (rand_r(seed) % 8 == 0)
		return 0;
	return (uint64_t)(rand_r(seed) % 50000) * 1000 + rand_r(seed) % 1000;
}

/* AddAfter, recorded: pending is set before the call (the key may fire
 * and be handed out at once). */
static void mix_add_after(struct mixer *m, int i)
{
	char k[WQT_KEY_LEN + 1];

	atomic_store(&m->t->slot[i].pending, 1);
	if (wq_add_after(m->fd, k, wqt_key(k, i), rand_delay(&m->seed)))
		atomic_fetch_add(&m->t->errors, 1);
	atomic_fetch_add(m->after_calls, 1);
}

static void mix_consume_one(struct mixer *m, int timeout_ms, bool mixing)
{
	int i = wqt_track_get(m->t, m->fd, timeout_ms);

	if (i == -ETIMEDOUT || i == -EAGAIN)
		return;
	if (i < 0) {
		atomic_fetch_add(&m->t->errors, 1);
		wqt_sleep_ms(1);
		return;
	}
	if (mixing) {
		int r = rand_r(&m->seed) % 8;

		if (r == 0)
			mix_add_after(m, i);	/* waits, may fire while held */
		else if (r == 1 && wqt_track_readd(m->t, m->fd, i))
			atomic_fetch_add(&m->t->errors, 1);
		if (rand_r(&m->seed) % 4 == 0)
			usleep(rand_r(&m->seed) % 2000);
	}
	wqt_track_done(m->t, m->fd, i);
}

static void *mixer_fn(void *p)
{
	struct mixer *m = p;

	while (now_ns() < m->mix_until) {
		int op = rand_r(&m->seed) % 100;
		int i = rand_r(&m->seed) % m->nkeys;

		if (op < 20) {
			if (wqt_track_add(m->t, m->fd, i))
				atomic_fetch_add(&m->t->errors, 1);
		} else if (op < 50) {
			mix_add_after(m, i);
		} else {
			mix_consume_one(m, rand_r(&m->seed) % 20, true);
		}
	}
	atomic_fetch_add(m->mixed, 1);
	while (!atomic_load(m->stop))
		mix_consume_one(m, 20, false);
	return NULL;
}

/*
 * Threads mixing wq_add, wq_add_after (0-50 ms), wq_get and wq_done (with
 * re-adds and AddAfters of held keys) for a few seconds, then consuming
 * until every waiting key has fired and everything is done. No key is
 * ever held by two consumers at once, and every key added (plainly or
 * delayed) is handed out after its last add.
 */
TEST_F_TIMEOUT(delay, stress_mixed, 120)
{
	enum { NT = 6, NKEYS = 48, MIX_MS = 3000 };
	struct wqt_tracker *t = wqt_tracker_new(NKEYS);
	atomic_int stop = 0, mixed = 0, after_calls = 0;
	struct mixer m[NT];
	struct wq_stats st;
	int64_t end, quiet_at = -1;
	int i;

	ASSERT_NE(NULL, t);
	memset(m, 0, sizeof(m));
	for (i = 0; i < NT; i++) {
		m[i].t = t;
		m[i].fd = self->fd;
		m[i].nkeys = NKEYS;
		m[i].mix_until = now_ns() + MIX_MS * MS;
		m[i].stop = &stop;
		m[i].mixed = &mixed;
		m[i].after_calls = &after_calls;
		m[i].seed = 1000 + i;
		ASSERT_EQ(0, pthread_create(&m[i].th, NULL, mixer_fn, &m[i]));
	}
	/* wait for the mixed phase to end everywhere, then for quiet */
	end = now_ns() + (MIX_MS + 60000) * MS;
	while (atomic_load(&mixed) < NT && now_ns() < end)
		wqt_sleep_ms(10);
	while (now_ns() < end) {
		if (wqt_stat(self->fd, &st) == 0 && !st.waiting && !st.queued &&
		    !st.processing && !st.keys) {
			quiet_at = now_ns();
			break;
		}
		wqt_sleep_ms(10);
	}
	atomic_store(&stop, 1);
	for (i = 0; i < NT; i++)
		pthread_join(m[i].th, NULL);
	ASSERT_EQ(NT, atomic_load(&mixed)) TH_LOG("mixed phase did not end");
	ASSERT_LT(0, quiet_at)
		TH_LOG("queue never quiet: waiting %u queued %u processing %u keys %u",
		       st.waiting, st.queued, st.processing, st.keys);
	TH_LOG("%d gets, %d AddAfter calls", atomic_load(&t->total_gets),
	       atomic_load(&after_calls));
	EXPECT_EQ(0, atomic_load(&t->double_hold))
		TH_LOG("a key was held by two consumers");
	EXPECT_EQ(0, atomic_load(&t->bad_key));
	EXPECT_EQ(0, atomic_load(&t->errors));
	EXPECT_EQ(0, wqt_tracker_lost(t))
		TH_LOG("keys added but never handed out afterwards");
	EXPECT_LT(NKEYS, atomic_load(&t->total_gets));
	EXPECT_NOTHING(self->fd);
	wqt_tracker_free(t);
}

TEST_HARNESS_MAIN
