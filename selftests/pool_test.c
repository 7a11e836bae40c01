// SPDX-License-Identifier: GPL-2.0
/*
 * The worker pool (wq_pool_start(3)): client-go's controller loop
 * on N threads. Counted exactly: a success is handled once and forgotten;
 * a key failing f times is handled f + 1 times when f <= max_retries, else
 * max_retries + 1 times and given up once with the handler's error (then
 * forgotten: no failure record is left); max_retries < 0 never gives up;
 * one key is never in two handlers at once. The stop paths: a drain that
 * completes (every key handled), a drain that times out (-ETIMEDOUT; the
 * workers leave after the key in hand, the rest stays queued), a discard,
 * a shutdown by someone else. Bad arguments and handles are refused, and
 * an O_NONBLOCK handle does not make idle workers spin. Every test runs
 * twice: workers on the ioctls, and on io_uring (WQ_POOL_URING), whose
 * idle workers wait in io_uring's worker threads where io_uring and the
 * module's commands are there (else they use the ioctls). A program built
 * against libwq 1.0's struct wq_pool_attr (without flags) still starts a
 * pool.
 */
#include <dirent.h>
#include <linux/io_uring.h>
#include <sys/resource.h>
#include <sys/syscall.h>

#include "wq_test_util.h"
#include "wq_test_jobs.h"
#include "wq_test_ioctl.h"
#include "wq_test_files.h"

#define NKEYS	64

/* What the handler saw; the handler's behaviour per key. */
struct tally {
	atomic_int calls[NKEYS];
	atomic_int inflight[NKEYS];
	atomic_int gave_up[NKEYS];
	atomic_int overlap;		/* a key in two handlers at once */
	atomic_int total_calls, successes, give_ups;
	atomic_int bad_err;		/* give_up got another error */
	atomic_int foreign;		/* a key not ours */
	int fail_first[NKEYS];		/* fail the first n calls; -1 always */
	int success_ret;		/* what a success returns (>= 0) */
	int sleep_ms;			/* in each call */
};

static int handler(const void *key, size_t len, void *arg)
{
	struct tally *t = arg;
	int i = wqt_key_index(key, (ssize_t)len), n, ret;

	if (i < 0 || i >= NKEYS) {
		atomic_fetch_add(&t->foreign, 1);
		return 0;
	}
	if (atomic_exchange(&t->inflight[i], 1))
		atomic_fetch_add(&t->overlap, 1);
	n = atomic_fetch_add(&t->calls[i], 1) + 1;
	atomic_fetch_add(&t->total_calls, 1);
	if (t->sleep_ms)
		wqt_sleep_ms(t->sleep_ms);
	if (t->fail_first[i] < 0 || n <= t->fail_first[i]) {
		ret = -EIO;
	} else {
		ret = t->success_ret;
		atomic_fetch_add(&t->successes, 1);
	}
	atomic_store(&t->inflight[i], 0);
	return ret;
}

static void give_up(const void *key, size_t len, int err, void *arg)
{
	struct tally *t = arg;
	int i = wqt_key_index(key, (ssize_t)len);

	if (err != -EIO)
		atomic_fetch_add(&t->bad_err, 1);
	if (i >= 0 && i < NKEYS)
		atomic_fetch_add(&t->gave_up[i], 1);
	atomic_fetch_add(&t->give_ups, 1);
}

FIXTURE(pool) {
	int fd;
	char name[WQ_NAME_MAX];
	struct tally *t;
	struct wq_pool *pool;
};

FIXTURE_VARIANT(pool) {
	unsigned int flags;	/* struct wq_pool_attr's */
};

FIXTURE_VARIANT_ADD(pool, ioctl) {
	.flags = 0,
};

FIXTURE_VARIANT_ADD(pool, uring) {
	.flags = WQ_POOL_URING,
};

