/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the wq selftests (kselftest_harness.h based); time
 * and timing expectations are in wq_test_time.h (included here), raw
 * ioctls in wq_test_ioctl.h.
 *
 * - unique queue names (one per test, plus extra ones on demand)
 * - key sets: key i is the string "k%05d" (no NUL), wqt_key_index() maps back
 * - the counters of wq_stat, checked in one line (EXPECT_STATS)
 * - a shared-memory tracker for multi-thread and multi-process tests: a key
 *   must never be held by two consumers at once, and every key added must
 *   be handed out after its last add
 * - child processes that are always reaped, even when an ASSERT fails
 * - string keys (ADD, DONE, AFTER, get_str, EXPECT_GET, EXPECT_NOTHING)
 * - a blocking get or drain in a thread of its own (struct wqt_bg)
 * - WQT_FIXTURE: a fresh queue per test
 *
 * The harness runs each test in a forked process and ends it with longjmp on
 * ASSERT failure. Never use ASSERT_* / EXPECT_* in a thread or in a child
 * process forked by a test: threads return results, children exit with a
 * code, and the test body checks them.
 */
#ifndef WQ_TEST_UTIL_H
#define WQ_TEST_UTIL_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "wq.h"
#include "kselftest_harness.h"
#include "wq_test_time.h"

/* ---- names and keys ---------------------------------------------------- */

/* A queue name unique to this process and call: "<tag>.<pid>.<n>". */
static inline void wqt_name(char name[WQ_NAME_MAX], const char *tag)
{
	static int counter;

	snprintf(name, WQ_NAME_MAX, "%.40s.%d.%d", tag, (int)getpid(),
		 counter++);
}

static inline bool wqt_have_dev(void)
{
	return access("/dev/wq", F_OK) == 0;
}

#define WQT_KEY_LEN 6	/* "k%05d" */

/* Writes key i into buf (at least WQT_KEY_LEN + 1 bytes); returns its length. */
static inline size_t wqt_key(char *buf, int i)
{
	int d;

	buf[0] = 'k';
	for (d = WQT_KEY_LEN - 1; d >= 1; d--, i /= 10)
		buf[d] = '0' + i % 10;
	buf[WQT_KEY_LEN] = '\0';
	return WQT_KEY_LEN;
}

/* Index of a key written by wqt_key, or -1 if buf is not such a key. */
static inline int wqt_key_index(const char *buf, ssize_t len)
{
	int i, v = 0;

	if (len != WQT_KEY_LEN || buf[0] != 'k')
		return -1;
	for (i = 1; i < WQT_KEY_LEN; i++) {
		if (buf[i] < '0' || buf[i] > '9')
			return -1;
		v = v * 10 + (buf[i] - '0');
	}
	return v;
}

static inline int wqt_add_i(int fd, int i)
{
	char k[WQT_KEY_LEN + 1];

	return wq_add(fd, k, wqt_key(k, i));
}

static inline int wqt_done_i(int fd, int i)
{
	char k[WQT_KEY_LEN + 1];

	return wq_done(fd, k, wqt_key(k, i));
}

/* wq_get that returns the key index, or the negative error; -1000 if the
 * key handed out is not one of ours. */
static inline int wqt_get_i(int fd, int timeout_ms)
{
	char buf[WQ_KEY_MAX];
	ssize_t n = wq_get(fd, buf, sizeof(buf), timeout_ms);
	int i;

	if (n < 0)
		return (int)n;
	i = wqt_key_index(buf, n);
	return i < 0 ? -1000 : i;
}

static inline int wqt_stat(int fd, struct wq_stats *st)
{
	memset(st, 0, sizeof(*st));
	return wq_stat(fd, st);
}

/* A new queue with *attr (NULL: the defaults), named by wqt_name() into
 * name; its fd or the error. */
static inline int wqt_create_named(char name[WQ_NAME_MAX], const char *tag,
				   const struct wq_attr *attr)
{
	wqt_name(name, tag);
	return wq_create(name, attr);
}

/* The same with max_items (0: the module default). */
static inline int wqt_create_bounded(char name[WQ_NAME_MAX], const char *tag,
				     uint32_t max_items)
{
	struct wq_attr attr = { .max_items = max_items };

	return wqt_create_named(name, tag, &attr);
}

/* ---- expected counters -------------------------------------------------- */

/* A counter of a struct (size bytes at off) and the value it should have. */
struct wqt_want {
	const char *name;
	size_t off;
	size_t size;		/* 4 or 8 */
	uint64_t value;
};

/* A counter field of type, which must be size bytes, and its value. */
#define WQT_WANT(type, f, sz, v) {					\
		#f,							\
		offsetof(type, f) + 0 *					\
		sizeof(char[sizeof(((type *)0)->f) == (sz) ? 1 : -1]),	\
		sz, v,							\
	}

