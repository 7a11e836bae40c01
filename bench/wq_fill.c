// SPDX-License-Identifier: GPL-2.0
/*
 * wq_fill: the load of the irqsoff benchmark (bench/irqsoff-bench), fast
 * enough for a million keys.
 *
 *   wq_fill expire N    N keys with one AddAfter deadline, after all are
 *                       added; waits until all are queued
 *   wq_fill close N     a handle gets N keys and is closed; waits until all
 *                       are back
 *   wq_fill sleeper N   as expire, while a thread sleeps 1 ms at a time
 *                       (clock_nanosleep, absolute) from 200 ms before the
 *                       deadline until 200 ms after the last key is
 *                       queued, and measures how late it wakes: what the
 *                       expiry costs the tasks around it
 *   wq_fill sleeper 0 MS the sleeper alone for MS ms (default 2000): the
 *                       floor
 *
 * The irqsoff tracer's maximum is reset just before the measured phase
 * (the expiry, the close) and read just after it, so the adds and the
 * queue's teardown are not in the figure. Prints "irqsoff_us=N" (or, for
 * sleeper, "sleeper_max_us=N sleeper_p99_us=N") and what it did; exit 0 if
 * every key arrived.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "wq.h"

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static long long now_ms(void)
{
	return now_ns() / 1000000;
}

#define MAX_LATENCY "/sys/kernel/tracing/tracing_max_latency"

/* The irqsoff tracer's maximum so far (us); -1 if there is none. */
static long irqsoff_max(void)
{
	FILE *f = fopen(MAX_LATENCY, "r");
	long v = -1;

	if (f) {
		if (fscanf(f, "%ld", &v) != 1)
			v = -1;
		fclose(f);
	}
	return v;
}

static void irqsoff_reset(void)
{
	FILE *f = fopen(MAX_LATENCY, "w");

	if (f) {
		fputs("0\n", f);
		fclose(f);
	}
}

/* Adds n keys with delay d (ns); returns 0 or -errno. */
static int add_after_n(int fd, int n, uint64_t d)
{
	char key[16];
	int i, r;

	for (i = 0; i < n; i++) {
		r = snprintf(key, sizeof(key), "k%d", i);
		r = wq_add_after(fd, key, (size_t)r, d);
		if (r)
			return r;
	}
	return 0;
}

/* ---- the sleeper ---------------------------------------------------- */

#define SLEEP_NS	1000000LL	/* its period */
#define MAX_WAKES	(1 << 20)

static long long *lateness;		/* ns, one a wake-up */
static int nwakes;
static atomic_llong sleeper_until;	/* stop at this time; 0: keep on */
static long long sleeper_from;		/* start at this time */

static void *sleeper(void *arg)
{
	struct timespec ts;
	long long next = sleeper_from, stop;

	(void)arg;
	for (;;) {
		ts.tv_sec = next / 1000000000;
		ts.tv_nsec = next % 1000000000;
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
			;
		if (nwakes < MAX_WAKES)
			lateness[nwakes++] = now_ns() - next;
		stop = atomic_load(&sleeper_until);
		if (stop && now_ns() >= stop)
			return NULL;
		next += SLEEP_NS;
	}
}

static int cmp_ll(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;

	return x < y ? -1 : x > y;
}

/* Prints the sleeper's worst and 99th-percentile lateness. */
static void sleeper_report(void)
{
	long long p99;

	if (!nwakes) {
		printf("sleeper_max_us=-1 sleeper_p99_us=-1\n");
		return;
	}
	qsort(lateness, (size_t)nwakes, sizeof(*lateness), cmp_ll);
	p99 = lateness[(nwakes - 1) * 99 / 100];
	printf("sleeper_max_us=%lld sleeper_p99_us=%lld\n",
	       lateness[nwakes - 1] / 1000, p99 / 1000);
	printf("sleeper_ms=%lld\n",
	       (atomic_load(&sleeper_until) - sleeper_from) / 1000000);
	printf("wq_fill: the sleeper woke %d times\n", nwakes);
}

static int fail(const char *what, int err)
{
	fprintf(stderr, "wq_fill: %s: %s\n", what, strerror(-err));
	return 1;
}

/*
 * Waits (up to 10 minutes) until the queue holds want queued keys, asking
 * four times a second: each ask takes the queue's lock, which the expiry
 * holds most of the time, and the sleeper measures what the expiry costs
 * the tasks around it, not one that contends for the lock (under QEMU TCG
 * a task waiting for it with interrupts off can stall its CPU for
 * hundreds of milliseconds; doc/performance.md).
 */
static int wait_queued(int fd, int want)
{
	long long end = now_ms() + 600000;
	int n;

	while ((n = wq_len(fd)) != want && n >= 0 && now_ms() < end)
		usleep(250000);
	return n;
}