FIXTURE_SETUP(pool)
{
	/* fast retries: 1, 2, 4, 4, ... ms */
	struct wq_attr attr = { .limiter = "exponential:1ms:4ms" };

	self->fd = -1;
	self->pool = NULL;
	self->t = calloc(1, sizeof(*self->t));
	ASSERT_NE(NULL, self->t);
	WQT_SETUP_QUEUE(&attr);
}

FIXTURE_TEARDOWN(pool)
{
	if (self->pool)
		wq_pool_stop(self->pool, 0);
	WQT_TEARDOWN_QUEUE();
	free(self->t);
}

/* Starts a pool of workers on self->fd with max_retries. */
#define START(workers_, max_retries_, give_up_) do {			\
		struct wq_pool_attr _pa = {				\
			.workers = (workers_),				\
			.max_retries = (max_retries_),			\
			.give_up = (give_up_),				\
			.arg = self->t,					\
			.flags = variant->flags,			\
		};							\
		ASSERT_EQ(0, wq_pool_start(self->fd, handler, &_pa, &self->pool)); \
		ASSERT_NE(NULL, self->pool);				\
	} while (0)

/* Stops the pool; its result. */
static int stop(struct wq_pool **pool, int ms)
{
	int ret = wq_pool_stop(*pool, ms);

	*pool = NULL;
	return ret;
}

static void add_keys(struct __test_metadata *_metadata, int fd, int n)
{
	int i;

	for (i = 0; i < n; i++)
		ASSERT_EQ(0, wqt_add_i(fd, i));
}

/* Waits (up to UPPER_MS) until n keys are settled: succeeded or given up. */
static bool settled(struct tally *t, int n)
{
	int64_t end = wqt_now_ms() + UPPER_MS;

	while (atomic_load(&t->successes) + atomic_load(&t->give_ups) < n &&
	       wqt_now_ms() < end)
		wqt_sleep_ms(2);
	return atomic_load(&t->successes) + atomic_load(&t->give_ups) == n;
}

/* Each key of 0..n-1 was handled calls times and given up gave_up times. */
#define EXPECT_PER_KEY(n, calls_, gave_up_) do {			\
		int _i;							\
		for (_i = 0; _i < (n); _i++) {				\
			EXPECT_EQ(calls_, atomic_load(&self->t->calls[_i])) \
				TH_LOG("calls of key %d", _i);		\
			EXPECT_EQ(gave_up_, atomic_load(&self->t->gave_up[_i])) \
				TH_LOG("give-ups of key %d", _i);	\
		}							\
	} while (0)

/* The pool left nothing behind: no key held, no failure remembered. */
#define EXPECT_CLEAN() do {						\
		EXPECT_STATS(self->fd, STAT(keys, 0), STAT(tracked, 0),	\
			     STAT(processing, 0));			\
		EXPECT_EQ(0, atomic_load(&self->t->overlap));		\
		EXPECT_EQ(0, atomic_load(&self->t->foreign));		\
		EXPECT_EQ(0, atomic_load(&self->t->bad_err));		\
	} while (0)

TEST_F(pool, success_handled_once)
{
	START(4, 3, give_up);
	add_keys(_metadata, self->fd, NKEYS);
	ASSERT_TRUE(settled(self->t, NKEYS));
	EXPECT_EQ(0, stop(&self->pool, UPPER_MS));
	EXPECT_EQ(NKEYS, atomic_load(&self->t->successes));
	EXPECT_EQ(0, atomic_load(&self->t->give_ups));
	EXPECT_PER_KEY(NKEYS, 1, 0);
	EXPECT_CLEAN();
}

/* Two failures, three tries, no give-up; the failures are forgotten. */
TEST_F(pool, retried_until_success)
{
	int i;

	for (i = 0; i < 16; i++)
		self->t->fail_first[i] = 2;
	START(4, 3, give_up);
	add_keys(_metadata, self->fd, 16);
	ASSERT_TRUE(settled(self->t, 16));
	EXPECT_EQ(0, stop(&self->pool, UPPER_MS));
	EXPECT_EQ(16, atomic_load(&self->t->successes));
	EXPECT_PER_KEY(16, 3, 0);
	EXPECT_EQ(48, atomic_load(&self->t->total_calls));
	EXPECT_CLEAN();
}

