/* SPDX-License-Identifier: GPL-2.0 */
/*
 * uring_bench's batches (figure 13a): keys moved 64 a call, through ring
 * commands (ADD_BATCH, DONE_GET_BATCH) and through the ioctls they are
 * compared with (wq_add_batch(), wq_done_get_batch()); and the ring
 * plumbing the one-key runs share. Each side of a 1P+1C run is one call
 * of (ring, handle, keys); a consumer notes when it took the last key.
 */
#ifndef WQ_URING_BATCH_H
#define WQ_URING_BATCH_H

#ifndef RB_ADDS
#define RB_ADDS		4	/* ADD_BATCH commands a submission */
#endif
#ifndef RB_GETS
#define RB_GETS		4	/* DONE_GET_BATCH commands outstanding */
#endif
#define RB_BUF		(BATCH * (KEY_LEN + 8))

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

/* Waits for and reaps n completions of ring, each with res want. */
static void reap(struct io_uring *ring, unsigned int n, const char *what,
		 int want)
{
	struct io_uring_cqe *cqe;
	unsigned int head, seen, j;

	for (seen = 0; seen < n;) {
		submit_wait(ring, n - seen);
		j = 0;
		io_uring_for_each_cqe(ring, head, cqe) {
			if (cqe->res != want)
				die(what, cqe->res < 0 ? cqe->res : -EIO);
			j++;
		}
		io_uring_cq_advance(ring, j);
		seen += j;
	}
}

/* The same keys, RB_ADDS ADD_BATCH commands of 64 a submission. */
static void produce_rbatch(struct io_uring *ring, int fd, long total)
{
	static char keys[RB_ADDS][BATCH][KEY_LEN];
	static struct iovec iov[RB_ADDS][BATCH];
	struct io_uring_cqe *cqe;
	struct io_uring_sqe *sqe;
	unsigned int head, seen, cmds, k;
	long i = 0;
	int n[RB_ADDS], j;

	while (i < total) {
		for (cmds = 0; cmds < RB_ADDS && i < total; cmds++) {
			n[cmds] = total - i < BATCH ? (int)(total - i) : BATCH;
			for (j = 0; j < n[cmds]; j++, i++) {
				key_of(keys[cmds][j], 'r', (unsigned long)i);
				iov[cmds][j].iov_base = keys[cmds][j];
				iov[cmds][j].iov_len = KEY_LEN;
			}
			sqe = sqe_of(ring);
			wq_prep_add_batch(sqe, fd, iov[cmds], (unsigned int)n[cmds],
					  NULL, NULL);
			io_uring_sqe_set_data64(sqe, cmds);
		}
		for (seen = 0; seen < cmds;) {
			submit_wait(ring, cmds - seen);
			k = 0;
			io_uring_for_each_cqe(ring, head, cqe) {
				if (cqe->res != n[io_uring_cqe_get_data64(cqe)])
					die("io_uring ADD_BATCH",
					    cqe->res < 0 ? cqe->res : -EIO);
				k++;
			}
			io_uring_cq_advance(ring, k);
			seen += k;
		}
	}
}

static void produce_batch(int fd, long total)
{
	char keys[BATCH][KEY_LEN];
	struct iovec iov[BATCH];
	int errs[BATCH], n, j, ret;
	long i;

	for (i = 0; i < total; i += n) {
		n = total - i < BATCH ? (int)(total - i) : BATCH;
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

/*
 * RB_GETS slots, each with a DONE_GET_BATCH outstanding: it ends the keys
 * the slot's previous command got (in one of the slot's two buffers) and
 * gets up to 64 into the other.
 */
struct rslot {
	char buf[2][RB_BUF];
	struct iovec iov[2][BATCH];
	int cur;		/* the buffer the outstanding command gets into */
	unsigned int held;	/* keys in the other one, ended by it */
};

static void rslot_prep(struct io_uring *ring, int fd, struct rslot *s, int j)
{
	struct io_uring_sqe *sqe = sqe_of(ring);
	int o = s->cur;

	s->cur = !o;
	wq_prep_done_get_batch(sqe, fd, s->held ? s->iov[o] : NULL, s->held,
			       s->buf[s->cur], RB_BUF, s->iov[s->cur], BATCH);
	io_uring_sqe_set_data64(sqe, (uint64_t)j);
}

static void consume_rbatch(struct io_uring *ring, int fd, long total,
			   long long *t_end)
{
	static struct rslot slot[RB_GETS];
	struct io_uring_cqe *cqe;
	long consumed = 0;
	int out, j, n;
	bool over = false;

	memset(slot, 0, sizeof(slot));
	for (out = 0; out < RB_GETS; out++)
		rslot_prep(ring, fd, &slot[out], out);
	while (out) {
		submit_wait(ring, 1);
		while (io_uring_peek_cqe(ring, &cqe) == 0) {
			j = (int)io_uring_cqe_get_data64(cqe);
			n = cqe->res;
			io_uring_cqe_seen(ring, cqe);
			out--;
			if (n == -ESHUTDOWN && over)
				continue;
			if (n <= 0)
				die("io_uring DONE_GET_BATCH", n < 0 ? n : -EIO);
			slot[j].held = (unsigned int)n;
			consumed += n;
			if (consumed == total) {
				*t_end = now_ns();
				over = true;
				wq_shutdown(fd);
			}
			if (!over) {
				rslot_prep(ring, fd, &slot[j], j);
				out++;
			}
		}
	}
	if (consumed != total)
		die("io_uring DONE_GET_BATCH consumer", -EIO);
}

static void consume_batch(int fd, long total, long long *t_end)
{
	char buf[2][BATCH * KEY_LEN + 64];
	struct iovec iov[2][BATCH];
	long consumed = 0;
	unsigned int held = 0;
	ssize_t got;
	int cur = 0;

	while (consumed < total) {
		got = wq_done_get_batch(fd, iov[!cur], held, buf[cur],
					sizeof(buf[cur]), iov[cur], BATCH, -1);
		if (got <= 0)
			die("wq_done_get_batch", got < 0 ? got : -EIO);
		held = (unsigned int)got;
		cur = !cur;
		consumed += got;
	}
	*t_end = now_ns();
}

#endif /* WQ_URING_BATCH_H */
