// SPDX-License-Identifier: GPL-2.0
/*
 * The raw ABI of the job-queue calls (uapi/linux/wq.h), without libwq:
 * WQ_ADD_WAIT and struct wq_add's second version (its first still works),
 * WQ_SHUTDOWN_DISCARD, and the batch commands (struct wq_batch, struct
 * wq_iov): flags, fields that must be 0, counts, bad pointers, sizes,
 * the unbound handle, the module's batch_max. Every rejected call leaves
 * the queue as it was.
 */
#include <sys/mman.h>

#include "wq_test_util.h"
#include "wq_test_ioctl.h"
#include "wq_test_time.h"

FIXTURE(abij) {
	int dev;	/* /dev/wq, not bound */
	int fd;		/* bound to self->name */
	char name[WQ_NAME_MAX];
};

FIXTURE_SETUP(abij)
{
	RAW_SETUP_QUEUE();
}

FIXTURE_TEARDOWN(abij)
{
	RAW_TEARDOWN_QUEUE();
}

/* struct wq_iov is struct iovec on LP64; the structs have no padding. */
TEST(layouts)
{
	EXPECT_EQ(16U, sizeof(struct wq_iov));
	EXPECT_EQ(56U, sizeof(struct wq_batch));	/* second: priority */
	EXPECT_EQ(48U, offsetof(struct wq_batch, priority));
	EXPECT_EQ(40U, sizeof(struct wq_add));	/* third version: outcome */
	EXPECT_EQ(36U, offsetof(struct wq_add, priority));
	EXPECT_EQ(20U, offsetof(struct wq_get, priority));
	EXPECT_EQ(40U, sizeof(struct wq_key_info));
	EXPECT_EQ(280U, offsetof(struct wq_create, starve_ns));
	EXPECT_EQ(288U, sizeof(struct wq_create));
	EXPECT_EQ(1024, WQ_BATCH_MAX);
}

TEST_F(abij, module_info)
{
	struct wq_module_info mi;

	memset(&mi, 0xa5, sizeof(mi));
	ASSERT_EQ(0, xioctl(self->dev, WQ_IOC_MODULE_INFO, &mi));
	EXPECT_EQ((uint32_t)WQ_BATCH_MAX, mi.batch_max);
	EXPECT_EQ((uint32_t)(WQ_FEATURE_ADD_OUTCOME | WQ_FEATURE_KEY_STATE |
			     WQ_FEATURE_PRIORITY | WQ_FEATURE_KEY_CALLS |
			     WQ_FEATURE_DONE_GET | WQ_FEATURE_URING |
			     WQ_FEATURE_URING_PARK),
		  mi.features);
	EXPECT_EQ((uint32_t)(WQ_CREATE_PRIVATE | WQ_CREATE_PRIORITY),
		  mi.create_flags);
	EXPECT_TRUE(mi.add_flags & WQ_ADD_WAIT);
	EXPECT_TRUE(mi.shutdown_flags & WQ_SHUTDOWN_DISCARD);
}

/* struct wq_add's first version (no deadline_ns) is still an ADD. */
TEST_F(abij, add_first_version)
{
	struct { uint32_t flags, key_len; uint64_t key, delay_ns; } v0 = {
		.key_len = 2, .key = (uintptr_t)"v0",
	};

	EXPECT_EQ(0, xioctl(self->fd, IOC_SIZED(WQ_IOC_ADD, sizeof(v0)), &v0));
	EXPECT_EQ(1U, snap(self->fd).queued);
}

/* deadline_ns only with WQ_ADD_WAIT; DRAIN and DISCARD exclude each other. */
TEST_F(abij, fields_that_must_be_zero)
{
	struct wq_add a = { .key_len = 1, .key = (uintptr_t)"a" };
	struct wq_shutdown sd = { .flags = WQ_SHUTDOWN_DRAIN | WQ_SHUTDOWN_DISCARD };
	struct snapshot s;

	ASSERT_EQ(0, raw_add(self->fd, "k", 1));
	s = snap(self->fd);
	a.deadline_ns = WQ_DEADLINE_NONE;
	EXPECT_EQ(EINVAL, xioctl(self->fd, WQ_IOC_ADD, &a));
	a.deadline_ns = 1;
	EXPECT_EQ(EINVAL, xioctl(self->fd, WQ_IOC_ADD, &a));
	EXPECT_EQ(EINVAL, xioctl(self->fd, WQ_IOC_SHUTDOWN, &sd));
	sd.flags = WQ_SHUTDOWN_DISCARD;
	sd.deadline_ns = WQ_DEADLINE_NONE;
	EXPECT_EQ(EINVAL, xioctl(self->fd, WQ_IOC_SHUTDOWN, &sd));
	ASSERT_UNCHANGED(s, self->fd);
}

