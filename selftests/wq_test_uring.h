/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers of the io_uring tests (uring_test.c, uring_wait_test.c), after
 * wq_test_util.h; the tests link liburing statically (-luring).
 *
 * - skipping where there is nothing to test: a module without
 *   WQ_FEATURE_URING, a kernel without io_uring or with it disabled
 * - the fixture: a fresh queue and an SQE128 ring (wq_uring_queue_init)
 * - SQEs with a user_data, completions reaped with a time limit
 * - a get "parked": a ring's command waiting in the module, as the
 *   handle's fdinfo counts them (wq-parked), or a wq_get() caller asleep
 *   inside wq in its own thread, seen in its kernel stack
 *   (/proc/PID/task/TID/stack names the module's functions "[wq]", or
 *   wq's kwq_ and wq_ ones where it is built into the kernel). The
 *   tests wait for that state instead of sleeping; where the stacks cannot
 *   be read they fall back to a generous sleep, to order events only.
 * - io_uring's worker threads of a process (iou-wrk-*): none may wait for
 *   a key
 */
#ifndef WQ_TEST_URING_H
#define WQ_TEST_URING_H

#include <dirent.h>
#include <limits.h>
#include <sys/utsname.h>

#include "wq_uring.h"
#include "wq_test_util.h"
#include "wq_test_ioctl.h"
#include "wq_test_files.h"

#define WQT_RING_ENTRIES	128
#define WQT_PARK_MS		5000	/* longest wait for a get to park */
#define WQT_NO_CQE		INT_MIN	/* no completion in time */

/* Whether the module takes io_uring commands. */
static inline bool wqt_module_uring(void)
{
	struct wq_module_info mi;

	return raw_module_info(&mi) == 0 && (mi.features & WQ_FEATURE_URING);
}

/*
 * In a FIXTURE_SETUP or a test: skips without /dev/wq, without the
 * module's io_uring commands, or when io_uring is unavailable; else sets
 * up ring_ with wq_uring_queue_init() (flags_ added to SQE128).
 */
#define WQT_RING_INIT(ring_, flags_) do {				\
		int _r;							\
		if (!wqt_have_dev())					\
			SKIP(return, "/dev/wq missing (module not loaded)"); \
		if (!wqt_module_uring())				\
			SKIP(return, "the module has no io_uring commands"); \
		_r = wq_uring_queue_init(WQT_RING_ENTRIES, ring_, flags_); \
		if (_r == -ENOSYS || _r == -EPERM)			\
			SKIP(return, "io_uring unavailable: %s", strerror(-_r)); \
		ASSERT_EQ(0, _r) TH_LOG("wq_uring_queue_init: %s", strerror(-_r)); \
		ASSERT_TRUE((ring_)->flags & IORING_SETUP_SQE128);	\
	} while (0)

/*
 * The fixture of the io_uring tests: a ring (self->ring, torn down unless
 * a test cleared self->ring_up) and a fresh queue (self->fd, self->name).
 * The ring comes first: a setup that skips leaves no queue behind.
 */
#define WQT_RING_FIXTURE(f)						\
	FIXTURE(f) {							\
		int fd;							\
		char name[WQ_NAME_MAX];					\
		struct io_uring ring;					\
		bool ring_up;						\
	};								\
	FIXTURE_SETUP(f)						\
	{								\
		self->fd = -1;						\
		WQT_RING_INIT(&self->ring, 0);				\
		self->ring_up = true;					\
		WQT_SETUP_QUEUE(NULL);					\
	}								\
	FIXTURE_TEARDOWN(f)						\
	{								\
		if (self->ring_up)					\
			io_uring_queue_exit(&self->ring);		\
		WQT_TEARDOWN_QUEUE();					\
	}

/* The next SQE, its user_data set; NULL when the ring is full. */
static inline struct io_uring_sqe *wqt_sqe(struct io_uring *ring,
					   uint64_t data)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(ring);

	if (sqe)
		io_uring_sqe_set_data64(sqe, data);
	return sqe;
}

