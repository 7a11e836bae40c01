// SPDX-License-Identifier: GPL-2.0
/*
 * wq_metrics(): client-go's workqueue metrics with their meanings, checked
 * after known sequences. Ports client-go's metrics_test.go M2 (TestMetrics)
 * to real time: every count exact, every duration bounded from below only
 * (the guest may be slow, never fast). Then wq's own counters (refused,
 * requeued on close, discarded), the gauges, the histogram's shape and the
 * ioctl's size rules.
 */
#include "wq_test_util.h"
#include "wq_test_ioctl.h"

#define MSEC	1000000ULL

WQT_FIXTURE(metrics);

static struct wq_metrics get_metrics(int fd)
{
	struct wq_metrics m;
	int ret;

	memset(&m, 0xa5, sizeof(m));
	ret = wq_metrics(fd, &m);
	if (ret) {
		fprintf(stderr, "wq_metrics: %s\n", strerror(-ret));
		memset(&m, 0xff, sizeof(m));
	}
	return m;
}

/* Observations above the bucket that ends below lo_ns: all of them. */
static uint64_t count_below(const struct wq_histogram *h, uint64_t ns)
{
	uint64_t n = 0;

	for (uint32_t i = 0; i < h->nbuckets; i++)
		if (h->le_ns[i] < ns)
			n = h->bucket[i];
	return n;
}

/* METRIC(field, value), for EXPECT_METRICS; field must be a uint64_t. */
#define METRIC(f, v)	WQT_WANT(struct wq_metrics, f, 8, (uint64_t)(v))

/* Each counter named of the struct wq_metrics m is as wanted (EXPECT). */
#define EXPECT_METRICS(m, ...)	EXPECT_FIELDS_OF("metric", m, __VA_ARGS__)

/*
 * A duration histogram after known observations: count of them, summing
 * to at least sum_ms, and at most max_short of them below short_ms.
 */
static void expect_durations(struct __test_metadata *_metadata,
			     const struct wq_histogram *h, uint64_t count,
			     uint64_t sum_ms, uint64_t short_ms,
			     uint64_t max_short)
{
	EXPECT_EQ(count, h->count);
	EXPECT_LE(sum_ms * MSEC, h->sum_ns);
	EXPECT_GE(max_short, count_below(h, short_ms * MSEC));
}

/* M2 TestMetrics, in real time. */
TEST_F(metrics, client_go_sequence)
{
	struct wq_metrics m;
	char buf[16];
	int i;

	m = get_metrics(self->fd);
	EXPECT_EQ(0, m.depth);
	EXPECT_EQ(0, m.adds_total);
	EXPECT_EQ(0, m.queue_duration.count);

	/* 1. Add(foo): adds 1, depth 1 */
	ASSERT_EQ(0, ADD(self->fd, "foo"));
	m = get_metrics(self->fd);
	EXPECT_EQ(1, m.adds_total);
	EXPECT_EQ(1, m.depth);

	/* 2. 50 ms later, Get: one queue_duration of at least 50 ms */
	wqt_sleep_ms(50);
	ASSERT_EQ(3, get_str(self->fd, buf, sizeof(buf), 0));
	m = get_metrics(self->fd);
	expect_durations(_metadata, &m.queue_duration, 1, 50, 50, 0);
	EXPECT_EQ(0, m.depth);

	/* 3. Add(foo) x5 while processing: adds 2, depth 1, Len 0 */
	for (i = 0; i < 5; i++)
		ASSERT_EQ(0, ADD(self->fd, "foo"));
	m = get_metrics(self->fd);
	EXPECT_EQ(2, m.adds_total);
	EXPECT_EQ(1, m.depth);
	EXPECT_EQ(0, wq_len(self->fd));
	EXPECT_EQ(0, m.queued);
	EXPECT_EQ(1, m.processing);

	/* 4. 25 ms later, Done: one work_duration of at least 25 ms */
	wqt_sleep_ms(25);
	ASSERT_EQ(0, DONE(self->fd, "foo"));
	m = get_metrics(self->fd);
	expect_durations(_metadata, &m.work_duration, 1, 25, 25, 0);
	EXPECT_EQ(1, m.depth);
	EXPECT_EQ(2, m.adds_total);

	/* 5. Get: the second queue_duration runs from the re-add (>= 25 ms) */
	ASSERT_EQ(3, get_str(self->fd, buf, sizeof(buf), 0));
	m = get_metrics(self->fd);
	expect_durations(_metadata, &m.queue_duration, 2, 75, 25, 0);
	EXPECT_EQ(0, m.depth);

	/* 6. 100 ms later: unfinished work and longest running >= 100 ms */
	wqt_sleep_ms(100);
	m = get_metrics(self->fd);
	EXPECT_LE(100 * MSEC, m.unfinished_work_ns);
	EXPECT_LE(100 * MSEC, m.longest_running_ns);
	EXPECT_EQ(m.unfinished_work_ns, m.longest_running_ns);	/* one key */

	/* 7. Done: the second work_duration (>= 100 ms); nothing in flight */
	ASSERT_EQ(0, DONE(self->fd, "foo"));
	m = get_metrics(self->fd);
	expect_durations(_metadata, &m.work_duration, 2, 125, 100, 1);
	EXPECT_METRICS(m, METRIC(unfinished_work_ns, 0),
		       METRIC(longest_running_ns, 0), METRIC(depth, 0),
		       METRIC(adds_total, 2), METRIC(retries_total, 0),
		       METRIC(processing, 0));
}