/* STAT(field, value), for EXPECT_STATS; field must be a uint32_t counter. */
#define STAT(f, v)	WQT_WANT(struct wq_stats, f, 4, (uint32_t)(v))

static inline uint64_t wqt_want_seen(const void *obj,
				     const struct wqt_want *w)
{
	uint32_t v32;
	uint64_t v64;

	if (w->size == 4) {
		memcpy(&v32, (const char *)obj + w->off, sizeof(v32));
		return v32;
	}
	memcpy(&v64, (const char *)obj + w->off, sizeof(v64));
	return v64;
}

/* Each counter of the struct obj is as wanted (EXPECT); what names them. */
#define EXPECT_FIELDS_OF(what, obj, ...) do {				\
		const struct wqt_want _w[] = { __VA_ARGS__ };		\
		size_t _i;						\
		for (_i = 0; _i < ARRAY_SIZE(_w); _i++) {		\
			uint64_t _seen = wqt_want_seen(&(obj), &_w[_i]);	\
			EXPECT_EQ(_w[_i].value, _seen)			\
				TH_LOG("%s %s", what, _w[_i].name);	\
		}							\
	} while (0)

/* Each counter of the struct wq_stats st is as wanted (EXPECT). */
#define EXPECT_STATS_OF(st, ...)	EXPECT_FIELDS_OF("stat", st, __VA_ARGS__)

/*
 * EXPECT_STATS(fd, STAT(queued, 1), STAT(keys, 2), ...): wq_stat of fd
 * succeeds (ASSERT) and each counter named is as wanted (EXPECT).
 */
#define EXPECT_STATS(fd, ...) do {					\
		struct wq_stats _sst;					\
		ASSERT_EQ(0, wqt_stat(fd, &_sst));			\
		EXPECT_STATS_OF(_sst, __VA_ARGS__);			\
	} while (0)

/* Nothing queued, processing or held in fd's queue (EXPECT). */
#define EXPECT_QUEUE_EMPTY(fd)						\
	EXPECT_STATS(fd, STAT(queued, 0), STAT(processing, 0), STAT(keys, 0))

/* ---- shared memory ----------------------------------------------------- */

