// SPDX-License-Identifier: GPL-2.0
/*
 * uring_bench: figure 13 of `make bench` (doc/performance.md), run in the
 * guest by bench/guest next to wq_bench: one producer and one consumer
 * (threads of one process, each with its own handle) moving distinct
 * 8-byte keys, every way below measured in each repetition, one after
 * another:
 *
 * - ring batches (13a): the producer submits RB_ADDS ADD_BATCH commands of
 *   64 keys in one io_uring_enter(); the consumer keeps RB_GETS
 *   DONE_GET_BATCH commands outstanding (each ends the keys its slot got
 *   last, then gets up to 64), rings set up with WQ_URING_SETUP_FAST
 *   (DEFER_TASKRUN, SINGLE_ISSUER) where the kernel has it; against
 *   the batched ioctls, wq_add_batch() of 64 keys against
 *   wq_done_get_batch() of up to 64.
 * - one-key ring commands (13b): the producer submits 64 ADD commands at a
 *   time, the consumer keeps 64 GETs outstanding and for each key submits
 *   its DONE and a new GET; against the single-key ioctls, wq_add()
 *   against wq_get() and wq_done().
 * - the same one-key commands on IORING_SETUP_SQPOLL rings (13d; one
 *   kernel submission thread for both, IORING_SETUP_ATTACH_WQ).
 * - the in-process stand-in of client-go's queue (standin.h), one key a
 *   call, as figure 1 (13c: where the ring stands against it).
 *
 * A GET that finds the queue empty is parked in the module: no io-wq
 * worker, no thread. Each ring run counts what that costs: the io-wq
 * workers of the process (threads named iou-wrk-*, sampled every 2 ms,
 * the most seen) and the two threads' voluntary context switches per key
 * (getrusage(RUSAGE_THREAD)), as profile lines. Also profiled: the
 * consumer alone on a queue filled beforehand, the producer alone.
 *
 * Prints "R name value" lines (keys/s, one per repetition) and "P name
 * value" lines for bench/report.py. Exit 4 (nothing measured) where the
 * kernel has no io_uring or wq no io_uring commands (WQ_FEATURE_URING);
 * the SQPOLL figure alone is left out where SQPOLL rings fail.
 *
 * Also profiled: io_uring's own cost of a request (a NOP) and of a
 * command its driver ends at once (/dev/null's), the floor under wq's.
 *
 *   uring_bench [-s SCALE] [-r REPS] [-m NAME]   SCALE divides the counts
 *	(smoke runs); -m runs only the runs whose lines are NAME, a comma
 *	list (to profile them; uring_floor: the floor). With both consumer
 *	and producer alone, "R uring_cycle_ns": one key's ADD, DONE, GET.
 */
#define _GNU_SOURCE	/* RUSAGE_THREAD */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <unistd.h>

#include "wq.h"
#include "wq_uring.h"

#define BENCH_NAME "uring_bench"
#include "bench_util.h"
#include "standin.h"
#include "uring_batch.h"

#define GETS		64	/* GETs the consumer keeps outstanding */
#define DONE_BUFS	(2 * GETS)	/* keys of DONEs in flight */
#define DONE_TAG	(1ULL << 32)	/* user_data of a DONE: tag | buffer */
#define SQ_IDLE_MS	200	/* SQPOLL thread's idle time before it sleeps */

/* The figures' runs, then the profile's */
enum mode {
	M_STANDIN, M_BATCH, M_SINGLE, M_RBATCH, M_URING, M_SQPOLL,
	M_PREFILLED, M_ADDONLY, M_NR
};

static const char *const mode_name[] = {
	"uring_standin_1p1c_keys_s", "uring_batch_1p1c_keys_s",
	"uring_single_1p1c_keys_s", "uring_rbatch_1p1c_keys_s",
	"uring_1p1c_keys_s", "uring_sqpoll_1p1c_keys_s",
	"uring_get_done_prefilled_ns", "uring_add_only_ns",
};

