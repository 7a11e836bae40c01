/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers of the job-queue tests (readiness, blocking add, batches,
 * discard, the pool); include after wq_test_util.h.
 *
 * - a call made by a thread of its own while the test goes on (struct
 *   wqt_job): a blocking add, an epoll_wait, a batch get; the test can
 *   wait until the thread is asleep in the kernel (wqt_job_asleep), so
 *   "a consumer blocked in epoll_wait is woken by ..." is really tested
 *   with a blocked consumer
 * - poll() of a handle without waiting (wqt_revents), an epoll set of one
 *   handle (wqt_epoll)
 * - iovec key sets (wqt_iov_keys)
 *
 * As in wq_test_util.h, no ASSERT or EXPECT in a thread: the thread
 * records, the test body checks.
 */
#ifndef WQ_TEST_JOBS_H
#define WQ_TEST_JOBS_H

#include <poll.h>
#include <sys/epoll.h>
#include <sys/syscall.h>
#include <sys/uio.h>

#include "wq_test_util.h"
#include "wq_test_files.h"

/* ---- a call in a thread of its own ---------------------------------------- */

struct wqt_job;
typedef long (*wqt_job_fn)(struct wqt_job *j);

struct wqt_job {
	wqt_job_fn fn;
	int fd;			/* the handle, or the epoll fd */
	int timeout_ms;
	char key[64];		/* the key of an add, NUL-terminated */
	uint32_t events;	/* epoll: the events reported */
	atomic_int tid;		/* the thread's id, once it runs */
	atomic_int returned;
	long ret;		/* the call's result */
	int64_t took_ns;	/* how long the call took */
	int64_t end_ns;		/* when it returned (CLOCK_MONOTONIC) */
	pthread_t th;
};

static inline void *wqt_job_main(void *p)
{
	struct wqt_job *j = p;
	int64_t t0;

	atomic_store(&j->tid, (int)syscall(SYS_gettid));
	t0 = now_ns();
	j->ret = j->fn(j);
	j->end_ns = now_ns();
	j->took_ns = j->end_ns - t0;
	atomic_store(&j->returned, 1);
	return NULL;
}

/* Starts fn(j) in a new thread; pthread_create()'s result. */
static inline int wqt_job_start(struct wqt_job *j, wqt_job_fn fn, int fd,
				int timeout_ms)
{
	j->fn = fn;
	j->fd = fd;
	j->timeout_ms = timeout_ms;
	j->ret = 0;
	j->took_ns = 0;
	j->events = 0;
	atomic_store(&j->tid, 0);
	atomic_store(&j->returned, 0);
	return pthread_create(&j->th, NULL, wqt_job_main, j);
}

static inline bool wqt_job_returned(struct wqt_job *j)
{
	return atomic_load(&j->returned);
}

/* Waits up to ms for the call to return; joins the thread if it did. */
static inline bool wqt_job_wait(struct wqt_job *j, int ms)
{
	return wqt_join_within(&j->returned, j->th, ms, 2);
}

/* The scheduler state of thread tid ('S': asleep), or 0. */
static inline char wqt_thread_state(int tid)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", tid);
	return wqt_task_state(path);
}

/*
 * Waits (up to UPPER_MS) until the job's thread sleeps in its call (or has
 * returned); true if it does. A thread seen asleep twice, 20 ms apart, is
 * taken to be in the call's wait, not in a page fault or a lock.
 */
static inline bool wqt_job_asleep(struct wqt_job *j)
{
	int64_t end = wqt_now_ms() + UPPER_MS;
	int tid;

	while (wqt_now_ms() < end) {
		if (wqt_job_returned(j))
			return true;
		tid = atomic_load(&j->tid);
		if (tid && wqt_thread_state(tid) == 'S') {
			wqt_sleep_ms(20);
			if (wqt_thread_state(tid) == 'S' || wqt_job_returned(j))
				return true;
		}
		wqt_sleep_ms(2);
	}
	return false;
}

/* wq_add_wait of j->key. */
static inline long wqt_call_add_wait(struct wqt_job *j)
{
	return wq_add_wait(j->fd, j->key, strlen(j->key), j->timeout_ms);
}

/* wq_get, the key into j->key. */
static inline long wqt_call_get(struct wqt_job *j)
{
	return get_str(j->fd, j->key, sizeof(j->key), j->timeout_ms);
}

/* epoll_wait for one event of the epoll fd j->fd; j->events: what. */
static inline long wqt_call_epoll(struct wqt_job *j)
{
	struct epoll_event ev = { 0 };
	int n;

	do {
		n = epoll_wait(j->fd, &ev, 1, j->timeout_ms);
	} while (n < 0 && errno == EINTR);
	j->events = n > 0 ? ev.events : 0;
	return n < 0 ? -errno : n;
}

/* A job starting key add_wait: the key set first. */
static inline int wqt_start_add_wait(struct wqt_job *j, int fd,
				     const char *key, int timeout_ms)
{
	snprintf(j->key, sizeof(j->key), "%s", key);
	return wqt_job_start(j, wqt_call_add_wait, fd, timeout_ms);
}

/* ---- readiness ---------------------------------------------------------------- */

/* poll() of fd without waiting: its revents (0 if not ready). */
static inline short wqt_revents(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN | POLLOUT };

	return poll(&p, 1, 0) == 1 ? p.revents : 0;
}

/* A new epoll set watching fd for events; the epoll fd or -errno. */
static inline int wqt_epoll(int fd, uint32_t events)
{
	struct epoll_event ev = { .events = events };
	int ep = epoll_create1(EPOLL_CLOEXEC);

	if (ep < 0)
		return -errno;
	if (epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev) < 0) {
		int err = -errno;

		close(ep);
		return err;
	}
	return ep;
}

/* epoll_wait of ep for one event, up to ms; the count, events in *got. */
static inline int wqt_epoll_wait(int ep, uint32_t *got, int ms)
{
	struct epoll_event ev = { 0 };
	int n = epoll_wait(ep, &ev, 1, ms);

	*got = n > 0 ? ev.events : 0;
	return n;
}

/* ---- iovec keys ------------------------------------------------------------- */

/*
 * Keys first..first+n-1 (wqt_key()) as an iovec array whose bytes live in
 * text (n * (WQT_KEY_LEN + 1) bytes).
 */
static inline void wqt_iov_keys(struct iovec *iov, char *text, int first,
				int n)
{
	int i;

	for (i = 0; i < n; i++) {
		char *k = text + (size_t)i * (WQT_KEY_LEN + 1);

		iov[i].iov_base = k;
		iov[i].iov_len = wqt_key(k, first + i);
	}
}

/* A string key as an iovec (the string must outlive the call). */
#define IOV(s)	((struct iovec){ .iov_base = (void *)(s), .iov_len = strlen(s) })

#endif /* WQ_TEST_JOBS_H */