static inline void *wqt_shared(size_t size)
{
	void *p = mmap(NULL, size, PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

/*
 * Tracker, in shared memory so forked consumers can use it.
 *
 * held: set by the consumer that got the key, cleared just before its
 *	wq_done. Setting it when already set means two consumers hold the key.
 * pending: set by a producer just before wq_add, cleared by a consumer just
 *	after wq_get hands the key out. Any add that took effect is followed
 *	by a get (it queues the key, coalesces with a queued copy or marks a
 *	processing key dirty), so once the queue is drained every pending
 *	flag must be clear. A consumer re-adding a key it holds may set
 *	pending after a successful wq_add instead: nobody can get the key
 *	before this consumer's wq_done.
 */
struct wqt_slot {
	atomic_int held;
	atomic_int pending;
	atomic_int gets;
	atomic_int readds;	/* successful re-adds while processing */
};

struct wqt_tracker {
	atomic_int double_hold;	/* wq_get handed out a key already held */
	atomic_int bad_key;	/* wq_get returned something not ours */
	atomic_int errors;	/* unexpected return values */
	atomic_int total_gets;
	int nkeys;
	struct wqt_slot slot[];
};

static inline struct wqt_tracker *wqt_tracker_new(int nkeys)
{
	struct wqt_tracker *t = wqt_shared(sizeof(*t) +
					   nkeys * sizeof(struct wqt_slot));

	if (t)
		t->nkeys = nkeys;
	return t;
}

static inline void wqt_tracker_free(struct wqt_tracker *t)
{
	if (t)
		munmap(t, sizeof(*t) + t->nkeys * sizeof(struct wqt_slot));
}

/* Producer side: wq_add of key i, recorded. Returns wq_add's result. */
static inline int wqt_track_add(struct wqt_tracker *t, int fd, int i)
{
	atomic_store(&t->slot[i].pending, 1);
	return wqt_add_i(fd, i);
}

/* Consumer side: wq_get, recorded. Returns the key index or the error. */
static inline int wqt_track_get(struct wqt_tracker *t, int fd, int timeout_ms)
{
	int i = wqt_get_i(fd, timeout_ms);

	if (i == -1000 || i >= t->nkeys) {
		atomic_fetch_add(&t->bad_key, 1);
		return -1000;
	}
	if (i < 0)
		return i;
	if (atomic_exchange(&t->slot[i].held, 1))
		atomic_fetch_add(&t->double_hold, 1);
	atomic_store(&t->slot[i].pending, 0);
	atomic_fetch_add(&t->slot[i].gets, 1);
	atomic_fetch_add(&t->total_gets, 1);
	return i;
}

/* Consumer side: re-add of a key this consumer holds (client-go Q2). */
static inline int wqt_track_readd(struct wqt_tracker *t, int fd, int i)
{
	int r = wqt_add_i(fd, i);

	if (r == 0) {
		atomic_store(&t->slot[i].pending, 1);
		atomic_fetch_add(&t->slot[i].readds, 1);
	}
	return r;
}

/* Consumer side: wq_done of key i, recorded. Returns wq_done's result. */
static inline int wqt_track_done(struct wqt_tracker *t, int fd, int i)
{
	int r;

	atomic_store(&t->slot[i].held, 0);
	r = wqt_done_i(fd, i);
	if (r != 0)
		atomic_fetch_add(&t->errors, 1);
	return r;
}

/* Number of keys still pending (added but never handed out afterwards). */
static inline int wqt_tracker_lost(struct wqt_tracker *t)
{
	int i, n = 0;

	for (i = 0; i < t->nkeys; i++)
		if (atomic_load(&t->slot[i].pending))
			n++;
	return n;
}

/* ---- child processes ---------------------------------------------------- */

/*
 * Children forked by a test are recorded so that the fixture teardown can
 * kill and reap them even when an ASSERT failed in between: a child left
 * behind would keep a handle (and the module) busy.
 */
#define WQT_MAX_CHILDREN 64
static pid_t wqt_children[WQT_MAX_CHILDREN];

/* fork(); in the child runs fn(arg) and _exit()s with its result. */
static inline pid_t wqt_spawn(int (*fn)(void *), void *arg)
{
	pid_t pid;
	int i;

	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid == 0)
		_exit(fn(arg));
	if (pid > 0)
		for (i = 0; i < WQT_MAX_CHILDREN; i++)
			if (!wqt_children[i]) {
				wqt_children[i] = pid;
				break;
			}
	return pid;
}

static inline void wqt_forget_child(pid_t pid)
{
	int i;

	for (i = 0; i < WQT_MAX_CHILDREN; i++)
		if (wqt_children[i] == pid)
			wqt_children[i] = 0;
}

/* waitpid() with a deadline; returns the exit code, 128+signal if killed,
 * or -1 if the child did not end in time (it is then left running). */
static inline int wqt_wait_child(pid_t pid, int timeout_ms)
{
	int64_t end = wqt_now_ms() + timeout_ms;
	int status;
	pid_t r;

	for (;;) {
		r = waitpid(pid, &status, WNOHANG);
		if (r == pid)
			break;
		if (r < 0 && errno != EINTR)
			return -1;
		if (wqt_now_ms() > end)
			return -1;
		wqt_sleep_ms(5);
	}
	wqt_forget_child(pid);
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	return 128 + WTERMSIG(status);
}

/* SIGKILL a child and reap it. */
static inline void wqt_kill_child(pid_t pid)
{
	kill(pid, SIGKILL);
	while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
		;
	wqt_forget_child(pid);
}

static inline void wqt_reap_all(void)
{
	int i;

	for (i = 0; i < WQT_MAX_CHILDREN; i++)
		if (wqt_children[i])
			wqt_kill_child(wqt_children[i]);
}

/* ---- string keys ------------------------------------------------------- */

#define ADD(fd, s)	wq_add(fd, s, strlen(s))
#define DONE(fd, s)	wq_done(fd, s, strlen(s))
#define AFTER(fd, s, d)	wq_add_after(fd, s, strlen(s), (uint64_t)(d))

/* wq_get into a NUL-terminated buffer (cap includes the NUL). */
static inline ssize_t get_str(int fd, char *buf, size_t cap, int timeout_ms)
{
	ssize_t n = wq_get(fd, buf, cap - 1, timeout_ms);

	if (n >= 0)
		buf[n] = '\0';
	return n;
}

/* Gets a key without waiting and checks it is s. */
#define EXPECT_GET(fd, s) do {						\
		char _b[WQ_KEY_MAX + 1];				\
		ASSERT_EQ((ssize_t)strlen(s), get_str(fd, _b, sizeof(_b), 0)) \
			TH_LOG("expected key %s", s);			\
		ASSERT_STREQ(s, _b);					\
	} while (0)

/* Nothing is queued: a get without waiting is -EAGAIN. */
#define EXPECT_NOTHING(fd) do {						\
		char _b[WQ_KEY_MAX + 1];				\
		ssize_t _n = get_str(fd, _b, sizeof(_b), 0);		\
		ASSERT_EQ(-EAGAIN, _n) TH_LOG("got %s",			\
					      _n >= 0 ? _b : strerror(-_n)); \
	} while (0)

/* ---- a blocking call in a thread of its own ------------------------------ */

