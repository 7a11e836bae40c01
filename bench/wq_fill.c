// SPDX-License-Identifier: GPL-2.0
/*
 * wq_fill: the load of the irqsoff benchmark (bench/irqsoff-bench), fast
 * enough for a million keys.
 *
 *   wq_fill expire N    N keys with one AddAfter deadline, after all are
 *                       added; waits until all are queued
 *   wq_fill close N     a handle gets N keys and is closed; waits until all
 *                       are back
 *
 * The irqsoff tracer's maximum is reset just before the measured phase
 * (the expiry, the close) and read just after it, so the adds and the
 * queue's teardown are not in the figure. Prints "irqsoff_us=N" and what
 * it did; exit 0 if every key arrived.
 */
#include <errno.h>
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

static int fail(const char *what, int err)
{
	fprintf(stderr, "wq_fill: %s: %s\n", what, strerror(-err));
	return 1;
}

/* Waits (up to 10 minutes) until the queue holds want queued keys. */
static int wait_queued(int fd, int want)
{
	long long end = now_ms() + 600000;
	int n;

	while ((n = wq_len(fd)) != want && n >= 0 && now_ms() < end)
		usleep(10000);
	return n;
}

int main(int argc, char **argv)
{
	struct wq_attr attr = { .limiter = "none" };
	char name[WQ_NAME_MAX], key[16];
	int fd, fd2, n, i, r;
	long long t0, t1;

	if (argc != 3 || (strcmp(argv[1], "expire") && strcmp(argv[1], "close")))
		return fprintf(stderr, "usage: wq_fill expire|close N\n"), 2;
	n = atoi(argv[2]);
	if (n <= 0)
		return 2;
	attr.max_items = (uint32_t)n;
	snprintf(name, sizeof(name), "fill.%d", (int)getpid());
	fd = wq_create(name, &attr);
	if (fd < 0)
		return fail("create", fd);

	if (!strcmp(argv[1], "expire")) {
		/*
		 * One ready time for all, after the last add: the adds of
		 * 1,000 keys, timed on a queue of their own, say how long.
		 */
		int cal = n < 1000 ? n : 1000;
		long long per, ready;

		t0 = now_ms();
		r = add_after_n(fd, cal, 3600ULL * 1000000000);
		if (r)
			return fail("add_after", r);
		per = now_ms() - t0 + 1;
		wq_shutdown(fd);
		wq_destroy(name);
		wq_close(fd);
		fd = wq_create(name, &attr);
		if (fd < 0)
			return fail("create", fd);
		/* the one ready time: twice the time the adds should take */
		ready = now_ns() + (2 * per * (n / cal) + 2000) * 1000000;
		for (i = 0; i < n; i++) {
			long long left = ready - now_ns();

			r = snprintf(key, sizeof(key), "k%d", i);
			r = wq_add_after(fd, key, (size_t)r,
					 (uint64_t)(left > 0 ? left : 1));
			if (r)
				return fail("add_after", r);
		}
		if (now_ns() >= ready)
			fprintf(stderr, "wq_fill: the adds outlasted the deadline\n");
		irqsoff_reset();
		t0 = now_ms();
	} else {
		for (i = 0; i < n; i++) {
			r = snprintf(key, sizeof(key), "k%d", i);
			r = wq_add(fd, key, (size_t)r);
			if (r)
				return fail("add", r);
		}
		fd2 = wq_open(name);
		if (fd2 < 0)
			return fail("open", fd2);
		for (i = 0; i < n; i++) {
			r = (int)wq_get(fd2, key, sizeof(key), 0);
			if (r < 0)
				return fail("get", r);
		}
		irqsoff_reset();
		t0 = now_ms();
		wq_close(fd2);
	}
	r = wait_queued(fd, n);
	t1 = now_ms();
	printf("irqsoff_us=%ld\n", irqsoff_max());
	printf("wq_fill %s %d: %d queued after %lld ms\n", argv[1], n, r,
	       t1 - t0);
	wq_destroy(name);
	wq_close(fd);
	return r == n ? 0 : 1;
}
