// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libwq: the worker pool (wq_pool_start(3)): N threads on one
 * queue handle, each running client-go's controller loop
 * (processNextWorkItem) around a handler:
 *
 *	key = get()                       exit on -ESHUTDOWN
 *	err = handler(key)
 *	err >= 0:                         forget(key)
 *	err < 0 && requeues < max_retries: add_rate_limited(key)
 *	err < 0, retries used up:         forget(key); give_up(key, err)
 *	done(key)
 *
 * The done of one key and the get of the next are one call, wq_done_get
 * (two on a module without it), in that order: a retry is re-added before
 * its done (client-go's order), so the done queues it again. A worker
 * that leaves with a key in hand dones it alone.
 *
 * The queue does the rest: a key is never handed to two workers at once,
 * a key added while it is processed is queued again at its done, and a
 * shutdown wakes every worker blocked in get.
 *
 * With WQ_POOL_URING (and a module and kernel that take io_uring
 * commands) each worker makes that call on an io_uring of its own
 * (pool_uring.c): the done and the next get are one submission, and the
 * get waits in io_uring's worker threads; a done that fails does not stop
 * that get. Without io_uring the workers use the ioctls.
 *
 * Stopping: wq_pool_stop shuts the queue down (with drain, or discarding),
 * then joins the workers, which leave once the queue is shut down and
 * empty. A drain that fails (timed out, cut short by someone else's
 * shutdown) also tells the workers to leave after the key in hand, so
 * the stop takes no longer than the drain's timeout plus the handlers
 * running at that moment; keys still queued stay queued (the queue is
 * shared: another consumer may take them).
 */
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "wq.h"
#include "wq_internal.h"

/* Back-off of a worker whose get fails for want of memory. */
#define WQ_POOL_BACKOFF_MIN_MS	10
#define WQ_POOL_BACKOFF_MAX_MS	1000

/* struct wq_pool.gate: the workers wait for it before their first get. */
enum { WQ_POOL_WAIT, WQ_POOL_GO, WQ_POOL_ABORT };

/* The flags of struct wq_pool_attr this libwq knows. */
#define WQ_POOL_FLAGS	WQ_POOL_URING

struct wq_pool {
	int fd;
	wq_handler_fn handler;
	struct wq_pool_attr attr;
	bool uring;		/* the module takes io_uring commands */
	atomic_bool stopping;	/* leave after the key in hand */
	pthread_mutex_t lock;	/* protects gate */
	pthread_cond_t cond;
	int gate;
	unsigned int nthreads;	/* started */
	pthread_t threads[];
};

static void wq_pool_sleep_ms(unsigned int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/* Whether the worker may start (all threads were created). */
static bool wq_pool_gate(struct wq_pool *pool)
{
	int gate;

	pthread_mutex_lock(&pool->lock);
	while (pool->gate == WQ_POOL_WAIT)
		pthread_cond_wait(&pool->cond, &pool->lock);
	gate = pool->gate;
	pthread_mutex_unlock(&pool->lock);
	return gate == WQ_POOL_GO;
}

static void wq_pool_open_gate(struct wq_pool *pool, int gate)
{
	pthread_mutex_lock(&pool->lock);
	pool->gate = gate;
	pthread_cond_broadcast(&pool->cond);
	pthread_mutex_unlock(&pool->lock);
}

/* Below max_retries requeues (or no limit): the key is retried. */
static bool wq_pool_may_retry(const struct wq_pool *pool, const void *key,
			      size_t len)
{
	int n;

	if (pool->attr.max_retries < 0)
		return true;
	n = wq_num_requeues(pool->fd, key, len);
	return n >= 0 && n < pool->attr.max_retries;
}

static void wq_pool_give_up(const struct wq_pool *pool, const void *key,
			    size_t len, int err)
{
	wq_forget(pool->fd, key, len);
	if (pool->attr.give_up)
		pool->attr.give_up(key, len, err, pool->attr.arg);
}

/*
 * One key, as client-go's processNextWorkItem, but for its done, which the
 * worker makes with its next get.
 */
static void wq_pool_process(const struct wq_pool *pool, const void *key,
			    size_t len)
{
	int err = pool->handler(key, len, pool->attr.arg);
	int ret;

	if (err >= 0) {
		wq_forget(pool->fd, key, len);
	} else if (wq_pool_may_retry(pool, key, len)) {
		ret = wq_add_rate_limited(pool->fd, key, len, NULL);
		/*
		 * A queue shutting down takes no retry (client-go drops it
		 * the same way); any other failure loses the key: say so.
		 */
		if (ret < 0 && ret != -ESHUTDOWN)
			wq_pool_give_up(pool, key, len, ret);
	} else {
		wq_pool_give_up(pool, key, len, err);
	}
}

/*
 * A get failed with err (not -ESHUTDOWN): whether to try again, after
 * waiting for what is missing. Never a busy loop.
 */
static bool wq_pool_retry_get(const struct wq_pool *pool, int err,
			      unsigned int *backoff_ms)
{
	struct pollfd pfd = { .fd = pool->fd, .events = POLLIN };

	switch (err) {
	case -EINTR:		/* a signal (workers block them all) */
	case -ETIMEDOUT:
		return true;
	case -EAGAIN:		/* an O_NONBLOCK handle: wait for a key */
		while (poll(&pfd, 1, -1) < 0)
			if (errno != EINTR && errno != EAGAIN)
				return false;
		return !(pfd.revents & POLLNVAL);
	case -ENOMEM:		/* the get will work again: back off */
		*backoff_ms = *backoff_ms ? *backoff_ms * 2 :
			      WQ_POOL_BACKOFF_MIN_MS;
		if (*backoff_ms > WQ_POOL_BACKOFF_MAX_MS)
			*backoff_ms = WQ_POOL_BACKOFF_MAX_MS;
		wq_pool_sleep_ms(*backoff_ms);
		return true;
	default:		/* -EBADF (the handle is gone), ...: leave */
		return false;
	}
}

/*
 * The loop: the key in hand (key[0..len), len 0 for none) is done by the
 * call that gets the next one into the same buffer (the done reads it
 * first). A call that fails with -ENOENT did nothing: the key was no
 * longer processing (someone's stray done ended it), and the get is made
 * again alone. Any other failure came after the done, or may have (-ENOMEM
 * is the done's or the get's): the key is no longer in hand either way. A
 * done is never made twice, as the key may be another worker's by then;
 * one that failed leaves the key processing until the handle is closed,
 * as a wq_done that failed did.
 */
static void *wq_pool_worker(void *arg)
{
	struct wq_pool *pool = arg;
	unsigned int backoff_ms = 0;
	struct wq_ring *ring = NULL;
	char key[WQ_KEY_MAX];
	size_t len = 0;

	if (!wq_pool_gate(pool))
		return NULL;
	if (pool->uring)
		ring = wq_ring_new(pool->fd);	/* NULL: the ioctls */
	while (!atomic_load(&pool->stopping)) {
		ssize_t n = ring ?
			wq_ring_done_get(ring, key, len, key, sizeof(key)) :
			wq_done_get(pool->fd, key, len, key, sizeof(key), -1);

		if (n > 0) {
			backoff_ms = 0;
			len = (size_t)n;
			wq_pool_process(pool, key, len);
			continue;
		}
		if (n == -ENOENT && len) {
			len = 0;
			continue;
		}
		len = 0;
		if (n == -ESHUTDOWN ||
		    !wq_pool_retry_get(pool, (int)n, &backoff_ms))
			break;
	}
	/* stopping: the key in hand is done, alone */
	while (len && wq_done(pool->fd, key, len) == -EINTR)
		;
	wq_ring_free(ring);
	return NULL;
}

/*
 * The handle must allow get and done (read) and add and forget (write).
 * The module checks a call's access before it reads the argument, so a
 * call without one fails with -EBADF for a handle without that access and
 * with -EFAULT otherwise, changing nothing either way.
 */
static int wq_pool_check_fd(int fd)
{
	struct wq_stats st;
	int ret = wq_stat(fd, &st);

	if (ret < 0)
		return ret;
	if (wq_ioctl(fd, WQ_IOC_DONE, NULL) == -EBADF ||
	    wq_ioctl(fd, WQ_IOC_FORGET, NULL) == -EBADF)
		return -EBADF;
	return 0;
}

/* Joins every started worker and frees the pool. */
static void wq_pool_free(struct wq_pool *pool)
{
	for (unsigned int i = 0; i < pool->nthreads; i++)
		pthread_join(pool->threads[i], NULL);
	pthread_cond_destroy(&pool->cond);
	pthread_mutex_destroy(&pool->lock);
	free(pool);
}

/* Whether the module behind fd takes io_uring commands. */
static bool wq_pool_module_uring(int fd)
{
	struct wq_module_info mi;

	return wq_module_info_fd(fd, &mi) == 0 &&
	       (mi.features & WQ_FEATURE_URING);
}

/*
 * wq_pool_start() of struct wq_pool_attr with flags (compat.c: without,
 * libwq 1.0 to 1.4)
 */
int wq_pool_start_1_5(int fd, wq_handler_fn handler,
		      const struct wq_pool_attr *attr, struct wq_pool **poolp);
_Static_assert(__builtin_types_compatible_p(__typeof__(wq_pool_start),
					    __typeof__(wq_pool_start_1_5)),
	       "wq_pool_start_1_5 is the call of wq.h");

int wq_pool_start_1_5(int fd, wq_handler_fn handler,
		      const struct wq_pool_attr *attr, struct wq_pool **poolp)
{
	struct wq_pool *pool;
	sigset_t all, old;
	int ret;

	if (!poolp)
		return -EFAULT;
	*poolp = NULL;
	if (!handler || !attr || attr->workers == 0 ||
	    (attr->flags & ~(unsigned int)WQ_POOL_FLAGS))
		return -EINVAL;
	ret = wq_pool_check_fd(fd);
	if (ret)
		return ret;
	pool = calloc(1, sizeof(*pool) + attr->workers * sizeof(pthread_t));
	if (!pool)
		return -ENOMEM;
	pool->fd = fd;
	pool->handler = handler;
	pool->attr = *attr;
	pool->uring = (attr->flags & WQ_POOL_URING) &&
		      wq_pool_module_uring(fd);
	atomic_init(&pool->stopping, false);
	pthread_mutex_init(&pool->lock, NULL);
	pthread_cond_init(&pool->cond, NULL);
	pool->gate = WQ_POOL_WAIT;

	/* The workers take no signals: the application's threads do. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	for (; pool->nthreads < attr->workers; pool->nthreads++) {
		ret = pthread_create(&pool->threads[pool->nthreads], NULL,
				     wq_pool_worker, pool);
		if (ret)
			break;
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (ret) {
		wq_pool_open_gate(pool, WQ_POOL_ABORT);
		wq_pool_free(pool);
		return -ret;
	}
	wq_pool_open_gate(pool, WQ_POOL_GO);
	*poolp = pool;
	return 0;
}
WQ_SYMVER_DEFAULT(wq_pool_start, wq_pool_start_1_5, "1.5");

/* The drain; a signal does not end it early (the time left is waited). */
static int wq_pool_drain(int fd, int timeout_ms)
{
	uint64_t deadline = wq_deadline_ms(timeout_ms), now, ms;

	for (;;) {
		int ret = wq_shutdown_with_drain(fd, timeout_ms);
		if (ret != -EINTR)
			return ret;
		if (timeout_ms < 0)
			continue;
		now = wq_now_ns();
		if (now >= deadline)
			return -ETIMEDOUT;
		ms = (deadline - now + WQ_NSEC_PER_MSEC - 1) / WQ_NSEC_PER_MSEC;
		timeout_ms = ms > INT_MAX ? INT_MAX : (int)ms;
	}
}

/*
 * The workers leave when a get says -ESHUTDOWN: make sure the queue is
 * shut down even when the drain failed before it could (-ENOMEM). A
 * handle that is gone (-EBADF) ends the workers' gets as well.
 */
static void wq_pool_ensure_shutdown(int fd)
{
	while (wq_shutting_down(fd) == 0 && wq_shutdown(fd) != -EBADF &&
	       wq_shutting_down(fd) == 0)
		wq_pool_sleep_ms(WQ_POOL_BACKOFF_MIN_MS);
}

int wq_pool_stop(struct wq_pool *pool, int drain_timeout_ms)
{
	int ret;

	if (!pool)
		return -EINVAL;
	if (drain_timeout_ms == 0) {
		ret = wq_shutdown_discard(pool->fd);
		if (ret > 0)
			ret = 0;
	} else {
		ret = wq_pool_drain(pool->fd, drain_timeout_ms);
	}
	if (ret < 0) {
		atomic_store(&pool->stopping, true);
		wq_pool_ensure_shutdown(pool->fd);
	}
	wq_pool_free(pool);
	return ret;
}
