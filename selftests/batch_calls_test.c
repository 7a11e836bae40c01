// SPDX-License-Identifier: GPL-2.0
/*
 * The batch calls (wq_add_batch(3)): wq_add_batch, wq_get_batch,
 * wq_done_batch. Each key of an add or done batch is treated as the single
 * call would treat it, with its own result, and a bad key does not stop
 * the others; a key repeated within a batch coalesces; a get batch waits
 * only for the first key, takes keys in FIFO order up to n and as many as
 * fit in the buffer (packed, keys[] pointing into it), -EMSGSIZE when the
 * first does not fit; call-level errors (n == 0 or n > WQ_BATCH_MAX:
 * -EINVAL, -EFAULT, -EBADF) change nothing (whom a batch of keys wakes:
 * wake_test.c); long keys and calls of more than
 * 64 entries cross the kernel's chunks whole, in order, each result in
 * its place; keys next to each other in memory, read in one copy, still
 * fault one by one.
 */
#include <sys/mman.h>

#include "wq_test_util.h"
#include "wq_test_jobs.h"

WQT_FIXTURE_ATTR(bc, .limiter = "none", .max_items = 4096);

/* A snapshot of the counters that a failed call must leave alone. */
#define SAME_STATS(fd, before) do {					\
		struct wq_stats _now;					\
		ASSERT_EQ(0, wqt_stat(fd, &_now));			\
		EXPECT_EQ((before).queued, _now.queued);		\
		EXPECT_EQ((before).processing, _now.processing);	\
		EXPECT_EQ((before).dirty, _now.dirty);			\
		EXPECT_EQ((before).keys, _now.keys);			\
		EXPECT_EQ((before).adds, _now.adds);			\
	} while (0)

/* Good and bad keys in one batch: each its own result, in order. */
TEST_F(bc, add_mixed_keys)
{
	static char big[WQ_KEY_MAX + 1];
	struct iovec keys[] = {
		IOV("a"),
		{ .iov_base = "x", .iov_len = 0 },		/* empty */
		IOV("b"),
		{ .iov_base = big, .iov_len = sizeof(big) },	/* too long */
		{ .iov_base = NULL, .iov_len = 3 },		/* unreadable */
		{ .iov_base = big, .iov_len = WQ_KEY_MAX },	/* the longest */
		IOV("c"),
	};
	int errs[7], want[7] = { 0, -EINVAL, 0, -EINVAL, -EFAULT, 0, 0 };
	int i;

	memset(big, 'L', sizeof(big));
	memset(errs, 0x55, sizeof(errs));
	EXPECT_EQ(4, wq_add_batch(self->fd, keys, 7, errs));
	for (i = 0; i < 7; i++)
		EXPECT_EQ(want[i], errs[i]) TH_LOG("key %d", i);
	EXPECT_STATS(self->fd, STAT(queued, 4), STAT(keys, 4));
	EXPECT_GET(self->fd, "a");
	EXPECT_GET(self->fd, "b");
	EXPECT_EQ(WQ_KEY_MAX, wq_get(self->fd, big, sizeof(big), 0));
	EXPECT_GET(self->fd, "c");
}

/* errs may be NULL: the count alone. */
TEST_F(bc, add_without_results)
{
	struct iovec keys[] = { IOV("a"), { .iov_base = "x", .iov_len = 0 }, IOV("b") };

	EXPECT_EQ(2, wq_add_batch(self->fd, keys, 3, NULL));
	EXPECT_EQ(2, wq_len(self->fd));
}

