// SPDX-License-Identifier: GPL-2.0
/*
 * fail-nth (wq_test_failnth.h) of the ends of keys and queues: a shutdown
 * with drain while another thread holds a key, the close of a handle
 * holding keys, a discarding shutdown.
 */
#include "wq_test_failnth.h"

/* ---- shutdown with drain, a key held by another thread ------------------ */

struct drain_helper {
	int fd;				/* its own handle */
	atomic_int state;		/* 1: it holds its key; 2: go */
	int got[NKEYS];
	int ngot;
	long err;			/* 0 once it saw -ESHUTDOWN */
	pthread_t th;
};

static void *drain_helper_fn(void *p)
{
	struct drain_helper *h = p;
	char buf[WQ_KEY_MAX];
	ssize_t len, first;
	long r;

	first = wq_get(h->fd, buf, sizeof(buf), 0);
	if (first <= 0) {
		h->err = first ?: -1000;
		atomic_store(&h->state, 1);
		return NULL;
	}
	h->got[h->ngot++] = key_index(buf, first);
	atomic_store(&h->state, 1);
	while (atomic_load(&h->state) != 2)
		wqt_sleep_ms(1);
	wqt_sleep_ms(20);		/* the drain waits for this key */
	r = wq_done(h->fd, buf, first);
	while (!r && h->ngot < NKEYS) {
		len = wq_get(h->fd, buf, sizeof(buf), UPPER_MS);
		if (len == -ESHUTDOWN)
			return NULL;	/* h->err stays 0 */
		if (len <= 0) {
			r = len ?: -1000;
			break;
		}
		h->got[h->ngot++] = key_index(buf, len);
		r = wq_done(h->fd, buf, len);
	}
	h->err = r ?: -1001;
	return NULL;
}

/*
 * The queue's keys, in FIFO order: the helper takes the first, this
 * thread the second (a long one: its get and its done allocate). DR_NEW
 * is added before the drain, DR_LATE after it (refused).
 */
static const int dr_keys[] = { 0, 2, 1, 3, 4, 5 };
#define DR_KEYS		6
#define DR_NEW		8
#define DR_LATE		11

TEST_F_TIMEOUT(fnth, drain_held, 300)
{
	struct drain_helper h;
	char buf[WQ_KEY_MAX];
	long a, g, d, r, s;
	int want[NKEYS], nwant, i, fd;
	struct wq_stats st;

	FOR_EACH_NTH(self) {
		fd = fnth_up(_metadata, self, true, NULL);
		memset(&h, 0, sizeof(h));
		h.fd = wq_open(self->name);
		ASSERT_LE(0, h.fd);
		fnth_keep(self, h.fd);
		for (i = 0; i < DR_KEYS; i++)
			ASSERT_EQ(0, ADD_I(fd, dr_keys[i]));
		ASSERT_EQ(0, pthread_create(&h.th, NULL, drain_helper_fn, &h));
		while (!atomic_load(&h.state))
			wqt_sleep_ms(1);
		memset(buf, 0, sizeof(buf));
		fnth_arm(_metadata, self);
		a = rec(self, ADD_I(fd, DR_NEW));
		g = rec(self, wq_get(fd, buf, sizeof(buf), 0));
		if (g == -ENOMEM)
			g = rec(self, wq_get(fd, buf, sizeof(buf), 0));
		d = g > 0 ? rec(self, wq_done(fd, buf, g)) : 0;
		if (d == -ENOMEM)
			d = rec(self, wq_done(fd, buf, g));
		atomic_store(&h.state, 2);
		r = rec(self, wq_shutdown_with_drain(fd, UPPER_MS));
		s = rec(self, ADD_I(fd, DR_LATE));
		fnth_disarm(_metadata, self);
		pthread_join(h.th, NULL);
		check_results(_metadata, self, -ESHUTDOWN, 0);

		EXPECT_EQ(0, h.err) TH_LOG("nth %d: the helper: %ld",
					   self->nth, h.err);
		EXPECT_EQ(dr_keys[1], key_index(buf, g));
		EXPECT_EQ(0, d);
		EXPECT_EQ(0, r) TH_LOG("nth %d: drain: %ld", self->nth, r);
		/* a long key is copied in before the queue is looked at */
		EXPECT_TRUE(s == -ESHUTDOWN || s == -ENOMEM);
		/* the helper: its key, then the rest in FIFO order */
		nwant = 0;
		want[nwant++] = dr_keys[0];
		for (i = 2; i < DR_KEYS; i++)
			want[nwant++] = dr_keys[i];
		if (!a)
			want[nwant++] = DR_NEW;
		EXPECT_EQ(nwant, h.ngot);
		for (i = 0; i < nwant && i < h.ngot; i++)
			EXPECT_EQ(want[i], h.got[i])
				TH_LOG("nth %d: helper's get %d", self->nth, i);
		ASSERT_EQ(0, wqt_stat(fd, &st));
		EXPECT_STATS_OF(st, STAT(queued, 0), STAT(processing, 0),
				STAT(keys, 0), STAT(waiting, 0));
		EXPECT_TRUE(st.shutting_down);
		fnth_down(_metadata, self);
	}
	fnth_report(_metadata, self);
}

/* ---- close of a handle holding keys ------------------------------------- */