/* Unfinished work sums the ages; longest running is the oldest's. */
TEST_F(metrics, unfinished_and_longest)
{
	struct wq_metrics m, m2;
	char buf[16];

	ASSERT_EQ(0, ADD(self->fd, "a"));
	ASSERT_EQ(0, ADD(self->fd, "b"));
	ASSERT_EQ(0, ADD(self->fd, "c"));
	ASSERT_EQ(1, get_str(self->fd, buf, sizeof(buf), 0));	/* a */
	wqt_sleep_ms(60);
	ASSERT_EQ(1, get_str(self->fd, buf, sizeof(buf), 0));	/* b */
	wqt_sleep_ms(30);
	m = get_metrics(self->fd);
	EXPECT_EQ(2, m.processing);
	EXPECT_EQ(1, m.depth);
	EXPECT_LE(90 * MSEC, m.longest_running_ns);
	EXPECT_LE(120 * MSEC, m.unfinished_work_ns);
	/* a's age + b's age, and b is 60 ms younger than a */
	EXPECT_LE(m.longest_running_ns + 30 * MSEC, m.unfinished_work_ns);
	EXPECT_GE(2 * m.longest_running_ns, m.unfinished_work_ns);

	/* the oldest done: b is the longest running, and the only one */
	ASSERT_EQ(0, DONE(self->fd, "a"));
	m2 = get_metrics(self->fd);
	EXPECT_EQ(1, m2.processing);
	EXPECT_EQ(m2.unfinished_work_ns, m2.longest_running_ns);
	EXPECT_LE(30 * MSEC, m2.longest_running_ns);

	/* the youngest done first: the oldest stays the longest running */
	ASSERT_EQ(1, get_str(self->fd, buf, sizeof(buf), 0));	/* c */
	ASSERT_EQ(0, DONE(self->fd, "c"));
	m = get_metrics(self->fd);
	EXPECT_EQ(1, m.processing);
	EXPECT_LE(m2.longest_running_ns, m.longest_running_ns);
	ASSERT_EQ(0, DONE(self->fd, "b"));
	m = get_metrics(self->fd);
	EXPECT_EQ(0, m.unfinished_work_ns);
	EXPECT_EQ(0, m.longest_running_ns);
	EXPECT_EQ(3, m.work_duration.count);
	EXPECT_EQ(3, m.queue_duration.count);
}

/* depth counts queued keys and dirty processing keys, not waiting ones. */
TEST_F(metrics, depth_is_dirty_not_len)
{
	struct wq_metrics m;
	char buf[16];

	ASSERT_EQ(0, ADD(self->fd, "a"));
	ASSERT_EQ(1, get_str(self->fd, buf, sizeof(buf), 0));
	ASSERT_EQ(0, ADD(self->fd, "a"));		/* dirty */
	ASSERT_EQ(0, ADD(self->fd, "b"));		/* queued */
	ASSERT_EQ(0, ADD(self->fd, "b"));		/* coalesced */
	ASSERT_EQ(0, AFTER(self->fd, "c", 3600ULL * 1000 * MSEC)); /* waiting */
	m = get_metrics(self->fd);
	EXPECT_METRICS(m, METRIC(depth, 2), METRIC(queued, 1),
		       METRIC(processing, 1), METRIC(waiting, 1),
		       METRIC(adds_total, 3), METRIC(retries_total, 1));
	EXPECT_EQ(1, wq_len(self->fd));
	ASSERT_EQ(0, DONE(self->fd, "a"));		/* queued again */
	m = get_metrics(self->fd);
	EXPECT_EQ(2, m.depth);
	EXPECT_EQ(2, m.queued);
	EXPECT_EQ(3, m.adds_total);
}

