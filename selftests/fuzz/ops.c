// SPDX-License-Identifier: GPL-2.0
/*
 * wq_fuzz: the operations other than an ioctl: reopen and bind a slot,
 * dup, close, poll, a stray alarm, a fork, a child killed holding keys.
 */
#include "fuzz.h"

int open_wq(void)
{
	static const int modes[] = { O_RDWR, O_RDWR, O_RDONLY, O_WRONLY };

	return open("/dev/wq", modes[rn(4)] | (chance(20) ? O_NONBLOCK : 0) |
		    O_CLOEXEC);
}

/*
 * The pool queue fuzz.<n> as every live create makes it: fuzz.0 and
 * fuzz.1 plain, fuzz.2 by priority, fuzz.3 by priority with starvation
 * bounded at 1 ms. (A hostile create may make a name otherwise.)
 */
void pool_create_args(struct wq_create *c, uint32_t n)
{
	snprintf(c->name, sizeof(c->name), "fuzz.%u", n);
	if (n % NQUEUES >= 2)
		c->flags |= WQ_CREATE_PRIORITY;
	if (n % NQUEUES == 3)
		c->starve_ns = 1000000;
}

/* slot_prio[i] of a slot just opened: what its queue says. */
static void learn_prio(int i, int fd)
{
	struct wq_queue_info info;

	slot_prio[i] = ioctl(fd, WQ_IOC_STAT, &info) == 0 &&
		       (info.state & WQ_STATE_PRIORITY);
}

/* A create of fuzz.<n> (name NULL: a random one) or a private queue. */
static void create_args(struct wq_create *c, const char *name)
{
	uint32_t n = rn(NQUEUES);

	memset(c, 0, sizeof(*c));
	if (!name && chance(15)) {	/* this slot's own queue */
		c->flags = WQ_CREATE_PRIVATE;
		if (chance(50))
			c->flags |= WQ_CREATE_PRIORITY;
		if (chance(50) && (c->flags & WQ_CREATE_PRIORITY))
			c->starve_ns = 100000 + rn(2000000);
	} else {
		if (name && sscanf(name, "fuzz.%u", &n) != 1)
			n = 0;
		pool_create_args(c, n);
		if (name)
			snprintf(c->name, sizeof(c->name), "%s", name);
	}
	c->max_items = 8 + rn(32);
	c->mode = 0666;
}

/*
 * A valid create (where the file allows it: always if create, else half
 * the time) or open of a pool queue (name, or a random one) on slot i,
 * with the access the slot's file was opened with, so work gets done;
 * slot_access[i] says what it got, slot_prio[i] whether by priority.
 */
void bind_slot(int i, const char *name, int create)
{
	int fd = fds[i], mode = fcntl(fd, F_GETFL), err;	/* the other thread may change fds[i] */
	struct wq_name nm = { 0 };
	struct wq_create c;

	slot_access[i] = 0;
	slot_prio[i] = 0;
	create_args(&c, name);
	if (mode < 0)
		return;
	mode &= O_ACCMODE;
	if (mode == O_RDWR && (create || chance(50))) {
		if (do_ioctl(fd, WQ_IOC_CREATE, (uintptr_t)&c, 0, &err) == 0) {
			slot_access[i] = ACC_READ | ACC_WRITE;
			slot_prio[i] = !!(c.flags & WQ_CREATE_PRIORITY);
			return;
		}
		if (!errno_ok(fd, WQ_IOC_CREATE, err))
			fail("CREATE %s: %s", c.flags ? "(private)" : c.name,
			     ename(err));
	}
	if (c.flags & WQ_CREATE_PRIVATE)	/* it failed: open a name */
		snprintf(c.name, sizeof(c.name), "fuzz.%u", rn(NQUEUES));
	memcpy(nm.name, c.name, sizeof(nm.name));
	nm.flags = mode == O_RDONLY ? WQ_OPEN_READ_ONLY :
		   mode == O_WRONLY ? WQ_OPEN_WRITE_ONLY : 0;
	if (do_ioctl(fd, WQ_IOC_OPEN, (uintptr_t)&nm, 0, &err) == 0) {
		slot_access[i] = mode == O_RDONLY ? ACC_READ :
				 mode == O_WRONLY ? ACC_WRITE : ACC_READ | ACC_WRITE;
		learn_prio(i, fd);
	} else if (!errno_ok(fd, WQ_IOC_OPEN, err))
		fail("OPEN %s: %s", nm.name, ename(err));
}

/*
 * A child opens its own handle on a pool queue, adds keys and takes up to
 * 8 (each now processing on that handle), then waits to be SIGKILLed: the
 * handle's release must put them back.
 */