/* A key repeated in the batch coalesces (all succeed); FIFO of first add. */
TEST_F(bc, add_duplicates)
{
	struct iovec keys[] = { IOV("x"), IOV("y"), IOV("x"), IOV("z"), IOV("x") };
	struct wq_stats st;
	int errs[5], i;

	EXPECT_EQ(5, wq_add_batch(self->fd, keys, 5, errs));
	for (i = 0; i < 5; i++)
		EXPECT_EQ(0, errs[i]) TH_LOG("key %d", i);
	ASSERT_EQ(0, wqt_stat(self->fd, &st));
	EXPECT_EQ(3U, st.queued);
	EXPECT_EQ(3ULL, (unsigned long long)st.adds);	/* newly pending only */
	EXPECT_GET(self->fd, "x");
	/* x processing: the batch marks it dirty once */
	EXPECT_EQ(5, wq_add_batch(self->fd, keys, 5, errs));
	EXPECT_STATS(self->fd, STAT(queued, 2), STAT(dirty, 1), STAT(keys, 3));
	EXPECT_GET(self->fd, "y");
	EXPECT_GET(self->fd, "z");
	ASSERT_EQ(0, DONE(self->fd, "x"));
	EXPECT_GET(self->fd, "x");
	EXPECT_NOTHING(self->fd);
}

/* Capacity: keys beyond max_items are -EAGAIN, held ones still coalesce. */
TEST_F(bc, add_beyond_max_items)
{
	struct wq_attr attr = { .limiter = "none", .max_items = 3 };
	struct iovec keys[] = { IOV("a"), IOV("b"), IOV("c"), IOV("d"),
				IOV("a"), IOV("e") };
	int errs[6], want[6] = { 0, 0, 0, -EAGAIN, 0, -EAGAIN };
	char name[WQ_NAME_MAX];
	int fd, i;

	wqt_name(name, "cap");
	fd = wq_create(name, &attr);
	ASSERT_LE(0, fd);
	EXPECT_EQ(4, wq_add_batch(fd, keys, 6, errs));
	for (i = 0; i < 6; i++)
		EXPECT_EQ(want[i], errs[i]) TH_LOG("key %d", i);
	EXPECT_STATS(fd, STAT(queued, 3), STAT(keys, 3));
	wq_close(fd);
	wq_destroy(name);
}

/* After shutdown each key says -ESHUTDOWN; the call itself succeeds. */
TEST_F(bc, add_after_shutdown)
{
	struct iovec keys[] = { IOV("a"), IOV("b") };
	int errs[2];

	ASSERT_EQ(0, wq_shutdown(self->fd));
	EXPECT_EQ(0, wq_add_batch(self->fd, keys, 2, errs));
	EXPECT_EQ(-ESHUTDOWN, errs[0]);
	EXPECT_EQ(-ESHUTDOWN, errs[1]);
	EXPECT_EQ(0, wq_len(self->fd));
}

