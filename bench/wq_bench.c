// SPDX-License-Identifier: GPL-2.0
/*
 * wq_bench: the userspace figures of `make bench` (doc/performance.md), run in the
 * guest by bench/guest. Prints one line per repetition of a measurement,
 *
 *   R <name> <value>	(ns per operation, keys/s, bytes per key)
 *   P <name> <value>	a profile counter (ns per operation)
 *
 * and leaves medians, ratios and goals to bench/run on the host.
 *
 *   wq_bench [-s SCALE] [-r REPS] [FIGURE...]
 *
 * FIGURE: batch, single, scale, resident, lateness (default: all). SCALE
 * divides every count (-s 1000 is the smoke run of make check). Nothing is
 * asserted: the exit status says only whether every call worked.
 *
 * The in-process queue with client-go's semantics (figure 1), the
 * stand-in for client-go's workqueue, is in standin.h (uring_bench.c
 * measures against it too): one mutex and one condition variable, a FIFO,
 * and hash sets of dirty and processing keys (queue.go's queue, dirty and
 * processing), every key copied on Add.
 */
#include <errno.h>
#include <fcntl.h>
#include <mqueue.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "wq.h"
#include "uapi/linux/wq.h"

#define BENCH_NAME "wq_bench"
#include "bench_util.h"

static int qseq;

/* A fresh named queue (destroyed at once: the handle keeps it). */
static int new_queue(uint32_t max_items, char *name)
{
	struct wq_attr attr = { .limiter = "none", .max_items = max_items };
	int fd;

	snprintf(name, WQ_NAME_MAX, "bench.%d.%d", (int)getpid(), qseq++);
	fd = wq_create(name, &attr);
	if (fd < 0)
		die("wq_create", fd);
	return fd;
}

#include "standin.h"

/* ---- producer/consumer runs ------------------------------------------ */

struct run {
	const char *name;	/* wq queue, or NULL for the stand-in */
	struct cq *cq;
	int producers, consumers;
	bool batch;
	long total;		/* keys, split among producers */
	atomic_long consumed;
	atomic_long gets;	/* Get calls (keys per call: consumed / gets) */
	pthread_barrier_t go;
	long long t_end;
};

struct worker {
	struct run *run;
	int id;
};

static void *producer(void *arg)
{
	struct worker *w = arg;
	struct run *r = w->run;
	long per = r->total / r->producers, base = (long)w->id * per, i;
	char keys[BATCH][KEY_LEN];
	struct iovec iov[BATCH];
	int errs[BATCH], fd = -1, ret;

	if (r->name) {
		fd = wq_open(r->name);
		if (fd < 0)
			die("wq_open", fd);
	}
	pthread_barrier_wait(&r->go);
	for (i = 0; i < per;) {
		if (!r->name) {
			key_of(keys[0], 'a', base + i++);
			cq_add(r->cq, keys[0]);
		} else if (!r->batch) {
			key_of(keys[0], 'a', base + i);
			ret = wq_add(fd, keys[0], KEY_LEN);
			if (ret == -EAGAIN)
				continue;
			if (ret)
				die("wq_add", ret);
			i++;
		} else {
			int n = per - i < BATCH ? (int)(per - i) : BATCH;

			for (int j = 0; j < n; j++) {
				key_of(keys[j], 'a', base + i + j);
				iov[j].iov_base = keys[j];
				iov[j].iov_len = KEY_LEN;
			}
			ret = wq_add_batch(fd, iov, n, errs);
			if (ret != n)	/* max_items is far above total */
				die("wq_add_batch", ret < 0 ? ret : EIO);
			i += n;
		}
	}
	if (fd >= 0)
		wq_close(fd);
	return NULL;
}

static void consumed(struct run *r, long n)
{
	if (atomic_fetch_add(&r->consumed, n) + n == r->total) {
		r->t_end = now_ns();
		if (r->cq)
			cq_shutdown(r->cq);
	}
}