/* WQ_ADD_WAIT on a queue with room: a plain add; its deadline may be past. */
TEST_F(abij, add_wait_with_room)
{
	struct wq_add a = { .flags = WQ_ADD_WAIT, .key_len = 1,
			    .key = (uintptr_t)"w", .deadline_ns = 1 };

	EXPECT_EQ(0, xioctl(self->fd, WQ_IOC_ADD, &a));
	EXPECT_EQ(1U, snap(self->fd).queued);
}

/* A DISCARD's result is the number dropped. */
TEST_F(abij, discard_returns_count)
{
	struct wq_shutdown sd = { .flags = WQ_SHUTDOWN_DISCARD };

	ASSERT_EQ(0, raw_add(self->fd, "a", 1));
	ASSERT_EQ(0, raw_add(self->fd, "b", 1));
	EXPECT_EQ(2, ioctl(self->fd, WQ_IOC_SHUTDOWN, &sd));
	EXPECT_EQ(0U, snap(self->fd).keys);
}

/* A batch of keys for ADD or DONE: one key, "a". */
#define BATCH_ONE(b, iov, res) do {					\
		memset(&(b), 0, sizeof(b));				\
		(iov).base = (uintptr_t)"a";				\
		(iov).len = 1;						\
		(b).count = 1;						\
		(b).keys = (uintptr_t)&(iov);				\
		(b).results = (uintptr_t)&(res);			\
	} while (0)

/* A batch for GET: @count keys out to @keys, their bytes in @buf. */
static void get_batch(struct wq_batch *b, uint32_t flags, uint32_t count,
		      uintptr_t keys, char *buf, uint32_t cap)
{
	memset(b, 0, sizeof(*b));
	b->flags = flags;
	b->count = count;
	b->keys = keys;
	b->buf = (uintptr_t)buf;
	b->buf_cap = cap;
}

/* Unknown flags and fields of another command: EINVAL, nothing changes. */
TEST_F(abij, batch_flags_and_fields)
{
	char buf[64];
	struct wq_iov iov, out[2];
	struct wq_batch b;
	struct snapshot s;
	int32_t res;
	uint32_t bit;

	ASSERT_EQ(0, raw_add(self->fd, "q", 1));
	s = snap(self->fd);
	for (bit = 0; bit < 32; bit++) {
		BATCH_ONE(b, iov, res);
		b.flags = 1U << bit;
		/* ADD's flags: WQ_ADD_OUTCOME; WQ_ADD_PRIORITY (not here: a plain queue) */
		if (!(b.flags & WQ_ADD_OUTCOME))
			EXPECT_EQ(EINVAL, xioctl(self->fd, WQ_IOC_ADD_BATCH, &b)) TH_LOG("ADD bit %u", bit);
		EXPECT_EQ(EINVAL, xioctl(self->fd, WQ_IOC_DONE_BATCH, &b)) TH_LOG("DONE bit %u", bit);
		if (b.flags & (WQ_GET_NONBLOCK | WQ_GET_DETACH))
			continue;
		get_batch(&b, (1U << bit) | WQ_GET_NONBLOCK, 2,
			  (uintptr_t)out, buf, sizeof(buf));
		EXPECT_EQ(EINVAL, xioctl(self->fd, WQ_IOC_GET_BATCH, &b)) TH_LOG("GET bit %u", bit);
	}
	/* ADD and DONE take no buffer and no deadline */
	BATCH_ONE(b, iov, res);
	b.buf = (uintptr_t)buf;
	EXPECT_EQ(EINVAL, xioctl(self->fd, WQ_IOC_ADD_BATCH, &b));
	BATCH_ONE(b, iov, res);
	b.buf_cap = 64;
	EXPECT_EQ(EINVAL, xioctl(self->fd, WQ_IOC_ADD_BATCH, &b));
	BATCH_ONE(b, iov, res);
	b.deadline_ns = WQ_DEADLINE_NONE;
	EXPECT_EQ(EINVAL, xioctl(self->fd, WQ_IOC_DONE_BATCH, &b));
	/* GET and DONE take no priority; nobody a reserved field */
	get_batch(&b, WQ_GET_NONBLOCK, 2, (uintptr_t)out, buf, sizeof(buf));
	b.priority = 1;
	EXPECT_EQ(EINVAL, xioctl(self->fd, WQ_IOC_GET_BATCH, &b));
	b.priority = 0;
	b.reserved = 1;
	EXPECT_EQ(EINVAL, xioctl(self->fd, WQ_IOC_GET_BATCH, &b));
	BATCH_ONE(b, iov, res);
	b.reserved = 1;
	EXPECT_EQ(EINVAL, xioctl(self->fd, WQ_IOC_ADD_BATCH, &b));
	BATCH_ONE(b, iov, res);
	b.priority = 2;			/* without WQ_ADD_PRIORITY */
	EXPECT_EQ(EINVAL, xioctl(self->fd, WQ_IOC_ADD_BATCH, &b));
	ASSERT_UNCHANGED(s, self->fd);
}

