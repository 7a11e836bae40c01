/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The fixture and checks shared by the rate-limiter tests
 * (ratelimit_*_test.c): the fixture "rl" (up to RL_QUEUES queues per test,
 * made with NEWQ, all destroyed after), the delay of one
 * wq_add_rate_limited, the delays of a run of failures, the reference of
 * the exponential limiter, and threads calling wq_add_rate_limited at once.
 *
 * Per-key delays are exact numbers; the bucket's depend on the time between
 * calls (see ratelimit_bucket_test.c).
 */
#ifndef WQ_TEST_RATELIMIT_H
#define WQ_TEST_RATELIMIT_H

#include "wq_test_util.h"

#define ARL(fd, s, d)	wq_add_rate_limited(fd, s, strlen(s), d)
#define REQUEUES(fd, s)	wq_num_requeues(fd, s, strlen(s))
#define FORGET(fd, s)	wq_forget(fd, s, strlen(s))

/*
 * client-go's ItemExponentialFailureRateLimiter: the n-th failure (n >= 1)
 * waits base * 2^(n-1), capped at max; a product that does not fit (2^63 ns
 * or more, where Go's float64 arithmetic overflows) gives max.
 */
static inline uint64_t exp_ref(uint64_t base, uint64_t max, unsigned int n)
{
	unsigned int s = n - 1;
	uint64_t d;

	if (s >= 63 || base > (UINT64_MAX >> 1) >> s)
		return max;
	d = base << s;
	return d > max ? max : d;
}

/* One wq_add_rate_limited of s; checks it succeeds with delay want (ns). */
#define EXPECT_DELAY(fd, s, want) do {					\
		uint64_t _d = ~0ULL;					\
		int _r = ARL(fd, s, &_d);				\
		ASSERT_EQ(0, _r) TH_LOG("add_rate_limited(%s): %s", s,	\
					strerror(-_r));			\
		ASSERT_EQ((uint64_t)(want), _d)				\
			TH_LOG("add_rate_limited(%s): delay %llu ns, want %llu ns", \
			       s, (unsigned long long)_d,		\
			       (unsigned long long)(want));		\
	} while (0)

#define EXPECT_REQUEUES(fd, s, want)					\
	ASSERT_EQ(want, REQUEUES(fd, s)) TH_LOG("num_requeues(%s)", s)

/*
 * wq_add_rate_limited of s, which must succeed: returns its delay, and in
 * *elapsed the time from t0 to just after the call (for delays of the
 * bucket, which refills meanwhile).
 */
static inline uint64_t arl_since(struct __test_metadata *_metadata, int fd,
				 const char *s, int64_t t0, int64_t *elapsed)
{
	uint64_t d = ~0ULL;
	int r = ARL(fd, s, &d);

	*elapsed = now_ns() - t0;
	ASSERT_EQ(0, r) TH_LOG("add_rate_limited(%s): %s", s, strerror(-r));
	return d;
}

/*
 * wq_add_rate_limited of first, which must get delay want, then of s:
 * returns s's delay, and in *elapsed the time from just before the first
 * call to just after the second (what a bucket refilled meanwhile).
 */
static inline uint64_t arl_after(struct __test_metadata *_metadata, int fd,
				 const char *first, uint64_t want,
				 const char *s, int64_t *elapsed)
{
	int64_t t0 = now_ns();

	EXPECT_DELAY(fd, first, want);
	return arl_since(_metadata, fd, s, t0, elapsed);
}

/* Failure #i (0-based) of n in a row of key s: delay want. */
static inline void expect_delay_i(struct __test_metadata *_metadata, int fd,
				  const char *s, uint64_t want, int i, int n)
{
	uint64_t d = ~0ULL;
	int r = ARL(fd, s, &d);

	ASSERT_EQ(0, r) TH_LOG("add_rate_limited(%s) #%d of %d: %s",
			       s, i + 1, n, strerror(-r));
	ASSERT_EQ(want, d)
		TH_LOG("add_rate_limited(%s) #%d of %d: delay %llu ns, want %llu ns",
		       s, i + 1, n, (unsigned long long)d,
		       (unsigned long long)want);
}

/* n failures of key s in a row, with the delays want[0..n-1]. */
static inline void expect_delays(struct __test_metadata *_metadata, int fd,
				 const char *s, const uint64_t *want, int n)
{
	int i;

	for (i = 0; i < n; i++)
		expect_delay_i(_metadata, fd, s, want[i], i, n);
}

