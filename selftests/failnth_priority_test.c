// SPDX-License-Identifier: GPL-2.0
/*
 * fail-nth (wq_test_failnth.h) of priority queues and the key calls: the
 * create of a priority queue, adds that need a new level (every path: a
 * short key, a key in a separate allocation, a key the ioctl copies, a
 * raise, a processing key, a delayed add), a batch at a new priority,
 * KEY_STATE and CANCEL_AFTER of keys over 64 bytes (copied by the ioctl).
 *
 * Each call is armed on its own, the fault counting on from where the
 * last call left it, so the queue is looked at between calls: a call that
 * failed with -ENOMEM left it exactly as it was (WQ_IOC_STAT, the depth of
 * every level, the key's state), and made again it succeeds. Each
 * iteration then ends in the state a run without faults ends in. A long
 * run of adds failed at new priorities leaves no memory behind while the
 * queue lives (slab counts: kmemleak only sees what outlives it).
 */
#include "wq_test_failnth.h"
#include "wq_test_prio.h"

#define SHORT(i)	(3 * (i))	/* 6 bytes: inline, spare records */
#define MID(i)		(3 * (i) + 1)	/* 56: a separate allocation */
#define LONG(i)		(3 * (i) + 2)	/* 100: copied by the ioctl */

/* What a failed call must leave as it was. */
struct before {
	struct snapshot s;
	struct wq_metrics_info m;
	struct wq_key_info ks;
};

static void levels(struct __test_metadata *_metadata, int fd,
		   struct wq_metrics_info *m)
{
	struct wq_metrics_req req = { .size = sizeof(*m),
				      .metrics = (uintptr_t)m };

	memset(m, 0, sizeof(*m));
	ASSERT_EQ(0, xioctl(fd, WQ_IOC_METRICS, &req));
}

static void look(struct __test_metadata *_metadata, int fd, int k,
		 struct before *b)
{
	b->s = snap(fd);
	levels(_metadata, fd, &b->m);
	memset(&b->ks, 0, sizeof(b->ks));
	if (k >= 0)
		ASSERT_EQ(0, pstate(fd, keys[k], &b->ks));
}

/* The queue is as b saw it (key k's state too). */
static void expect_same(struct __test_metadata *_metadata,
			FIXTURE_DATA(fnth) *self, int fd, int k,
			const struct before *b)
{
	struct before now;

	look(_metadata, fd, k, &now);
	ASSERT_UNCHANGED(b->s, fd);
	EXPECT_EQ(b->m.depth, now.m.depth);
	EXPECT_EQ(b->m.nr_levels, now.m.nr_levels)
		TH_LOG("nth %d: a failed call changed the levels", self->nth);
	EXPECT_EQ(0, memcmp(b->m.levels, now.m.levels, sizeof(now.m.levels)));
	EXPECT_EQ(b->ks.state, now.ks.state)
		TH_LOG("nth %d: a failed call changed key %d", self->nth, k);
	EXPECT_EQ(b->ks.priority, now.ks.priority);
}

/* One call of a scenario on key k (what it is: enum, below). */
enum { P_ADD, P_AFTER, P_STATE, P_CANCEL };

struct pcall {
	int what;
	int k;
	int32_t prio;
	long want;		/* what it must return in the end */
};

static long pcall_do(int fd, const struct pcall *c, struct wq_key_info *ks)
{
	switch (c->what) {
	case P_ADD:
		return padd(fd, keys[c->k], c->prio);
	case P_AFTER:
		return padd_after(fd, keys[c->k], c->prio, HOUR);
	case P_STATE:
		return pstate(fd, keys[c->k], ks);
	default:
		return pcancel(fd, keys[c->k]);
	}
}

/*
 * The call, armed on its own and recorded; after -ENOMEM, nothing changed
 * (KEY_STATE also wrote nothing back), and made again (unarmed) it
 * returns what it must.
 */
static void step(struct __test_metadata *_metadata, FIXTURE_DATA(fnth) *self,
		 int fd, const struct pcall *c)
{
	struct wq_key_info ks;
	struct before b;
	long r;

	look(_metadata, fd, c->k, &b);
	fnth_step_arm(_metadata, self);
	r = rec(self, pcall_do(fd, c, &ks));
	fnth_step_disarm(_metadata, self);
	if (r == -ENOMEM) {
		expect_same(_metadata, self, fd, c->k, &b);
		if (c->what == P_STATE)
			EXPECT_TRUE(!ks.state && !ks.priority && !ks.ready_ns);
		r = rec(self, pcall_do(fd, c, &ks));
	}
	EXPECT_EQ(c->want, r)
		TH_LOG("nth %d: call %d on key %d", self->nth, c->what, c->k);
}

