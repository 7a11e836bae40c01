// SPDX-License-Identifier: GPL-2.0
/*
 * prio_bench: the priority queue's figures of `make bench` (11a, 11b;
 * doc/performance.md), run in the guest by bench/guest next to wq_bench.
 *
 * A priority queue (WQ_CREATE_PRIORITY) holding 1,000 or 1,000,000 keys
 * spread over 1,000 levels, and a plain queue holding 1,000,000: the cost
 * of one cycle (add a new key at one of the 1,000 levels, get the head,
 * done it) on each. Get is O(1) and Add O(log levels), so the big priority
 * queue costs what the small one does (11a), and about what the plain
 * queue does with as many keys (11b).
 *
 * Prints "R name value" lines (one per repetition) for bench/report.py.
 *   prio_bench [-s SCALE] [-r REPS]   counts divided by SCALE (smoke runs)
 */
#include <sys/uio.h>
#include <unistd.h>

#include "wq.h"

#define BENCH_NAME "prio_bench"
#include "bench_util.h"

#define LEVELS 1000

static int new_queue(int priority)
{
	struct wq_attr attr = {
		.limiter = "none", .max_items = 1 << 20, .priority = priority,
	};
	int fd = wq_create_private(&attr);

	if (fd < 0)
		die("wq_create_private", fd);
	return fd;
}

/* @n keys, each batch at the next of LEVELS levels (none on a plain queue). */
static void fill(int fd, int priority, char tag, long n)
{
	char keys[BATCH][KEY_LEN];
	struct iovec iov[BATCH];
	struct wq_add_opts o = { 0 };
	long i;
	int ret;

	for (i = 0; i < n; i += BATCH) {
		int j, m = n - i < BATCH ? (int)(n - i) : BATCH;

		for (j = 0; j < m; j++) {
			key_of(keys[j], tag, i + j);
			iov[j].iov_base = keys[j];
			iov[j].iov_len = KEY_LEN;
		}
		o.flags = priority ? WQ_ADD_PRIORITY : 0;
		o.priority = priority ? (int32_t)((i / BATCH) % LEVELS) : 0;
		ret = wq_add_batch_opts(fd, iov, m, &o, NULL);
		if (ret != m)
			die("wq_add_batch_opts (fill)", ret < 0 ? ret : -EIO);
	}
}

/* @n cycles: a new key at a level, the head got, and done. */
static long long cycle_ns(int fd, int priority, long n, unsigned long *seq)
{
	struct wq_add_opts o = { 0 };
	char key[KEY_LEN], buf[64];
	long long t0 = now_ns();
	ssize_t got;
	long i;
	int ret;

	for (i = 0; i < n; i++) {
		key_of(key, 'n', *seq);
		if (priority) {
			o.flags = WQ_ADD_PRIORITY;
			o.priority = (int32_t)((*seq * 7919) % LEVELS);
		}
		(*seq)++;
		ret = wq_add_opts(fd, key, KEY_LEN, &o);
		if (ret < 0)
			die("wq_add_opts", ret);
		got = wq_get_priority(fd, buf, sizeof(buf), 0, NULL);
		if (got != KEY_LEN)
			die("wq_get_priority", got < 0 ? got : -EIO);
		ret = wq_done(fd, buf, KEY_LEN);
		if (ret)
			die("wq_done", ret);
	}
	return (now_ns() - t0) / n;
}

int main(int argc, char **argv)
{
	unsigned long seq = 0;
	long small, big, n;
	int opt, ps, pb, fb, i;

	while ((opt = getopt(argc, argv, "s:r:")) != -1) {
		switch (opt) {
		case 's': scale = atol(optarg); break;
		case 'r': reps = atoi(optarg); break;
		default:
			fprintf(stderr, "usage: prio_bench [-s SCALE] [-r REPS]\n");
			return 2;
		}
	}
	if (scale < 1 || reps < 1)
		return 2;
	pin(0);		/* one CPU throughout */
	small = count(1000);
	big = count(1000000);
	n = count(20000);
	ps = new_queue(1);
	fill(ps, 1, 'r', small);
	pb = new_queue(1);
	fill(pb, 1, 'r', big);
	fb = new_queue(0);
	fill(fb, 0, 'r', big);
	cycle_ns(ps, 1, n / 10, &seq);		/* warm up */
	cycle_ns(pb, 1, n / 10, &seq);
	cycle_ns(fb, 0, n / 10, &seq);
	for (i = 0; i < reps; i++) {
		printf("R prio_small_cycle_ns %lld\n", cycle_ns(ps, 1, n, &seq));
		printf("R prio_big_cycle_ns %lld\n", cycle_ns(pb, 1, n, &seq));
		printf("R plain_big_cycle_ns %lld\n", cycle_ns(fb, 0, n, &seq));
		fflush(stdout);
	}
	close(ps);
	close(pb);
	close(fb);
	return 0;
}
