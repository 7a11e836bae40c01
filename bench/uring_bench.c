// SPDX-License-Identifier: GPL-2.0
/*
 * uring_bench: figure 13 of `make bench` (doc/performance.md), run in the
 * guest by bench/guest next to wq_bench: one producer and one consumer
 * (threads of one process, each with its own handle) moving distinct
 * 8-byte keys through wq's io_uring commands (wq_uring.h), against the
 * same keys through the batched ioctls (figure 1's calls) and through the
 * in-process stand-in of client-go's queue (standin.h, figure 1's
 * denominator), all four measured in each repetition, one after another:
 *
 * - io_uring: the producer fills its ring with 64 ADD commands and
 *   submits them in one io_uring_enter() (waiting for their 64
 *   completions); the consumer keeps 64 GET commands outstanding and, for
 *   each key a GET completes with, submits its DONE and a new GET. A GET
 *   that finds the queue empty waits in io_uring's worker threads.
 * - io_uring with IORING_SETUP_SQPOLL: the same, both rings served by one
 *   submission thread of the kernel (IORING_SETUP_ATTACH_WQ).
 * - batched ioctls: wq_add_batch() of 64 keys against wq_get_batch() of up
 *   to 64 and wq_done_batch(), as figure 1.
 * - the stand-in, one key per call, as figure 1.
 *
 * And, as profile lines (ns per key), where the io_uring run's time goes:
 * the consumer alone on a queue filled beforehand (every GET served at
 * once), the producer alone, the 1P+1C run with the consumer's gets made
 * as GET_BATCH commands (four of up to 64 keys outstanding, a DONE_BATCH
 * each), and the share of the io_uring run's GETs that completed in the
 * io_uring_enter() that submitted them (the others waited in io-wq).
 *
 * Prints "R name value" lines (keys/s, one per repetition) and "P name
 * value" lines for bench/report.py. Exit 4 (nothing measured) where the
 * kernel has no io_uring or wq no io_uring commands (WQ_FEATURE_URING);
 * the SQPOLL figure alone is left out where SQPOLL rings fail.
 *
 *   uring_bench [-s SCALE] [-r REPS] [-m NAME]   SCALE divides the counts
 *	(smoke runs); -m runs only the run whose line is NAME (to profile it)
 */
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
#include <unistd.h>

#include "wq.h"
#include "wq_uring.h"

#define BENCH_NAME "uring_bench"
#include "bench_util.h"
#include "standin.h"

#define GETS		64	/* GETs the consumer keeps outstanding */
#define DONE_BUFS	(2 * GETS)	/* keys of DONEs in flight */
#define DONE_TAG	(1ULL << 32)	/* user_data of a DONE: tag | buffer */
#define SQ_IDLE_MS	200	/* SQPOLL thread's idle time before it sleeps */

#define UB_GETS		4	/* GET_BATCH commands outstanding (M_UBATCH) */

/* The figures' runs, then the profile's (M_UBATCH on) */
enum mode {
	M_STANDIN, M_BATCH, M_URING, M_SQPOLL, M_UBATCH, M_PREFILLED,
	M_ADDONLY, M_NR
};

static const char *const mode_name[] = {
	"uring_standin_1p1c_keys_s", "uring_batch_1p1c_keys_s",
	"uring_1p1c_keys_s", "uring_sqpoll_1p1c_keys_s",
	"uring_get_batch_cmds_1p1c_ns", "uring_get_done_prefilled_ns",
	"uring_add_only_ns",
};

static long gets_inline, gets_all;	/* the last M_URING run's GETs */

struct run {
	enum mode mode;
	char name[WQ_NAME_MAX];	/* the queue (not M_STANDIN) */
	struct cq cq;		/* M_STANDIN */
	long total;
	struct io_uring pring;	/* the producer's ring (M_URING, M_SQPOLL) */
	struct io_uring cring;	/* the consumer's */
	pthread_barrier_t go;
	long long t_end;
};

