// SPDX-License-Identifier: GPL-2.0
/*
 * fail-nth (wq_test_failnth.h) of the core calls: create with a limiter
 * and open, a private queue, adds into a key table that grows, get and
 * done, metrics.
 */
#include "wq_test_failnth.h"

/* ---- create with a limiter, open -------------------------------------- */

TEST_F_TIMEOUT(fnth, create_open, 300)
{
	static const struct wq_attr attr = {
		.limiter = "exponential:5ms:10s,bucket:100:10,fastslow:1ms:1s:3,maxwait:30s",
		.max_items = 100,
		.mode = 0640,
	};
	struct wq_stats ref, st;
	int c, o, r, a;

	/*
	 * No witness: the first queue makes the user's budget and the IPC
	 * namespace's registry entry, allocations to fail too. A charge
	 * left in a budget that goes is wq_quota_put()'s WARN then.
	 */
	fnth_drop_witness(self);
	/* the queue as it must be: made without faults */
	c = fnth_up(_metadata, self, true, &attr);
	ASSERT_EQ(0, wqt_stat(c, &ref));
	fnth_down(_metadata, self);

	FOR_EACH_NTH(self) {
		fnth_up(_metadata, self, false, NULL);
		o = r = a = -1;
		fnth_arm(_metadata, self);
		c = rec(self, wq_create(self->name, &attr));
		if (c >= 0) {
			o = rec(self, wq_open(self->name));
			r = rec(self, wq_open_flags(self->name, O_RDONLY));
			a = rec(self, wq_add(c, "k", 1));
		}
		fnth_disarm(_metadata, self);
		fnth_keep(self, c);
		fnth_keep(self, o);
		fnth_keep(self, r);
		check_results(_metadata, self, 0, 0);
		if (c < 0) {
			/* nothing was created */
			EXPECT_EQ(-ENOENT, wq_open(self->name));
		} else {
			ASSERT_EQ(0, wqt_stat(c, &st));
			EXPECT_STREQ(ref.limiter, st.limiter);
			EXPECT_EQ(ref.max_items, st.max_items);
			EXPECT_EQ(ref.max_tracked, st.max_tracked);
			EXPECT_EQ(ref.mode, st.mode);
			EXPECT_EQ(1 + (o >= 0) + (r >= 0), st.handles);
			EXPECT_EQ(!a, st.queued);
			EXPECT_EQ(!a, st.keys);
			if (r >= 0) {
				EXPECT_EQ(-EBADF, wq_add(r, "x", 1));
				if (!a)
					EXPECT_GET(r, "k");
			}
		}
		fnth_down(_metadata, self);
	}
	fnth_report(_metadata, self);
}

/*
 * A private queue: made, or nothing charged; given back at its close
 * (fnth_down() checks the budget).
 */
TEST_F_TIMEOUT(fnth, create_private, 300)
{
	static const struct wq_attr attr = {
		.limiter = "exponential:5ms:10s,bucket:100:10",
		.max_items = 100,
	};
	struct wq_stats st;
	int c, a, s;

	fnth_drop_witness(self);
	FOR_EACH_NTH(self) {
		fnth_up(_metadata, self, false, NULL);
		a = s = -1;
		fnth_arm(_metadata, self);
		c = rec(self, wq_create_private(&attr));
		if (c >= 0) {
			a = rec(self, wq_add(c, "k", 1));
			s = rec(self, wq_add_opts(c, "k", 1, NULL));
		}
		fnth_disarm(_metadata, self);
		fnth_keep(self, c);
		check_results(_metadata, self, 0, 0);
		if (c >= 0) {
			ASSERT_EQ(0, wqt_stat(c, &st));
			EXPECT_STREQ("", st.name);
			EXPECT_EQ(a >= 0 || s >= 0, st.queued);
			/* the second add coalesces, or queued if the first failed */
			if (s >= 0) {
				EXPECT_EQ(a ? WQ_ADDED_QUEUED :
					  WQ_ADDED_COALESCED, s);
			}
		}
		fnth_down(_metadata, self);
	}
	fnth_report(_metadata, self);
}

/* ---- adds into a table that grows ------------------------------------- */