static void *consumer(void *arg)
{
	struct worker *w = arg;
	struct run *r = w->run;
	char buf[BATCH * KEY_LEN + 64];
	struct iovec iov[BATCH];
	int fd = -1, ret;
	ssize_t got;

	if (r->name) {
		fd = wq_open(r->name);
		if (fd < 0)
			die("wq_open", fd);
	}
	pthread_barrier_wait(&r->go);
	for (;;) {
		if (!r->name) {
			if (!cq_get(r->cq, buf))
				break;
			cq_done(r->cq, buf);
			consumed(r, 1);
		} else if (!r->batch) {
			got = wq_get(fd, buf, sizeof(buf), -1);
			if (got == -ESHUTDOWN)
				break;
			if (got < 0)
				die("wq_get", got);
			ret = wq_done(fd, buf, (size_t)got);
			if (ret)
				die("wq_done", ret);
			consumed(r, 1);
		} else {
			got = wq_get_batch(fd, buf, sizeof(buf), iov, BATCH, -1);
			if (got == -ESHUTDOWN)
				break;
			if (got < 0)
				die("wq_get_batch", got);
			atomic_fetch_add(&r->gets, 1);
			ret = wq_done_batch(fd, iov, (unsigned int)got, NULL);
			if (ret != got)
				die("wq_done_batch", ret < 0 ? ret : EIO);
			consumed(r, got);
		}
		if (r->name && atomic_load(&r->consumed) == r->total)
			wq_shutdown(fd);
	}
	if (fd >= 0)
		wq_close(fd);
	return NULL;
}

/* Keys per second of one run; its gets and context switches, after it. */
static long last_gets, last_nvcsw, last_nivcsw;

static double run_pc(const char *name, struct cq *cq, int np, int nc,
		     bool batch, long total)
{
	pthread_t th[8];
	struct worker w[8];
	struct run r = {
		.name = name, .cq = cq, .producers = np, .consumers = nc,
		.batch = batch, .total = total / np * np,
	};
	struct rusage ru0, ru1;
	long long t0;
	int i, n = np + nc;

	getrusage(RUSAGE_SELF, &ru0);
	pthread_barrier_init(&r.go, NULL, (unsigned int)n + 1);
	/* thread i on CPU i modulo the CPUs: 1P+1C on two, 2P+2C two a CPU */
	for (i = 0; i < n; i++) {
		w[i].run = &r;
		w[i].id = i < np ? i : i - np;
		if (pin(i) || pthread_create(&th[i], NULL, i < np ? producer : consumer, &w[i]))
			die("pthread_create", EAGAIN);
	}
	pin(-1);
	/* before the threads go: a tiny run may end before this thread runs */
	t0 = now_ns();
	pthread_barrier_wait(&r.go);
	for (i = 0; i < n; i++)
		pthread_join(th[i], NULL);
	pthread_barrier_destroy(&r.go);
	last_gets = atomic_load(&r.gets);
	getrusage(RUSAGE_SELF, &ru1);
	last_nvcsw = ru1.ru_nvcsw - ru0.ru_nvcsw;
	last_nivcsw = ru1.ru_nivcsw - ru0.ru_nivcsw;
	return (double)r.total * 1e9 / (double)(r.t_end - t0);
}

/*
 * Figures 1 and 5b: batched wq 1P+1C against the stand-in 1P+1C and 2P+2C,
 * A/B/C in each repetition. Repetition -1 is the warm-up, not printed:
 * the first 200,000 records of the boot take new slab pages from the page
 * allocator, which later runs (and any queue that has run a while) find
 * in the slab.
 */