static int qseq;

/* The rings of a run: the consumer's attached to the producer's SQPOLL thread. */
static int rings_init(struct run *r)
{
	struct io_uring_params p;
	unsigned int flags = IORING_SETUP_SQE128;
	int ret;

	if (r->mode == M_SQPOLL)
		flags |= IORING_SETUP_SQPOLL;
	memset(&p, 0, sizeof(p));
	p.flags = flags;
	p.sq_thread_idle = SQ_IDLE_MS;
	ret = io_uring_queue_init_params(BATCH, &r->pring, &p);
	if (ret)
		return ret;
	memset(&p, 0, sizeof(p));
	p.flags = flags;
	p.sq_thread_idle = SQ_IDLE_MS;
	if (r->mode == M_SQPOLL) {
		p.flags |= IORING_SETUP_ATTACH_WQ;
		p.wq_fd = (__u32)r->pring.ring_fd;
	}
	ret = io_uring_queue_init_params(GETS + DONE_BUFS, &r->cring, &p);
	if (ret)
		io_uring_queue_exit(&r->pring);
	return ret;
}

/*
 * An SQE of ring. Full only under SQPOLL, before the kernel's thread took
 * the last submission's: then submitted, and waited for.
 */
static struct io_uring_sqe *sqe_of(struct io_uring *ring)
{
	struct io_uring_sqe *sqe;
	int ret;

	while (!(sqe = io_uring_get_sqe(ring))) {
		ret = io_uring_submit(ring);
		if (ret >= 0 && (ring->flags & IORING_SETUP_SQPOLL))
			ret = io_uring_sqring_wait(ring);
		if (ret < 0 && ret != -EINTR)
			die("io_uring_submit", ret);
	}
	return sqe;
}

/* io_uring_submit_and_wait(), through a stray signal. */
static void submit_wait(struct io_uring *ring, unsigned int nr)
{
	int ret;

	while ((ret = io_uring_submit_and_wait(ring, nr)) == -EINTR)
		;
	if (ret < 0)
		die("io_uring_submit_and_wait", ret);
}

/* Adds keys [0, total) through the ring, 64 ADD commands a submission. */
static void produce_uring(struct run *r, int fd)
{
	char keys[BATCH][KEY_LEN];
	struct io_uring_cqe *cqe;
	unsigned int head, seen;
	long i;
	int n, j;

	for (i = 0; i < r->total; i += n) {
		n = r->total - i < BATCH ? (int)(r->total - i) : BATCH;
		for (j = 0; j < n; j++) {
			key_of(keys[j], 'u', (unsigned long)(i + j));
			wq_prep_add(sqe_of(&r->pring), fd, keys[j], KEY_LEN, NULL);
		}
		/* the keys stay valid until their completions: all n of them */
		for (seen = 0; seen < (unsigned int)n;) {
			submit_wait(&r->pring, (unsigned int)n - seen);
			j = 0;
			io_uring_for_each_cqe(&r->pring, head, cqe) {
				if (cqe->res != WQ_ADDED_QUEUED)	/* distinct keys */
					die("io_uring ADD", cqe->res < 0 ? cqe->res : -EIO);
				j++;
			}
			io_uring_cq_advance(&r->pring, (unsigned int)j);
			seen += (unsigned int)j;
		}
	}
}

static void produce_batch(struct run *r, int fd)
{
	char keys[BATCH][KEY_LEN];
	struct iovec iov[BATCH];
	int errs[BATCH], n, j, ret;
	long i;

	for (i = 0; i < r->total; i += n) {
		n = r->total - i < BATCH ? (int)(r->total - i) : BATCH;
		for (j = 0; j < n; j++) {
			key_of(keys[j], 'b', (unsigned long)(i + j));
			iov[j].iov_base = keys[j];
			iov[j].iov_len = KEY_LEN;
		}
		ret = wq_add_batch(fd, iov, (unsigned int)n, errs);
		if (ret != n)	/* max_items is far above total */
			die("wq_add_batch", ret < 0 ? ret : -EIO);
	}
}