/* The depth of the levels, highest first: n levels of prio[i], depth[i]. */
static void expect_levels(struct __test_metadata *_metadata,
			  FIXTURE_DATA(fnth) *self, int fd,
			  const int32_t *prio, const uint64_t *depth,
			  uint32_t n)
{
	struct wq_metrics_info m;
	uint32_t i;

	levels(_metadata, fd, &m);
	ASSERT_EQ(n, m.nr_levels) TH_LOG("nth %d", self->nth);
	EXPECT_EQ(0, m.levels_summed);
	for (i = 0; i < n; i++) {
		EXPECT_EQ(prio[i], m.levels[i].priority);
		EXPECT_EQ(depth[i], m.levels[i].depth)
			TH_LOG("nth %d: level %d", self->nth, prio[i]);
	}
}

/* KEY_STATE of key k says state and priority. */
static void expect_key(struct __test_metadata *_metadata,
		       FIXTURE_DATA(fnth) *self, int fd, int k,
		       uint32_t state, int32_t prio)
{
	struct wq_key_info ks;

	ASSERT_EQ(0, pstate(fd, keys[k], &ks));
	EXPECT_EQ(state, ks.state) TH_LOG("nth %d: key %d", self->nth, k);
	EXPECT_EQ(prio, ks.priority) TH_LOG("nth %d: key %d", self->nth, k);
}

/* A private priority queue for this iteration (fnth_down() closes it). */
static int prio_up(struct __test_metadata *_metadata, FIXTURE_DATA(fnth) *self)
{
	int fd;

	fnth_up(_metadata, self, false, NULL);
	fd = prio_queue(WQ_CREATE_PRIORITY, 0, NULL);
	ASSERT_LE(0, fd) TH_LOG("prio_queue: %s", strerror(-fd));
	fnth_keep(self, fd);
	return fd;
}

/* ---- adds that need a new level --------------------------------------- */

/*
 * Before: SHORT(0) and SHORT(1) queued at 1, MID(0) processing (got at
 * 2). Each call then needs a level of its own: a new key of each length,
 * a raise, a processing key's add (dirty), a delayed add; then a lower
 * add that keeps the key's level, and an add on a level that exists.
 */
static const struct pcall add_calls[] = {
	{ P_ADD, MID(1), 7, WQ_ADDED_QUEUED },
	{ P_ADD, LONG(1), 9, WQ_ADDED_QUEUED },
	{ P_ADD, SHORT(2), 11, WQ_ADDED_QUEUED },
	{ P_ADD, SHORT(0), 13, WQ_ADDED_COALESCED },
	{ P_ADD, MID(0), 15, WQ_ADDED_DIRTY },
	{ P_AFTER, MID(2), 17, WQ_ADDED_WAITING },
	{ P_ADD, LONG(0), -3, WQ_ADDED_QUEUED },
	{ P_ADD, SHORT(1), -1, WQ_ADDED_COALESCED },
	{ P_ADD, SHORT(2), 11, WQ_ADDED_COALESCED },
};