/* count 0 and count > WQ_BATCH_MAX: EINVAL for each command. */
TEST_F(abij, batch_counts)
{
	static struct wq_iov iov[WQ_BATCH_MAX + 1];
	static int32_t res[WQ_BATCH_MAX + 1];
	static char buf[WQ_KEY_MAX];
	unsigned long cmds[] = { WQ_IOC_ADD_BATCH, WQ_IOC_DONE_BATCH };
	struct wq_batch b;
	struct snapshot s;
	uint32_t counts[] = { 0, WQ_BATCH_MAX + 1, ~0U };
	size_t c, i;

	for (i = 0; i <= WQ_BATCH_MAX; i++) {
		iov[i].base = (uintptr_t)"k";
		iov[i].len = 1;
	}
	ASSERT_EQ(0, raw_add(self->fd, "q", 1));
	s = snap(self->fd);
	for (c = 0; c < ARRAY_SIZE(counts); c++) {
		for (i = 0; i < ARRAY_SIZE(cmds); i++) {
			memset(&b, 0, sizeof(b));
			b.count = counts[c];
			b.keys = (uintptr_t)iov;
			b.results = (uintptr_t)res;
			EXPECT_EQ(EINVAL, xioctl(self->fd, cmds[i], &b))
				TH_LOG("command %zu count %u", i, counts[c]);
		}
		get_batch(&b, WQ_GET_NONBLOCK, counts[c], (uintptr_t)iov,
			  buf, sizeof(buf));
		EXPECT_EQ(EINVAL, xioctl(self->fd, WQ_IOC_GET_BATCH, &b))
			TH_LOG("GET count %u", counts[c]);
	}
	ASSERT_UNCHANGED(s, self->fd);
	/* WQ_BATCH_MAX itself is fine */
	memset(&b, 0, sizeof(b));
	b.count = WQ_BATCH_MAX;
	b.keys = (uintptr_t)iov;
	b.results = (uintptr_t)res;
	EXPECT_EQ(WQ_BATCH_MAX, ioctl(self->fd, WQ_IOC_ADD_BATCH, &b));
	EXPECT_EQ(0, res[WQ_BATCH_MAX - 1]);
	EXPECT_EQ(2U, snap(self->fd).queued);	/* "q" and "k" */
}