/* n == 0, n > WQ_BATCH_MAX, bad arrays: -EINVAL or -EFAULT, nothing changes. */
TEST_F(bc, call_level_errors)
{
	static struct iovec many[WQ_BATCH_MAX + 1];
	static char text[(WQ_BATCH_MAX + 1) * (WQT_KEY_LEN + 1)];
	struct iovec one[] = { IOV("a") };
	struct wq_stats before;
	char buf[64];

	ASSERT_EQ(0, ADD(self->fd, "p"));
	EXPECT_GET(self->fd, "p");
	ASSERT_EQ(0, ADD(self->fd, "q"));
	ASSERT_EQ(0, wqt_stat(self->fd, &before));
	wqt_iov_keys(many, text, 0, WQ_BATCH_MAX + 1);

	EXPECT_EQ(-EINVAL, wq_add_batch(self->fd, many, 0, NULL));
	EXPECT_EQ(-EINVAL, wq_add_batch(self->fd, many, WQ_BATCH_MAX + 1, NULL));
	EXPECT_EQ(-EINVAL, wq_done_batch(self->fd, many, 0, NULL));
	EXPECT_EQ(-EINVAL, wq_done_batch(self->fd, many, WQ_BATCH_MAX + 1, NULL));
	EXPECT_EQ(-EINVAL, wq_get_batch(self->fd, buf, sizeof(buf), many, 0, 0));
	EXPECT_EQ(-EINVAL, wq_get_batch(self->fd, buf, sizeof(buf), many,
					WQ_BATCH_MAX + 1, 0));
	EXPECT_EQ(-EFAULT, wq_add_batch(self->fd, NULL, 1, NULL));
	EXPECT_EQ(-EFAULT, wq_done_batch(self->fd, NULL, 1, NULL));
	EXPECT_EQ(-EFAULT, wq_get_batch(self->fd, buf, sizeof(buf), NULL, 1, 0));
	/* results that cannot be written: refused before any key is added */
	EXPECT_EQ(-EFAULT, wq_add_batch(self->fd, one, 1, (int *)8));
	EXPECT_EQ(-EFAULT, wq_done_batch(self->fd, (struct iovec[]){ IOV("p") },
					 1, (int *)8));
	/* an array the kernel cannot read */
	EXPECT_EQ(-EFAULT, wq_add_batch(self->fd, (struct iovec *)8, 1, NULL));
	/* a buffer it cannot write: the key stays queued */
	EXPECT_EQ(-EFAULT, wq_get_batch(self->fd, (void *)8, 64, one, 1, 0));
	EXPECT_EQ(-EBADF, wq_add_batch(-1, one, 1, NULL));
	SAME_STATS(self->fd, before);
	EXPECT_GET(self->fd, "q");
}

/* WQ_BATCH_MAX keys in one call each way, in order. */
TEST_F(bc, full_batches)
{
	static struct iovec keys[WQ_BATCH_MAX], got[WQ_BATCH_MAX];
	static char text[WQ_BATCH_MAX * (WQT_KEY_LEN + 1)];
	static char buf[WQ_BATCH_MAX * WQT_KEY_LEN];
	static int errs[WQ_BATCH_MAX];
	int i;

	wqt_iov_keys(keys, text, 0, WQ_BATCH_MAX);
	EXPECT_EQ(WQ_BATCH_MAX, wq_add_batch(self->fd, keys, WQ_BATCH_MAX, errs));
	EXPECT_EQ(WQ_BATCH_MAX, wq_len(self->fd));
	ASSERT_EQ(WQ_BATCH_MAX, wq_get_batch(self->fd, buf, sizeof(buf), got,
					     WQ_BATCH_MAX, 0));
	for (i = 0; i < WQ_BATCH_MAX; i++) {
		ASSERT_EQ(i, wqt_key_index(got[i].iov_base, (ssize_t)got[i].iov_len))
			TH_LOG("key %d", i);
	}
	EXPECT_STATS(self->fd, STAT(processing, WQ_BATCH_MAX), STAT(queued, 0));
	EXPECT_EQ(WQ_BATCH_MAX, wq_done_batch(self->fd, got, WQ_BATCH_MAX, errs));
	EXPECT_STATS(self->fd, STAT(processing, 0), STAT(keys, 0));
}

#define LK_N		100	/* entries: more than one chunk's 64 */
#define LK_DONE_BAD	70	/* bad entries first in the done: > 64 */

/* Entry i of long_keys: a bad length (-EINVAL), or a long key of its own. */
static size_t lk_len(int i)
{
	if (i % 10 == 3)
		return 0;
	if (i % 10 == 7)
		return WQ_KEY_MAX + 1;
	return i % 4 ? 1000 + (size_t)i * 37 % 3097 : WQ_KEY_MAX;
}

/*
 * Long keys, a few fitting in a chunk's 8 KiB, and bad entries among them,
 * in calls of more than 64 entries: each entry its own result, every key
 * whole and in order across the chunks, the done's bad entries too.
 */