TEST_F_TIMEOUT(fnth, prio_add_new_level, 300)
{
	static const int32_t lp[] = { 15, 13, 11, 9, 7, 1, -3 };
	static const uint64_t ld[] = { 1, 1, 1, 1, 1, 1, 1 };
	static const int order[] = { MID(0), SHORT(0), SHORT(2), LONG(1),
				     MID(1), SHORT(1), LONG(0) };
	static const int32_t prio[] = { 15, 13, 11, 9, 7, 1, -3 };
	int32_t p = 0;
	size_t i;
	int fd;

	FOR_EACH_NTH(self) {
		fd = prio_up(_metadata, self);
		ASSERT_EQ(WQ_ADDED_QUEUED, padd(fd, keys[SHORT(0)], 1));
		ASSERT_EQ(WQ_ADDED_QUEUED, padd(fd, keys[MID(0)], 2));
		ASSERT_EQ(WQ_ADDED_QUEUED, padd(fd, keys[SHORT(1)], 1));
		ASSERT_EQ(MID(0), fnth_get_prio(fd, &p));
		fnth_step_start(self);
		for (i = 0; i < ARRAY_SIZE(add_calls); i++)
			step(_metadata, self, fd, &add_calls[i]);
		check_results(_metadata, self, 0, 0);

		/* as without faults: each key at its level */
		expect_levels(_metadata, self, fd, lp, ld, ARRAY_SIZE(lp));
		/* processing: the priority it was got with */
		expect_key(_metadata, self, fd, MID(0),
			   WQ_KEY_PROCESSING | WQ_KEY_DIRTY, 2);
		expect_key(_metadata, self, fd, MID(2), WQ_KEY_WAITING, 17);
		EXPECT_STATS(fd, STAT(queued, 6), STAT(processing, 1),
			     STAT(waiting, 1), STAT(dirty, 1), STAT(keys, 8));
		ASSERT_EQ(0, pdone(fd, keys[MID(0)]));
		drain_prio_order(_metadata, self, fd, order, prio, ARRAY_SIZE(order));
		EXPECT_EQ(1, pcancel(fd, keys[MID(2)]));
		EXPECT_STATS(fd, STAT(keys, 0), STAT(waiting, 0));
		fnth_down(_metadata, self);
	}
	fnth_report(_metadata, self);
}

/* ---- a batch at a new priority ------------------------------------------ */

#define B_N	10

/*
 * The batch, at priority 5: a processing key (got at 9), keys queued at 1
 * and 3 (raised), new keys of every length, one of them twice.
 */
static const int batch_keys[B_N] = {
	MID(3), LONG(3), SHORT(0), MID(0), LONG(0), SHORT(0), SHORT(4),
	SHORT(1), MID(1), LONG(1),
};

/* What the batch's keys are: the order in which they joined level 5. */
enum { B_ABSENT, B_BELOW, B_AT5, B_PROCESSING };

struct bmodel {
	int state[NKEYS];
	int order[B_N];
	int n;
};

/* An add at 5 of key k that succeeded: what it did. */
static int32_t bm_add(struct bmodel *m, int k)
{
	int was = m->state[k];

	if (was == B_PROCESSING)
		return WQ_ADDED_DIRTY;
	m->state[k] = B_AT5;
	if (was != B_AT5)		/* new, or raised: the level's tail */
		m->order[m->n++] = k;
	return was == B_ABSENT ? WQ_ADDED_QUEUED : WQ_ADDED_COALESCED;
}

/*
 * ADD_BATCH at 5 of the entries use[] says, in order: the ioctl's result;
 * res[i] each used entry's result.
 */
static long batch_add(int fd, const bool *use, int32_t *res)
{
	struct wq_iov iov[B_N];
	int32_t r[B_N];
	struct wq_batch b = { .flags = WQ_ADD_PRIORITY | WQ_ADD_OUTCOME,
			      .keys = (uintptr_t)iov, .results = (uintptr_t)r,
			      .priority = 5 };
	long ret;
	int i, j;

	for (i = 0; i < B_N; i++) {
		if (!use[i])
			continue;
		iov[b.count].base = (uintptr_t)keys[batch_keys[i]];
		iov[b.count++].len = klen[batch_keys[i]];
	}
	ret = ioctl(fd, WQ_IOC_ADD_BATCH, &b);
	if (ret < 0)
		return -errno;
	for (i = j = 0; i < B_N; i++)
		if (use[i])
			res[i] = r[j++];
	return ret;
}

/*
 * The batch (use[]) armed; after a call-level -ENOMEM nothing changed and
 * it is made again. Each entry's result is what the model says its add
 * did, or -ENOMEM (then left to be retried: use[] says which).
 */
static void batch_step(struct __test_metadata *_metadata,
		       FIXTURE_DATA(fnth) *self, int fd, bool *use,
		       struct bmodel *m)
{
	int32_t res[B_N];
	struct before b;
	int i, ok = 0;
	long r;