/* Bad pointers to the arrays: EFAULT, nothing changes. */
TEST_F(abij, batch_bad_pointers)
{
	struct wq_iov iov[2] = { { (uintptr_t)"x", 1 }, { (uintptr_t)"y", 1 } };
	struct wq_iov out[2];
	struct wq_batch b;
	struct snapshot s;
	int32_t res[2];
	char buf[64];

	ASSERT_EQ(0, raw_add(self->fd, "q", 1));
	s = snap(self->fd);
	memset(&b, 0, sizeof(b));
	b.count = 2;
	b.keys = 8;				/* unreadable keys */
	EXPECT_EQ(EFAULT, xioctl(self->fd, WQ_IOC_ADD_BATCH, &b));
	b.keys = (uintptr_t)iov;
	b.results = 8;				/* unwritable results */
	EXPECT_EQ(EFAULT, xioctl(self->fd, WQ_IOC_ADD_BATCH, &b));
	b.results = (uintptr_t)"read-only results";
	EXPECT_EQ(EFAULT, xioctl(self->fd, WQ_IOC_ADD_BATCH, &b));
	ASSERT_UNCHANGED(s, self->fd);

	/* unwritable keys out */
	get_batch(&b, WQ_GET_NONBLOCK, 2, 8, buf, sizeof(buf));
	EXPECT_EQ(EFAULT, xioctl(self->fd, WQ_IOC_GET_BATCH, &b));
	ASSERT_UNCHANGED(s, self->fd);
	b.keys = (uintptr_t)out;
	b.buf = 8;				/* unwritable buffer */
	EXPECT_EQ(EFAULT, xioctl(self->fd, WQ_IOC_GET_BATCH, &b));
	ASSERT_UNCHANGED(s, self->fd);
	EXPECT_EQ(EFAULT, xioctl(self->fd, WQ_IOC_ADD_BATCH, (void *)8));

	/* a good GET: "q", one key, in buf */
	b.buf = (uintptr_t)buf;
	EXPECT_EQ(1, ioctl(self->fd, WQ_IOC_GET_BATCH, &b));
	EXPECT_EQ((uintptr_t)buf, out[0].base);
	EXPECT_EQ(1U, out[0].len);
	EXPECT_EQ('q', buf[0]);
	/* DONE with results that cannot be written: "q" stays processing */
	s = snap(self->fd);
	memset(&b, 0, sizeof(b));
	iov[0].base = (uintptr_t)"q";
	b.count = 1;
	b.keys = (uintptr_t)iov;
	b.results = 8;
	EXPECT_EQ(EFAULT, xioctl(self->fd, WQ_IOC_DONE_BATCH, &b));
	ASSERT_UNCHANGED(s, self->fd);
	b.results = (uintptr_t)res;
	EXPECT_EQ(1, ioctl(self->fd, WQ_IOC_DONE_BATCH, &b));
	EXPECT_EQ(0, res[0]);
}

/*
 * Regression: GET_BATCH with @keys in user range but not writable (a
 * PROT_NONE page) used to find it only after its wait and the take: it
 * slept until a key came, counted a get in queue_duration, then put the
 * key back. Now it fails before waiting, and nothing is observed.
 */
TEST_F(abij, get_batch_bad_keys_before_wait)
{
	struct wq_metrics m0, m1;
	struct wq_batch b;
	struct snapshot s;
	int64_t t0;
	char buf[64];
	void *page;

	page = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, page);
	get_batch(&b, 0, 4, (uintptr_t)page, buf, sizeof(buf));
	/* an empty queue and a deadline a minute ahead: no wait at all */
	b.deadline_ns = (uint64_t)now_ns() + 60ULL * 1000000000ULL;
	t0 = now_ns();
	EXPECT_EQ(EFAULT, xioctl(self->fd, WQ_IOC_GET_BATCH, &b));
	EXPECT_GT(30000, (now_ns() - t0) / 1000000) TH_LOG("it waited");
	/* a key queued: it stays, no get is observed */
	ASSERT_EQ(0, raw_add(self->fd, "q", 1));
	s = snap(self->fd);
	ASSERT_EQ(0, wq_metrics(self->fd, &m0));
	EXPECT_EQ(EFAULT, xioctl(self->fd, WQ_IOC_GET_BATCH, &b));
	ASSERT_UNCHANGED(s, self->fd);
	ASSERT_EQ(0, wq_metrics(self->fd, &m1));
	EXPECT_EQ(m0.queue_duration.count, m1.queue_duration.count);
	munmap(page, 4096);
}

/* Is each of @n entries of @size bytes at @p untouched (0xff) or all zero? */
static int whole_entries(const unsigned char *p, int n, int size)
{
	int i, j;

	for (i = 0; i < n; i++, p += size) {
		for (j = 1; j < size && p[j] == p[0]; j++)
			;
		if (j < size || (p[0] != 0xff && p[0] != 0))
			return i;
	}
	return -1;
}

/*
 * Regression: the probe before the wait wrote a zero byte at the start of
 * each page of @keys and @results, changing a byte of an entry GET_BATCH
 * does not fill. It may zero such an entry, but only whole; here entries
 * straddle the page boundary and start at no natural alignment.
 */