static void fig_batch(void)
{
	long total = count(200000);
	char name[WQ_NAME_MAX];
	double v;
	int fd;

	for (int i = -1; i < reps; i++) {
		struct cq cq;

		fd = new_queue(1 << 20, name);
		v = run_pc(name, NULL, 1, 1, true, total);
		if (i >= 0) {
			printf("R batch_wq_1p1c_keys_s %.0f\n", v);
			printf("P batch_keys_per_get %.1f\n",
			       (double)total / (double)(last_gets ?: 1));
			printf("P batch_switches_per_kkey %.1f\n",
			       (double)last_nvcsw * 1000 / (double)total);
		}
		wq_close(fd);
		wq_destroy(name);
		fd = new_queue(1 << 20, name);
		v = run_pc(name, NULL, 2, 2, true, total);
		if (i >= 0) {
			printf("R batch_wq_2p2c_keys_s %.0f\n", v);
			printf("P batch_2p2c_keys_per_get %.1f\n",
			       (double)total / (double)(last_gets ?: 1));
			printf("P batch_2p2c_switches_per_kkey %.1f\n",
			       (double)last_nvcsw * 1000 / (double)total);
			printf("P batch_2p2c_preemptions_per_kkey %.1f\n",
			       (double)last_nivcsw * 1000 / (double)total);
		}
		wq_close(fd);
		wq_destroy(name);
		cq_init(&cq);
		v = run_pc(NULL, &cq, 1, 1, false, total);
		if (i >= 0)
			printf("R standin_1p1c_keys_s %.0f\n", v);
		cq_destroy(&cq);
		fflush(stdout);
	}
}

/* Figure 5: single-key calls, 2P+2C against 1P+1C; -1 the warm-up. */
static void fig_scale(void)
{
	long total = count(40000);
	char name[WQ_NAME_MAX];
	double v;

	for (int i = -1; i < reps; i++) {
		int fd = new_queue(1 << 20, name);

		v = run_pc(name, NULL, 1, 1, false, total);
		if (i >= 0)
			printf("R single_1p1c_keys_s %.0f\n", v);
		wq_close(fd);
		wq_destroy(name);
		fd = new_queue(1 << 20, name);
		v = run_pc(name, NULL, 2, 2, false, total);
		if (i >= 0)
			printf("R single_2p2c_keys_s %.0f\n", v);
		wq_close(fd);
		wq_destroy(name);
		fflush(stdout);
	}
}

/* ---- single key: wq against mqueue (figures 2, 4) -------------------- */

/* One cycle: Add key, Get the head, Done it; dies on any error. */
static inline void wq_cycle(int fd, const char *key)
{
	char buf[64];
	ssize_t got;
	int ret;

	ret = wq_add(fd, key, KEY_LEN);
	if (ret)
		die("wq_add", ret);
	got = wq_get(fd, buf, sizeof(buf), 0);
	if (got != KEY_LEN)
		die("wq_get", got < 0 ? got : EIO);
	ret = wq_done(fd, buf, KEY_LEN);
	if (ret)
		die("wq_done", ret);
}

static long long wq_cycle_ns(int fd, long n)
{
	char key[KEY_LEN];
	long long t0 = now_ns();

	key_of(key, 's', 1);
	for (long i = 0; i < n; i++)
		wq_cycle(fd, key);
	return (now_ns() - t0) / n;
}

static long long mq_cycle_ns(mqd_t mq, long n)
{
	char key[KEY_LEN], buf[64];
	long long t0 = now_ns();

	key_of(key, 's', 1);
	for (long i = 0; i < n; i++) {
		if (mq_send(mq, key, KEY_LEN, 0))
			die("mq_send", errno);
		if (mq_receive(mq, buf, sizeof(buf), NULL) != KEY_LEN)
			die("mq_receive", errno);
	}
	return (now_ns() - t0) / n;
}