/* Always failing: max_retries + 1 calls, one give-up with the error. */
TEST_F(pool, given_up_after_max_retries)
{
	int i;

	for (i = 0; i < 16; i++)
		self->t->fail_first[i] = -1;
	START(4, 3, give_up);
	add_keys(_metadata, self->fd, 16);
	ASSERT_TRUE(settled(self->t, 16));
	EXPECT_EQ(0, stop(&self->pool, UPPER_MS));
	EXPECT_EQ(0, atomic_load(&self->t->successes));
	EXPECT_EQ(16, atomic_load(&self->t->give_ups));
	EXPECT_PER_KEY(16, 4, 1);
	EXPECT_CLEAN();
}

/* The edge: max_retries failures still succeed, one more gives up. */
TEST_F(pool, retry_limit_edge)
{
	int i;

	for (i = 0; i < 8; i++)
		self->t->fail_first[i] = i < 4 ? 3 : 4;
	START(2, 3, give_up);
	add_keys(_metadata, self->fd, 8);
	ASSERT_TRUE(settled(self->t, 8));
	EXPECT_EQ(0, stop(&self->pool, UPPER_MS));
	for (i = 0; i < 8; i++) {
		EXPECT_EQ(4, atomic_load(&self->t->calls[i])) TH_LOG("key %d", i);
		EXPECT_EQ(i < 4 ? 0 : 1, atomic_load(&self->t->gave_up[i]))
			TH_LOG("key %d", i);
	}
	EXPECT_EQ(4, atomic_load(&self->t->successes));
	EXPECT_CLEAN();
}

/* max_retries 0: no retry at all. */
TEST_F(pool, no_retries)
{
	int i;

	for (i = 0; i < 8; i++)
		self->t->fail_first[i] = -1;
	START(2, 0, give_up);
	add_keys(_metadata, self->fd, 8);
	ASSERT_TRUE(settled(self->t, 8));
	EXPECT_EQ(0, stop(&self->pool, UPPER_MS));
	EXPECT_PER_KEY(8, 1, 1);
	EXPECT_CLEAN();
}

/* max_retries < 0: retried as long as it fails. */
TEST_F(pool, unlimited_retries)
{
	int i;

	for (i = 0; i < 8; i++)
		self->t->fail_first[i] = 6;
	START(2, -1, give_up);
	add_keys(_metadata, self->fd, 8);
	ASSERT_TRUE(settled(self->t, 8));
	EXPECT_EQ(0, stop(&self->pool, UPPER_MS));
	EXPECT_PER_KEY(8, 7, 0);
	EXPECT_EQ(0, atomic_load(&self->t->give_ups));
	EXPECT_CLEAN();
}

/* give_up may be NULL; a positive handler result is a success. */
TEST_F(pool, null_give_up_and_positive_result)
{
	int i;

	for (i = 0; i < 8; i++)
		self->t->fail_first[i] = i < 4 ? -1 : 0;
	self->t->success_ret = 7;
	START(2, 1, NULL);
	add_keys(_metadata, self->fd, 8);
	/* 4 successes, 4 keys failing twice each */
	for (int64_t end = wqt_now_ms() + UPPER_MS;
	     atomic_load(&self->t->total_calls) < 12 && wqt_now_ms() < end;)
		wqt_sleep_ms(2);
	EXPECT_EQ(0, stop(&self->pool, UPPER_MS));
	for (i = 0; i < 8; i++)
		EXPECT_EQ(i < 4 ? 2 : 1, atomic_load(&self->t->calls[i])) TH_LOG("key %d", i);
	EXPECT_CLEAN();
}