/* The ring runs: rings made, workers and switches counted */
static bool is_ring(enum mode m)
{
	return m >= M_RBATCH;
}

struct run {
	enum mode mode;
	char name[WQ_NAME_MAX];	/* the queue (not M_STANDIN) */
	struct cq cq;		/* M_STANDIN */
	long total;
	struct io_uring pring;	/* the producer's ring */
	struct io_uring cring;	/* the consumer's */
	pthread_barrier_t go;
	long long t_end;
	atomic_int running;	/* threads not finished */
	atomic_long vcsw;	/* the two threads' voluntary switches */
};

static int qseq;

/*
 * The SQPOLL run's rings, made by this thread: the consumer's attached to
 * the producer's submission thread.
 */
static int rings_init(struct run *r)
{
	struct io_uring_params p;
	int ret;

	memset(&p, 0, sizeof(p));
	p.flags = IORING_SETUP_SQE128 | IORING_SETUP_SQPOLL;
	p.sq_thread_idle = SQ_IDLE_MS;
	ret = io_uring_queue_init_params(2 * BATCH, &r->pring, &p);
	if (ret)
		return ret;
	p.flags |= IORING_SETUP_ATTACH_WQ;
	p.wq_fd = (__u32)r->pring.ring_fd;
	ret = io_uring_queue_init_params(GETS + DONE_BUFS, &r->cring, &p);
	if (ret)
		io_uring_queue_exit(&r->pring);
	return ret;
}

/*
 * The other ring runs' ring of a thread, made by it: a SINGLE_ISSUER ring
 * belongs to the task that made it.
 */
static bool own_ring(struct run *r)
{
	return is_ring(r->mode) && r->mode != M_SQPOLL;
}

/* Adds keys [0, total) through the ring, 64 ADD commands a submission. */
static void produce_uring(struct run *r, int fd)
{
	char keys[BATCH][KEY_LEN];
	long i;
	int n, j;

	for (i = 0; i < r->total; i += n) {
		n = r->total - i < BATCH ? (int)(r->total - i) : BATCH;
		for (j = 0; j < n; j++) {
			key_of(keys[j], 'u', (unsigned long)(i + j));
			wq_prep_add(sqe_of(&r->pring), fd, keys[j], KEY_LEN, NULL);
		}
		/* the keys stay valid until their completions: all n of them */
		reap(&r->pring, (unsigned int)n, "io_uring ADD", WQ_ADDED_QUEUED);
	}
}

static void produce_single(struct run *r, int fd)
{
	char key[KEY_LEN];
	long i;
	int ret;

	for (i = 0; i < r->total; i++) {
		key_of(key, 'k', (unsigned long)i);
		ret = wq_add(fd, key, KEY_LEN);
		if (ret != WQ_ADDED_QUEUED)
			die("wq_add", ret < 0 ? ret : -EIO);
	}
}

/* A thread's handle of the run's queue (-1 for the stand-in), at the start. */
static int thread_start(struct run *r, struct io_uring *ring, unsigned int entries,
			long *vcsw)
{
	struct rusage ru;
	int fd = -1, ret;

	if (r->mode != M_STANDIN) {
		fd = wq_open(r->name);
		if (fd < 0)
			die("wq_open", fd);
	}
	if (own_ring(r)) {
		ret = wq_uring_queue_init(entries, ring, WQ_URING_SETUP_FAST);
		if (ret)
			die("wq_uring_queue_init", ret);
	}
	pthread_barrier_wait(&r->go);
	getrusage(RUSAGE_THREAD, &ru);
	*vcsw = ru.ru_nvcsw;
	return fd;
}

