// SPDX-License-Identifier: GPL-2.0
/*
 * wq_fuzz: io_uring commands (IORING_OP_URING_CMD) on /dev/wq handles,
 * one operation in seven. Each thread has a ring made with SQE128 (its fd
 * moved to URING_FD + 2 * tidx, out of the way of the slots' numbers) and
 * up to USLOTS commands in flight on it; an operation reaps what has
 * completed, then submits one to four commands (live ones: well formed,
 * pool keys, dones of held keys; hostile ones: the ioctl fuzzer's structs
 * with boundary sizes, tails, random cmd_ops, mangled SQE fields, on any
 * fd: handles bound or not, /dev/null, the rings, none), or waits a
 * little for completions, or cancels an outstanding command (by its
 * user_data, or all of them, through io_uring, which finds none of wq's
 * parked ones; or by its buffer, or all, through WQ_IOC_URING_CANCEL),
 * or tears the ring down with its commands outstanding (at most every
 * 10 s: the slots in flight then move to their second arena, as the
 * kernel may still write into the first), or sends
 * a command through a ring without SQE128 (never taken: -EINVAL, or the
 * fd's error). Every completion is counted in the per-command table
 * (struct shared's useen and ulive; printed after the ioctls') and
 * checked against uapi/linux/wq.h (uring_cmds.c).
 */
#include "uring.h"

#define UENTRIES	16
#define CANCEL_TAG	(1ULL << 62)
#define TEARDOWN_GAP_NS	(10ULL * 1000000000ULL)

int uring_on;		/* main(): the module takes io_uring commands here */

static const char *const urow_name[UR_ROWS] = {
	"ADD", "GET", "DONE", "ADD_BATCH", "GET_BATCH", "DONE_BATCH",
	"(no io_uring command)", "ASYNC_CANCEL", "(ring without SQE128)",
};

struct uthread {
	struct io_uring ring, plain;
	int ready, plain_ready;
	uint64_t last_teardown;
	int cancels;		/* cancels in flight */
	int idle_fd;		/* a private queue nothing adds to, or -1 */
	unsigned char *plain_mem;	/* plain_one()'s arena */
	struct uslot slot[USLOTS];
};

static __thread struct uthread *ut;
static __thread unsigned char *saved_arena, *saved_end;

unsigned char *uslot_mem(const struct uslot *u)
{
	return u->mem[u->cur];
}

/* values.c's places and hostile.c's builds in u's arena, until leave */
void uarena_enter(const struct uslot *u)
{
	saved_arena = arena;
	saved_end = arena_end;
	arena = uslot_mem(u);
	arena_end = arena + UPAGES * PAGE;
}

void uarena_leave(void)
{
	arena = saved_arena;
	arena_end = saved_end;
}