TEST_F(bc, long_keys_across_chunks)
{
	static char text[LK_N][WQ_KEY_MAX + 1], buf[LK_N * WQ_KEY_MAX];
	static struct iovec keys[LK_N], got[LK_N], done[LK_DONE_BAD + LK_N + 1];
	static int errs[LK_DONE_BAD + LK_N + 1];
	int i, n, good = 0;

	for (i = 0; i < LK_N; i++) {
		memset(text[i], 'a' + i % 26, sizeof(text[i]));
		snprintf(text[i], 8, "k%05d", i);
		text[i][6] = '-';		/* snprintf's NUL */
		keys[i].iov_base = text[i];
		keys[i].iov_len = lk_len(i);
		if (lk_len(i) && lk_len(i) <= WQ_KEY_MAX)
			good++;
	}
	memset(errs, 0x55, sizeof(errs));
	ASSERT_EQ(good, wq_add_batch(self->fd, keys, LK_N, errs));
	for (i = 0; i < LK_N; i++)
		EXPECT_EQ(keys[i].iov_len <= WQ_KEY_MAX && keys[i].iov_len ?
			  0 : -EINVAL, errs[i]) TH_LOG("add %d", i);
	ASSERT_EQ(good, wq_get_batch(self->fd, buf, sizeof(buf), got, LK_N, 0));
	for (i = n = 0; i < LK_N; i++) {
		if (!keys[i].iov_len || keys[i].iov_len > WQ_KEY_MAX)
			continue;
		ASSERT_EQ(keys[i].iov_len, got[n].iov_len) TH_LOG("get %d", n);
		EXPECT_EQ(0, memcmp(text[i], got[n].iov_base, got[n].iov_len));
		n++;
	}
	/* bad entries (> 64 in a row) first, then the keys, one twice */
	for (i = 0; i < LK_DONE_BAD; i++)
		done[i] = (struct iovec){ .iov_base = NULL, .iov_len = 0 };
	memcpy(done + LK_DONE_BAD, got, good * sizeof(got[0]));
	done[LK_DONE_BAD + good] = got[0];
	n = LK_DONE_BAD + good + 1;
	memset(errs, 0x55, sizeof(errs));
	EXPECT_EQ(good, wq_done_batch(self->fd, done, n, errs));
	for (i = 0; i < n; i++)
		EXPECT_EQ(i < LK_DONE_BAD ? -EINVAL : i < n - 1 ? 0 : -ENOENT,
			  errs[i]) TH_LOG("done %d", i);
	EXPECT_STATS(self->fd, STAT(processing, 0), STAT(keys, 0));
}

/* Up to n keys in FIFO order, packed into buf, each processing. */
TEST_F(bc, get_fifo_packed)
{
	struct iovec keys[5], got[3];
	char text[5 * (WQT_KEY_LEN + 1)], buf[256];
	size_t off = 0;
	int i;

	wqt_iov_keys(keys, text, 10, 5);
	ASSERT_EQ(5, wq_add_batch(self->fd, keys, 5, NULL));
	memset(got, 0, sizeof(got));
	ASSERT_EQ(3, wq_get_batch(self->fd, buf, sizeof(buf), got, 3, 0));
	for (i = 0; i < 3; i++) {
		EXPECT_EQ(10 + i, wqt_key_index(got[i].iov_base, (ssize_t)got[i].iov_len));
		EXPECT_EQ((void *)(buf + off), got[i].iov_base) TH_LOG("key %d", i);
		off += got[i].iov_len;
	}
	EXPECT_STATS(self->fd, STAT(processing, 3), STAT(queued, 2));
	/* fewer queued than asked: what there is, without waiting */
	ASSERT_EQ(2, wq_get_batch(self->fd, buf, sizeof(buf), got, 3, UPPER_MS));
	EXPECT_EQ(13, wqt_key_index(got[0].iov_base, (ssize_t)got[0].iov_len));
	EXPECT_EQ(14, wqt_key_index(got[1].iov_base, (ssize_t)got[1].iov_len));
}