static void thread_end(struct run *r, struct io_uring *ring, int fd, long vcsw)
{
	struct rusage ru;

	getrusage(RUSAGE_THREAD, &ru);
	atomic_fetch_add(&r->vcsw, ru.ru_nvcsw - vcsw);
	if (own_ring(r))
		io_uring_queue_exit(ring);
	if (fd >= 0)
		wq_close(fd);
	atomic_fetch_sub(&r->running, 1);
}

static void *producer(void *arg)
{
	struct run *r = arg;
	char key[KEY_LEN];
	long i, vcsw;
	int fd = thread_start(r, &r->pring, 2 * BATCH, &vcsw);

	switch (r->mode) {
	case M_STANDIN:
		for (i = 0; i < r->total; i++) {
			key_of(key, 's', (unsigned long)i);
			cq_add(&r->cq, key);
		}
		break;
	case M_BATCH: produce_batch(fd, r->total); break;
	case M_SINGLE: produce_single(r, fd); break;
	case M_RBATCH: produce_rbatch(&r->pring, fd, r->total); break;
	case M_PREFILLED: break;
	default: produce_uring(r, fd); break;
	}
	if (r->mode == M_ADDONLY)
		r->t_end = now_ns();
	thread_end(r, &r->pring, fd, vcsw);
	return NULL;
}

/* ---- the consumers ---------------------------------------------------- */

struct cons {
	char buf[GETS][KEY_LEN + 8];	/* each outstanding GET's */
	char done_key[DONE_BUFS][KEY_LEN];
	bool done_busy[DONE_BUFS];
	int done_next;
	int gets;		/* GETs outstanding */
	int dones;		/* DONEs outstanding */
	long consumed;
};

static void get_slot(struct run *r, struct cons *c, int fd, int j)
{
	struct io_uring_sqe *sqe = sqe_of(&r->cring);

	wq_prep_get(sqe, fd, c->buf[j], sizeof(c->buf[j]));
	io_uring_sqe_set_data64(sqe, (uint64_t)j);
	c->gets++;
}

/* The DONE of the key GET j took, from a buffer of its own. */
static void done_of(struct run *r, struct cons *c, int fd, int j, int len)
{
	struct io_uring_sqe *sqe;
	int d = c->done_next;

	while (c->done_busy[d])		/* more DONEs in flight than GETs: never */
		d = (d + 1) % DONE_BUFS;
	c->done_next = (d + 1) % DONE_BUFS;
	c->done_busy[d] = true;
	memcpy(c->done_key[d], c->buf[j], KEY_LEN);
	sqe = sqe_of(&r->cring);
	wq_prep_done(sqe, fd, c->done_key[d], (size_t)len);
	io_uring_sqe_set_data64(sqe, DONE_TAG | (uint64_t)d);
	c->dones++;
}

/* One completion of the consumer's ring. */
static void consume_cqe(struct run *r, struct cons *c, int fd,
			const struct io_uring_cqe *cqe, bool *over)
{
	uint64_t ud = io_uring_cqe_get_data64(cqe);
	int j = (int)(ud & 0xffffffff);

	if (ud & DONE_TAG) {
		if (cqe->res)
			die("io_uring DONE", cqe->res < 0 ? cqe->res : -EIO);
		c->done_busy[j] = false;
		c->dones--;
		return;
	}
	c->gets--;
	if (cqe->res == -ESHUTDOWN && *over)
		return;
	if (cqe->res != KEY_LEN)
		die("io_uring GET", cqe->res < 0 ? cqe->res : -EIO);
	done_of(r, c, fd, j, cqe->res);
	if (++c->consumed == r->total) {
		r->t_end = now_ns();
		*over = true;
		wq_shutdown(fd);	/* the outstanding GETs: -ESHUTDOWN */
		return;
	}
	if (!*over)
		get_slot(r, c, fd, j);
}