/*
 * A get or a shutdown with drain, made by a thread while the test goes on:
 * the test checks whether it has returned yet and, once it has, what it
 * returned and how long it took.
 */
enum wqt_call { WQT_GET, WQT_DRAIN };

struct wqt_bg {
	enum wqt_call call;
	int fd;
	int timeout_ms;
	atomic_int returned;
	ssize_t ret;			/* the call's result */
	int64_t took_ns;		/* how long the call took */
	char buf[WQ_KEY_MAX + 1];	/* WQT_GET: the key, NUL-terminated */
	pthread_t th;
};

static inline void *wqt_bg_fn(void *p)
{
	struct wqt_bg *b = p;
	int64_t t0 = now_ns();

	if (b->call == WQT_GET)
		b->ret = get_str(b->fd, b->buf, sizeof(b->buf), b->timeout_ms);
	else
		b->ret = wq_shutdown_with_drain(b->fd, b->timeout_ms);
	b->took_ns = now_ns() - t0;
	atomic_store(&b->returned, 1);
	return NULL;
}

/*
 * Starts the call on fd in a new thread, from a fresh record (nothing
 * returned, no result); pthread_create()'s result.
 */
static inline int wqt_bg_start(struct wqt_bg *b, enum wqt_call call, int fd,
			       int timeout_ms)
{
	*b = (struct wqt_bg){ .call = call, .fd = fd, .timeout_ms = timeout_ms };
	return pthread_create(&b->th, NULL, wqt_bg_fn, b);
}

static inline bool wqt_bg_returned(struct wqt_bg *b)
{
	return atomic_load(&b->returned);
}

/*
 * Waits up to ms (looking every step_ms) for thread th to set *returned;
 * joins it if it did.
 */
static inline bool wqt_join_within(atomic_int *returned, pthread_t th,
				   int ms, int step_ms)
{
	int64_t end = wqt_now_ms() + ms;

	while (!atomic_load(returned) && wqt_now_ms() < end)
		wqt_sleep_ms(step_ms);
	if (!atomic_load(returned))
		return false;
	pthread_join(th, NULL);
	return true;
}

/* Waits up to ms for the call to return; joins the thread if it did. */
static inline bool wqt_bg_wait(struct wqt_bg *b, int ms)
{
	return wqt_join_within(&b->returned, b->th, ms, 5);
}

/* Waits for the call to return, however long that takes. */
static inline void wqt_bg_join(struct wqt_bg *b)
{
	pthread_join(b->th, NULL);
}

/* ---- fixture ------------------------------------------------------------ */

/*
 * For a fixture of its own with self->fd and self->name: WQT_SETUP_QUEUE
 * in its FIXTURE_SETUP creates a fresh queue with a unique name and the
 * attributes *attr (NULL: the defaults), skipping when /dev/wq is missing;
 * WQT_TEARDOWN_QUEUE in its FIXTURE_TEARDOWN kills leftover children,
 * closes the handle (unless the test set self->fd to -1) and destroys the
 * queue.
 */
#define WQT_SETUP_QUEUE(attr) do {					\
		self->fd = -1;						\
		if (!wqt_have_dev())					\
			SKIP(return, "/dev/wq missing (module not loaded)"); \
		wqt_name(self->name, _metadata->name);			\
		self->fd = wq_create(self->name, (attr));		\
		ASSERT_LE(0, self->fd) TH_LOG("wq_create(%s): %s",	\
			self->name, strerror(-self->fd));		\
	} while (0)

#define WQT_TEARDOWN_QUEUE() do {					\
		wqt_reap_all();						\
		if (self->fd >= 0)					\
			wq_close(self->fd);				\
		if (self->name[0])					\
			wq_destroy(self->name);				\
	} while (0)

/*
 * WQT_FIXTURE(f): a fixture "f" (self->name, self->fd) whose setup is
 * WQT_SETUP_QUEUE with default attributes and whose teardown is
 * WQT_TEARDOWN_QUEUE. WQT_FIXTURE_ATTR(f, ...): the same with the
 * attributes { ... } (a struct wq_attr initializer).
 */
#define WQT_FIXTURE(f)		WQT_FIXTURE_WITH(f, NULL)
#define WQT_FIXTURE_ATTR(f, ...)					\
	WQT_FIXTURE_WITH(f, (&(const struct wq_attr){ __VA_ARGS__ }))

#define WQT_FIXTURE_WITH(f, attr)					\
	FIXTURE(f) {							\
		int fd;							\
		char name[WQ_NAME_MAX];					\
	};								\
	FIXTURE_SETUP(f)						\
	{								\
		WQT_SETUP_QUEUE(attr);					\
	}								\
	FIXTURE_TEARDOWN(f)						\
	{								\
		WQT_TEARDOWN_QUEUE();					\
	}

#endif /* WQ_TEST_UTIL_H */