/* A thread's handle of the run's queue (-1 for the stand-in), at the start. */
static int thread_start(struct run *r)
{
	int fd = -1;

	if (r->mode != M_STANDIN) {
		fd = wq_open(r->name);
		if (fd < 0)
			die("wq_open", fd);
	}
	pthread_barrier_wait(&r->go);
	return fd;
}

static void *producer(void *arg)
{
	struct run *r = arg;
	int fd = thread_start(r);
	char key[KEY_LEN];
	long i;

	if (r->mode == M_STANDIN) {
		for (i = 0; i < r->total; i++) {
			key_of(key, 's', (unsigned long)i);
			cq_add(&r->cq, key);
		}
	} else if (r->mode == M_BATCH) {
		produce_batch(r, fd);
	} else if (r->mode != M_PREFILLED) {
		produce_uring(r, fd);
	}
	if (r->mode == M_ADDONLY)
		r->t_end = now_ns();
	if (fd >= 0)
		wq_close(fd);
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
	long iter;		/* io_uring_enter() calls */
	long sub[GETS];		/* the call that submits GET j */
};

static void get_slot(struct run *r, struct cons *c, int fd, int j)
{
	struct io_uring_sqe *sqe = sqe_of(&r->cring);

	wq_prep_get(sqe, fd, c->buf[j], sizeof(c->buf[j]));
	io_uring_sqe_set_data64(sqe, (uint64_t)j);
	c->gets++;
	c->sub[j] = c->iter + 1;
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
	gets_all++;
	gets_inline += c->sub[j] == c->iter;
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
	gets_all = gets_inline = 0;
	for (j = 0; j < GETS; j++)
		get_slot(r, c, fd, j);
	while (c->gets || c->dones) {
		c->iter++;
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

/* A GET_BATCH into buffer j of the consumer's (M_UBATCH), or its DONE_BATCH. */
static void ubatch_prep(struct run *r, int fd, int j, int done, int n)
{
	static char buf[UB_GETS][BATCH * (KEY_LEN + 8)];
	static struct iovec iov[UB_GETS][BATCH];
	struct io_uring_sqe *sqe = sqe_of(&r->cring);

	if (done)
		wq_prep_done_batch(sqe, fd, iov[j], (unsigned int)n, NULL);
	else
		wq_prep_get_batch(sqe, fd, buf[j], sizeof(buf[j]), iov[j], BATCH);
	io_uring_sqe_set_data64(sqe, (done ? DONE_TAG : 0) | (uint64_t)j);
}

/*
 * The consumer's gets as GET_BATCH commands, UB_GETS of up to BATCH keys
 * outstanding; the keys of each done by one DONE_BATCH, then it goes again.
 */
static void consume_ubatch(struct run *r, int fd)
{
	struct io_uring_cqe *cqe;
	long consumed = 0;
	int out, j, n;
	bool over = false;

	for (out = 0; out < UB_GETS; out++)
		ubatch_prep(r, fd, out, 0, 0);
	while (out) {
		submit_wait(&r->cring, 1);
		while (io_uring_peek_cqe(&r->cring, &cqe) == 0) {
			uint64_t ud = io_uring_cqe_get_data64(cqe);

			j = (int)(ud & 0xffff);
			n = cqe->res;
			io_uring_cqe_seen(&r->cring, cqe);
			out--;
			if ((ud & DONE_TAG) && n <= 0)
				die("io_uring DONE_BATCH", n < 0 ? n : -EIO);
			if (n == -ESHUTDOWN && over)
				continue;
			if (!(ud & DONE_TAG) && n <= 0)
				die("io_uring GET_BATCH", n < 0 ? n : -EIO);
			if ((ud & DONE_TAG) && over)
				continue;
			/* the keys got are done; the done one's buffer gets */
			ubatch_prep(r, fd, j, !(ud & DONE_TAG), n);
			out++;
			if (ud & DONE_TAG)
				continue;
			consumed += n;
			if (consumed == r->total) {
				r->t_end = now_ns();
				over = true;
				wq_shutdown(fd);
			}
		}
	}
}

static void consume_batch(struct run *r, int fd)
{
	char buf[BATCH * KEY_LEN + 64];
	struct iovec iov[BATCH];
	long consumed = 0;
	ssize_t got;
	int ret;

	while (consumed < r->total) {
		got = wq_get_batch(fd, buf, sizeof(buf), iov, BATCH, -1);
		if (got < 0)
			die("wq_get_batch", got);
		ret = wq_done_batch(fd, iov, (unsigned int)got, NULL);
		if (ret != got)
			die("wq_done_batch", ret < 0 ? ret : -EIO);
		consumed += got;
	}
	r->t_end = now_ns();
}

static void *consumer(void *arg)
{
	struct run *r = arg;
	int fd = thread_start(r);
	char key[KEY_LEN];
	long i;

	if (r->mode == M_STANDIN) {
		for (i = 0; i < r->total; i++) {
			if (!cq_get(&r->cq, key))
				die("stand-in get", -EIO);
			cq_done(&r->cq, key);
		}
		r->t_end = now_ns();
		cq_shutdown(&r->cq);
	} else if (r->mode == M_BATCH) {
		consume_batch(r, fd);
	} else if (r->mode == M_UBATCH) {
		consume_ubatch(r, fd);
	} else if (r->mode != M_ADDONLY) {
		consume_uring(r, fd);
	}
	if (fd >= 0)
		wq_close(fd);
	return NULL;
}

/* ---- the runs --------------------------------------------------------- */

/* Keys per second of one run of mode, or -1 if its rings cannot be made. */
static double run_one(enum mode mode, long total)
{
	struct run *r = calloc(1, sizeof(*r));
	struct wq_attr attr = { .limiter = "none", .max_items = 1 << 20 };
	pthread_t p, c;
	long long t0;
	double rate;
	int fd = -1, ret;

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
		produce_batch(r, fd);
	if (mode >= M_URING) {
		ret = rings_init(r);
		if (ret) {
			fprintf(stderr, "# uring_bench: %s: io_uring_queue_init: %s: not measured\n",
				mode_name[mode], strerror(-ret));
			wq_close(fd);
			wq_destroy(r->name);
			free(r);
			return -1;
		}
	}
	pthread_barrier_init(&r->go, NULL, 3);
	if (pin(0) || pthread_create(&p, NULL, producer, r) || pin(1) ||
	    pthread_create(&c, NULL, consumer, r) || pin(-1))
		die("pthread_create", EAGAIN);
	/* before the threads go: a tiny run may end before this thread runs */
	t0 = now_ns();
	pthread_barrier_wait(&r->go);
	pthread_join(p, NULL);
	pthread_join(c, NULL);
	pthread_barrier_destroy(&r->go);
	rate = (double)total * 1e9 / (double)(r->t_end - t0);
	if (mode >= M_URING) {
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
	return rate;
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

int main(int argc, char **argv)
{
	char why[160];
	long total;
	const char *only = NULL;
	double v;
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
			if (only && strcmp(only, mode_name[m]))
				continue;
			v = run_one(m, total);
			if (v < 0 || i < 0)
				continue;
			if (m <= M_SQPOLL)
				printf("R %s %.0f\n", mode_name[m], v);
			else
				printf("P %s %.0f\n", mode_name[m], 1e9 / v);
			if (m == M_URING && gets_all)
				printf("P uring_get_inline_pct %.1f\n",
				       100.0 * (double)gets_inline / (double)gets_all);
		}
	}
	return 0;
}