/*
 * The key table (16 buckets at first) grows past 32 keys and past 64:
 * GROW_PREFILL short keys added without faults (one batch: what the
 * iterations repeat costs little), then GROW_KEYS new keys of every kind
 * armed, each 4th followed by a re-add of a key held already.
 */
#define GROW_PREFILL	30	/* keys 96, 99, .., 183 (short) */
#define GROW_KEYS	38	/* keys 0..37: the table grows at 3 and 35 */

TEST_F_TIMEOUT(fnth, add_growing, 300)
{
	int ops[GROW_KEYS * 2], order[GROW_PREFILL + GROW_KEYS], nops, n, i;
	struct iovec pre[GROW_PREFILL];
	bool seen[NKEYS];
	struct wq_stats st;
	int fd;

	for (i = 0; i < GROW_PREFILL; i++) {
		pre[i].iov_base = keys[96 + i * 3];
		pre[i].iov_len = klen[96 + i * 3];
	}
	for (i = nops = 0; i < GROW_KEYS; i++) {
		ops[nops++] = i;
		if (i % 4 == 3)
			ops[nops++] = i - 2;
	}
	FOR_EACH_NTH(self) {
		fd = fnth_up(_metadata, self, true, NULL);
		ASSERT_EQ(GROW_PREFILL,
			  wq_add_batch(fd, pre, GROW_PREFILL, NULL));
		fnth_arm(_metadata, self);
		for (i = 0; i < nops; i++)
			rec(self, ADD_I(fd, ops[i]));
		fnth_disarm(_metadata, self);
		check_results(_metadata, self, 0, 0);

		/* the FIFO: each key where its first successful add put it */
		memset(seen, 0, sizeof(seen));
		for (n = 0; n < GROW_PREFILL; n++)
			order[n] = 96 + n * 3;
		for (i = 0; i < nops; i++)
			if (!self->res[i] && !seen[ops[i]]) {
				seen[ops[i]] = true;
				order[n++] = ops[i];
			}
		ASSERT_EQ(0, wqt_stat(fd, &st));
		EXPECT_STATS_OF(st, STAT(queued, n), STAT(keys, n),
				STAT(processing, 0), STAT(waiting, 0));
		EXPECT_EQ((uint64_t)n, st.adds);
		drain_order(_metadata, self, fd, order, n, -EAGAIN);
		EXPECT_STATS(fd, STAT(keys, 0), STAT(processing, 0));
		fnth_down(_metadata, self);
	}
	fnth_report(_metadata, self);
}

/* ---- get and done ------------------------------------------------------- */

#define GD_KEYS		24
#define GD_STEPS	(GD_KEYS + GD_KEYS / 4)

/* One key handed out: its index, its re-add's result (1: none), its done's. */
struct gd_step {
	int idx;
	long readd;
	long done;
};

TEST_F_TIMEOUT(fnth, get_done, 300)
{
	struct gd_step steps[GD_STEPS + 1], *st;
	int want[GD_STEPS], nwant, nsteps, readds, i, fd;
	bool again[NKEYS];
	char buf[WQ_KEY_MAX];
	struct wq_metrics m;
	long len;

	FOR_EACH_NTH(self) {
		fd = fnth_up(_metadata, self, true, NULL);
		for (i = 0; i < GD_KEYS; i++)
			ASSERT_EQ(0, ADD_I(fd, i));
		memset(buf, 0, sizeof(buf));
		memset(again, 0, sizeof(again));
		memset(steps, 0, sizeof(steps));
		nsteps = 0;
		fnth_arm(_metadata, self);
		for (;;) {
			len = rec(self, wq_get(fd, buf, sizeof(buf), 0));
			if (len == -ENOMEM)	/* the fault fired: no more */
				len = rec(self, wq_get(fd, buf, sizeof(buf), 0));
			if (len <= 0 || nsteps > GD_STEPS)
				break;
			st = &steps[nsteps++];
			st->idx = key_index(buf, len);
			st->readd = 1;
			/* a re-add while processing: queued again at done */
			if (st->idx % 4 == 1 && !again[st->idx]) {
				again[st->idx] = true;
				st->readd = rec(self, wq_add(fd, buf, len));
			}
			st->done = rec(self, wq_done(fd, buf, len));
			if (st->done == -ENOMEM)	/* still processing */
				st->done = rec(self, wq_done(fd, buf, len));
			if (st->done)
				break;
		}
		fnth_disarm(_metadata, self);
		check_results(_metadata, self, -EAGAIN, 0);
		EXPECT_EQ(-EAGAIN, len);

		/* FIFO, then the re-added keys in the order of their dones */
		for (i = nwant = 0; i < GD_KEYS; i++)
			want[nwant++] = i;
		for (i = readds = 0; i < nsteps; i++)
			if (!steps[i].readd) {
				readds++;
				if (nwant < GD_STEPS)
					want[nwant++] = steps[i].idx;
			}
		ASSERT_EQ(nwant, nsteps);
		for (i = 0; i < nsteps; i++) {
			EXPECT_EQ(want[i], steps[i].idx)
				TH_LOG("nth %d: get %d", self->nth, i);
			EXPECT_EQ(0, steps[i].done);
		}
		EXPECT_STATS(fd, STAT(queued, 0), STAT(processing, 0),
			     STAT(dirty, 0), STAT(keys, 0));
		ASSERT_EQ(0, wq_metrics(fd, &m));
		EXPECT_EQ((uint64_t)nsteps, m.queue_duration.count);
		EXPECT_EQ((uint64_t)nsteps, m.work_duration.count);
		EXPECT_EQ((uint64_t)(GD_KEYS + readds), m.adds_total);
		fnth_down(_metadata, self);
	}
	fnth_report(_metadata, self);
}