/* Keeps GETS gets outstanding, a DONE and a GET for each key, until total. */
static void consume_uring(struct run *r, int fd)
{
	struct cons *c = calloc(1, sizeof(*c));
	struct io_uring_cqe *cqe;
	bool over = false;
	unsigned int head, n;
	int j;

	if (!c)
		die("calloc", ENOMEM);
	for (j = 0; j < GETS; j++)
		get_slot(r, c, fd, j);
	while (c->gets || c->dones) {
		submit_wait(&r->cring, 1);
		n = 0;
		io_uring_for_each_cqe(&r->cring, head, cqe) {
			consume_cqe(r, c, fd, cqe, &over);
			n++;
		}
		io_uring_cq_advance(&r->cring, n);
	}
	if (c->consumed != r->total)
		die("io_uring consumer", -EIO);
	free(c);
}

static void consume_single(struct run *r, int fd)
{
	char buf[KEY_LEN + 8];
	ssize_t got;
	long i;
	int ret;

	for (i = 0; i < r->total; i++) {
		got = wq_get(fd, buf, sizeof(buf), -1);
		if (got != KEY_LEN)
			die("wq_get", got < 0 ? got : -EIO);
		ret = wq_done(fd, buf, KEY_LEN);
		if (ret)
			die("wq_done", ret);
	}
	r->t_end = now_ns();
}

static void *consumer(void *arg)
{
	struct run *r = arg;
	char key[KEY_LEN];
	long i, vcsw;
	int fd = thread_start(r, &r->cring, GETS + DONE_BUFS, &vcsw);

	switch (r->mode) {
	case M_STANDIN:
		for (i = 0; i < r->total; i++) {
			if (!cq_get(&r->cq, key))
				die("stand-in get", -EIO);
			cq_done(&r->cq, key);
		}
		r->t_end = now_ns();
		cq_shutdown(&r->cq);
		break;
	case M_BATCH: consume_batch(fd, r->total, &r->t_end); break;
	case M_SINGLE: consume_single(r, fd); break;
	case M_RBATCH:
		consume_rbatch(&r->cring, fd, r->total, &r->t_end);
		break;
	case M_ADDONLY: break;
	default: consume_uring(r, fd); break;
	}
	thread_end(r, &r->cring, fd, vcsw);
	return NULL;
}

/* ---- the runs --------------------------------------------------------- */

/* The process's io-wq workers now: its threads named iou-wrk-*. */
static int iowq_workers(void)
{
	char path[300], comm[32];
	struct dirent *de;
	DIR *d = opendir("/proc/self/task");
	int n = 0;
	FILE *f;

	if (!d)
		return -1;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/self/task/%s/comm", de->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (fgets(comm, sizeof(comm), f) && !strncmp(comm, "iou-wrk", 7))
			n++;
		fclose(f);
	}
	closedir(d);
	return n;
}

struct result {
	double rate;		/* keys/s, -1: not measured */
	int workers;		/* the most io-wq workers seen */
	double vcsw_per_key;
};

/* One run of mode: keys per second, or -1 if its rings cannot be made. */
static struct result run_one(enum mode mode, long total)
{
	struct run *r = calloc(1, sizeof(*r));
	struct wq_attr attr = { .limiter = "none", .max_items = 1 << 20 };
	struct result res = { .rate = -1 };
	pthread_t p, c;
	long long t0;
	int fd = -1, ret, w;