static void fig_single(void)
{
	struct mq_attr ma = { .mq_maxmsg = 8, .mq_msgsize = 64 };
	char name[WQ_NAME_MAX];
	long n = count(20000);
	long long t0;
	mqd_t mq;
	int fd;

	fd = new_queue(0, name);
	mq = mq_open("/wq_bench", O_CREAT | O_RDWR, 0600, &ma);
	if (mq == (mqd_t)-1 && errno != ENOSYS)
		die("mq_open", errno);
	if (mq == (mqd_t)-1)	/* a kernel without POSIX_MQUEUE (debug lane) */
		printf("# no POSIX message queues: mq_cycle_ns not measured\n");
	else
		mq_unlink("/wq_bench");
	wq_cycle_ns(fd, n / 10);	/* warm up */
	if (mq != (mqd_t)-1)
		mq_cycle_ns(mq, n / 10);
	for (int i = 0; i < reps; i++) {
		printf("R wq_cycle_ns %lld\n", wq_cycle_ns(fd, n));
		if (mq != (mqd_t)-1)
			printf("R mq_cycle_ns %lld\n", mq_cycle_ns(mq, n));
		fflush(stdout);
	}
	/* profile: a null system call, and the cheapest ioctl (wq_len) */
	t0 = now_ns();
	for (long i = 0; i < n; i++)
		syscall(SYS_getppid);
	printf("P null_syscall_ns %lld\n", (now_ns() - t0) / n);
	/* an ioctl refused after dispatch and copy-in: DONE of an empty key */
	t0 = now_ns();
	for (long i = 0; i < n; i++) {
		struct wq_key k = { .key_len = 0 };

		if (ioctl(fd, WQ_IOC_DONE, &k) != -1 || errno != EINVAL)
			die("ioctl DONE of an empty key", EIO);
	}
	printf("P ioctl_einval_ns %lld\n", (now_ns() - t0) / n);
	if (mq != (mqd_t)-1)
		mq_close(mq);
	wq_close(fd);
	wq_destroy(name);
}

/* ---- figures 6 and 8: resident keys, memory -------------------------- */

static long meminfo_kb(const char *field)
{
	char line[256];
	size_t l = strlen(field);
	long v = -1;
	FILE *f = fopen("/proc/meminfo", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, field, l) && line[l] == ':')
			v = atol(line + l + 1);
	fclose(f);
	return v;
}

static void fill(int fd, char tag, long n)
{
	char keys[BATCH][KEY_LEN];
	struct iovec iov[BATCH];
	int ret;

	for (long i = 0; i < n; i += BATCH) {
		int m = n - i < BATCH ? (int)(n - i) : BATCH;

		for (int j = 0; j < m; j++) {
			key_of(keys[j], tag, i + j);
			iov[j].iov_base = keys[j];
			iov[j].iov_len = KEY_LEN;
		}
		ret = wq_add_batch(fd, iov, m, NULL);
		if (ret != m)
			die("wq_add_batch (fill)", ret < 0 ? ret : EIO);
	}
}

/* Add a new key, Get the head (a resident key), Done it: n cycles. */
static long long resident_cycle_ns(int fd, long n, unsigned long *seq)
{
	char key[KEY_LEN];
	long long t0 = now_ns();

	for (long i = 0; i < n; i++) {
		key_of(key, 'n', (*seq)++);
		wq_cycle(fd, key);
	}
	return (now_ns() - t0) / n;
}

static void fig_resident(void)
{
	long small = count(1000), big = count(1000000), n = count(20000);
	char name[WQ_NAME_MAX];
	unsigned long seq = 0;
	long slab0, vm0, slab1, vm1;
	int fs, fb;

	pin(0);
	fs = new_queue(1 << 20, name);
	fill(fs, 'r', small);
	wq_destroy(name);
	slab0 = meminfo_kb("Slab");
	vm0 = meminfo_kb("VmallocUsed");
	fb = new_queue(1 << 20, name);
	fill(fb, 'r', big);
	wq_destroy(name);
	slab1 = meminfo_kb("Slab");
	vm1 = meminfo_kb("VmallocUsed");
	/* figure 8: one sample (the fill is the expensive part) */
	printf("R mem_slab_bytes_per_key %.1f\n",
	       (double)(slab1 - slab0) * 1024 / (double)big - KEY_LEN);
	printf("R mem_slab_vmalloc_bytes_per_key %.1f\n",
	       (double)(slab1 - slab0 + vm1 - vm0) * 1024 / (double)big - KEY_LEN);
	resident_cycle_ns(fs, n / 10, &seq);
	resident_cycle_ns(fb, n / 10, &seq);
	for (int i = 0; i < reps; i++) {
		printf("R resident_small_cycle_ns %lld\n", resident_cycle_ns(fs, n, &seq));
		printf("R resident_big_cycle_ns %lld\n", resident_cycle_ns(fb, n, &seq));
		fflush(stdout);
	}
	wq_close(fs);
	wq_close(fb);
	pin(-1);
}

