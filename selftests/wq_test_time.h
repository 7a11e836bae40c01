/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Time in the wq selftests: units (in nanoseconds), CLOCK_MONOTONIC (the
 * module's clock) in ns and ms, sleeps, and the timing expectations of the
 * tests of delays and rate limits.
 *
 * The guest runs under QEMU TCG: slow and noisy. Every timing check is
 * one-sided. A key seen queued (or handed out) by a call that returned at
 * time T means its ready time is <= T, so T >= (time just before the call
 * that made it wait) + delay; "not yet" is only asserted for observations
 * that ended before that time. Upper bounds are seconds (UPPER_MS). Where a
 * check needs two calls to happen close together and the guest stalled in
 * between, the test skips (SKIP_IF_STALLED) rather than assert something
 * the module never promised.
 *
 * The macros are for test bodies (they use the harness's _metadata) and
 * need wq_test_util.h (get_str, wqt_stat).
 */
#ifndef WQ_TEST_TIME_H
#define WQ_TEST_TIME_H

#include <errno.h>
#include <stdint.h>
#include <time.h>

#include "wq.h"

/* ---- units: nanoseconds ------------------------------------------------ */

#define NS		1LL
#define US		1000LL
#define MS		1000000LL
#define SEC		(1000 * MS)
#define MINUTE		(60 * SEC)
#define HOUR		(60 * MINUTE)

#define UPPER_MS	20000		/* generous bound for "eventually" */
#define LONG_DELAY	(3600 * SEC)	/* never fires during a test */

/* ---- the clock ---------------------------------------------------------- */

/* CLOCK_MONOTONIC in nanoseconds. */
static inline int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* CLOCK_MONOTONIC in milliseconds. */
static inline int64_t wqt_now_ms(void)
{
	return now_ns() / MS;
}

static inline double ms_of(int64_t ns)
{
	return ns / 1e6;
}

static inline void wqt_sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/* Sleeps until CLOCK_MONOTONIC reaches t (ns). */
static inline void sleep_until_ns(int64_t t)
{
	int64_t now;

	while ((now = now_ns()) < t) {
		int64_t d = t - now;
		struct timespec ts = { d / SEC, d % SEC };

		nanosleep(&ts, NULL);
	}
}

/* ---- waiting for the queue ---------------------------------------------- */

/* Polls until wq_len reaches want (up to UPPER_MS); returns the last len. */
static inline int wait_len(int fd, int want)
{
	int64_t end = now_ns() + UPPER_MS * MS;
	int n;

	while ((n = wq_len(fd)) != want && n >= 0 && now_ns() < end)
		wqt_sleep_ms(1);
	return n;
}

/*
 * Polls wq_stat until field reaches want (up to UPPER_MS). Returns the time
 * just after the call that saw it, or -1.
 */
#define WAIT_STAT(fd, field, want) ({					\
		struct wq_stats _st;					\
		int64_t _end = now_ns() + UPPER_MS * MS, _t = -1;	\
		for (;;) {						\
			int _r = wqt_stat(fd, &_st);			\
			int64_t _now = now_ns();			\
			if (_r == 0 && _st.field == (want)) {		\
				_t = _now;				\
				break;					\
			}						\
			if (_r != 0 || _now > _end)			\
				break;					\
			wqt_sleep_ms(1);				\
		}							\
		_t;							\
	})

/* ---- timing expectations -------------------------------------------------- */

/*
 * wq_stat of fd into st, which must succeed; true if the call ended before
 * t (ns), so that a key waiting until t is known not to have fired in st.
 */
#define STAT_BEFORE(fd, st, t) ({					\
		ASSERT_EQ(0, wqt_stat(fd, &(st)));			\
		now_ns() < (t);						\
	})

/* The guest stalled for so long that a check's premise does not hold. */
#define SKIP_IF_STALLED(cond, what)					\
	do {								\
		if (cond)						\
			SKIP(return, "guest stalled: %s", what);	\
	} while (0)

/*
 * Waits (up to UPPER_MS) for a key, checks it is s and that it was not
 * handed out before not_before (ns, CLOCK_MONOTONIC).
 */
#define EXPECT_GET_AFTER(fd, s, not_before) do {			\
		char _b[WQ_KEY_MAX + 1];				\
		ssize_t _n = get_str(fd, _b, sizeof(_b), UPPER_MS);	\
		int64_t _t = now_ns();					\
		ASSERT_EQ((ssize_t)strlen(s), _n)			\
			TH_LOG("expected key %s within %d ms: %zd (%s)", \
			       s, UPPER_MS, _n, _n < 0 ? strerror(-_n) : _b); \
		ASSERT_STREQ(s, _b);					\
		ASSERT_LE((int64_t)(not_before), _t)			\
			TH_LOG("%s handed out %.3f ms early", s,	\
			       ms_of((not_before) - _t));		\
	} while (0)

/*
 * Waits (WAIT_STAT) until a waiting key has fired, seen as field reaching
 * want, and checks that it did not fire before not_before; what names it.
 */
#define EXPECT_FIRED_AFTER(fd, field, want, not_before, what) do {	\
		int64_t _t = WAIT_STAT(fd, field, want);		\
		ASSERT_LT(0, _t) TH_LOG("%s never fired", what);	\
		ASSERT_LE((int64_t)(not_before), _t)			\
			TH_LOG("%s fired %.3f ms early", what,		\
			       ms_of((not_before) - _t));		\
	} while (0)

#endif /* WQ_TEST_TIME_H */