	for (i = 0; i < B_N && !use[i]; i++)
		;
	if (i == B_N)		/* nothing (left) to add */
		return;
	look(_metadata, fd, -1, &b);
	memset(res, 0x55, sizeof(res));
	fnth_step_arm(_metadata, self);
	r = rec(self, batch_add(fd, use, res));
	fnth_step_disarm(_metadata, self);
	if (r == -ENOMEM) {
		expect_same(_metadata, self, fd, -1, &b);
		r = rec(self, batch_add(fd, use, res));
	}
	for (i = 0; i < B_N; i++) {
		if (!use[i])
			continue;
		use[i] = res[i] == -ENOMEM;
		if (use[i]) {
			EXPECT_TRUE(self->fired);
			continue;
		}
		ok++;
		EXPECT_EQ(bm_add(m, batch_keys[i]), res[i])
			TH_LOG("nth %d: entry %d", self->nth, i);
	}
	EXPECT_EQ(ok, r);
}

TEST_F_TIMEOUT(fnth, prio_add_batch, 300)
{
	struct wq_key_info ks[B_N], now;
	int32_t prio[B_N], p;
	bool use[B_N], failed;
	struct bmodel m;
	int i, j, fd;

	for (i = 0; i < B_N; i++)
		prio[i] = 5;
	FOR_EACH_NTH(self) {
		fd = prio_up(_metadata, self);
		ASSERT_EQ(WQ_ADDED_QUEUED, padd(fd, keys[MID(3)], 9));
		ASSERT_EQ(WQ_ADDED_QUEUED, padd(fd, keys[LONG(3)], 1));
		ASSERT_EQ(WQ_ADDED_QUEUED, padd(fd, keys[SHORT(4)], 3));
		ASSERT_EQ(MID(3), fnth_get_prio(fd, &p));
		memset(&m, 0, sizeof(m));
		m.state[MID(3)] = B_PROCESSING;
		m.state[LONG(3)] = B_BELOW;
		m.state[SHORT(4)] = B_BELOW;
		for (i = 0; i < B_N; i++) {
			ASSERT_EQ(0, pstate(fd, keys[batch_keys[i]], &ks[i]));
			use[i] = true;
		}
		fnth_step_start(self);
		batch_step(_metadata, self, fd, use, &m);
		/* a key whose every entry failed is as it was */
		for (i = 0; i < B_N; i++) {
			for (j = 0, failed = true; j < B_N; j++)
				if (batch_keys[j] == batch_keys[i] && !use[j])
					failed = false;
			if (!failed)
				continue;
			ASSERT_EQ(0, pstate(fd, keys[batch_keys[i]], &now));
			EXPECT_EQ(ks[i].state, now.state);
			EXPECT_EQ(ks[i].priority, now.priority);
		}
		batch_step(_metadata, self, fd, use, &m);	/* the rest */
		check_results(_metadata, self, 0, 0);

		expect_levels(_metadata, self, fd, prio,
			      (const uint64_t[]){ m.n + 1 }, 1);
		ASSERT_EQ(0, pdone(fd, keys[MID(3)]));	/* dirty: at 5 */
		m.order[m.n++] = MID(3);
		ASSERT_EQ(B_N - 1, m.n);
		drain_prio_order(_metadata, self, fd, m.order, prio, m.n);
		EXPECT_STATS(fd, STAT(keys, 0));
		fnth_down(_metadata, self);
	}
	fnth_report(_metadata, self);
}

/* ---- KEY_STATE and CANCEL_AFTER of long keys ---------------------------- */

/*
 * Keys of 100 bytes (the ioctl copies them): one processing (got at 7),
 * one queued at 4, one waiting at 6, one unknown; KEY_STATE of each.
 */
TEST_F_TIMEOUT(fnth, prio_key_state_long, 300)
{
	static const struct pcall calls[] = {
		{ P_STATE, LONG(0), 0, 0 }, { P_STATE, LONG(1), 0, 0 },
		{ P_STATE, LONG(2), 0, 0 }, { P_STATE, LONG(3), 0, 0 },
	};
	struct wq_key_info ks;
	int32_t p = 0;
	size_t i;
	int fd;

	FOR_EACH_NTH(self) {
		fd = prio_up(_metadata, self);
		ASSERT_EQ(WQ_ADDED_QUEUED, padd(fd, keys[LONG(0)], 7));
		ASSERT_EQ(LONG(0), fnth_get_prio(fd, &p));
		ASSERT_EQ(WQ_ADDED_QUEUED, padd(fd, keys[LONG(1)], 4));
		ASSERT_EQ(WQ_ADDED_WAITING,
			  padd_after(fd, keys[LONG(2)], 6, HOUR));
		fnth_step_start(self);
		for (i = 0; i < ARRAY_SIZE(calls); i++)
			step(_metadata, self, fd, &calls[i]);
		check_results(_metadata, self, 0, 0);

		expect_key(_metadata, self, fd, LONG(0), WQ_KEY_PROCESSING, 7);
		expect_key(_metadata, self, fd, LONG(1), WQ_KEY_QUEUED, 4);
		expect_key(_metadata, self, fd, LONG(2), WQ_KEY_WAITING, 6);
		ASSERT_EQ(0, pstate(fd, keys[LONG(2)], &ks));
		EXPECT_LT(now_ns(), (int64_t)ks.ready_ns);
		expect_key(_metadata, self, fd, LONG(3), 0, 0);
		fnth_down(_metadata, self);
	}
	fnth_report(_metadata, self);
}

