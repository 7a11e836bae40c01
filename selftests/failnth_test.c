// SPDX-License-Identifier: GPL-2.0
/*
 * fail-nth: every core scenario with its 1st slab allocation failed, then
 * its 2nd, and so on until it runs through without the fault firing (as
 * tools/testing/selftests/iommu/iommufd_fail_nth.c does).
 *
 * Writing N to /proc/thread-self/fail-nth makes the Nth should_fail() of
 * this thread fail (lib/fault-inject.c, checked before failslab's
 * probability and task filter); reading it back gives what is left: 0 if
 * the fault fired, non-zero if the scenario ended before its Nth
 * allocation. failslab skips allocations that may sleep while its
 * ignore-gfp-wait is Y (the default), so each test sets it to N, verbose
 * to 0 (a fault would otherwise print a stack trace, which the debug lane
 * counts as a kernel problem), probability to 0 and cache-filter to N, and
 * restores them afterwards.
 *
 * Each iteration: fresh setup with faults off, arm, the scenario's calls
 * (only recorded while armed: no check, no output, no malloc), disarm,
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
 * unwind the stack for each), so the scenarios are kept small: the whole
 * program takes well under a minute on the debug lane.
 *
 * Keys: key i is "k%04d" padded with dots to 6, 56 or 100 bytes (i % 3):
 * inline in the record, a separate allocation, or (> 64 bytes, what
 * /dev/wq copies on its stack) allocated by the ioctl itself.
 */
#include "wq_test_util.h"
#include "wq_test_files.h"
#include "wq_test_ioctl.h"

#define FAILSLAB	"/sys/kernel/debug/failslab/"
#define FAIL_NTH	"/proc/thread-self/fail-nth"
#define NTH_MAX		2000	/* iterations of one scenario, at most */
#define MAX_RES		512	/* calls recorded per iteration */
#define MAX_FDS		8
#define NKEYS		192	/* keys 0..NKEYS-1 */
#define KEY_CAP		128

/*
 * failslab's knobs: the value a test wants, and the one to restore (each
 * injection uses up one of "times", so it is put back too).
 */
static const char *const knob_names[] = {
	"ignore-gfp-wait", "verbose", "probability", "cache-filter", "times",
};
static const char *const knob_values[] = { "N", "0", "0", "N", "-1" };

#define NKNOBS	ARRAY_SIZE(knob_names)

static char keys[NKEYS][KEY_CAP];
static size_t klen[NKEYS];

static size_t key_len_of(int i)
{
	static const size_t len[] = { 6, 56, 100 };

	return len[i % 3];
}

static void keys_init(void)
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

/* The index of key bytes buf[0..len), or -1 if they are none of ours. */
static int key_index(const char *buf, ssize_t len)
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

#define ADD_I(fd, i)		wq_add(fd, keys[i], klen[i])
#define DONE_I(fd, i)		wq_done(fd, keys[i], klen[i])
#define AFTER_I(fd, i, d)	wq_add_after(fd, keys[i], klen[i], d)

/* The lowest free file descriptor (an fd leaked by a failed call moves it). */
static int lowest_fd(void)
{
	int fd = dup(0);

	if (fd >= 0)
		close(fd);
	return fd;
}

FIXTURE(fnth)
{
	int nth_fd;			/* FAIL_NTH, opened once */
	char saved[NKNOBS][32];
	bool knobs_set[NKNOBS];
	int nth;			/* this iteration's N */
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
	size_t i;

	self->nth_fd = -1;
	self->witness = -1;
	self->fired = false;
	self->faults = 0;
	self->name[0] = '\0';
	memset(self->knobs_set, 0, sizeof(self->knobs_set));
	memset(self->fds, -1, sizeof(self->fds));
	if (!wqt_have_dev())
		SKIP(return, "/dev/wq missing (module not loaded)");
	/* the debug lane (WQ_DEBUG_LANE=1) must run these, not skip them */
	if (getenv("WQ_DEBUG_LANE"))
		ASSERT_EQ(0, access(FAIL_NTH, W_OK) |
			     access(FAILSLAB "ignore-gfp-wait", W_OK))
			TH_LOG("no fail-nth or failslab on the debug lane");
	if (access(FAIL_NTH, W_OK))
		SKIP(return, "no %s (the kernel has no CONFIG_FAULT_INJECTION)",
		     FAIL_NTH);
	if (access(FAILSLAB "ignore-gfp-wait", W_OK))
		SKIP(return, "no %s (CONFIG_FAILSLAB, FAULT_INJECTION_DEBUG_FS)",
		     FAILSLAB);
	for (i = 0; i < NKNOBS; i++) {
		char path[128];

		snprintf(path, sizeof(path), FAILSLAB "%s", knob_names[i]);
		ASSERT_EQ(0, wqt_read_file(path, self->saved[i],
				      sizeof(self->saved[i]))) TH_LOG("%s", path);
		ASSERT_EQ(0, wqt_write_file(path, knob_values[i])) TH_LOG("%s", path);
		self->knobs_set[i] = true;
	}
	self->nth_fd = open(FAIL_NTH, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, self->nth_fd);
	keys_init();
	wqt_name(self->witness_name, "fnth-witness");
	self->witness = wq_create(self->witness_name, NULL);
	ASSERT_LE(0, self->witness);
	ASSERT_EQ(0, ADD_I(self->witness, 0));
	self->t0 = now_ns();
}

/* Closes and destroys the witness queue (see struct fnth). */
static void fnth_drop_witness(FIXTURE_DATA(fnth) *self)
{
	if (self->witness < 0)
		return;
	wq_close(self->witness);
	wq_destroy(self->witness_name);
	self->witness = -1;
}