/* ---- figure 7: AddAfter lateness ------------------------------------- */

static int cmp_ll(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;

	return x < y ? -1 : x > y;
}

static long long pct(long long *v, int n, int p)
{
	qsort(v, (size_t)n, sizeof(*v), cmp_ll);
	return v[(long)(n - 1) * p / 100];
}

static void fig_lateness(void)
{
	const long long delay = 2000000;	/* 2 ms */
	long waiting = count(100000);
	int samples = (int)count(200), ret;
	long long *lw, *ln, target;
	char name[WQ_NAME_MAX], key[KEY_LEN], buf[64];
	struct timespec ts;
	ssize_t got;
	int fd;

	/* nanosleep at its most exact: no timer slack */
	prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
	lw = calloc((size_t)samples, sizeof(*lw));
	ln = calloc((size_t)samples, sizeof(*ln));
	if (!lw || !ln)
		die("calloc", ENOMEM);
	fd = new_queue(1 << 20, name);
	srand(1);
	for (long i = 0; i < waiting; i++) {
		key_of(key, 'w', i);
		ret = wq_add_after(fd, key, KEY_LEN,
				   3600000000000ULL + (uint64_t)rand() * 1000ULL);
		if (ret)
			die("wq_add_after", ret);
	}
	pin(0);
	for (int r = -1; r < reps; r++) {	/* -1: the warm-up */
		for (int i = 0; i < samples; i++) {
			key_of(key, 'l', (unsigned long)i);
			target = now_ns() + delay;
			ret = wq_add_after(fd, key, KEY_LEN, (uint64_t)(target - now_ns()));
			if (ret)
				die("wq_add_after", ret);
			got = wq_get(fd, buf, sizeof(buf), -1);
			lw[i] = now_ns() - target;
			if (got != KEY_LEN)
				die("wq_get", got < 0 ? got : EIO);
			ret = wq_done(fd, buf, KEY_LEN);
			if (ret)
				die("wq_done", ret);

			target = now_ns() + delay;
			ts.tv_sec = target / 1000000000;
			ts.tv_nsec = target % 1000000000;
			while ((ret = clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL)) == EINTR)
				;
			ln[i] = now_ns() - target;
		}
		if (r < 0)
			continue;
		printf("R late_wq_p50_ns %lld\n", pct(lw, samples, 50));
		printf("R late_wq_p99_ns %lld\n", pct(lw, samples, 99));
		printf("R late_sleep_p50_ns %lld\n", pct(ln, samples, 50));
		printf("R late_sleep_p99_ns %lld\n", pct(ln, samples, 99));
		fflush(stdout);
	}
	pin(-1);
	wq_close(fd);
	wq_destroy(name);
	free(lw);
	free(ln);
}

int main(int argc, char **argv)
{
	static const struct {
		const char *name;
		void (*fn)(void);
	} figs[] = {
		{ "single", fig_single }, { "batch", fig_batch },
		{ "scale", fig_scale }, { "resident", fig_resident },
		{ "lateness", fig_lateness },
	};
	int opt, i, j;

	while ((opt = getopt(argc, argv, "s:r:")) != -1) {
		switch (opt) {
		case 's': scale = atol(optarg); break;
		case 'r': reps = atoi(optarg); break;
		default:
			fprintf(stderr, "usage: wq_bench [-s SCALE] [-r REPS] [FIGURE...]\n");
			return 2;
		}
	}
	if (scale < 1 || reps < 1)
		return 2;
	setvbuf(stdout, NULL, _IOLBF, 0);
	for (i = 0; i < (int)(sizeof(figs) / sizeof(figs[0])); i++) {
		bool want = optind == argc;

		for (j = optind; j < argc; j++)
			want |= !strcmp(argv[j], figs[i].name);
		if (!want)
			continue;
		fprintf(stderr, "# wq_bench: %s\n", figs[i].name);
		figs[i].fn();
	}
	return 0;
}