/* retries: every AddAfter (also of 0) and AddRateLimited that succeeds. */
TEST(retries_total)
{
	struct wq_attr attr = { .limiter = "exponential:1h:1h" };
	char name[WQ_NAME_MAX];
	struct wq_metrics m;
	uint64_t delay = 0;
	int fd;

	if (!wqt_have_dev())
		SKIP(return, "/dev/wq missing");
	fd = wqt_create_named(name, "retries", &attr);
	ASSERT_LE(0, fd);

	ASSERT_EQ(0, AFTER(fd, "zero", 0));		/* an Add, and a retry */
	m = get_metrics(fd);
	EXPECT_EQ(1, m.retries_total);
	EXPECT_EQ(1, m.adds_total);
	EXPECT_EQ(1, m.depth);
	EXPECT_EQ(1, wq_len(fd));
	/* of a key already queued: coalesced, and still a retry */
	ASSERT_EQ(0, AFTER(fd, "zero", 0));
	m = get_metrics(fd);
	EXPECT_EQ(2, m.retries_total);
	EXPECT_EQ(1, m.adds_total);

	ASSERT_EQ(0, AFTER(fd, "later", 3600ULL * 1000 * MSEC));
	ASSERT_EQ(0, AFTER(fd, "later", 3600ULL * 1000 * MSEC));	/* dedup: counts */
	ASSERT_EQ(0, wq_add_rate_limited(fd, "rl", 2, &delay));
	EXPECT_EQ(3600ULL * 1000 * MSEC, delay);
	ASSERT_EQ(0, wq_add_rate_limited(fd, "zero", 4, &delay));	/* queued too */
	m = get_metrics(fd);
	EXPECT_EQ(6, m.retries_total);
	EXPECT_EQ(1, m.adds_total);		/* nothing became pending yet */
	EXPECT_EQ(1, m.depth);
	EXPECT_EQ(3, m.waiting);		/* later, rl, zero */
	EXPECT_EQ(2, m.tracked);		/* rl, zero */
	ASSERT_EQ(0, ADD(fd, "plain"));		/* not a retry */

	ASSERT_EQ(0, wq_shutdown(fd));
	ASSERT_EQ(-ESHUTDOWN, AFTER(fd, "x", 0));	/* fails: no retry */
	ASSERT_EQ(-ESHUTDOWN, wq_add_rate_limited(fd, "x", 1, NULL));
	m = get_metrics(fd);
	EXPECT_EQ(6, m.retries_total);
	EXPECT_EQ(2, m.adds_total);
	/* shutdown dropped the waiting keys: later and rl (zero is queued) */
	EXPECT_EQ(0, m.waiting);
	EXPECT_EQ(2, m.discarded_total);
	EXPECT_EQ(2, m.depth);
	wq_close(fd);
	wq_destroy(name);
}

/* refused_total: adds refused with -EAGAIN for capacity, of every kind. */
TEST(refused_total)
{
	struct wq_attr attr = { .max_items = 2 };
	struct iovec io[3] = {
		{ .iov_base = "a", .iov_len = 1 },
		{ .iov_base = "c", .iov_len = 1 },
		{ .iov_base = "d", .iov_len = 1 },
	};
	char name[WQ_NAME_MAX];
	struct wq_metrics m;
	int errs[3];
	int fd;

	if (!wqt_have_dev())
		SKIP(return, "/dev/wq missing");
	fd = wqt_create_named(name, "refused", &attr);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, ADD(fd, "a"));
	ASSERT_EQ(0, ADD(fd, "b"));
	ASSERT_EQ(-EAGAIN, ADD(fd, "c"));
	ASSERT_EQ(0, ADD(fd, "a"));			/* held: never refused */
	ASSERT_EQ(-EAGAIN, AFTER(fd, "c", 1000 * MSEC));
	ASSERT_EQ(-EAGAIN, wq_add_rate_limited(fd, "c", 1, NULL));
	ASSERT_EQ(1, wq_add_batch(fd, io, 3, errs));
	EXPECT_EQ(0, errs[0]);
	EXPECT_EQ(-EAGAIN, errs[1]);
	EXPECT_EQ(-EAGAIN, errs[2]);
	ASSERT_EQ(-ETIMEDOUT, wq_add_wait(fd, "c", 1, 20));	/* not refused */
	m = get_metrics(fd);
	EXPECT_EQ(5, m.refused_total);
	EXPECT_EQ(2, m.adds_total);
	EXPECT_EQ(0, m.retries_total);		/* the failed AddAfters */
	EXPECT_EQ(2, m.depth);
	wq_close(fd);
	wq_destroy(name);
}