/* SQEs of a string key or a buffer, user_data data. */
#define PREP_ADD(ring, fd, s, data)					\
	wq_prep_add(wqt_sqe(ring, data), fd, s, strlen(s), NULL)
#define PREP_DONE(ring, fd, s, data)					\
	wq_prep_done(wqt_sqe(ring, data), fd, s, strlen(s))
#define PREP_GET(ring, fd, buf, cap, data)				\
	wq_prep_get(wqt_sqe(ring, data), fd, buf, cap)

/* A completion: its user_data and res. */
struct wqt_cqe {
	uint64_t data;
	int res;
};

/*
 * The next completion within ms (one-sided: a bound, not a timing);
 * c->res is WQT_NO_CQE if none came.
 */
static inline void wqt_reap(struct io_uring *ring, int ms, struct wqt_cqe *c)
{
	struct __kernel_timespec ts = { ms / 1000, (ms % 1000) * 1000000LL };
	struct io_uring_cqe *cqe;

	c->data = 0;
	c->res = WQT_NO_CQE;
	if (io_uring_wait_cqe_timeout(ring, &cqe, &ts) == 0) {
		c->data = cqe->user_data;
		c->res = cqe->res;
		io_uring_cqe_seen(ring, cqe);
	}
}

/*
 * Reaps n completions (within UPPER_MS in all) into res[user_data]
 * (user_data < max; others count as strays); returns how many came.
 */
static inline int wqt_reap_n(struct io_uring *ring, int n, int *res, int max)
{
	int64_t end = wqt_now_ms() + UPPER_MS;
	struct wqt_cqe c;
	int got = 0;

	while (got < n && wqt_now_ms() < end) {
		wqt_reap(ring, (int)(end - wqt_now_ms()) + 1, &c);
		if (c.res == WQT_NO_CQE)
			break;
		if (c.data < (uint64_t)max)
			res[c.data] = c.res;
		got++;
	}
	return got;
}

/*
 * In a test: n completions (within UPPER_MS), each one's res into
 * res[user_data] (an int array; WQT_NO_CQE for a user_data none had).
 */
#define REAP(ring, n, res) do {						\
		int _max = (int)(sizeof(res) / sizeof((res)[0]));	\
		for (int _i = 0; _i < _max; _i++)			\
			(res)[_i] = WQT_NO_CQE;				\
		ASSERT_EQ(n, wqt_reap_n(ring, n, res, _max));		\
	} while (0)

/* In a test: submits what is prepared, n SQEs in one io_uring_submit. */
#define SUBMIT(ring, n)	ASSERT_EQ(n, io_uring_submit(ring))

/* Whether a completion is ready now (without waiting). */
static inline bool wqt_cqe_ready(struct io_uring *ring)
{
	struct io_uring_cqe *cqe;

	return io_uring_peek_cqe(ring, &cqe) == 0;
}

/*
 * Whether a line of /proc/PID/task/TID/stack is a frame of wq: a function
 * of the module ("[wq]"), or, wq built into the kernel, one of its
 * prefixes (kwq_, wq_).
 */
static inline bool wqt_frame_in_wq(const char *line)
{
	const char *fn = strstr(line, "] ");

	if (strstr(line, " [wq]"))
		return true;
	return fn && (!strncmp(fn + 2, "kwq_", 4) || !strncmp(fn + 2, "wq_", 3));
}

/* The threads' directory of *pid (0: this process, *pid set to it). */
static inline DIR *wqt_task_dir(pid_t *pid)
{
	char path[32];

	if (!*pid)
		*pid = getpid();
	snprintf(path, sizeof(path), "/proc/%d/task", (int)*pid);
	return opendir(path);
}

/* The next thread in a wqt_task_dir() (not . or ..), NULL after the last. */
static inline struct dirent *wqt_next_task(DIR *d)
{
	struct dirent *e;

	do {
		e = readdir(d);
	} while (e && e->d_name[0] == '.');
	return e;
}

