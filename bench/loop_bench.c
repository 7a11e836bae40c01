// SPDX-License-Identifier: GPL-2.0
/*
 * loop_bench: the worker loop's figure of `make bench` (12;
 * doc/performance.md), run in the guest by bench/guest next to wq_bench.
 *
 * Per key: a producer's wq_add and a worker's wq_done_get (the done of the
 * key in hand and the get of the next, one system call), both made by
 * this thread, against mq_send + mq_receive of the same 8 bytes: two
 * system calls a key on either side. Two keys take turns, so that each add
 * is of a key the queue does not hold (as in figure 2's cycle) and each
 * done ends the key got one add before. The same loop with wq_done and
 * wq_get, three calls a key, is printed as a profile line.
 *
 * The batched cycle (the per-key cost of batches, against the single-key
 * cycle, loop_split_ns): wq_add_batch of BATCH new keys, wq_get_batch of
 * them, wq_done_batch; time per key.
 *
 * Prints "R name value" lines (one per repetition) for bench/report.py.
 *   loop_bench [-s SCALE] [-r REPS]   counts divided by SCALE (smoke runs)
 */
#include <fcntl.h>
#include <mqueue.h>
#include <unistd.h>

#include "wq.h"

#define BENCH_NAME "loop_bench"
#include "bench_util.h"

/*
 * @n keys through the worker loop: add one, then done the key in hand and
 * get the one added; with @split, wq_done and wq_get instead of the one
 * call. Returns ns per key.
 */
static long long loop_wq_ns(int fd, long n, int split)
{
	char keys[2][KEY_LEN], buf[64];
	long long t0, t;
	ssize_t got;
	long i;
	int ret;

	key_of(keys[0], 'l', 0);
	key_of(keys[1], 'l', 1);
	/* the key in hand at the start: keys[1] */
	ret = wq_add(fd, keys[1], KEY_LEN);
	if (ret)
		die("wq_add", ret);
	got = wq_done_get(fd, NULL, 0, buf, sizeof(buf), 0);
	if (got != KEY_LEN)
		die("wq_done_get", got < 0 ? got : -EIO);
	t0 = now_ns();
	for (i = 0; i < n; i++) {
		ret = wq_add(fd, keys[i & 1], KEY_LEN);
		if (ret)
			die("wq_add", ret);
		if (split) {
			ret = wq_done(fd, buf, KEY_LEN);
			if (ret)
				die("wq_done", ret);
			got = wq_get(fd, buf, sizeof(buf), 0);
		} else {
			/* buf holds the key in hand: read before written */
			got = wq_done_get(fd, buf, KEY_LEN, buf, sizeof(buf), 0);
		}
		if (got != KEY_LEN)
			die(split ? "wq_get" : "wq_done_get",
			    got < 0 ? got : -EIO);
	}
	t = (now_ns() - t0) / n;
	ret = wq_done(fd, buf, KEY_LEN);	/* the last key in hand */
	if (ret)
		die("wq_done", ret);
	return t;
}

/* @n keys in batches of BATCH: add, get, done each batch; ns per key. */
static long long batch_cycle_ns(int fd, long n)
{
	char keys[BATCH][KEY_LEN], buf[BATCH * 16];
	struct iovec in[BATCH], out[BATCH];
	long long t0;
	ssize_t got;
	long i;
	int j, ret;

	for (j = 0; j < BATCH; j++) {
		key_of(keys[j], 'b', (unsigned long)j);
		in[j].iov_base = keys[j];
		in[j].iov_len = KEY_LEN;
	}
	n = (n + BATCH - 1) / BATCH;
	t0 = now_ns();
	for (i = 0; i < n; i++) {
		ret = wq_add_batch(fd, in, BATCH, NULL);
		if (ret != BATCH)
			die("wq_add_batch", ret < 0 ? ret : EIO);
		got = wq_get_batch(fd, buf, sizeof(buf), out, BATCH, 0);
		if (got != BATCH)
			die("wq_get_batch", got < 0 ? got : EIO);
		ret = wq_done_batch(fd, out, BATCH, NULL);
		if (ret != BATCH)
			die("wq_done_batch", ret < 0 ? ret : EIO);
	}
	return (now_ns() - t0) / (n * BATCH);
}

/* @n messages of 8 bytes sent and received; ns per message. */
static long long loop_mq_ns(mqd_t mq, long n)
{
	char key[KEY_LEN], buf[64];
	long long t0 = now_ns();
	long i;

	key_of(key, 'l', 0);
	for (i = 0; i < n; i++) {
		if (mq_send(mq, key, KEY_LEN, 0))
			die("mq_send", errno);
		if (mq_receive(mq, buf, sizeof(buf), NULL) != KEY_LEN)
			die("mq_receive", errno);
	}
	return (now_ns() - t0) / n;
}

int main(int argc, char **argv)
{
	struct wq_attr attr = { .limiter = "none" };
	struct mq_attr ma = { .mq_maxmsg = 8, .mq_msgsize = 64 };
	char mqname[64];
	long n;
	mqd_t mq;
	int opt, fd, i;

	while ((opt = getopt(argc, argv, "s:r:")) != -1) {
		switch (opt) {
		case 's': scale = atol(optarg); break;
		case 'r': reps = atoi(optarg); break;
		default:
			fprintf(stderr, "usage: loop_bench [-s SCALE] [-r REPS]\n");
			return 2;
		}
	}
	if (scale < 1 || reps < 1)
		return 2;
	n = count(20000);
	fd = wq_create_private(&attr);
	if (fd < 0)
		die("wq_create_private", fd);
	snprintf(mqname, sizeof(mqname), "/wq_loop_bench.%d", (int)getpid());
	mq = mq_open(mqname, O_CREAT | O_EXCL | O_RDWR, 0600, &ma);
	if (mq == (mqd_t)-1 && errno != ENOSYS)
		die("mq_open", errno);
	if (mq == (mqd_t)-1)	/* a kernel without POSIX_MQUEUE */
		printf("# no POSIX message queues: loop_mq_ns not measured\n");
	else
		mq_unlink(mqname);
	loop_wq_ns(fd, n / 10, 0);		/* warm up */
	loop_wq_ns(fd, n / 10, 1);
	batch_cycle_ns(fd, n / 10);
	if (mq != (mqd_t)-1)
		loop_mq_ns(mq, n / 10);
	for (i = 0; i < reps; i++) {
		printf("R loop_wq_ns %lld\n", loop_wq_ns(fd, n, 0));
		if (mq != (mqd_t)-1)
			printf("R loop_mq_ns %lld\n", loop_mq_ns(mq, n));
		printf("P loop_split_ns %lld\n", loop_wq_ns(fd, n, 1));
		printf("R batch_cycle_key_ns %lld\n", batch_cycle_ns(fd, n));
		fflush(stdout);
	}
	if (mq != (mqd_t)-1)
		mq_close(mq);
	close(fd);
	return 0;
}