TEST_F(abij, get_batch_probe_changes_whole_entries)
{
	long pg = sysconf(_SC_PAGESIZE);
	unsigned char *m, *keys, *prios;
	struct wq_batch b;
	struct snapshot s;
	char buf[64];

	m = mmap(NULL, 3 * pg, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, m);
	memset(m, 0xff, 3 * pg);
	/* entries 0..2 on one page, 3 across, 4..7 on the next */
	keys = m + pg - 3 * sizeof(struct wq_iov) - 8;
	prios = m + 2 * pg - 3 * sizeof(int32_t) - 2;
	get_batch(&b, WQ_GET_NONBLOCK, 8, (uintptr_t)keys, buf, sizeof(buf));
	b.results = (uintptr_t)prios;
	s = snap(self->fd);
	EXPECT_EQ(EAGAIN, xioctl(self->fd, WQ_IOC_GET_BATCH, &b));
	ASSERT_UNCHANGED(s, self->fd);
	EXPECT_EQ(-1, whole_entries(keys, 8, sizeof(struct wq_iov)));
	EXPECT_EQ(-1, whole_entries(prios, 8, sizeof(int32_t)));
	/* a key queued: the filled entry is whole, the rest as before */
	memset(m, 0xff, 3 * pg);
	ASSERT_EQ(0, raw_add(self->fd, "q", 1));
	EXPECT_EQ(1, ioctl(self->fd, WQ_IOC_GET_BATCH, &b));
	EXPECT_EQ(0, memcmp(keys + 8, "\1\0\0\0\0\0\0\0", 8));
	EXPECT_EQ(-1, whole_entries(keys + sizeof(struct wq_iov), 7,
				    sizeof(struct wq_iov)));
	EXPECT_EQ(-1, whole_entries(prios + sizeof(int32_t), 7,
				    sizeof(int32_t)));
	munmap(m, 3 * pg);
}

/* Sizes: a longer struct with a zero tail works, a non-zero tail is E2BIG. */
TEST_F(abij, batch_sizes)
{
	struct { struct wq_batch b; uint64_t tail; } big;
	struct wq_iov iov = { (uintptr_t)"z", 1 };
	struct snapshot s = snap(self->fd);

	memset(&big, 0, sizeof(big));
	big.b.count = 1;
	big.b.keys = (uintptr_t)&iov;
	big.tail = 1;
	EXPECT_EQ(E2BIG, xioctl(self->fd, IOC_SIZED(WQ_IOC_ADD_BATCH, sizeof(big)), &big));
	ASSERT_UNCHANGED(s, self->fd);
	EXPECT_EQ(EINVAL, xioctl(self->fd, IOC_SIZED(WQ_IOC_ADD_BATCH, 8), &big));
	ASSERT_UNCHANGED(s, self->fd);
	big.tail = 0;
	EXPECT_EQ(1, ioctl(self->fd, IOC_SIZED(WQ_IOC_ADD_BATCH, sizeof(big)), &big));
	EXPECT_EQ(1U, snap(self->fd).queued);
}

/* A handle not bound to a queue: EBADF for every new call. */
TEST_F(abij, unbound_handle)
{
	struct wq_iov iov = { (uintptr_t)"a", 1 };
	struct wq_batch b = { .count = 1, .keys = (uintptr_t)&iov };
	struct wq_shutdown sd = { .flags = WQ_SHUTDOWN_DISCARD };

	EXPECT_EQ(EBADF, xioctl(self->dev, WQ_IOC_ADD_BATCH, &b));
	EXPECT_EQ(EBADF, xioctl(self->dev, WQ_IOC_DONE_BATCH, &b));
	EXPECT_EQ(EBADF, xioctl(self->dev, WQ_IOC_GET_BATCH, &b));
	EXPECT_EQ(EBADF, xioctl(self->dev, WQ_IOC_SHUTDOWN, &sd));
}

/* GET_BATCH's deadline: a past one times out at once on an empty queue. */
TEST_F(abij, get_batch_deadline)
{
	struct wq_iov out[1];
	struct wq_batch b;
	char buf[8];

	get_batch(&b, 0, 1, (uintptr_t)out, buf, sizeof(buf));
	b.deadline_ns = 1;
	EXPECT_EQ(ETIMEDOUT, xioctl(self->fd, WQ_IOC_GET_BATCH, &b));
	b.deadline_ns = 0;
	b.flags = WQ_GET_NONBLOCK;
	EXPECT_EQ(EAGAIN, xioctl(self->fd, WQ_IOC_GET_BATCH, &b));
}

TEST_HARNESS_MAIN
