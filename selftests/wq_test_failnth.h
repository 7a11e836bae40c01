/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fail-nth: every core scenario with its 1st slab allocation failed, then
 * its 2nd, and so on until it runs through without the fault firing (as
 * tools/testing/selftests/iommu/iommufd_fail_nth.c does). What the
 * failnth_*_test.c programs share: the fixture fnth, its keys, and the
 * steps of an iteration. How a fault is injected (fail-nth, failslab's
 * knobs): wq_test_failslab.h.
 *
 * Each iteration: fresh setup with faults off, arm, the scenario's calls
 * (only recorded while armed: no check, no output, no malloc; or armed
 * call by call, fnth_step_*(), to look at the queue between them), disarm,
 * then the checks: every call succeeded or failed with a documented error
 * (at most one failed: one fault per iteration), the queue holds exactly
 * what the successful calls put there (counts, FIFO order, no key lost or
 * duplicated, failure counts, metrics), and the teardown gives every fd
 * and quota charge back. Leaks are kmemleak's (the debug lane scans after
 * the suite). Skipped where the kernel has no fault injection (the Debian
 * lanes).
 *
 * On a kmemleak kernel every allocation that succeeds makes one more
 * (kmemleak's own record, which falls back to a pool when it fails): half
 * the iterations fail that one, and must change nothing either. Each
 * iteration costs about as much as its allocations (KASAN and kmemleak
 * unwind the stack for each), so the scenarios are kept small: each
 * program takes well under a minute on the debug lane.
 *
 * Keys: key i is "k%04d" padded with dots to 6, 56 or 100 bytes (i % 3):
 * inline in the record, a separate allocation, or (> 64 bytes, what
 * /dev/wq copies on its stack) allocated by the ioctl itself.
 */
#ifndef WQ_TEST_FAILNTH_H
#define WQ_TEST_FAILNTH_H

#include "wq_test_util.h"
#include "wq_test_files.h"
#include "wq_test_ioctl.h"
#include "wq_test_failslab.h"

#define NTH_MAX		2000	/* iterations of one scenario, at most */
#define MAX_RES		512	/* calls recorded per iteration */
#define MAX_FDS		8
#define NKEYS		192	/* keys 0..NKEYS-1 */
#define KEY_CAP		128

static char keys[NKEYS][KEY_CAP];
static size_t klen[NKEYS];

static inline size_t key_len_of(int i)
{
	static const size_t len[] = { 6, 56, 100 };

	return len[i % 3];
}

static inline void keys_init(void)
{
	int i;

	for (i = 0; i < NKEYS; i++) {
		klen[i] = key_len_of(i);
		memset(keys[i], '.', klen[i]);
		snprintf(keys[i], sizeof(keys[i]), "k%04d", i);
		keys[i][5] = '.';		/* snprintf's NUL */
		keys[i][klen[i]] = '\0';
	}
}

/*
 * The batch tests' batch (failnth_batch_test.c, failnth_uring_test.c):
 * keys 0..B_KEYS-1, two chunks of 64 and more, then keys 3 and 4 again.
 */
#define B_KEYS		66	/* two chunks of 64 */
#define B_ENTRIES	(B_KEYS + 2)	/* keys 3 and 4 twice */

/* The key of entry i of the batch. */
static inline int batch_key(int i)
{
	return i < B_KEYS ? i : i - B_KEYS + 3;
}

/* in[0..B_ENTRIES): the batch's keys. */
static inline void batch_fill(struct iovec *in)
{
	int i;

	for (i = 0; i < B_ENTRIES; i++) {
		in[i].iov_base = keys[batch_key(i)];
		in[i].iov_len = klen[batch_key(i)];
	}
}

/* The index of key bytes buf[0..len), or -1 if they are none of ours. */
static inline int key_index(const char *buf, ssize_t len)
{
	int i = 0, d;

	if (len < 6 || buf[0] != 'k')
		return -1;
	for (d = 1; d < 5; d++) {
		if (buf[d] < '0' || buf[d] > '9')
			return -1;
		i = i * 10 + buf[d] - '0';
	}
	if (i >= NKEYS || (size_t)len != klen[i] || memcmp(buf, keys[i], len))
		return -1;
	return i;
}

/*
 * The @g keys a batch got, out[0..g), are order[0..g) (key indexes), and
 * each one's done went through (derrs[i] 0); @nth names the iteration.
 */
static inline void expect_got_in_order(struct __test_metadata *_metadata,
				       int nth, const int *order,
				       const struct iovec *out,
				       const int *derrs, int g)
{
	int i;

	for (i = 0; i < g; i++) {
		EXPECT_EQ(order[i], key_index(out[i].iov_base, out[i].iov_len))
			TH_LOG("nth %d: position %d", nth, i);
		EXPECT_EQ(0, derrs[i]);
	}
}

#define ADD_I(fd, i)		wq_add(fd, keys[i], klen[i])
#define DONE_I(fd, i)		wq_done(fd, keys[i], klen[i])
#define AFTER_I(fd, i, d)	wq_add_after(fd, keys[i], klen[i], d)

/* The lowest free file descriptor (an fd leaked by a failed call moves it). */
static inline int lowest_fd(void)
{
	int fd = dup(0);

	if (fd >= 0)
		close(fd);
	return fd;
}

FIXTURE(fnth)
{
	struct wqt_failslab fs;		/* fail-nth and failslab's knobs */
	int nth;			/* this iteration's N */
	int left;			/* fnth_step_*(): allocations to go */
	bool fired;			/* the fault fired in it */
	int faults;			/* iterations in which it fired */
	int64_t t0;
	/*
	 * A queue open for the whole test: it keeps this user's quota
	 * budget alive, which would otherwise go (with any charge left in
	 * it, unseen) whenever an iteration's queue is freed.
	 */
	char witness_name[WQ_NAME_MAX];
	int witness;
	/* one iteration's queue: fnth_down() undoes it */
	char name[WQ_NAME_MAX];
	int fds[MAX_FDS];
	struct wq_module_info base;	/* the quota usage before fnth_up() */
	int lowfd;
	/* the calls made while armed */
	long res[MAX_RES];
	int nres;
};

FIXTURE_SETUP(fnth)
{
	wqt_failslab_init(&self->fs);
	self->witness = -1;
	self->fired = false;
	self->faults = 0;
	self->name[0] = '\0';
	memset(self->fds, -1, sizeof(self->fds));
	if (!wqt_have_dev())
		SKIP(return, "/dev/wq missing (module not loaded)");
	wqt_failslab_required(_metadata);
	if (access(FAIL_NTH, W_OK))
		SKIP(return, "no %s (the kernel has no CONFIG_FAULT_INJECTION)",
		     FAIL_NTH);
	if (access(FAILSLAB "ignore-gfp-wait", W_OK))
		SKIP(return, "no %s (CONFIG_FAILSLAB, FAULT_INJECTION_DEBUG_FS)",
		     FAILSLAB);
	wqt_failslab_set(_metadata, &self->fs);
	keys_init();
	wqt_name(self->witness_name, "fnth-witness");
	self->witness = wq_create(self->witness_name, NULL);
	ASSERT_LE(0, self->witness);
	ASSERT_EQ(0, ADD_I(self->witness, 0));
	self->t0 = now_ns();
}

/* Closes and destroys the witness queue (see struct fnth). */
static inline void fnth_drop_witness(FIXTURE_DATA(fnth) *self)
{
	if (self->witness < 0)
		return;
	wq_close(self->witness);
	wq_destroy(self->witness_name);
	self->witness = -1;
}

/* Closes what the iteration left open and destroys its queue. */
static inline void fnth_cleanup(FIXTURE_DATA(fnth) *self)
{
	int i;

	for (i = 0; i < MAX_FDS; i++) {
		if (self->fds[i] >= 0)
			close(self->fds[i]);
		self->fds[i] = -1;
	}
	if (self->name[0])
		wq_destroy(self->name);
	self->name[0] = '\0';
}

FIXTURE_TEARDOWN(fnth)
{
	wqt_failslab_close_nth(&self->fs);
	fnth_cleanup(self);
	fnth_drop_witness(self);
	wqt_failslab_restore(&self->fs);
}

/* An fd for fnth_down() to close (a negative one is ignored). */
static inline void fnth_keep(FIXTURE_DATA(fnth) *self, int fd)
{
	int i;

	for (i = 0; fd >= 0 && i < MAX_FDS; i++)
		if (self->fds[i] < 0) {
			self->fds[i] = fd;
			return;
		}
}

/* fd was closed by the scenario: fnth_down() must not close it again. */
static inline void fnth_forget(FIXTURE_DATA(fnth) *self, int fd)
{
	int i;

	for (i = 0; i < MAX_FDS; i++)
		if (self->fds[i] == fd)
			self->fds[i] = -1;
}

/*
 * Start of an iteration, faults off: the baseline (quota usage, lowest
 * free fd) and a unique name; with create, a queue of that name with attr
 * (its fd is returned, and closed by fnth_down()).
 */
static inline int fnth_up(struct __test_metadata *_metadata,
			  FIXTURE_DATA(fnth) *self, bool create,
			  const struct wq_attr *attr)
{
	int fd = -1;

	ASSERT_GT(NTH_MAX, self->nth) {
		TH_LOG("the fault still fires at allocation %d: raise NTH_MAX",
		       self->nth);
	}
	ASSERT_EQ(0, raw_module_info(&self->base));
	self->lowfd = lowest_fd();
	wqt_name(self->name, "fnth");
	self->nres = 0;
	if (create) {
		fd = wq_create(self->name, attr);
		ASSERT_LE(0, fd) TH_LOG("wq_create: %s", strerror(-fd));
		fnth_keep(self, fd);
	}
	return fd;
}

/*
 * End of an iteration: everything closed and destroyed; every fd and
 * every quota charge (queues, key bytes, table and heap growth) is back.
 */
static inline void fnth_down(struct __test_metadata *_metadata,
			     FIXTURE_DATA(fnth) *self)
{
	struct wq_module_info mi;

	fnth_cleanup(self);
	ASSERT_EQ(0, raw_module_info(&mi));
	EXPECT_EQ(self->base.user_queues, mi.user_queues)
		TH_LOG("nth %d: a queue charge is left", self->nth);
	EXPECT_EQ(self->base.user_key_bytes, mi.user_key_bytes)
		TH_LOG("nth %d: a key-bytes charge is left", self->nth);
	EXPECT_EQ(self->lowfd, lowest_fd())
		TH_LOG("nth %d: an fd is left open", self->nth);
	if (self->fired)
		self->faults++;
}

static inline void fnth_arm(struct __test_metadata *_metadata,
			    FIXTURE_DATA(fnth) *self)
{
	char buf[16];
	int n = snprintf(buf, sizeof(buf), "%d", self->nth);

	ASSERT_EQ(n, pwrite(self->fs.nth_fd, buf, n, 0));
}

/* Disarms; sets self->fired if the fault fired while armed. */
static inline void fnth_disarm(struct __test_metadata *_metadata,
			       FIXTURE_DATA(fnth) *self)
{
	char buf[16] = { 0 };
	ssize_t n = pread(self->fs.nth_fd, buf, sizeof(buf) - 1, 0);

	ASSERT_EQ(1, pwrite(self->fs.nth_fd, "0", 1, 0));
	ASSERT_LT(0, n);
	self->fired = atoi(buf) == 0;
}

/*
 * Arming call by call (fnth_step_start() once, then fnth_step_arm() and
 * fnth_step_disarm() around each call): the fault still at the nth
 * allocation of the whole iteration, counted on from where the last call
 * left it, and the queue can be looked at between calls, disarmed.
 */
static inline void fnth_step_start(FIXTURE_DATA(fnth) *self)
{
	self->left = self->nth;
	self->fired = false;
}

static inline void fnth_step_arm(struct __test_metadata *_metadata,
				 FIXTURE_DATA(fnth) *self)
{
	char buf[16];
	int n;

	if (self->left <= 0)
		return;
	n = snprintf(buf, sizeof(buf), "%d", self->left);
	ASSERT_EQ(n, pwrite(self->fs.nth_fd, buf, n, 0));
}

/* Disarms; the allocations left (0, and self->fired: it fired now). */
static inline void fnth_step_disarm(struct __test_metadata *_metadata,
				    FIXTURE_DATA(fnth) *self)
{
	char buf[16] = { 0 };
	ssize_t n;

	if (self->left <= 0)
		return;
	n = pread(self->fs.nth_fd, buf, sizeof(buf) - 1, 0);
	ASSERT_EQ(1, pwrite(self->fs.nth_fd, "0", 1, 0));
	ASSERT_LT(0, n);
	self->left = atoi(buf);
	if (!self->left)
		self->fired = true;
}

/* Records the result of a call made while armed, and passes it on. */
static inline long rec(FIXTURE_DATA(fnth) *self, long ret)
{
	if (self->nres < MAX_RES)
		self->res[self->nres] = ret;
	self->nres++;
	return ret;
}

/*
 * Every recorded result is a success (>= 0), -ENOMEM, or one of the
 * errors the scenario expects (ok1, ok2; 0 for none); at most one is
 * -ENOMEM, and none unless the fault fired.
 */
static inline void check_results(struct __test_metadata *_metadata,
				 FIXTURE_DATA(fnth) *self, long ok1, long ok2)
{
	int i, enomem = 0;

	ASSERT_GE(MAX_RES, self->nres);
	for (i = 0; i < self->nres; i++) {
		long r = self->res[i];

		if (r == -ENOMEM)
			enomem++;
		EXPECT_TRUE(r >= 0 || r == -ENOMEM || (ok1 && r == ok1) ||
			    (ok2 && r == ok2)) {
			TH_LOG("nth %d: call %d returned %ld (%s)", self->nth,
			       i, r, strerror((int)-r));
		}
	}
	EXPECT_GE(self->fired ? 1 : 0, enomem)
		TH_LOG("nth %d: %d calls failed with -ENOMEM", self->nth, enomem);
}

/*
 * FOR_EACH_NTH: the loop of a test, nth = 1, 2, ... until an iteration
 * in which the fault did not fire (or the first that failed a check: it
 * says what there is to say).
 */
#define FOR_EACH_NTH(self)						\
	for ((self)->nth = 1, (self)->fired = true;			\
	     (self)->fired && _metadata->exit_code != KSFT_FAIL;	\
	     (self)->nth++)

/* After the loop: the injection happened, and how often. */
static inline void fnth_report(struct __test_metadata *_metadata,
			       FIXTURE_DATA(fnth) *self)
{
	TH_LOG("%d iterations, %d with a fault injected, %.1f s",
	       self->nth - 1, self->faults, ms_of(now_ns() - self->t0) / 1000);
	ASSERT_LT(0, self->faults) TH_LOG("the fault never fired");
}

/*
 * Takes every queued key without waiting (in batches: two calls, not two
 * per key) and does them: each key index goes to seen[] in the order it
 * came; returns how many, and the error that ended the gets in *end.
 */
static inline int drain_all(struct __test_metadata *_metadata,
			    FIXTURE_DATA(fnth) *self, int fd, int *seen,
			    int cap, ssize_t *end)
{
	static char buf[64 * 1024];
	struct iovec iov[WQ_BATCH_MAX];
	int errs[WQ_BATCH_MAX];
	ssize_t n;
	int i, got = 0;

	while ((n = wq_get_batch(fd, buf, sizeof(buf), iov, WQ_BATCH_MAX,
				 0)) > 0) {
		for (i = 0; i < n; i++) {
			ASSERT_GT(cap, got)
				TH_LOG("nth %d: too many keys", self->nth);
			seen[got] = key_index(iov[i].iov_base, iov[i].iov_len);
			ASSERT_LE(0, seen[got])
				TH_LOG("nth %d: a key not ours", self->nth);
			got++;
		}
		ASSERT_EQ(n, wq_done_batch(fd, iov, n, errs));
	}
	*end = n;
	return got;
}

/*
 * Takes every queued key and does it: they must be want[0..n) in this
 * order; then the get fails with end.
 */
static inline void drain_order(struct __test_metadata *_metadata,
			       FIXTURE_DATA(fnth) *self, int fd,
			       const int *want, int n, ssize_t end)
{
	int seen[NKEYS], got, i;
	ssize_t last;

	got = drain_all(_metadata, self, fd, seen, NKEYS, &last);
	EXPECT_EQ(end, last);
	EXPECT_EQ(n, got) TH_LOG("nth %d: keys lost or added", self->nth);
	for (i = 0; i < n && i < got; i++)
		EXPECT_EQ(want[i], seen[i])
			TH_LOG("nth %d: position %d", self->nth, i);
}

/* As drain_order(), in any order: each key with want[i] set, once. */
static inline void drain_set(struct __test_metadata *_metadata,
			     FIXTURE_DATA(fnth) *self, int fd, const bool *want)
{
	int seen[NKEYS], count[NKEYS] = { 0 }, got, i;
	ssize_t last;

	got = drain_all(_metadata, self, fd, seen, NKEYS, &last);
	EXPECT_EQ(-EAGAIN, last);
	for (i = 0; i < got && i < NKEYS; i++)
		if (seen[i] >= 0 && seen[i] < NKEYS)
			count[seen[i]]++;
	for (i = 0; i < NKEYS; i++) {
		int times = count[i];

		EXPECT_EQ(want[i] ? 1 : 0, times)
			TH_LOG("nth %d: key %d handed out %d times",
			       self->nth, i, times);
	}
}

/*
 * A get without waiting (raw: the priority too): the key's index, or
 * -errno; *prio its priority (0 on a plain queue).
 */
static inline int fnth_get_prio(int fd, int32_t *prio)
{
	char buf[KEY_CAP];
	struct wq_get g = { .flags = WQ_GET_NONBLOCK, .buf = (uintptr_t)buf,
			    .buf_cap = sizeof(buf) };
	int err = xioctl(fd, WQ_IOC_GET, &g);

	if (err)
		return -err;
	*prio = g.priority;
	return key_index(buf, g.key_len);
}

/*
 * As drain_order(), one key at a time, each also at its priority prio[i];
 * then nothing is queued.
 */
static inline void drain_prio_order(struct __test_metadata *_metadata,
				    FIXTURE_DATA(fnth) *self, int fd,
				    const int *want, const int32_t *prio, int n)
{
	int32_t p;
	int i, k;

	for (i = 0; i < n; i++) {
		p = -12345;
		k = fnth_get_prio(fd, &p);
		EXPECT_EQ(want[i], k)
			TH_LOG("nth %d: get %d", self->nth, i);
		EXPECT_EQ(prio[i], p)
			TH_LOG("nth %d: get %d (key %d)", self->nth, i, k);
		if (k >= 0)
			EXPECT_EQ(0, DONE_I(fd, k));
	}
	EXPECT_EQ(-EAGAIN, fnth_get_prio(fd, &p));
}

#endif /* WQ_TEST_FAILNTH_H */