/* requeued_on_close_total: keys a closing handle put back, and only those. */
TEST_F(metrics, requeued_on_close)
{
	struct wq_metrics m;
	char buf[16];
	int fd2;

	ASSERT_EQ(0, ADD(self->fd, "a"));
	ASSERT_EQ(0, ADD(self->fd, "b"));
	ASSERT_EQ(0, ADD(self->fd, "c"));
	ASSERT_EQ(0, ADD(self->fd, "d"));
	fd2 = wq_open(self->name);
	ASSERT_LE(0, fd2);
	ASSERT_EQ(1, get_str(fd2, buf, sizeof(buf), 0));		/* a */
	ASSERT_EQ(1, get_str(fd2, buf, sizeof(buf), 0));		/* b */
	ASSERT_EQ(1, wq_get_detached(fd2, buf, sizeof(buf), 0));	/* c */
	ASSERT_EQ(0, ADD(self->fd, "a"));		/* dirty */
	m = get_metrics(self->fd);
	EXPECT_EQ(3, m.processing);
	EXPECT_EQ(2, m.depth);				/* d, dirty a */
	EXPECT_EQ(5, m.adds_total);
	ASSERT_EQ(0, wq_close(fd2));
	m = get_metrics(self->fd);
	EXPECT_EQ(2, m.requeued_on_close_total);	/* a, b; not c */
	EXPECT_EQ(1, m.processing);
	EXPECT_EQ(3, m.queued);				/* d, a, b */
	EXPECT_EQ(3, m.depth);
	EXPECT_EQ(5, m.adds_total);			/* a put back is no add */
	EXPECT_EQ(3, m.queue_duration.count);
	EXPECT_EQ(0, m.work_duration.count);		/* no done */
	/* each put-back key is observed again at its next get */
	EXPECT_GET(self->fd, "d");
	EXPECT_GET(self->fd, "a");
	EXPECT_GET(self->fd, "b");
	m = get_metrics(self->fd);
	EXPECT_EQ(6, m.queue_duration.count);
	EXPECT_EQ(0, m.depth);
	EXPECT_EQ(4, m.processing);
}

/* discarded_total: what a discarding shutdown dropped, each key once. */
TEST_F(metrics, discarded_by_discard)
{
	struct wq_metrics m;

	ASSERT_EQ(0, ADD(self->fd, "q1"));
	ASSERT_EQ(0, ADD(self->fd, "q2"));
	ASSERT_EQ(0, ADD(self->fd, "p"));
	ASSERT_EQ(0, AFTER(self->fd, "w1", 3600ULL * 1000 * MSEC));
	ASSERT_EQ(0, AFTER(self->fd, "q1", 3600ULL * 1000 * MSEC)); /* queued too */
	EXPECT_GET(self->fd, "q1");
	EXPECT_GET(self->fd, "q2");
	ASSERT_EQ(0, DONE(self->fd, "q2"));
	ASSERT_EQ(0, ADD(self->fd, "q2"));	/* queued after p */
	ASSERT_EQ(0, ADD(self->fd, "q1"));	/* dirty, also waiting */
	m = get_metrics(self->fd);
	EXPECT_EQ(2, m.queued);
	EXPECT_EQ(3, m.depth);
	EXPECT_EQ(2, m.waiting);
	/* dropped: p, q2 (queued), w1, q1's waiting copy */
	ASSERT_EQ(4, wq_shutdown_discard(self->fd));
	m = get_metrics(self->fd);
	EXPECT_EQ(4, m.discarded_total);
	EXPECT_EQ(0, m.depth);			/* q1's dirty mark went too */
	EXPECT_EQ(0, m.queued);
	EXPECT_EQ(0, m.waiting);
	EXPECT_EQ(1, m.processing);
	ASSERT_EQ(0, wq_shutdown_discard(self->fd));	/* counts nothing */
	ASSERT_EQ(0, DONE(self->fd, "q1"));
	m = get_metrics(self->fd);
	EXPECT_EQ(4, m.discarded_total);
	EXPECT_EQ(0, m.processing);
	EXPECT_EQ(2, m.work_duration.count);
}