static void hold_and_die(void)
{
	pid_t pid, parent = getpid();
	int st;

	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		char keys[8][4], buf[64];
		struct wq_iov iov[8];
		struct wq_batch b;
		struct wq_name nm;
		int fd, k;

		/* a parent killed before its kill() must not leave us paused */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent)
			_exit(0);
		fd = open("/dev/wq", O_RDWR | O_CLOEXEC);
		memset(&nm, 0, sizeof(nm));
		snprintf(nm.name, sizeof(nm.name), "fuzz.%u", rn(NQUEUES));
		if (fd < 0 || ioctl(fd, WQ_IOC_OPEN, &nm) < 0)
			_exit(0);
		for (k = 0; k < 8; k++) {
			snprintf(keys[k], sizeof(keys[k]), "h%u", rn(10));
			iov[k].base = (uintptr_t)keys[k];
			iov[k].len = 2;
		}
		memset(&b, 0, sizeof(b));
		b.count = 8;
		b.keys = (uintptr_t)iov;
		ioctl(fd, WQ_IOC_ADD_BATCH, &b);
		memset(&b, 0, sizeof(b));
		b.count = 8;
		b.keys = (uintptr_t)iov;
		b.buf = (uintptr_t)buf;
		b.buf_cap = sizeof(buf);
		ioctl(fd, WQ_IOC_GET_BATCH, &b);	/* deadline 0: no wait */
		for (;;)
			pause();
	}
	if (pid < 0)
		return;
	usleep(rn(3000));
	kill(pid, SIGKILL);
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
}

/* Reopen a slot (and bind it), dup one over it, or close it. */
static void slot_op(int op, int i)
{
	int j;

	switch (op) {
	case 0: case 1:		/* reopen a slot, bind it */
		if (fds[i] >= 0)
			close(fds[i]);
		slot_access[i] = 0;
		fds[i] = open_wq();
		if (chance(80))
			bind_slot(i, NULL, 0);
		break;
	case 2:			/* dup */
		j = rn(NFDS);
		if (i == j)
			break;
		if (fds[i] >= 0)
			close(fds[i]);
		fds[i] = fds[j] >= 0 ? fcntl(fds[j], F_DUPFD_CLOEXEC, 3) : -1;
		slot_access[i] = fds[i] >= 0 ? slot_access[j] : 0;
		slot_prio[i] = slot_prio[j];
		break;
	default:		/* close */
		if (chance(30) && fds[i] >= 0) {
			close(fds[i]);
			fds[i] = -1;
			slot_access[i] = 0;
		}
		break;
	}
}

/* A child runs a few ops, and is maybe killed mid-way. */
static void fork_ops(void)
{
	pid_t pid;
	int j, r;

	if (!chance(20))
		return;
	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		timer_setup();
		own_forget();	/* the parent's thread models them */
		uring_forget();	/* and owns the rings */
		rng ^= 0x9e3779b97f4a7c15ULL;
		nfail = 0;
		run_ops(10 + rn(40));
		_exit(nfail ? 1 : 0);
	}
	if (pid < 0)
		return;
	if (chance(50)) {
		usleep(rn(2000));
		kill(pid, SIGKILL);
	}
	while ((j = (int)waitpid(pid, &r, 0)) < 0 && errno == EINTR)
		;	/* a stray SIGALRM */
	if (j == pid && WIFEXITED(r) && WEXITSTATUS(r))
		fail("forked child failed");
}

/* poll() of three slots, for any events */
static void poll_op(void)
{
	struct pollfd p[3];
	int j, r;

	for (j = 0; j < 3; j++) {
		p[j].fd = fds[rn(NFDS)];
		p[j].events = (short)(chance(80) ?
			POLLIN | POLLOUT | POLLHUP : rnd());
		p[j].revents = 0;
	}
	r = poll(p, 3, (int)rn(3));
	if (r < 0 && errno != EINTR)
		fail("poll: errno %d", errno);
}

/*
 * One operation: mostly an ioctl, live (seven in ten) or hostile; one in
 * seven of those an io_uring operation instead (uring.c).
 */
static void one_op(void)
{
	int i = rn(NFDS), op = (int)rn(100);

	stage = op < 8 ? op : 100;
	if (verbose && op < 8)
		fprintf(stderr, "[%d:%llu] op %d slot %d\n", widx,
			(unsigned long long)seq, op, i);
	switch (op) {
	case 0: case 1: case 2: case 3:
		slot_op(op, i);
		break;
	case 4: case 5:
		poll_op();
		break;
	case 6:			/* a stray SIGALRM */
		timer_set(1 + rn(3000), 0);
		break;
	case 7:			/* fork: a child runs a few ops, maybe killed */
		fork_ops();
		break;
	case 8:			/* a child holding keys on its own handle, killed */
		if (!chance(70))
			hold_and_die();
		break;
	default:
		if (uring_on && chance(14))
			one_uring();
		else if (chance(70))
			one_live();
		else
			one_ioctl();
		break;
	}
}

void run_ops(uint64_t n)
{
	uint64_t k;

	for (k = 0; k < n; k++) {
		seq++;
		one_op();
		__atomic_add_fetch(&sh->progress[widx], 1, __ATOMIC_RELAXED);
		__atomic_add_fetch(&sh->calls, 1, __ATOMIC_RELAXED);
	}
}
