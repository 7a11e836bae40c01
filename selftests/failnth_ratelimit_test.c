// SPDX-License-Identifier: GPL-2.0
/*
 * fail-nth (wq_test_failnth.h) of the delayed and rate-limited adds:
 * add_after, add_rate_limited, forget, num_requeues.
 */
#include "wq_test_failnth.h"

/* ---- add_after, add_rate_limited, forget, num_requeues ----------------- */

/*
 * RL_PREFILL short keys queued without faults, then RL_KEYS armed: the
 * key table grows (past 32 keys) under one of them.
 */
#define RL_PREFILL	20	/* keys 96, 99, .., 153 */
#define RL_KEYS		30	/* keys 0..29 */

/*
 * The armed calls, key i's by i % 5: 0 an AddAfter, 1 an AddRateLimited,
 * 2 two of them and NumRequeues, 3 an AddAfter of 0 (an Add), 4 an
 * AddRateLimited and Forget. Each result recorded, in this order.
 */
static void rl_calls(FIXTURE_DATA(fnth) *self, int fd)
{
	uint64_t delay;
	int i;

	for (i = 0; i < RL_KEYS; i++) {
		switch (i % 5) {
		case 0:
			rec(self, AFTER_I(fd, i, 5 * MS));
			break;
		case 1:
			rec(self, wq_add_rate_limited(fd, keys[i],
						      klen[i], &delay));
			break;
		case 2:
			rec(self, wq_add_rate_limited(fd, keys[i],
						      klen[i], NULL));
			rec(self, wq_add_rate_limited(fd, keys[i],
						      klen[i], NULL));
			rec(self, wq_num_requeues(fd, keys[i], klen[i]));
			break;
		case 3:
			rec(self, AFTER_I(fd, i, 0));	/* an Add */
			break;
		case 4:
			rec(self, wq_add_rate_limited(fd, keys[i],
						      klen[i], NULL));
			rec(self, wq_forget(fd, keys[i], klen[i]));
			break;
		}
	}
}

/*
 * What the successful calls of rl_calls() did, replayed from their
 * results: which of keys 0..RL_KEYS-1 are held (held[]), the failures
 * each has (failures[]); returns the retries. The NumRequeues of a key
 * 2 (mod 5) must have seen its failures.
 */
static uint64_t rl_replay(struct __test_metadata *_metadata,
			  FIXTURE_DATA(fnth) *self, int *failures, bool *held)
{
	uint64_t retries;
	long r, *res;
	int i;

	memset(held, 0, NKEYS * sizeof(*held));
	retries = 0;
	res = self->res;
	for (i = 0; i < RL_KEYS; i++) {
		failures[i] = 0;
		switch (i % 5) {
		case 0:
		case 3:
			r = *res++;
			held[i] = !r;
			retries += !r;
			break;
		case 1:
			r = *res++;
			held[i] = !r;
			failures[i] = !r;
			retries += !r;
			break;
		case 2:
			r = *res++;
			held[i] = !r;
			failures[i] = !r;
			retries += !r;
			r = *res++;
			held[i] |= !r;
			failures[i] += !r;
			retries += !r;
			r = *res++;
			EXPECT_TRUE(r == failures[i] || r == -ENOMEM)
				TH_LOG("nth %d: num_requeues %ld, not %d",
				       self->nth, r, failures[i]);
			break;
		case 4:
			r = *res++;
			held[i] = !r;
			retries += !r;
			failures[i] = 0;
			if (*res++) /* a failed forget forgets nothing */
				failures[i] = !r;
			break;
		}
	}
	return retries;
}

TEST_F_TIMEOUT(fnth, add_after_rate_limited, 300)
{
	static const struct wq_attr attr = { .limiter = "exponential:10ms:10ms" };
	int failures[RL_KEYS], tracked, nheld, i, fd;
	struct iovec pre[RL_PREFILL];
	bool held[NKEYS];
	uint64_t retries;
	struct wq_stats st;

	for (i = 0; i < RL_PREFILL; i++) {
		pre[i].iov_base = keys[96 + i * 3];
		pre[i].iov_len = klen[96 + i * 3];
	}
	FOR_EACH_NTH(self) {
		fd = fnth_up(_metadata, self, true, &attr);
		ASSERT_EQ(RL_PREFILL, wq_add_batch(fd, pre, RL_PREFILL, NULL));
		fnth_arm(_metadata, self);
		rl_calls(self, fd);
		fnth_disarm(_metadata, self);
		check_results(_metadata, self, 0, 0);

		/* what the successful calls did, replayed */
		retries = rl_replay(_metadata, self, failures, held);
		for (i = 0; i < RL_PREFILL; i++)
			held[96 + i * 3] = true;
		nheld = RL_PREFILL;
		for (i = tracked = 0; i < RL_KEYS; i++) {
			tracked += failures[i] > 0;
			nheld += held[i];
			EXPECT_EQ(failures[i], wq_num_requeues(fd, keys[i],
							       klen[i]))
				TH_LOG("nth %d: key %d", self->nth, i);
		}
		ASSERT_EQ(0, wqt_stat(fd, &st));
		EXPECT_EQ(retries, st.retries);
		EXPECT_EQ(tracked, st.tracked);
		EXPECT_EQ(nheld, st.keys);
		/* every delay is 10 ms at most: all of them fire */
		ASSERT_LE(0, WAIT_STAT(fd, waiting, 0));
		ASSERT_EQ(0, wqt_stat(fd, &st));
		EXPECT_STATS_OF(st, STAT(queued, nheld), STAT(keys, nheld),
				STAT(tracked, tracked));
		EXPECT_EQ((uint64_t)nheld, st.adds);
		drain_set(_metadata, self, fd, held);
		/* the failures outlive the keys */
		EXPECT_STATS(fd, STAT(keys, 0), STAT(tracked, tracked));
		fnth_down(_metadata, self);
	}
	fnth_report(_metadata, self);
}

TEST_HARNESS_MAIN