/* A delay that fires is an add: its queue_duration starts when it fires. */
TEST_F(metrics, delayed_add_counts_when_it_fires)
{
	struct wq_metrics m;
	char buf[16];

	ASSERT_EQ(0, AFTER(self->fd, "d", 30 * MSEC));
	m = get_metrics(self->fd);
	EXPECT_EQ(0, m.adds_total);
	EXPECT_EQ(0, m.depth);
	EXPECT_EQ(1, m.retries_total);
	ASSERT_EQ(1, get_str(self->fd, buf, sizeof(buf), 5000));
	m = get_metrics(self->fd);
	EXPECT_EQ(1, m.adds_total);
	EXPECT_EQ(1, m.queue_duration.count);
	EXPECT_EQ(0, m.depth);
	EXPECT_EQ(0, m.discarded_total);
}

/* The histogram: client-go's bounds among ours, cumulative, +Inf last. */
TEST_F(metrics, histogram_shape)
{
	static const uint64_t client_go[] = {
		10ULL, 100ULL, 1000ULL, 10000ULL, 100000ULL, 1000000ULL,
		10000000ULL, 100000000ULL, 1000000000ULL, 10000000000ULL,
	};
	struct wq_metrics m;
	const struct wq_histogram *h;
	char buf[16];
	int i, k;

	for (i = 0; i < 20; i++) {
		snprintf(buf, sizeof(buf), "k%d", i);
		ASSERT_EQ(0, ADD(self->fd, buf));
		ASSERT_LT(0, get_str(self->fd, buf, sizeof(buf), 0));
		ASSERT_EQ(0, wq_done(self->fd, buf, strlen(buf)));
	}
	m = get_metrics(self->fd);
	for (k = 0; k < 2; k++) {
		h = k ? &m.work_duration : &m.queue_duration;
		EXPECT_EQ(20, h->count);
		ASSERT_LE(h->nbuckets, WQ_HIST_MAX);
		ASSERT_LE(11, h->nbuckets);
		EXPECT_EQ(UINT64_MAX, h->le_ns[h->nbuckets - 1]);
		EXPECT_EQ(h->count, h->bucket[h->nbuckets - 1]);
		for (uint32_t j = 1; j < h->nbuckets; j++) {
			EXPECT_LT(h->le_ns[j - 1], h->le_ns[j]);
			EXPECT_LE(h->bucket[j - 1], h->bucket[j]);
		}
		for (i = 0; i < (int)(sizeof(client_go) / sizeof(client_go[0])); i++) {
			bool found = false;

			for (uint32_t j = 0; j < h->nbuckets; j++)
				found |= h->le_ns[j] == client_go[i];
			EXPECT_TRUE(found) TH_LOG("bound %llu ns missing",
						  (unsigned long long)client_go[i]);
		}
		for (uint32_t j = h->nbuckets; j < WQ_HIST_MAX; j++) {
			EXPECT_EQ(0, h->le_ns[j]);
			EXPECT_EQ(0, h->bucket[j]);
		}
	}
}

/* Counters agree with wq_stat; gauges with the states. */
TEST_F(metrics, agrees_with_stat)
{
	struct wq_metrics m;
	struct wq_stats st;
	char buf[16];

	ASSERT_EQ(0, ADD(self->fd, "a"));
	ASSERT_EQ(0, ADD(self->fd, "b"));
	ASSERT_EQ(0, AFTER(self->fd, "c", 3600ULL * 1000 * MSEC));
	ASSERT_EQ(1, get_str(self->fd, buf, sizeof(buf), 0));
	ASSERT_EQ(0, wq_stat(self->fd, &st));
	m = get_metrics(self->fd);
	EXPECT_EQ(st.adds, m.adds_total);
	EXPECT_EQ(st.retries, m.retries_total);
	EXPECT_EQ(st.queued, m.queued);
	EXPECT_EQ(st.processing, m.processing);
	EXPECT_EQ(st.waiting, m.waiting);
	EXPECT_EQ(st.tracked, m.tracked);
	EXPECT_EQ((uint64_t)st.queued + st.dirty, m.depth);
}