/*
 * Keys of 100 bytes: one waiting only, one processing and waiting, one
 * queued; CANCEL_AFTER of each (the last two return the key to what it
 * was without its delay), and of the first again.
 */
TEST_F_TIMEOUT(fnth, prio_cancel_after_long, 300)
{
	static const struct pcall calls[] = {
		{ P_CANCEL, LONG(0), 0, 1 }, { P_CANCEL, LONG(1), 0, 1 },
		{ P_CANCEL, LONG(2), 0, 0 }, { P_CANCEL, LONG(0), 0, 0 },
	};
	static const int order[] = { LONG(2) };
	static const int32_t prio[] = { 1 };
	int32_t p = 0;
	size_t i;
	int fd;

	FOR_EACH_NTH(self) {
		fd = prio_up(_metadata, self);
		ASSERT_EQ(WQ_ADDED_WAITING,
			  padd_after(fd, keys[LONG(0)], 3, HOUR));
		ASSERT_EQ(WQ_ADDED_QUEUED, padd(fd, keys[LONG(1)], 8));
		ASSERT_EQ(LONG(1), fnth_get_prio(fd, &p));
		ASSERT_EQ(WQ_ADDED_WAITING,
			  padd_after(fd, keys[LONG(1)], 2, HOUR));
		ASSERT_EQ(WQ_ADDED_QUEUED, padd(fd, keys[LONG(2)], 1));
		fnth_step_start(self);
		for (i = 0; i < ARRAY_SIZE(calls); i++)
			step(_metadata, self, fd, &calls[i]);
		check_results(_metadata, self, 0, 0);

		EXPECT_STATS(fd, STAT(waiting, 0), STAT(processing, 1),
			     STAT(queued, 1), STAT(keys, 2));
		expect_key(_metadata, self, fd, LONG(0), 0, 0);
		expect_key(_metadata, self, fd, LONG(1), WQ_KEY_PROCESSING, 8);
		ASSERT_EQ(0, pdone(fd, keys[LONG(1)]));	/* not dirty: gone */
		drain_prio_order(_metadata, self, fd, order, prio, 1);
		EXPECT_STATS(fd, STAT(keys, 0));
		fnth_down(_metadata, self);
	}
	fnth_report(_metadata, self);
}

/* ---- create --------------------------------------------------------------- */

/* A queue made (fd) or not (-1): keys added at 3 (a3) and 9 (a9) come out. */
static void check_made(struct __test_metadata *_metadata,
		       FIXTURE_DATA(fnth) *self, int fd, long a3, long a9)
{
	struct wq_queue_info qi;
	int32_t p = 0;

	if (fd < 0)
		return;
	ASSERT_EQ(0, raw_stat(fd, &qi));
	EXPECT_TRUE(qi.state & WQ_STATE_PRIORITY) TH_LOG("nth %d", self->nth);
	if (!a9) {
		EXPECT_EQ(SHORT(1), fnth_get_prio(fd, &p));
		EXPECT_EQ(9, p);
	}
	if (!a3) {
		EXPECT_EQ(SHORT(0), fnth_get_prio(fd, &p));
		EXPECT_EQ(3, p);
	}
	EXPECT_EQ(-EAGAIN, fnth_get_prio(fd, &p));
}

/*
 * A named priority queue with a starvation bound, and a private one: made,
 * or nothing made and nothing charged (fnth_down()); made, each hands out
 * by priority. No witness: the first queue makes the user's budget.
 */
