// SPDX-License-Identifier: GPL-2.0
/*
 * fail-nth (wq_test_failnth.h) of the batch calls: a batch of adds over
 * two chunks with keys twice, a batch of gets, a batch of dones.
 */
#include "wq_test_failnth.h"

/* ---- batches ------------------------------------------------------------ */

#define B_BUF		8192

TEST_F_TIMEOUT(fnth, batch, 300)
{
	struct iovec in[B_ENTRIES], out[B_ENTRIES];
	int errs[B_ENTRIES], derrs[B_ENTRIES], order[B_KEYS];
	static char gbuf[B_BUF];
	long n, g, d;
	int i, k, fd, nok, distinct;
	bool seen[NKEYS];

	batch_fill(in);
	FOR_EACH_NTH(self) {
		fd = fnth_up(_metadata, self, true, NULL);
		memset(errs, 0x55, sizeof(errs));
		memset(derrs, 0x55, sizeof(derrs));
		memset(out, 0, sizeof(out));
		memset(gbuf, 0, sizeof(gbuf));
		fnth_arm(_metadata, self);
		/* a call-level failure changes nothing: retried */
		n = rec(self, wq_add_batch(fd, in, B_ENTRIES, errs));
		if (n == -ENOMEM)
			n = rec(self, wq_add_batch(fd, in, B_ENTRIES, errs));
		g = rec(self, wq_get_batch(fd, gbuf, sizeof(gbuf), out,
					   B_ENTRIES, 0));
		if (g == -ENOMEM)
			g = rec(self, wq_get_batch(fd, gbuf, sizeof(gbuf), out,
						   B_ENTRIES, 0));
		d = g > 0 ? rec(self, wq_done_batch(fd, out, g, derrs)) : 0;
		if (d == -ENOMEM)
			d = rec(self, wq_done_batch(fd, out, g, derrs));
		fnth_disarm(_metadata, self);
		check_results(_metadata, self, 0, 0);

		/* each key's result; the FIFO of first successful adds */
		memset(seen, 0, sizeof(seen));
		for (i = nok = distinct = 0; i < B_ENTRIES; i++) {
			k = batch_key(i);
			ASSERT_TRUE(errs[i] == 0 || errs[i] == -ENOMEM)
				TH_LOG("nth %d: key %d: %d", self->nth, i, errs[i]);
			if (!self->fired)
				EXPECT_EQ(0, errs[i]);
			if (errs[i])
				continue;
			nok++;
			if (!seen[k]) {
				seen[k] = true;
				order[distinct++] = k;
			}
		}
		EXPECT_EQ(nok, n);
		ASSERT_EQ(distinct, g);
		EXPECT_EQ(g, d);
		expect_got_in_order(_metadata, self->nth, order, out, derrs, g);
		EXPECT_STATS(fd, STAT(queued, 0), STAT(processing, 0),
			     STAT(keys, 0));
		fnth_down(_metadata, self);
	}
	fnth_report(_metadata, self);
}

TEST_HARNESS_MAIN