/* A buffer that fits only some keys: those, the rest stay queued. */
TEST_F(bc, get_what_fits)
{
	struct iovec keys[4], got[4];
	char text[4 * (WQT_KEY_LEN + 1)], buf[64];

	wqt_iov_keys(keys, text, 0, 4);
	ASSERT_EQ(4, wq_add_batch(self->fd, keys, 4, NULL));
	ASSERT_EQ(2, wq_get_batch(self->fd, buf, 2 * WQT_KEY_LEN + 5, got, 4, 0));
	EXPECT_EQ(0, wqt_key_index(got[0].iov_base, (ssize_t)got[0].iov_len));
	EXPECT_EQ(1, wqt_key_index(got[1].iov_base, (ssize_t)got[1].iov_len));
	EXPECT_STATS(self->fd, STAT(processing, 2), STAT(queued, 2));
	ASSERT_EQ(1, wq_get_batch(self->fd, buf, WQT_KEY_LEN, got, 4, 0));
	EXPECT_EQ(2, wqt_key_index(got[0].iov_base, (ssize_t)got[0].iov_len));
}

/* The first key does not fit: -EMSGSIZE, nothing taken. */
TEST_F(bc, get_emsgsize)
{
	struct iovec got[2];
	char buf[8];

	ASSERT_EQ(0, ADD(self->fd, "longer-key"));
	ASSERT_EQ(0, ADD(self->fd, "s"));
	EXPECT_EQ(-EMSGSIZE, wq_get_batch(self->fd, buf, sizeof(buf), got, 2, 0));
	EXPECT_EQ(-EMSGSIZE, wq_get_batch(self->fd, buf, 0, got, 2, UPPER_MS));
	EXPECT_STATS(self->fd, STAT(queued, 2), STAT(processing, 0));
	EXPECT_GET(self->fd, "longer-key");
}

/* The waits of wq_get: -EAGAIN, -ETIMEDOUT (not early), -ESHUTDOWN. */
TEST_F(bc, get_waits_as_wq_get)
{
	struct iovec got[4];
	char buf[64];
	int64_t t0;
	ssize_t n;

	EXPECT_EQ(-EAGAIN, wq_get_batch(self->fd, buf, sizeof(buf), got, 4, 0));
	t0 = now_ns();
	n = wq_get_batch(self->fd, buf, sizeof(buf), got, 4, 150);
	EXPECT_EQ(-ETIMEDOUT, n);
	EXPECT_LE(t0 + 150 * MS, now_ns());
	ASSERT_EQ(0, ADD(self->fd, "a"));
	ASSERT_EQ(0, wq_shutdown(self->fd));
	EXPECT_EQ(1, wq_get_batch(self->fd, buf, sizeof(buf), got, 4, -1));
	EXPECT_EQ(-ESHUTDOWN, wq_get_batch(self->fd, buf, sizeof(buf), got, 4, -1));
}

static long call_get_batch(struct wqt_job *j)
{
	static char buf[1024];
	struct iovec got[8];

	return wq_get_batch(j->fd, buf, sizeof(buf), got, 8, j->timeout_ms);
}

/* A blocked get batch waits for the first key only, then takes what is there. */
TEST_F(bc, get_waits_for_first_only)
{
	struct iovec keys[] = { IOV("a"), IOV("b"), IOV("c") };
	struct wqt_job j;
	char buf[64];
	struct iovec got[8];
	long total;
	ssize_t n;

	ASSERT_EQ(0, wqt_job_start(&j, call_get_batch, self->fd, UPPER_MS));
	ASSERT_TRUE(wqt_job_asleep(&j));
	ASSERT_EQ(3, wq_add_batch(self->fd, keys, 3, NULL));
	ASSERT_TRUE(wqt_job_wait(&j, UPPER_MS + 5000));
	ASSERT_LE(1, j.ret) TH_LOG("get batch: %ld", j.ret);
	total = j.ret;
	n = wq_get_batch(self->fd, buf, sizeof(buf), got, 8, 0);
	if (n > 0)
		total += n;
	EXPECT_EQ(3, total);
	EXPECT_STATS(self->fd, STAT(processing, 3), STAT(queued, 0));
}