	if (!r)
		die("calloc", ENOMEM);
	r->mode = mode;
	r->total = total;
	if (mode == M_STANDIN) {
		cq_init(&r->cq);
	} else {
		snprintf(r->name, sizeof(r->name), "ubench.%d.%d", (int)getpid(),
			 qseq++);
		fd = wq_create(r->name, &attr);
		if (fd < 0)
			die("wq_create", fd);
	}
	if (mode == M_PREFILLED)	/* the keys there before the consumer */
		produce_batch(fd, r->total);
	if (mode == M_SQPOLL) {
		ret = rings_init(r);
		if (ret) {
			fprintf(stderr, "# uring_bench: %s: io_uring_queue_init: %s: not measured\n",
				mode_name[mode], strerror(-ret));
			wq_close(fd);
			wq_destroy(r->name);
			free(r);
			return res;
		}
	}
	atomic_init(&r->running, 2);
	pthread_barrier_init(&r->go, NULL, 3);
	if (pin(0) || pthread_create(&p, NULL, producer, r) || pin(1) ||
	    pthread_create(&c, NULL, consumer, r) || pin(-1))
		die("pthread_create", EAGAIN);
	/* before the threads go: a tiny run may end before this thread runs */
	t0 = now_ns();
	pthread_barrier_wait(&r->go);
	while (is_ring(mode) && atomic_load(&r->running)) {
		w = iowq_workers();
		if (w > res.workers)
			res.workers = w;
		usleep(2000);
	}
	pthread_join(p, NULL);
	pthread_join(c, NULL);
	pthread_barrier_destroy(&r->go);
	res.rate = (double)total * 1e9 / (double)(r->t_end - t0);
	res.vcsw_per_key = (double)atomic_load(&r->vcsw) / (double)total;
	if (mode == M_SQPOLL) {
		io_uring_queue_exit(&r->cring);
		io_uring_queue_exit(&r->pring);
	}
	if (mode == M_STANDIN) {
		cq_destroy(&r->cq);
	} else {
		wq_close(fd);
		wq_destroy(r->name);
	}
	free(r);
	return res;
}
/*
 * io_uring's own cost of a command, the floor under wq's: @n requests, 64
 * a submission, on a ring set up as wq_uring_queue_init() does, each an
 * IORING_OP_NOP (@cmd false) or an IORING_OP_URING_CMD to /dev/null, whose
 * driver completes any command at once with 0. ns per request (under
 * vm-run --icount: instructions), or -1 where the kernel refuses.
 */
static double ring_floor_ns(bool cmd, long n)
{
	struct io_uring ring;
	struct io_uring_sqe *sqe;
	long done;
	long long t0;
	int fd = -1, i;

	if (wq_uring_queue_init(2 * GETS, &ring, 0))
		return -1;
	if (cmd && (fd = open("/dev/null", O_RDWR | O_CLOEXEC)) < 0)
		die("open /dev/null", errno);
	t0 = now_ns();
	for (done = 0; done < n; done += GETS) {
		for (i = 0; i < GETS; i++) {
			sqe = sqe_of(&ring);
			if (cmd)
				io_uring_prep_rw(IORING_OP_URING_CMD, sqe, fd,
						 NULL, 0, 0);
			else
				io_uring_prep_nop(sqe);
		}
		reap(&ring, GETS, cmd ? "/dev/null command" : "nop", 0);
	}
	t0 = now_ns() - t0;
	io_uring_queue_exit(&ring);
	if (fd >= 0)
		close(fd);
	return (double)t0 / (double)done;
}

/*
 * Whether wq takes io_uring commands here: the module says so, a ring can
 * be made, and a DONE of a key nobody holds completes with -ENOENT. Why
 * not, in why.
 */
static bool uring_works(char *why, size_t cap)
{
	struct wq_module_info mi = { 0 };
	struct io_uring ring;
	struct io_uring_cqe *cqe;
	char name[WQ_NAME_MAX];
	int fd, ret;

	fd = open(WQ_DEV_PATH, O_RDWR | O_CLOEXEC);
	if (fd < 0 || ioctl(fd, WQ_IOC_MODULE_INFO, &mi) < 0) {
		snprintf(why, cap, "%s: %s", WQ_DEV_PATH, strerror(errno));
		return false;
	}
	close(fd);
	if (!(mi.features & WQ_FEATURE_URING)) {
		snprintf(why, cap, "wq has no io_uring commands (WQ_FEATURE_URING)");
		return false;
	}
	ret = wq_uring_queue_init(4, &ring, 0);
	if (ret) {
		snprintf(why, cap, "no SQE128 io_uring: %s", strerror(-ret));
		return false;
	}
	snprintf(name, sizeof(name), "ubench.%d.probe", (int)getpid());
	fd = wq_create(name, NULL);
	if (fd < 0)
		die("wq_create", fd);
	wq_prep_done(sqe_of(&ring), fd, "probe", 5);
	submit_wait(&ring, 1);
	if (io_uring_peek_cqe(&ring, &cqe))
		die("io_uring_peek_cqe", EIO);
	ret = cqe->res;
	io_uring_cqe_seen(&ring, cqe);
	io_uring_queue_exit(&ring);
	wq_close(fd);
	wq_destroy(name);
	if (ret != -ENOENT) {
		snprintf(why, cap, "an io_uring DONE completed with %d, not -ENOENT",
			 ret);
		return false;
	}
	return true;
}