/* Keys re-added while they are handled: never in two handlers at once. */
TEST_F_TIMEOUT(pool, no_key_in_two_handlers, 120)
{
	int i, round;

	self->t->sleep_ms = 1;
	START(6, 3, give_up);
	for (round = 0; round < 40; round++) {
		for (i = 0; i < 8; i++)
			ASSERT_EQ(0, wqt_add_i(self->fd, i));
		wqt_sleep_ms(1);
	}
	EXPECT_EQ(0, stop(&self->pool, UPPER_MS));
	for (i = 0; i < 8; i++)
		EXPECT_LE(1, atomic_load(&self->t->calls[i]));
	EXPECT_CLEAN();
}

/* A drain that completes: every queued key is handled first. */
TEST_F(pool, stop_drains)
{
	self->t->sleep_ms = 5;
	START(2, 3, give_up);
	add_keys(_metadata, self->fd, 20);
	EXPECT_EQ(0, stop(&self->pool, UPPER_MS));
	EXPECT_EQ(20, atomic_load(&self->t->successes));
	EXPECT_EQ(1, wq_shutting_down(self->fd));
	EXPECT_CLEAN();
}

/* ... also without a time limit. */
TEST_F(pool, stop_drains_without_limit)
{
	self->t->sleep_ms = 5;
	START(3, 3, give_up);
	add_keys(_metadata, self->fd, 20);
	EXPECT_EQ(0, stop(&self->pool, -1));
	EXPECT_EQ(20, atomic_load(&self->t->successes));
	EXPECT_CLEAN();
}

/*
 * A drain that times out: -ETIMEDOUT; the worker leaves after the key in
 * hand, and the keys not started stay queued.
 */
TEST_F_TIMEOUT(pool, stop_drain_times_out, 60)
{
	int calls;

	self->t->sleep_ms = 1000;
	START(1, 3, give_up);
	add_keys(_metadata, self->fd, 5);
	for (int64_t end = wqt_now_ms() + UPPER_MS;
	     atomic_load(&self->t->total_calls) < 1 && wqt_now_ms() < end;)
		wqt_sleep_ms(1);
	EXPECT_EQ(-ETIMEDOUT, stop(&self->pool, 100));
	calls = atomic_load(&self->t->total_calls);
	EXPECT_GT(5, calls) TH_LOG("the stop waited for every key");
	EXPECT_STATS(self->fd, STAT(queued, 5 - calls), STAT(processing, 0));
	EXPECT_EQ(1, wq_shutting_down(self->fd));
}

/* A discard: the queued keys are dropped, the one in hand finishes. */
TEST_F(pool, stop_discards)
{
	int calls;

	self->t->sleep_ms = 300;
	START(1, 3, give_up);
	add_keys(_metadata, self->fd, 10);
	for (int64_t end = wqt_now_ms() + UPPER_MS;
	     atomic_load(&self->t->total_calls) < 1 && wqt_now_ms() < end;)
		wqt_sleep_ms(1);
	EXPECT_EQ(0, stop(&self->pool, 0));
	calls = atomic_load(&self->t->total_calls);
	EXPECT_LE(1, calls);
	EXPECT_GT(10, calls);
	EXPECT_EQ(calls, atomic_load(&self->t->successes));
	EXPECT_STATS(self->fd, STAT(keys, 0), STAT(processing, 0));
	EXPECT_EQ(1, wq_shutting_down(self->fd));
}

/* Someone else's shutdown: the workers finish the queue and exit. */
TEST_F(pool, external_shutdown)
{
	self->t->sleep_ms = 2;
	START(2, 3, give_up);
	add_keys(_metadata, self->fd, 20);
	ASSERT_EQ(0, wq_shutdown(self->fd));
	ASSERT_TRUE(settled(self->t, 20));
	EXPECT_EQ(0, stop(&self->pool, UPPER_MS));
	EXPECT_CLEAN();
}