/* Done of good and bad keys: each its own result. */
TEST_F(bc, done_mixed_keys)
{
	struct iovec add[] = { IOV("a"), IOV("b"), IOV("c") };
	struct iovec done[] = {
		IOV("a"), IOV("zz"), IOV("b"), { .iov_base = "x", .iov_len = 0 },
		IOV("a"), IOV("c"),
	};
	int errs[6], want[6] = { 0, -ENOENT, 0, -EINVAL, -ENOENT, 0 };
	struct iovec got[3];
	char buf[64];
	int i;

	ASSERT_EQ(3, wq_add_batch(self->fd, add, 3, NULL));
	ASSERT_EQ(3, wq_get_batch(self->fd, buf, sizeof(buf), got, 3, 0));
	ASSERT_EQ(0, ADD(self->fd, "c"));	/* dirty: queued again at done */
	EXPECT_EQ(3, wq_done_batch(self->fd, done, 6, errs));
	for (i = 0; i < 6; i++)
		EXPECT_EQ(want[i], errs[i]) TH_LOG("key %d", i);
	EXPECT_STATS(self->fd, STAT(processing, 0), STAT(queued, 1), STAT(keys, 1));
	EXPECT_GET(self->fd, "c");
}

/* Keys taken by a batch go back when their handle closes, as wq_get's. */
TEST_F(bc, close_returns_batch_keys)
{
	struct iovec add[] = { IOV("a"), IOV("b") }, got[2];
	char buf[64];
	int fd2;

	fd2 = wq_open(self->name);
	ASSERT_LE(0, fd2);
	ASSERT_EQ(2, wq_add_batch(self->fd, add, 2, NULL));
	ASSERT_EQ(2, wq_get_batch(fd2, buf, sizeof(buf), got, 2, 0));
	ASSERT_EQ(0, wq_close(fd2));
	EXPECT_STATS(self->fd, STAT(processing, 0), STAT(queued, 2));
	EXPECT_GET(self->fd, "a");
	EXPECT_GET(self->fd, "b");
}

/*
 * Keys next to each other in memory are read in one copy; where that copy
 * faults (the run crosses into an unmapped page), each key that can be
 * read is still added or done, and only those that cannot get -EFAULT.
 */
TEST_F(bc, adjacent_keys_across_an_unmapped_page)
{
	long pg = sysconf(_SC_PAGESIZE);
	static char more[] = "ccccdddd";
	int errs[6], want[6] = { 0, 0, -EFAULT, -EFAULT, 0, 0 };
	struct iovec keys[6];
	char *m;
	int i;

	m = mmap(NULL, 2 * pg, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, m);
	memcpy(m + pg - 10, "aaaabbbbxxyyyy", 14);
	/* a, b end the first page; x.. straddles; y in the second */
	for (i = 0; i < 4; i++)
		keys[i] = (struct iovec){ m + pg - 10 + 4 * i, 4 };
	keys[4] = (struct iovec){ more, 4 };
	keys[5] = (struct iovec){ more + 4, 4 };
	ASSERT_EQ(0, munmap(m + pg, pg));

	memset(errs, 0x55, sizeof(errs));
	EXPECT_EQ(4, wq_add_batch(self->fd, keys, 6, errs));
	for (i = 0; i < 6; i++)
		EXPECT_EQ(want[i], errs[i]) TH_LOG("add: key %d", i);
	EXPECT_STATS(self->fd, STAT(queued, 4), STAT(keys, 4));
	EXPECT_GET(self->fd, "aaaa");
	EXPECT_GET(self->fd, "bbbb");
	EXPECT_GET(self->fd, "cccc");
	EXPECT_GET(self->fd, "dddd");

	memset(errs, 0x55, sizeof(errs));
	EXPECT_EQ(4, wq_done_batch(self->fd, keys, 6, errs));
	for (i = 0; i < 6; i++)
		EXPECT_EQ(want[i], errs[i]) TH_LOG("done: key %d", i);
	EXPECT_STATS(self->fd, STAT(processing, 0), STAT(keys, 0));
	munmap(m, pg);
}