/*
 * The threads of process pid (0: this one) asleep inside wq, or -1 if
 * no kernel stack can be read.
 */
static inline int wqt_tasks_in_wq(pid_t pid)
{
	char path[96], line[256];
	int n = 0, readable = 0;
	struct dirent *e;
	DIR *d;

	d = wqt_task_dir(&pid);
	if (!d)
		return -1;
	while ((e = wqt_next_task(d))) {
		FILE *f;

		snprintf(path, sizeof(path), "/proc/%d/task/%.20s/stack",
			 (int)pid, e->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		readable++;
		while (fgets(line, sizeof(line), f))
			if (wqt_frame_in_wq(line)) {
				n++;
				break;
			}
		fclose(f);
	}
	closedir(d);
	return readable ? n : -1;
}

/* Ring commands of pid parked in the module (fdinfo's wq-parked). */
static inline int wqt_ring_parked(pid_t pid)
{
	return (int)wqt_fdinfo_sum(pid, "wq-parked");
}

/* io_uring's worker threads of pid (0: this process): iou-wrk-*. */
static inline int wqt_iowq_threads(pid_t pid)
{
	char path[96], comm[32];
	struct dirent *e;
	int n = 0;
	DIR *d;

	d = wqt_task_dir(&pid);
	if (!d)
		return -1;
	while ((e = wqt_next_task(d))) {
		snprintf(path, sizeof(path), "/proc/%d/task/%.20s/comm",
			 (int)pid, e->d_name);
		if (!wqt_read_file(path, comm, sizeof(comm)) &&
		    !strncmp(comm, "iou-wrk", 7))
			n++;
	}
	closedir(d);
	return n;
}

/*
 * Gets of pid waiting in wq: its ring commands parked plus its threads
 * asleep inside the module (-1 if no kernel stack can be read, and no
 * command is parked).
 */
static inline int wqt_waiting(pid_t pid)
{
	int threads = wqt_tasks_in_wq(pid), ring = wqt_ring_parked(pid);

	return threads < 0 && !ring ? -1 : ring + (threads < 0 ? 0 : threads);
}

/*
 * Waits until n gets of pid wait inside wq: true once they do. Where
 * nothing can be seen, sleeps WQT_PARK_MS and says true.
 */
static inline bool wqt_parked(pid_t pid, int n)
{
	int64_t end = wqt_now_ms() + WQT_PARK_MS;
	int seen;

	while ((seen = wqt_waiting(pid)) >= 0 && seen < n &&
	       wqt_now_ms() < end)
		wqt_sleep_ms(5);
	if (seen < 0)
		wqt_sleep_ms(WQT_PARK_MS);
	return seen < 0 || seen >= n;
}

/* Waits up to ms until no get of pid waits inside wq. */
static inline bool wqt_unparked_within(pid_t pid, int ms)
{
	int64_t end = wqt_now_ms() + ms;
	int seen;

	while ((seen = wqt_waiting(pid)) > 0 && wqt_now_ms() < end)
		wqt_sleep_ms(5);
	return seen <= 0;
}

static inline bool wqt_unparked(pid_t pid)
{
	return wqt_unparked_within(pid, UPPER_MS);
}

/*
 * How long a ring torn down by a live task may keep its parked commands:
 * the module's lease (10 s) where the kernel cannot cancel them (before
 * 6.7), at once otherwise; waited for generously.
 */
static inline int wqt_teardown_ms(void)
{
	struct utsname u;
	int major = 0, minor = 0;

	uname(&u);
	sscanf(u.release, "%d.%d", &major, &minor);
	return major > 6 || (major == 6 && minor >= 7) ? UPPER_MS : 30000;
}

/* The WQ_KEY_* flags of the string key s (or -errno). */
static inline int wqt_kstate(int fd, const char *s)
{
	struct wq_key_state st;
	int r = wq_key_state(fd, s, strlen(s), &st);

	return r < 0 ? r : (int)st.flags;
}

#endif /* WQ_TEST_URING_H */