/* ---- metrics ------------------------------------------------------------ */

TEST_F_TIMEOUT(fnth, metrics, 300)
{
	struct wq_metrics m[3], untouched;
	char buf[WQ_KEY_MAX];
	long r[3], a, g, d;
	int fd, i;

	memset(&untouched, 0xa5, sizeof(untouched));
	FOR_EACH_NTH(self) {
		fd = fnth_up(_metadata, self, true, NULL);
		/* a long key at the head: the get allocates */
		ASSERT_EQ(0, ADD_I(fd, 2));
		ASSERT_EQ(0, ADD_I(fd, 0));
		ASSERT_EQ(0, ADD_I(fd, 1));
		for (i = 0; i < 3; i++)
			m[i] = untouched;
		memset(buf, 0, sizeof(buf));
		fnth_arm(_metadata, self);
		r[0] = rec(self, wq_metrics(fd, &m[0]));
		a = rec(self, ADD_I(fd, 5));
		g = rec(self, wq_get(fd, buf, sizeof(buf), 0));
		if (g == -ENOMEM)
			g = rec(self, wq_get(fd, buf, sizeof(buf), 0));
		r[1] = rec(self, wq_metrics(fd, &m[1]));
		d = g > 0 ? rec(self, wq_done(fd, buf, g)) : 0;
		if (d == -ENOMEM)
			d = rec(self, wq_done(fd, buf, g));
		r[2] = rec(self, wq_metrics(fd, &m[2]));
		fnth_disarm(_metadata, self);
		check_results(_metadata, self, 0, 0);

		EXPECT_EQ(2, key_index(buf, g));
		EXPECT_EQ(0, d);
		for (i = 0; i < 3; i++)
			if (r[i])	/* a failed call wrote nothing */
				EXPECT_EQ(0, memcmp(&m[i], &untouched,
						    sizeof(untouched)));
		if (!r[0]) {
			EXPECT_EQ(3, m[0].depth);
			EXPECT_EQ(3, m[0].adds_total);
			EXPECT_EQ(3, m[0].queued);
			EXPECT_EQ(0, m[0].processing);
		}
		if (!r[1]) {
			EXPECT_EQ((uint64_t)(2 + !a), m[1].depth);
			EXPECT_EQ((uint64_t)(3 + !a), m[1].adds_total);
			EXPECT_EQ(1, m[1].processing);
			EXPECT_EQ(1, m[1].queue_duration.count);
			EXPECT_EQ(0, m[1].work_duration.count);
		}
		if (!r[2]) {
			EXPECT_EQ((uint64_t)(2 + !a), m[2].queued);
			EXPECT_EQ(0, m[2].processing);
			EXPECT_EQ(1, m[2].work_duration.count);
		}
		fnth_down(_metadata, self);
	}
	fnth_report(_metadata, self);
}

TEST_HARNESS_MAIN