/*
 * N keys with one AddAfter deadline, after the last add: the adds of
 * 1,000 keys, timed on a queue of their own, say how long they take.
 * Returns the new handle (the first queue is made again), the deadline in
 * *ready; a negative errno on failure.
 */
static int add_expiring(int fd, const char *name, const struct wq_attr *attr,
			int n, long long *ready)
{
	int cal = n < 1000 ? n : 1000, i, r;
	char key[16];
	long long per;

	per = now_ms();
	r = add_after_n(fd, cal, 3600ULL * 1000000000);
	if (r)
		return r;
	per = now_ms() - per + 1;
	wq_shutdown(fd);
	wq_destroy(name);
	wq_close(fd);
	fd = wq_create(name, attr);
	if (fd < 0)
		return fd;
	/* the one ready time: twice the time the adds should take */
	*ready = now_ns() + (2 * per * (n / cal) + 2000) * 1000000;
	for (i = 0; i < n; i++) {
		long long left = *ready - now_ns();

		r = snprintf(key, sizeof(key), "k%d", i);
		r = wq_add_after(fd, key, (size_t)r,
				 (uint64_t)(left > 0 ? left : 1));
		if (r)
			return r;
	}
	if (now_ns() >= *ready)
		fprintf(stderr, "wq_fill: the adds outlasted the deadline\n");
	return fd;
}

/* A handle gets n keys and is closed: they all come back. */
static int hold_and_close(int fd, const char *name, int n)
{
	char key[16];
	int fd2, i, r;

	for (i = 0; i < n; i++) {
		r = snprintf(key, sizeof(key), "k%d", i);
		r = wq_add(fd, key, (size_t)r);
		if (r)
			return r;
	}
	fd2 = wq_open(name);
	if (fd2 < 0)
		return fd2;
	for (i = 0; i < n; i++) {
		r = (int)wq_get(fd2, key, sizeof(key), 0);
		if (r < 0)
			return r;
	}
	irqsoff_reset();
	wq_close(fd2);
	return 0;
}

/* The sleeper's run: around n keys expiring, or alone for ms if n is 0. */
static int sleeper_run(int fd, const char *name, const struct wq_attr *attr,
		       int n, int ms, int *queued)
{
	long long ready = now_ns() + 200 * 1000000LL;
	pthread_t t;

	lateness = calloc(MAX_WAKES, sizeof(*lateness));
	if (!lateness)
		return -ENOMEM;
	if (n) {
		fd = add_expiring(fd, name, attr, n, &ready);
		if (fd < 0)
			return fd;
	}
	sleeper_from = ready - 200 * 1000000LL;
	if (sleeper_from < now_ns())
		sleeper_from = now_ns();
	if (pthread_create(&t, NULL, sleeper, NULL))
		return -EAGAIN;
	*queued = n ? wait_queued(fd, n) : 0;
	if (!n)
		usleep((useconds_t)ms * 1000);
	atomic_store(&sleeper_until, now_ns() + 200 * 1000000LL);
	pthread_join(t, NULL);
	sleeper_report();
	return fd;
}

int main(int argc, char **argv)
{
	struct wq_attr attr = { .limiter = "none" };
	char name[WQ_NAME_MAX];
	int fd, n, ms = 2000, r = 0;
	long long t0, ready;

	if (argc < 3 || (strcmp(argv[1], "expire") && strcmp(argv[1], "close") &&
			 strcmp(argv[1], "sleeper")))
		return fprintf(stderr, "usage: wq_fill expire|close|sleeper N [MS]\n"), 2;
	n = atoi(argv[2]);
	if (argc > 3)
		ms = atoi(argv[3]);
	if (n < 0 || (n == 0 && strcmp(argv[1], "sleeper")) || ms <= 0 ||
	    argc > 4 || (argc > 3 && n))
		return 2;
	attr.max_items = (uint32_t)(n ? n : 1);
	snprintf(name, sizeof(name), "fill.%d", (int)getpid());
	fd = wq_create(name, &attr);
	if (fd < 0)
		return fail("create", fd);

	if (!strcmp(argv[1], "sleeper")) {
		fd = sleeper_run(fd, name, &attr, n, ms, &r);
		if (fd < 0)
			return fail("sleeper", fd);
		printf("wq_fill sleeper %d: %d queued\n", n, r);
	} else {
		if (!strcmp(argv[1], "expire")) {
			fd = add_expiring(fd, name, &attr, n, &ready);
			if (fd < 0)
				return fail("add_after", fd);
			irqsoff_reset();
		} else if ((r = hold_and_close(fd, name, n))) {
			return fail("close", r);
		}
		t0 = now_ms();
		r = wait_queued(fd, n);
		printf("irqsoff_us=%ld\n", irqsoff_max());
		printf("wq_fill %s %d: %d queued after %lld ms\n", argv[1], n,
		       r, now_ms() - t0);
	}
	wq_destroy(name);
	wq_close(fd);
	return r == n ? 0 : 1;
}