/*
 * A fault inside a run: 64 adjacent 100-byte keys over a page that is
 * not mapped. The keys before it and after it in the same run are added
 * and done, in order; only those that touch the page get -EFAULT.
 */
TEST_F(bc, a_fault_inside_a_run)
{
	enum { N = 64, LEN = 100 };
	long pg = sysconf(_SC_PAGESIZE);
	char *m, *start, buf[LEN + 1];
	struct iovec keys[N];
	int errs[N], want[N], ok = 0, i;

	m = mmap(NULL, 3 * pg, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, m);
	start = m + pg - 10 * LEN;
	for (i = 0; i < N; i++) {
		char *k = start + i * LEN;

		keys[i] = (struct iovec){ k, LEN };
		/* a key that touches the middle page faults */
		want[i] = k + LEN > m + pg && k < m + 2 * pg ? -EFAULT : 0;
		ok += !want[i];
		if (!want[i]) {
			memset(k, 'k', LEN);
			k[0] = (char)i;		/* distinct keys */
		}
	}
	ASSERT_EQ(0, munmap(m + pg, pg));
	ASSERT_EQ(0, want[N - 1]);	/* readable keys after the page */

	EXPECT_EQ(ok, wq_add_batch(self->fd, keys, N, errs));
	for (i = 0; i < N; i++)
		EXPECT_EQ(want[i], errs[i]) TH_LOG("add: key %d", i);
	for (i = 0; i < N; i++) {
		if (want[i])
			continue;
		ASSERT_EQ(LEN, wq_get(self->fd, buf, sizeof(buf), 0));
		EXPECT_EQ(0, memcmp(buf, keys[i].iov_base, LEN)) TH_LOG("key %d", i);
	}
	EXPECT_EQ(ok, wq_done_batch(self->fd, keys, N, errs));
	for (i = 0; i < N; i++)
		EXPECT_EQ(want[i], errs[i]) TH_LOG("done: key %d", i);
	EXPECT_STATS(self->fd, STAT(processing, 0), STAT(keys, 0));
	munmap(m, pg);
	munmap(m + 2 * pg, pg);
}

/* Access modes: a consumer may not add, a producer may not get or done. */
TEST_F(bc, access_modes)
{
	struct iovec one[] = { IOV("a") }, got[1];
	char buf[64];
	int ro, wo, nb;

	ro = wq_open_flags(self->name, O_RDONLY);
	wo = wq_open_flags(self->name, O_WRONLY);
	nb = wq_open_flags(self->name, O_RDWR | O_NONBLOCK);
	ASSERT_LE(0, ro);
	ASSERT_LE(0, wo);
	ASSERT_LE(0, nb);
	EXPECT_EQ(-EBADF, wq_add_batch(ro, one, 1, NULL));
	EXPECT_EQ(-EBADF, wq_get_batch(wo, buf, sizeof(buf), got, 1, 0));
	EXPECT_EQ(1, wq_add_batch(wo, one, 1, NULL));
	EXPECT_EQ(-EBADF, wq_done_batch(wo, one, 1, NULL));
	EXPECT_EQ(1, wq_get_batch(ro, buf, sizeof(buf), got, 1, 0));
	EXPECT_EQ(1, wq_done_batch(ro, one, 1, NULL));
	EXPECT_EQ(-EAGAIN, wq_get_batch(nb, buf, sizeof(buf), got, 1, -1));
	wq_close(ro);
	wq_close(wo);
	wq_close(nb);
}

TEST_HARNESS_MAIN