/* Bad arguments and handles. */
TEST_F(pool, start_errors)
{
	struct wq_pool_attr pa = { .workers = 1, .arg = self->t,
				   .flags = variant->flags };
	struct wq_pool_attr none = { .workers = 0, .flags = variant->flags };
	struct wq_pool_attr flag = { .workers = 1, .flags = 1u << 31 };
	struct wq_pool *p = (struct wq_pool *)1;
	int ro, wo, devnull;

	EXPECT_EQ(-EINVAL, wq_pool_start(self->fd, NULL, &pa, &p));
	EXPECT_EQ(NULL, p);
	EXPECT_EQ(-EINVAL, wq_pool_start(self->fd, handler, NULL, &p));
	EXPECT_EQ(-EINVAL, wq_pool_start(self->fd, handler, &none, &p));
	EXPECT_EQ(-EINVAL, wq_pool_start(self->fd, handler, &flag, &p));
	EXPECT_EQ(-EFAULT, wq_pool_start(self->fd, handler, &pa, NULL));
	EXPECT_EQ(-EBADF, wq_pool_start(-1, handler, &pa, &p));
	devnull = open("/dev/null", O_RDWR);
	ASSERT_LE(0, devnull);
	EXPECT_EQ(-EBADF, wq_pool_start(devnull, handler, &pa, &p));
	close(devnull);
	ro = wq_open_flags(self->name, O_RDONLY);
	wo = wq_open_flags(self->name, O_WRONLY);
	ASSERT_LE(0, ro);
	ASSERT_LE(0, wo);
	EXPECT_EQ(-EBADF, wq_pool_start(ro, handler, &pa, &p));
	EXPECT_EQ(-EBADF, wq_pool_start(wo, handler, &pa, &p));
	EXPECT_EQ(NULL, p);
	wq_close(ro);
	wq_close(wo);
	EXPECT_EQ(-EINVAL, wq_pool_stop(NULL, 0));
	EXPECT_EQ(0, wq_shutting_down(self->fd));
}