/* Closes what the iteration left open and destroys its queue. */
static void fnth_cleanup(FIXTURE_DATA(fnth) *self)
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
	size_t i;

	if (self->nth_fd >= 0) {
		(void)!pwrite(self->nth_fd, "0", 1, 0);
		close(self->nth_fd);
	}
	fnth_cleanup(self);
	fnth_drop_witness(self);
	for (i = 0; i < NKNOBS; i++) {
		char path[128];

		if (!self->knobs_set[i])
			continue;
		snprintf(path, sizeof(path), FAILSLAB "%s", knob_names[i]);
		wqt_write_file(path, self->saved[i]);
	}
}

/* An fd for fnth_down() to close (a negative one is ignored). */
static void fnth_keep(FIXTURE_DATA(fnth) *self, int fd)
{
	int i;

	for (i = 0; fd >= 0 && i < MAX_FDS; i++)
		if (self->fds[i] < 0) {
			self->fds[i] = fd;
			return;
		}
}

/* fd was closed by the scenario: fnth_down() must not close it again. */
static void fnth_forget(FIXTURE_DATA(fnth) *self, int fd)
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
static int fnth_up(struct __test_metadata *_metadata,
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
static void fnth_down(struct __test_metadata *_metadata,
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

static void fnth_arm(struct __test_metadata *_metadata,
		     FIXTURE_DATA(fnth) *self)
{
	char buf[16];
	int n = snprintf(buf, sizeof(buf), "%d", self->nth);

	ASSERT_EQ(n, pwrite(self->nth_fd, buf, n, 0));
}

/* Disarms; sets self->fired if the fault fired while armed. */
static void fnth_disarm(struct __test_metadata *_metadata,
			FIXTURE_DATA(fnth) *self)
{
	char buf[16] = { 0 };
	ssize_t n = pread(self->nth_fd, buf, sizeof(buf) - 1, 0);

	ASSERT_EQ(1, pwrite(self->nth_fd, "0", 1, 0));
	ASSERT_LT(0, n);
	self->fired = atoi(buf) == 0;
}

/* Records the result of a call made while armed, and passes it on. */
static long rec(FIXTURE_DATA(fnth) *self, long ret)
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
static void check_results(struct __test_metadata *_metadata,
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
static void fnth_report(struct __test_metadata *_metadata,
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
static int drain_all(struct __test_metadata *_metadata,
		     FIXTURE_DATA(fnth) *self, int fd, int *seen, int cap,
		     ssize_t *end)
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
static void drain_order(struct __test_metadata *_metadata,
			FIXTURE_DATA(fnth) *self, int fd, const int *want,
			int n, ssize_t end)
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
static void drain_set(struct __test_metadata *_metadata,
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

/* ---- add_after, add_rate_limited, forget, num_requeues ----------------- */

/*
 * RL_PREFILL short keys queued without faults, then RL_KEYS armed: the
 * key table grows (past 32 keys) under one of them.
 */
#define RL_PREFILL	20	/* keys 96, 99, .., 153 */
#define RL_KEYS		30	/* keys 0..29 */

TEST_F_TIMEOUT(fnth, add_after_rate_limited, 300)
{
	static const struct wq_attr attr = { .limiter = "exponential:10ms:10ms" };
	int failures[RL_KEYS], tracked, nheld, i, fd;
	struct iovec pre[RL_PREFILL];
	bool held[NKEYS];
	uint64_t retries, delay;
	struct wq_stats st;
	long r, *res;

	for (i = 0; i < RL_PREFILL; i++) {
		pre[i].iov_base = keys[96 + i * 3];
		pre[i].iov_len = klen[96 + i * 3];
	}
	FOR_EACH_NTH(self) {
		fd = fnth_up(_metadata, self, true, &attr);
		ASSERT_EQ(RL_PREFILL, wq_add_batch(fd, pre, RL_PREFILL, NULL));
		fnth_arm(_metadata, self);
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
		fnth_disarm(_metadata, self);
		check_results(_metadata, self, 0, 0);

		/* what the successful calls did, replayed */
		memset(held, 0, sizeof(held));
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

/* ---- batches ------------------------------------------------------------ */

#define B_KEYS		66	/* two chunks of 64 */
#define B_ENTRIES	(B_KEYS + 2)	/* keys 3 and 4 twice */
#define B_BUF		8192

TEST_F_TIMEOUT(fnth, batch, 300)
{
	struct iovec in[B_ENTRIES], out[B_ENTRIES];
	int errs[B_ENTRIES], derrs[B_ENTRIES], order[B_KEYS];
	static char gbuf[B_BUF];
	long n, g, d;
	int i, k, fd, nok, distinct;
	bool seen[NKEYS];

	for (i = 0; i < B_ENTRIES; i++) {
		k = i < B_KEYS ? i : i - B_KEYS + 3;
		in[i].iov_base = keys[k];
		in[i].iov_len = klen[k];
	}
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
			k = i < B_KEYS ? i : i - B_KEYS + 3;
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
		for (i = 0; i < g; i++) {
			EXPECT_EQ(order[i], key_index(out[i].iov_base,
						      out[i].iov_len))
				TH_LOG("nth %d: position %d", self->nth, i);
			EXPECT_EQ(0, derrs[i]);
		}
		EXPECT_STATS(fd, STAT(queued, 0), STAT(processing, 0),
			     STAT(keys, 0));
		fnth_down(_metadata, self);
	}
	fnth_report(_metadata, self);
}

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