/* n failures of key s in a row: first, then twice the one before each
 * (doubling) or first every time. */
static inline void expect_series(struct __test_metadata *_metadata, int fd,
				 const char *s, uint64_t first, bool doubling,
				 int n)
{
	int i;

	for (i = 0; i < n; i++)
		expect_delay_i(_metadata, fd, s, doubling ? first << i : first,
			       i, n);
}

#define EXPECT_DOUBLING(fd, s, first, n)				\
	expect_series(_metadata, fd, s, first, true, n)
#define EXPECT_SAME(fd, s, d, n)					\
	expect_series(_metadata, fd, s, d, false, n)

/* ---- fixture: up to RL_QUEUES queues per test, all destroyed after ----- */

#define RL_QUEUES 4

FIXTURE(rl) {
	int n;
	int fd[RL_QUEUES];
	char name[RL_QUEUES][WQ_NAME_MAX];
};

FIXTURE_SETUP(rl)
{
	int i;

	self->n = 0;
	for (i = 0; i < RL_QUEUES; i++) {
		self->fd[i] = -1;
		self->name[i][0] = '\0';
	}
	if (!wqt_have_dev())
		SKIP(return, "/dev/wq missing (module not loaded)");
}

FIXTURE_TEARDOWN(rl)
{
	int i;

	wqt_reap_all();
	for (i = 0; i < self->n; i++) {
		if (self->fd[i] >= 0)
			close(self->fd[i]);
		if (self->name[i][0])
			wq_destroy(self->name[i]);
	}
}

/* A new queue with limiter spec (NULL: default) and max_items; its fd. */
static inline int rl_new(FIXTURE_DATA(rl) *self, const char *tag,
			 const char *spec, uint32_t max_items)
{
	struct wq_attr attr = { .limiter = spec, .max_items = max_items };
	int i = self->n, fd;

	if (i >= RL_QUEUES)
		return -ENOSPC;
	wqt_name(self->name[i], tag);
	fd = wq_create(self->name[i], spec || max_items ? &attr : NULL);
	if (fd < 0) {
		self->name[i][0] = '\0';
		return fd;
	}
	self->fd[i] = fd;
	self->n++;
	return fd;
}

#define NEWQ(fd, spec, max_items) do {					\
		fd = rl_new(self, _metadata->name, spec, max_items);	\
		ASSERT_LE(0, fd) TH_LOG("wq_create(limiter %s): %s",	\
			(const char *)(spec) ?: "NULL", strerror(-fd));	\
	} while (0)

/* ---- concurrent callers ------------------------------------------------- */

#define RL_THREADS_MAX 8

struct arl_job {
	int fd;
	int first;	/* key index of distinct keys, or -1: one key "k" */
	int n;
	uint64_t *out;
	int err;
};

static inline void *arl_thread(void *p)
{
	struct arl_job *j = p;
	char k[WQT_KEY_LEN + 1];
	int i, r;

	for (i = 0; i < j->n; i++) {
		if (j->first < 0)
			r = wq_add_rate_limited(j->fd, "k", 1, &j->out[i]);
		else
			r = wq_add_rate_limited(j->fd, k,
						wqt_key(k, j->first + i),
						&j->out[i]);
		if (r) {
			j->err = r;
			break;
		}
	}
	return NULL;
}

/*
 * nthreads threads each make per wq_add_rate_limited calls at once: all of
 * key "k" (distinct false), or each of a key of its own (distinct true).
 * The delays go to out (nthreads * per of them); every call must succeed.
 */
static inline void arl_at_once(struct __test_metadata *_metadata, int fd,
			       int nthreads, int per, bool distinct,
			       uint64_t *out)
{
	struct arl_job job[RL_THREADS_MAX];
	pthread_t th[RL_THREADS_MAX];
	int i;

	ASSERT_GE(RL_THREADS_MAX, nthreads);
	for (i = 0; i < nthreads; i++) {
		job[i] = (struct arl_job){ fd, distinct ? i * per : -1, per,
					   out + i * per, 0 };
		ASSERT_EQ(0, pthread_create(&th[i], NULL, arl_thread, &job[i]));
	}
	for (i = 0; i < nthreads; i++)
		pthread_join(th[i], NULL);
	for (i = 0; i < nthreads; i++) {
		ASSERT_EQ(0, job[i].err) TH_LOG("thread %d", i);
	}
}

static inline int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

#endif /* WQ_TEST_RATELIMIT_H */