static int64_t cpu_ns(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * SEC +
	       (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * US;
}

/* Idle workers on an O_NONBLOCK handle wait in poll(): no spinning. */
TEST_F(pool, nonblock_handle_does_not_spin)
{
	struct wq_pool_attr pa = { .workers = 2, .max_retries = 3,
				   .arg = self->t, .flags = variant->flags };
	int64_t cpu0, cpu;
	int nb;

	nb = wq_open_flags(self->name, O_RDWR | O_NONBLOCK);
	ASSERT_LE(0, nb);
	ASSERT_EQ(0, wq_pool_start(nb, handler, &pa, &self->pool));
	wqt_sleep_ms(100);
	cpu0 = cpu_ns();
	wqt_sleep_ms(1000);
	cpu = cpu_ns() - cpu0;
	EXPECT_GT(500 * MS, cpu) TH_LOG("idle workers used %.0f ms of CPU in 1 s",
				       ms_of(cpu));
	add_keys(_metadata, self->fd, 10);
	ASSERT_TRUE(settled(self->t, 10));
	EXPECT_EQ(0, stop(&self->pool, UPPER_MS));
	wq_close(nb);
	EXPECT_CLEAN();
}

/* Many workers, many keys: the counts stay exact. */
TEST_F_TIMEOUT(pool, many_workers, 120)
{
	int i;

	for (i = 0; i < NKEYS; i++)
		self->t->fail_first[i] = i % 3 == 0 ? -1 : i % 3;
	START(16, 2, give_up);
	add_keys(_metadata, self->fd, NKEYS);
	ASSERT_TRUE(settled(self->t, NKEYS));
	EXPECT_EQ(0, stop(&self->pool, UPPER_MS));
	for (i = 0; i < NKEYS; i++) {
		EXPECT_EQ(i % 3 == 0 ? 3 : i % 3 + 1, atomic_load(&self->t->calls[i]))
			TH_LOG("key %d", i);
		EXPECT_EQ(i % 3 == 0, atomic_load(&self->t->gave_up[i])) TH_LOG("key %d", i);
	}
	EXPECT_CLEAN();
}

/* ---- io_uring ------------------------------------------------------------ */

/* Whether the workers can use io_uring: the module and a ring of SQE128. */
static bool uring_usable(void)
{
	struct io_uring_params p = { .flags = IORING_SETUP_SQE128 };
	struct wq_module_info mi;
	long fd;

	if (raw_module_info(&mi) || !(mi.features & WQ_FEATURE_URING))
		return false;
	fd = syscall(__NR_io_uring_setup, 4, &p);
	if (fd < 0)
		return false;
	close((int)fd);
	return true;
}

/* This process's threads named comm* (io_uring's workers: "iou-wrk-"). */
static int threads_named(const char *comm)
{
	char path[96], name[32];
	struct dirent *e;
	int n = 0;
	DIR *d = opendir("/proc/self/task");
	FILE *f;

	if (!d)
		return -1;
	while ((e = readdir(d))) {
		snprintf(path, sizeof(path), "/proc/self/task/%.20s/comm", e->d_name);
		f = e->d_name[0] == '.' ? NULL : fopen(path, "r");
		if (!f)
			continue;
		if (fgets(name, sizeof(name), f) &&
		    !strncmp(name, comm, strlen(comm)))
			n++;
		fclose(f);
	}
	closedir(d);
	return n;
}

/*
 * Idle workers: on io_uring, their gets are parked in the module (one
 * each), and no thread waits for them, not even one of io_uring's
 * workers; on the ioctls, or where io_uring cannot be used, nothing is
 * parked. Then the keys are handled as ever.
 */
TEST_F(pool, idle_workers_wait_where_they_should)
{
	bool ring = variant->flags && uring_usable();
	int64_t end = wqt_now_ms() + UPPER_MS;
	long n;

	START(3, 3, give_up);
	while ((n = wqt_fdinfo_sum(0, "wq-parked")) < (ring ? 3 : 1) &&
	       wqt_now_ms() < end)
		wqt_sleep_ms(10);
	if (!ring)
		wqt_sleep_ms(200);	/* none comes */
	n = wqt_fdinfo_sum(0, "wq-parked");
	EXPECT_EQ(ring ? 3 : 0, n) TH_LOG("%ld gets parked", n);
	EXPECT_EQ(0, threads_named("iou-wrk"));
	add_keys(_metadata, self->fd, 16);
	ASSERT_TRUE(settled(self->t, 16));
	EXPECT_EQ(0, stop(&self->pool, UPPER_MS));
	EXPECT_PER_KEY(16, 1, 0);
	EXPECT_CLEAN();
}

/* libwq 1.0's wq_pool_start reads its struct, without flags, only. */
struct wq_pool_attr_1_0 {
	unsigned int workers;
	int max_retries;
	void (*give_up)(const void *key, size_t len, int err, void *arg);
	void *arg;
};
int wq_pool_start_v1_0(int fd, wq_handler_fn handler,
		       const struct wq_pool_attr_1_0 *attr,
		       struct wq_pool **pool);
__asm__(".symver wq_pool_start_v1_0, wq_pool_start@WQ_1.0");

TEST_F(pool, libwq_1_0_pool_attr)
{
	long page = sysconf(_SC_PAGESIZE);
	char *map = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct wq_pool_attr_1_0 *old;

	ASSERT_NE(MAP_FAILED, map);
	ASSERT_EQ(0, mprotect(map + page, page, PROT_NONE));
	/* the old struct ends where the memory does */
	old = (struct wq_pool_attr_1_0 *)(map + page - sizeof(*old));
	old->workers = 2;
	old->max_retries = 3;
	old->give_up = give_up;
	old->arg = self->t;
	ASSERT_EQ(0, wq_pool_start_v1_0(self->fd, handler, old, &self->pool));
	add_keys(_metadata, self->fd, 8);
	ASSERT_TRUE(settled(self->t, 8));
	EXPECT_EQ(0, stop(&self->pool, UPPER_MS));
	EXPECT_PER_KEY(8, 1, 0);
	EXPECT_EQ(-EINVAL, wq_pool_start_v1_0(self->fd, handler, NULL, &self->pool));
	munmap(map, 2 * page);
}

TEST_HARNESS_MAIN
