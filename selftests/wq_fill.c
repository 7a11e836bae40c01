// SPDX-License-Identifier: GPL-2.0
/*
 * wq_fill: the load of the irqsoff benchmark (irqsoff-bench), fast enough
 * for a million keys.
 *
 *   wq_fill expire N    N keys with one AddAfter deadline; waits until all
 *                       are queued
 *   wq_fill close N     a handle gets N keys and is closed; waits until all
 *                       are back
 *
 * Prints what it did and how long it took; exit 0 if every key arrived.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "wq.h"

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
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
		/* one deadline for all: 2 s after the first add */
		uint64_t until = 2000000000ULL;

		t0 = now_ms();
		for (i = 0; i < n; i++) {
			uint64_t spent = (uint64_t)(now_ms() - t0) * 1000000;

			r = snprintf(key, sizeof(key), "k%d", i);
			r = wq_add_after(fd, key, (size_t)r,
					 spent < until ? until - spent : 1);
			if (r)
				return fail("add_after", r);
		}
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
		t0 = now_ms();
		wq_close(fd2);
	}
	r = wait_queued(fd, n);
	t1 = now_ms();
	printf("wq_fill %s %d: %d queued after %lld ms\n", argv[1], n, r,
	       t1 - t0);
	wq_destroy(name);
	wq_close(fd);
	return r == n ? 0 : 1;
}