static unsigned char *map_arena(void)
{
	unsigned char *m = mmap(NULL, (UPAGES + 1) * PAGE,
				PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (m == MAP_FAILED) {
		perror("wq_fuzz: mmap");
		exit(2);
	}
	mprotect(m + UPAGES * PAGE, PAGE, PROT_NONE);
	return m;
}

static void count(int what)
{
	__atomic_add_fetch(&sh->uring[what], 1, __ATOMIC_RELAXED);
}

/*
 * The numbers below LOW_FDS free now held by /dev/wq files (unbound), or
 * released (!hold). A new file takes the lowest free number, which
 * the other thread may still use for a slot it closed: there it must find
 * /dev/wq (an unbound handle: -EBADF), not a ring or another queue.
 */
#define LOW_FDS		32

static void low_fds(int hold)
{
	static __thread int held[LOW_FDS], n;
	int fd;

	if (hold) {
		while (n < LOW_FDS && (fd = open("/dev/wq", O_RDWR | O_CLOEXEC)) >= 0) {
			if (fd >= LOW_FDS) {
				close(fd);
				break;
			}
			held[n++] = fd;
		}
		return;
	}
	while (n)
		close(held[--n]);
}

/* A ring with its fd moved to URING_FD + 2 * tidx + which: 0, or -errno. */
static int ring_init(struct io_uring *ring, unsigned int flags, int which)
{
	int fd, ret;

	low_fds(1);
	ret = io_uring_queue_init(UENTRIES, ring, flags);
	fd = ret ? -1 : dup3(ring->ring_fd, URING_FD + 2 * tidx + which,
			     O_CLOEXEC);
	if (!ret && fd < 0) {
		ret = -errno;
		io_uring_queue_exit(ring);
	} else if (!ret) {
		close(ring->ring_fd);
		ring->ring_fd = ring->enter_ring_fd = fd;
	}
	low_fds(0);
	return ret;
}

/* A private queue (fd IDLE_FD + tidx) for gets that only wait, or -1. */
static int idle_queue(void)
{
	struct wq_create c = { .flags = WQ_CREATE_PRIVATE };
	int fd, hi = -1;

	low_fds(1);
	fd = open("/dev/wq", O_RDWR | O_CLOEXEC);
	if (fd >= 0 && ioctl(fd, WQ_IOC_CREATE, &c) == 0)
		hi = dup3(fd, IDLE_FD + tidx, O_CLOEXEC);
	if (fd >= 0)
		close(fd);
	low_fds(0);
	return hi;
}

/* The thread's slots and ring (made again after a teardown): 1 if there. */
static int uthread_ready(void)
{
	int i, ret;

	if (!ut) {
		ut = calloc(1, sizeof(*ut));
		if (!ut) {
			perror("wq_fuzz: calloc");
			exit(2);
		}
		for (i = 0; i < USLOTS; i++) {
			ut->slot[i].mem[0] = map_arena();
			ut->slot[i].mem[1] = map_arena();
		}
		ut->plain_mem = map_arena();
		ut->idle_fd = idle_queue();
	}
	if (ut->ready)
		return 1;
	ret = ring_init(&ut->ring, IORING_SETUP_SQE128 | IORING_SETUP_SUBMIT_ALL, 0);
	if (ret == -ENOMEM || ret == -EMFILE || ret == -ENFILE || ret == -EAGAIN) {
		count(U_NORING);
		return 0;
	}
	if (ret) {
		fail("io_uring_queue_init: %s", ename(-ret));
		uring_on = 0;
		return 0;
	}
	count(U_RINGS);
	ut->ready = 1;
	ut->cancels = 0;
	return 1;
}

/* A fork's child: the parent's rings are not its own (nor their slots). */
void uring_forget(void)
{
	int i;

	if (!ut)
		return;
	if (ut->ready)
		io_uring_queue_exit(&ut->ring);
	if (ut->plain_ready)
		io_uring_queue_exit(&ut->plain);
	ut->ready = ut->plain_ready = 0;
	for (i = 0; i < USLOTS; i++)
		ut->slot[i].busy = 0;
}

/* A fd for a hostile command, and what it is. */
int uring_fd_of(int *fk)
{
	uint32_t r = rn(100);

	*fk = FK_BAD;
	if (r < 6)
		return -1;
	if (r < 12)
		return FD_NOT_OPEN;
	*fk = FK_NULL;
	if (r < 18)
		return FD_NULL;
	*fk = FK_OTHER;
	if (r < 22)
		return ut->ring.ring_fd;
	if (r < 25)
		return ut->plain_ready ? ut->plain.ring_fd : ut->ring.ring_fd;
	return -2;	/* a slot's: the caller picks */
}

static void complete(const struct io_uring_cqe *cqe)
{
	uint64_t ud = io_uring_cqe_get_data64(cqe);
	struct uslot *u;

	if (ud & CANCEL_TAG) {
		ut->cancels--;
		seen_uring(UR_CANCEL, cqe->res < 0 ? -cqe->res : 0, 1);
		if (ud & 2) {	/* WQ_IOC_URING_CANCEL: how many it ended */
			if (cqe->res > 0)
				count(U_CANCEL_HIT);
			else if (cqe->res < 0 && cqe->res != -EBADF &&
				 cqe->res != -EOPNOTSUPP) /* the fd closed, reused */
				fail("io_uring URING_CANCEL: %d", cqe->res);
		} else if (cqe->res == 0 || (cqe->res > 0 && (ud & 1))) {
			count(U_CANCEL_HIT);
		} else if (cqe->res != -ENOENT && cqe->res != -EALREADY) {
			fail("io_uring ASYNC_CANCEL: %d", cqe->res);
		}
		return;
	}
	u = (ud & 0xff) < USLOTS ? &ut->slot[ud & 0xff] : NULL;
	if (!u || !u->busy || u->gen != (uint32_t)(ud >> 8)) {
		fail("io_uring completion %#llx (res %d) of no command in flight",
		     (unsigned long long)ud, cqe->res);
		return;
	}
	if (verbose)
		fprintf(stderr, "[%d:%llu] uring slot %llu %s = %d\n", widx,
			(unsigned long long)seq, (unsigned long long)(ud & 0xff),
			urow_name[u->row], cqe->res);
	if (cqe->res == -ECANCELED)
		count(U_ECANCELED);
	ucmd_done(u, cqe->res);
	u->busy = 0;
}

/* Every completion there is. */
static void reap(void)
{
	struct io_uring_cqe *cqe;

	while (ut->ready && io_uring_peek_cqe(&ut->ring, &cqe) == 0) {
		complete(cqe);
		io_uring_cqe_seen(&ut->ring, cqe);
	}
}

static void submit(void)
{
	int ret = io_uring_submit(&ut->ring);

	/* -EAGAIN, -EBUSY: the SQEs stay queued, for the next submit */
	if (ret < 0 && ret != -EAGAIN && ret != -EBUSY && ret != -EINTR)
		fail("io_uring_submit: %s", ename(-ret));
}

static struct uslot *free_slot(void)
{
	int i, k = (int)rn(USLOTS);

	for (i = 0; i < USLOTS; i++) {
		struct uslot *u = &ut->slot[(k + i) % USLOTS];

		if (!u->busy)
			return u;
	}
	count(U_NOSLOT);
	return NULL;
}

/* One to four commands, live (seven in ten) or hostile, in one submission. */
static void submit_some(void)
{
	int n = 1 + (int)rn(4), i;

	for (i = 0; i < n; i++) {
		struct io_uring_sqe *sqe;
		struct uslot *u = free_slot();

		if (!u)
			break;
		sqe = io_uring_get_sqe(&ut->ring);
		if (!sqe)
			break;
		u->gen++;
		u->busy = 1;
		if (chance(70))
			ucmd_live(u, sqe);
		else
			ucmd_hostile(u, sqe);
		io_uring_sqe_set_data64(sqe, (uint64_t)u->gen << 8 |
					(uint64_t)(u - ut->slot));
		sh->last_cmd[widx] = u->cmd_op;
	}
	submit();
}

/* Waits up to a few milliseconds for a completion. */
static void wait_some(void)
{
	struct __kernel_timespec ts = { 0, 500000 + rn(2500000) };
	struct io_uring_cqe *cqe;

	io_uring_wait_cqe_timeout(&ut->ring, &cqe, &ts);	/* -ETIME, -EINTR */
}

/* A cancel of a command in flight (mostly a get), or of every one. */
static void cancel_one(void)
{
	struct io_uring_sqe *sqe;
	struct uslot *u = NULL;
	int i, k = (int)rn(USLOTS), all = chance(10);

	for (i = 0; i < USLOTS && !u; i++) {
		struct uslot *v = &ut->slot[(k + i) % USLOTS];

		if (v->busy && (v->row == UR_GET || v->row == UR_GET_BATCH ||
				chance(20)))
			u = v;
	}
	if ((!u && !all) || ut->cancels >= USLOTS)
		return;
	sqe = io_uring_get_sqe(&ut->ring);
	if (!sqe)
		return;
	if (u && u->fk == FK_WQ && chance(60)) {
		/* wq's own: by the get's buffer (its key's, an add's), or all */
		struct wq_uring_cancel c = { 0 };

		if (all)
			c.flags = WQ_URING_CANCEL_ALL;
		else
			c.addr = u->row == UR_GET ? u->s.get.buf :
				 u->row == UR_GET_BATCH ? u->s.batch.buf :
				 u->s.key.key;
		if (!c.addr)	/* -EINVAL: no command is parked at 0 */
			c.flags = WQ_URING_CANCEL_ALL;
		io_uring_prep_rw(IORING_OP_URING_CMD, sqe, u->fd, NULL, 0, 0);
		sqe->cmd_op = WQ_IOC_URING_CANCEL;
		memcpy(sqe->cmd, &c, sizeof(c));
		io_uring_sqe_set_data64(sqe, CANCEL_TAG | 2);
	} else if (all) {
		io_uring_prep_cancel64(sqe, 0, IORING_ASYNC_CANCEL_ALL |
					       IORING_ASYNC_CANCEL_ANY);
		io_uring_sqe_set_data64(sqe, CANCEL_TAG | 1);
	} else {
		io_uring_prep_cancel64(sqe, (uint64_t)u->gen << 8 |
				       (uint64_t)(u - ut->slot), 0);
		io_uring_sqe_set_data64(sqe, CANCEL_TAG);
	}
	ut->cancels++;
	count(U_CANCELS);
	submit();
}

/*
 * The ring torn down with its commands outstanding (io_uring cancels
 * them: -ECANCELED, unseen), a get waiting on the idle queue among them.
 * The kernel may still write into the arenas of those in flight for a
 * while: they rest, and their slots take their other arena, which has
 * rested since the last teardown, 10 s ago.
 */
static void teardown(void)
{
	struct io_uring_sqe *sqe;
	uint64_t now = now_ns();
	struct uslot *u;
	int i, n = 0;

	if (ut->last_teardown && now - ut->last_teardown < TEARDOWN_GAP_NS)
		return;
	ut->last_teardown = now;
	u = free_slot();
	sqe = u && ut->idle_fd >= 0 ? io_uring_get_sqe(&ut->ring) : NULL;
	if (sqe) {
		u->gen++;
		u->busy = 1;
		ucmd_idle_get(u, sqe, ut->idle_fd);
		io_uring_sqe_set_data64(sqe, (uint64_t)u->gen << 8 |
					(uint64_t)(u - ut->slot));
		submit();
	}
	io_uring_queue_exit(&ut->ring);
	ut->ready = 0;
	for (i = 0; i < USLOTS; i++) {
		struct uslot *u = &ut->slot[i];

		if (!u->busy)
			continue;
		n++;
		u->busy = 0;
		u->cur ^= 1;
	}
	count(U_TEARDOWNS);
	__atomic_add_fetch(&sh->uring[U_TORN], (uint64_t)n, __ATOMIC_RELAXED);
}

/*
 * A command through a ring without SQE128, whose command area (16 bytes)
 * no struct fits: it must fail at once (-EINVAL, or the fd's -EBADF,
 * -EOPNOTSUPP), never be taken.
 */
static void plain_one(void)
{
	struct __kernel_timespec ts = { 1, 0 };
	struct io_uring_cqe *cqe;
	struct io_uring_sqe *sqe;
	struct uslot u;
	uint64_t end;
	int ret;

	if (!ut->plain_ready) {
		if (ring_init(&ut->plain, 0, 1))
			return;
		ut->plain_ready = 1;
	}
	sqe = io_uring_get_sqe(&ut->plain);
	if (!sqe)
		return;
	memset(&u, 0, sizeof(u));
	u.mem[0] = ut->plain_mem;
	ucmd_plain(&u, sqe);
	io_uring_submit(&ut->plain);
	end = now_ns() + 5000000000ULL;
	do
		ret = io_uring_wait_cqe_timeout(&ut->plain, &cqe, &ts);
	while ((ret == -EINTR || ret == -ETIME) && now_ns() < end);
	if (ret) {
		fail("a command in a ring without SQE128: no completion in 5 s (%s)",
		     ename(-ret));
		io_uring_queue_exit(&ut->plain);	/* it is lost with the ring */
		ut->plain_ready = 0;
		return;
	}
	ucmd_done(&u, cqe->res);
	io_uring_cqe_seen(&ut->plain, cqe);
}

void one_uring(void)
{
	uint32_t op = rn(100);

	if (!uring_on || !uthread_ready())
		return;
	stage = 700 + (int)op;
	reap();
	if (op < 60)
		submit_some();
	else if (op < 75)
		wait_some();
	else if (op < 88)
		cancel_one();
	else if (op < 90)
		teardown();
	else
		plain_one();
	if (ut->ready)
		reap();
}

/* ---- the table ------------------------------------------------------ */

void seen_uring(unsigned int row, int e, int live)
{
	if (e < 0 || e >= ERRNO_MAX)
		e = ERRNO_MAX - 1;
	__atomic_add_fetch(&sh->useen[row][e], 1, __ATOMIC_RELAXED);
	if (live)
		__atomic_add_fetch(&sh->ulive[row][e], 1, __ATOMIC_RELAXED);
}

/* One line a row, as print_seen()'s; the counts of uring.c. */
void uring_print(void)
{
	unsigned int row;

	if (!uring_on && !sh->uring[U_RINGS]) {
		printf("wq_fuzz: io_uring: no commands sent (%s)\n", uring_why);
		return;
	}
	for (row = 0; row < UR_ROWS; row++) {
		char title[64];

		snprintf(title, sizeof(title), "io_uring %s", urow_name[row]);
		print_row(title, sh->useen, sh->ulive, row, row < UR_OTHER);
	}
	if (!uring_links)
		printf("wq_fuzz: io_uring: no links or drains: this kernel reads the SQE of a linked command when it issues it, not at its submission (uring_links_probe())\n");
	printf("wq_fuzz: io_uring: %llu rings (%llu not made for want of memory or fds), %llu torn down with %llu commands in flight, %llu cancels sent (%llu found their command), %llu commands completed -ECANCELED, %llu times no slot free\n",
	       (unsigned long long)sh->uring[U_RINGS],
	       (unsigned long long)sh->uring[U_NORING],
	       (unsigned long long)sh->uring[U_TEARDOWNS],
	       (unsigned long long)sh->uring[U_TORN],
	       (unsigned long long)sh->uring[U_CANCELS],
	       (unsigned long long)sh->uring[U_CANCEL_HIT],
	       (unsigned long long)sh->uring[U_ECANCELED],
	       (unsigned long long)sh->uring[U_NOSLOT]);
}

/*
 * As check_reached(), of the six commands: 1 if each that was sent 500
 * times or more reached the queue more than half the time.
 */
int uring_check_reached(void)
{
	uint64_t all, in;
	unsigned int row;
	int ok = 1;

	for (row = 0; row < UR_OTHER; row++) {
		reached(sh->useen, row, &all, &in);
		if (all >= 500 && in * 2 <= all) {
			printf("wq_fuzz: only %llu of %llu io_uring %s commands reached the queue\n",
			       (unsigned long long)in, (unsigned long long)all,
			       urow_name[row]);
			ok = 0;
		}
	}
	return ok;
}

/*
 * main(): whether the module takes io_uring commands (WQ_FEATURE_URING)
 * and this kernel makes SQE128 rings; why not in uring_why.
 */
const char *uring_why = "";

void uring_probe(const struct wq_module_info *mi)
{
	struct io_uring ring;
	int ret;

	if (!(mi->features & WQ_FEATURE_URING)) {
		uring_why = "the module has no WQ_FEATURE_URING";
		return;
	}
	ret = io_uring_queue_init(2, &ring, IORING_SETUP_SQE128 |
				  IORING_SETUP_SUBMIT_ALL);
	if (ret) {
		uring_why = "no SQE128 io_uring ring here (no io_uring, io_uring_disabled, or a kernel before 5.19)";
		return;
	}
	io_uring_queue_exit(&ring);
	uring_on = 1;
	uring_links = uring_links_probe() == 1;
}