/* Either access mode may read the metrics; a non-queue fd may not. */
TEST_F(metrics, access)
{
	struct wq_metrics m;
	int ro, wo, dev;

	ro = wq_open_flags(self->name, O_RDONLY);
	wo = wq_open_flags(self->name, O_WRONLY);
	ASSERT_LE(0, ro);
	ASSERT_LE(0, wo);
	EXPECT_EQ(0, wq_metrics(ro, &m));
	EXPECT_EQ(0, wq_metrics(wo, &m));
	EXPECT_EQ(-EFAULT, wq_metrics(ro, NULL));
	dev = raw_open_dev();
	ASSERT_LE(0, dev);
	EXPECT_EQ(-EBADF, wq_metrics(dev, &m));	/* unbound */
	close(dev);
	EXPECT_EQ(-EBADF, wq_metrics(-1, &m));
	wq_close(ro);
	wq_close(wo);
}

/* The raw ioctl: flags, sizes, a longer struct's tail zeroed. */
TEST_F(metrics, ioctl_sizes)
{
	static unsigned char big[2048];
	struct wq_metrics_info mi;
	struct wq_metrics_req r;
	size_t i;

	memset(&r, 0, sizeof(r));
	r.size = sizeof(mi);
	r.metrics = (uintptr_t)&mi;
	EXPECT_EQ(0, xioctl(self->fd, WQ_IOC_METRICS, &r));
	r.flags = 1;
	EXPECT_EQ(EINVAL, xioctl(self->fd, WQ_IOC_METRICS, &r));
	r.flags = 0;
	r.size = WQ_METRICS_INFO_SIZE_VER0 - 8;
	EXPECT_EQ(EINVAL, xioctl(self->fd, WQ_IOC_METRICS, &r));
	r.size = 8192;
	EXPECT_EQ(EINVAL, xioctl(self->fd, WQ_IOC_METRICS, &r));
	r.size = sizeof(big);
	r.metrics = (uintptr_t)big;
	memset(big, 0xa5, sizeof(big));
	EXPECT_EQ(0, xioctl(self->fd, WQ_IOC_METRICS, &r));
	for (i = sizeof(mi); i < sizeof(big); i++)
		ASSERT_EQ(0, big[i]) TH_LOG("byte %zu not zeroed", i);
	r.size = sizeof(mi);
	r.metrics = 8;			/* unmapped */
	EXPECT_EQ(EFAULT, xioctl(self->fd, WQ_IOC_METRICS, &r));
	EXPECT_EQ(WQ_METRICS_INFO_SIZE_VER0,
		  offsetof(struct wq_metrics_info, nr_levels));
	EXPECT_EQ(1432U, sizeof(mi));	/* second version: levels */
	{
		/* WQ_ADD_AFTER is an AddAfter: not with WQ_ADD_RATE_LIMITED */
		struct wq_add a = { .flags = WQ_ADD_AFTER | WQ_ADD_RATE_LIMITED,
				    .key_len = 1, .key = (uintptr_t)"x" };

		EXPECT_EQ(EINVAL, xioctl(self->fd, WQ_IOC_ADD, &a));
		a.flags = WQ_ADD_AFTER;
		EXPECT_EQ(0, xioctl(self->fd, WQ_IOC_ADD, &a));
		EXPECT_EQ(1, get_metrics(self->fd).retries_total);
	}
	EXPECT_EQ(sizeof(struct wq_metrics), sizeof(mi));
}

/* Counters are 64-bit and never go back, also across many calls. */
TEST_F(metrics, counters_never_go_back)
{
	struct wq_metrics prev, m;
	char buf[16];
	int i;

	prev = get_metrics(self->fd);
	for (i = 0; i < 200; i++) {
		snprintf(buf, sizeof(buf), "k%d", i % 7);
		ASSERT_EQ(0, ADD(self->fd, buf));
		if (i % 3 == 0 && get_str(self->fd, buf, sizeof(buf), 0) > 0 &&
		    i % 2 == 0)
			ASSERT_EQ(0, wq_done(self->fd, buf, strlen(buf)));
		m = get_metrics(self->fd);
		ASSERT_LE(prev.adds_total, m.adds_total);
		ASSERT_LE(prev.queue_duration.count, m.queue_duration.count);
		ASSERT_LE(prev.work_duration.count, m.work_duration.count);
		ASSERT_LE(prev.queue_duration.sum_ns, m.queue_duration.sum_ns);
		ASSERT_EQ(m.processing, m.queue_duration.count -
			  m.work_duration.count);
		prev = m;
	}
}

TEST_HARNESS_MAIN