/* Is the run named @name one of -m's comma-separated list (or all)? */
static bool wanted(const char *only, const char *name)
{
	size_t len = strlen(name);
	const char *p;

	if (!only)
		return true;
	for (p = only; (p = strstr(p, name)); p += len)
		if ((p == only || p[-1] == ',') && (!p[len] || p[len] == ','))
			return true;
	return false;
}

int main(int argc, char **argv)
{
	char why[160];
	long total;
	const char *only = NULL;
	double cycle[2] = { 0 };	/* a repetition's M_PREFILLED, M_ADDONLY */
	struct result v;
	int opt, i;
	enum mode m;

	while ((opt = getopt(argc, argv, "s:r:m:")) != -1) {
		switch (opt) {
		case 's': scale = atol(optarg); break;
		case 'r': reps = atoi(optarg); break;
		case 'm': only = optarg; break;
		default:
			fprintf(stderr, "usage: uring_bench [-s SCALE] [-r REPS] [-m NAME]\n");
			return 2;
		}
	}
	if (scale < 1 || reps < 1)
		return 2;
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!uring_works(why, sizeof(why))) {
		printf("S uring %s\n", why);
		fprintf(stderr, "# uring_bench: SKIP: %s\n", why);
		return 4;
	}
	total = count(200000);
	for (i = -1; i < reps; i++) {	/* repetition -1: the warm-up */
		for (m = M_STANDIN; m < M_NR; m++) {
			if (!wanted(only, mode_name[m]))
				continue;
			v = run_one(m, total);
			if (v.rate < 0 || i < 0)
				continue;
			if (m == M_PREFILLED || m == M_ADDONLY)
				cycle[m == M_ADDONLY] = 1e9 / v.rate;
			if (m <= M_SQPOLL)
				printf("R %s %.0f\n", mode_name[m], v.rate);
			else
				printf("P %s %.0f\n", mode_name[m], 1e9 / v.rate);
			if (m == M_RBATCH || m == M_URING) {
				/* uring_1p1c_keys_s -> uring_1p1c_iowq_workers */
				int len = (int)strlen(mode_name[m]) - 7;

				printf("P %.*s_iowq_workers %d\n", len,
				       mode_name[m], v.workers);
				printf("P %.*s_vcsw_per_key %.4f\n", len,
				       mode_name[m], v.vcsw_per_key);
			}
		}
		/* one key's ADD, DONE and GET, each alone (under icount: insn) */
		if (cycle[0] > 0 && cycle[1] > 0)
			printf("R uring_cycle_ns %.0f\n", cycle[0] + cycle[1]);
		cycle[0] = cycle[1] = 0;
		/* the floor: io_uring's cost of a request, and of a command */
		if (i >= 0 && wanted(only, "uring_floor")) {
			double nop = ring_floor_ns(false, total);
			double cmd = ring_floor_ns(true, total);

			if (nop >= 0)
				printf("P uring_nop_ns %.0f\n", nop);
			if (cmd >= 0)
				printf("P uring_null_cmd_ns %.0f\n", cmd);
		}
	}
	return 0;
}
