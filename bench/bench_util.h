/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the userspace benchmarks share (wq_bench.c, prio_bench.c): the
 * clock, counts scaled down for smoke runs (-s), the repetitions (-r),
 * dying on an error, pinning a thread to a CPU, and the 8-byte keys.
 */
#ifndef WQ_BENCH_UTIL_H
#define WQ_BENCH_UTIL_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define KEY_LEN 8
#define BATCH 64

static long scale = 1;		/* counts divided by this (-s) */
static int reps = 5;		/* repetitions of each measurement (-r) */

static inline long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/*
 * Pins the calling thread, and so the threads it creates after, to CPU
 * @k modulo the CPUs online; @k < 0: to every CPU again. Returns 0 (a
 * failure is reported, not fatal), so that it can stand in a condition.
 */
static inline int pin(int k)
{
	unsigned long mask[16] = { 0 };
	const int bits = 8 * (int)sizeof(mask[0]);
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	if (n < 1 || n > 16 * bits)
		n = n < 1 ? 1 : 16 * bits;
	for (long c = 0; c < n; c++)
		if (k < 0 || c == k % n)
			mask[c / bits] |= 1UL << (c % bits);
	if (syscall(SYS_sched_setaffinity, 0, sizeof(mask), mask))
		fprintf(stderr, "sched_setaffinity: %s\n", strerror(errno));
	return 0;
}

/* @n scaled down, at least 4. */
static inline long count(long n)
{
	n /= scale;
	return n < 4 ? 4 : n;
}

/* BENCH_NAME, defined before this header is included: the program's */
static inline void die(const char *what, long err)
{
	fprintf(stderr, "%s: %s: %s\n", BENCH_NAME, what,
		strerror((int)(err < 0 ? -err : err)));
	exit(1);
}

/*
 * Key @i of the series @tag: KEY_LEN bytes, no NUL: the tag and the last
 * seven decimal digits of @i. By hand, not snprintf(), which costs more
 * than a queue operation under emulation and would be measured with it.
 */
static inline void key_of(char *key, char tag, unsigned long i)
{
	int d;

	key[0] = tag;
	for (d = KEY_LEN - 1; d > 0; d--, i /= 10)
		key[d] = (char)('0' + i % 10);
}

#endif /* WQ_BENCH_UTIL_H */