TEST_F_TIMEOUT(fnth, prio_create, 300)
{
	long a[2][2];
	struct wq_create c;
	int fd[2], i;

	fnth_drop_witness(self);
	FOR_EACH_NTH(self) {
		fnth_up(_metadata, self, false, NULL);
		memset(&c, 0, sizeof(c));
		c.flags = WQ_CREATE_PRIORITY;
		c.starve_ns = SEC;
		set_name(c.name, self->name);
		memset(a, -1, sizeof(a));
		fnth_arm(_metadata, self);
		fd[0] = rec(self, raw_open_dev());
		if (fd[0] >= 0 && rec(self, -xioctl(fd[0], WQ_IOC_CREATE, &c))) {
			close(fd[0]);
			fd[0] = -1;
		}
		fd[1] = rec(self, prio_queue(WQ_CREATE_PRIORITY, 0, NULL));
		for (i = 0; i < 2; i++) {
			if (fd[i] < 0)
				continue;
			a[i][0] = rec(self, padd(fd[i], keys[SHORT(0)], 3));
			a[i][1] = rec(self, padd(fd[i], keys[SHORT(1)], 9));
		}
		fnth_disarm(_metadata, self);
		fnth_keep(self, fd[0]);
		fnth_keep(self, fd[1]);
		check_results(_metadata, self, 0, 0);
		if (fd[0] < 0)
			EXPECT_EQ(-ENOENT, wq_open(self->name));
		for (i = 0; i < 2; i++)
			check_made(_metadata, self, fd[i], a[i][0], a[i][1]);
		fnth_down(_metadata, self);
	}
	fnth_report(_metadata, self);
}

/* ---- nothing left behind -------------------------------------------------- */

#define ROUNDS		256

/*
 * Round after round on one queue, an add of a new key at a new priority
 * with its 1st allocation failed, then its 2nd, ... until it succeeds
 * (each try at a priority of its own), and the key got and done: a level
 * freed, kept spare for the next round. While the queue lives, neither
 * its levels (struct kwq_level, kmalloc'd: kmalloc-cg-128) nor its
 * records (wq_item) grow with the rounds; kmemleak sees only what outlives
 * the queue.
 */
TEST_F_TIMEOUT(fnth, prio_no_level_left_behind, 300)
{
	long lv0, lv1, it0, it1, r;
	int32_t prio = 100, p;
	int fd, round, k = MID(5);

	fd = prio_up(_metadata, self);
	ASSERT_EQ(WQ_ADDED_QUEUED, padd(fd, keys[k], prio++));
	ASSERT_EQ(k, fnth_get_prio(fd, &p));
	ASSERT_EQ(0, pdone(fd, keys[k]));
	lv0 = wqt_slab_active("kmalloc-cg-128");
	it0 = wqt_wq_items();
	for (round = 0; round < ROUNDS; round++) {
		for (self->nth = 1;; self->nth++) {
			ASSERT_GT(NTH_MAX, self->nth);
			fnth_arm(_metadata, self);
			r = padd(fd, keys[k], prio++);
			fnth_disarm(_metadata, self);
			self->faults += self->fired;
			if (r != -ENOMEM)
				break;
		}
		ASSERT_EQ(WQ_ADDED_QUEUED, r);
		ASSERT_EQ(k, fnth_get_prio(fd, &p));
		ASSERT_EQ(0, pdone(fd, keys[k]));
	}
	lv1 = wqt_slab_active("kmalloc-cg-128");
	it1 = wqt_wq_items();
	EXPECT_STATS(fd, STAT(keys, 0), STAT(queued, 0));
	TH_LOG("%d rounds, %d faults: kmalloc-cg-128 %ld -> %ld, wq_item %ld -> %ld",
	       ROUNDS, self->faults, lv0, lv1, it0, it1);
	ASSERT_LE(ROUNDS, self->faults);
	ASSERT_LE(0, lv0) TH_LOG("no kmalloc-cg-128 in /proc/slabinfo");
	EXPECT_GT(lv0 + ROUNDS / 4, lv1)
		TH_LOG("levels left behind by failed adds");
	if (it0 >= 0)	/* else wq_item is merged with another cache */
		EXPECT_GT(it0 + ROUNDS / 4, it1)
			TH_LOG("records left behind by failed adds");
	fnth_down(_metadata, self);
}

TEST_HARNESS_MAIN