#define CL_KEYS		10	/* key 10 is added while the handle holds keys */
#define CL_HELD		6

TEST_F_TIMEOUT(fnth, close_held, 300)
{
	int got[CL_HELD], want[CL_KEYS + 1], nwant, ngot, i, fd, fd2;
	char buf[WQ_KEY_MAX];
	long g, a1, a2, c;
	struct wq_metrics m;
	struct wq_stats st;

	FOR_EACH_NTH(self) {
		fd = fnth_up(_metadata, self, true, NULL);
		for (i = 0; i < CL_KEYS; i++)
			ASSERT_EQ(0, ADD_I(fd, i));
		fd2 = wq_open(self->name);
		ASSERT_LE(0, fd2);
		fnth_keep(self, fd2);
		memset(buf, 0, sizeof(buf));
		ngot = 0;
		fnth_arm(_metadata, self);
		for (i = 0; i < CL_HELD; i++) {
			g = rec(self, wq_get(fd2, buf, sizeof(buf), 0));
			if (g == -ENOMEM)
				g = rec(self, wq_get(fd2, buf, sizeof(buf), 0));
			got[ngot++] = g > 0 ? key_index(buf, g) : (int)g;
		}
		a1 = rec(self, ADD_I(fd, 2));		/* held: dirty */
		a2 = rec(self, ADD_I(fd, CL_KEYS));	/* new */
		c = rec(self, wq_close(fd2));
		fnth_disarm(_metadata, self);
		if (!c)
			fnth_forget(self, fd2);
		check_results(_metadata, self, 0, 0);

		EXPECT_EQ(0, c);
		for (i = 0; i < CL_HELD; i++)
			EXPECT_EQ(i, got[i]);
		/* the rest, the new key, then the put-back keys in get order */
		nwant = 0;
		for (i = CL_HELD; i < CL_KEYS; i++)
			want[nwant++] = i;
		if (!a2)
			want[nwant++] = CL_KEYS;
		for (i = 0; i < CL_HELD; i++)
			want[nwant++] = i;
		ASSERT_EQ(0, wqt_stat(fd, &st));
		EXPECT_STATS_OF(st, STAT(queued, nwant), STAT(keys, nwant),
				STAT(processing, 0), STAT(dirty, 0),
				STAT(handles, 1));
		EXPECT_EQ((uint64_t)(CL_KEYS + !a1 + !a2), st.adds);
		ASSERT_EQ(0, wq_metrics(fd, &m));
		EXPECT_EQ((uint64_t)CL_HELD, m.requeued_on_close_total);
		drain_order(_metadata, self, fd, want, nwant, -EAGAIN);
		fnth_down(_metadata, self);
	}
	fnth_report(_metadata, self);
}

/* ---- discarding shutdown ------------------------------------------------ */

TEST_F_TIMEOUT(fnth, discard, 300)
{
	char buf[WQ_KEY_MAX];
	long a, b, c, n, d0, d1, e;
	struct wq_metrics m;
	int i, fd;

	FOR_EACH_NTH(self) {
		/* processing 10 and 11; queued 0..5; waiting 6..9 */
		fd = fnth_up(_metadata, self, true, NULL);
		ASSERT_EQ(0, ADD_I(fd, 10));
		ASSERT_EQ(0, ADD_I(fd, 11));
		ASSERT_LT(0, wq_get(fd, buf, sizeof(buf), 0));
		ASSERT_LT(0, wq_get(fd, buf, sizeof(buf), 0));
		for (i = 0; i < 6; i++)
			ASSERT_EQ(0, ADD_I(fd, i));
		for (i = 6; i < 10; i++)
			ASSERT_EQ(0, AFTER_I(fd, i, LONG_DELAY));
		fnth_arm(_metadata, self);
		a = rec(self, ADD_I(fd, 12));
		b = rec(self, AFTER_I(fd, 14, LONG_DELAY));
		c = rec(self, ADD_I(fd, 11));		/* dirty */
		n = rec(self, wq_shutdown_discard(fd));
		d0 = rec(self, DONE_I(fd, 10));
		if (d0 == -ENOMEM)
			d0 = rec(self, DONE_I(fd, 10));
		d1 = rec(self, DONE_I(fd, 11));
		if (d1 == -ENOMEM)
			d1 = rec(self, DONE_I(fd, 11));
		e = rec(self, wq_get(fd, buf, sizeof(buf), 0));
		fnth_disarm(_metadata, self);
		check_results(_metadata, self, -ESHUTDOWN, 0);

		EXPECT_EQ(10 + !a + !b, n);
		EXPECT_TRUE(c == 0 || c == -ENOMEM);
		EXPECT_EQ(0, d0);
		EXPECT_EQ(0, d1);
		EXPECT_EQ(-ESHUTDOWN, e);
		/* nothing queued again: the dirty mark went with the discard */
		EXPECT_STATS(fd, STAT(queued, 0), STAT(waiting, 0),
			     STAT(processing, 0), STAT(dirty, 0),
			     STAT(keys, 0));
		ASSERT_EQ(0, wq_metrics(fd, &m));
		EXPECT_EQ((uint64_t)n, m.discarded_total);
		fnth_down(_metadata, self);
	}
	fnth_report(_metadata, self);
}

TEST_HARNESS_MAIN
