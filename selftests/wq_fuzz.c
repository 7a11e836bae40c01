// SPDX-License-Identifier: GPL-2.0
/*
 * wq_fuzz: a seeded ioctl fuzzer for /dev/wq (issue 11, first piece).
 *
 *	wq_fuzz [-s SEED] [-n CALLS] [-p PROCS] [-t THREADS] [-v]
 *
 * PROCS processes (default 4) share four named queues (fuzz.0..3, bound
 * on fds opened before the fork) and their own fds; each runs THREADS
 * threads (default 2) on the same fds (a close races the other thread's
 * calls on that fd), and together they issue CALLS operations (default
 * 100000): every WQ_IOC_* command (and random
 * numbers in the same magic), with boundary _IOC_SIZEs (0, min-1, min,
 * full, full+8 with a zero and a non-zero tail, huge), random flag bits
 * and reserved fields, key lengths 0/1/4096/4097/huge, bad pointers (NULL,
 * unmapped, kernel-looking, a PROT_NONE page, buffers ending at a guard
 * page or straddling it), random deadlines (0, past, now+small, NONE,
 * beyond KTIME_MAX), poll, close/dup/reopen, forks killed mid-way, SIGALRM
 * interrupting blocking calls, a child holding keys on its own handle
 * SIGKILLed. Every blocking call runs under a periodic per-thread timer
 * (SIGALRM to that thread), so none outlives a few milliseconds; a watchdog in the
 * parent fails the run if a worker makes no progress for 120 s.
 *
 * Checks: every ioctl returns >= 0 or an errno that uapi/linux/wq.h
 * documents for its command (the table by cmds[]; a number that is no
 * command, and any number on a file that is not /dev/wq, gets only
 * -ENOTTY); GET's length is 1..WQ_KEY_MAX and the key_len it reports;
 * batch counts and per-key results are sane; STAT and METRICS gauges are
 * consistent. At the end everything is closed and fuzz.* destroyed, and a
 * line a command counts its results by errno. Exit 0 if no check failed,
 * 1 otherwise. Seed 0 (the default) picks one from the clock; the seed is
 * printed first. With -p 1 -t 1 a seed replays the same call sequence (up
 * to timing); -v traces every call on stderr.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/time.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "uapi/linux/wq.h"

#define NQUEUES		4
#define NFDS		12	/* 0..NQUEUES-1 shared, bound before fork */
#define NKEYS		16
#define PAGE		4096UL
#define ARENA_PAGES	24	/* last one PROT_NONE */
#define IOC_SIZE_MAX	((1U << _IOC_SIZEBITS) - 1)
#define KTIME_MAX_NS	((uint64_t)INT64_MAX)

#define CMDS_MAX	16
#define ERRNO_MAX	134	/* errnos counted; the last: any other */
#define FD_NULL		0	/* /dev/null (vm-run's stdin) */
#define FD_NOT_OPEN	1000

struct shared {
	volatile uint64_t progress[64];
	volatile uint32_t last_cmd[64];
	volatile uint64_t calls;
	volatile uint64_t failures;
	/* results of each command (the last: no command), by errno */
	volatile uint64_t seen[CMDS_MAX + 1][ERRNO_MAX];
};

#define THREADS_MAX	8

static struct shared *sh;
static int widx;		/* worker (process) index */
static int nthreads = 2;	/* threads a worker */
static __thread int tidx;	/* thread index in the worker */
static __thread uint64_t rng;
static int verbose;
static __thread uint64_t seq;
/* each thread's own: ARENA_PAGES pages, the last PROT_NONE */
static __thread unsigned char *arena;
static __thread unsigned char *arena_end;	/* start of the guard page */
static __thread timer_t alarm_timer;	/* SIGALRM to this thread */
/*
 * Never mapped: far below where mmap() places anything (a page unmapped
 * after use would be reused for a thread's stack or arena, and the kernel
 * would then write there).
 */
#define UNMAPPED	0x100000000000UL
static int fds[NFDS];		/* shared by the worker's threads */
static unsigned long nfail;	/* atomic */

static uint64_t rnd(void)
{
	/* xorshift64* */
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return rng * 2685821657736338717ULL;
}

static uint32_t rn(uint32_t n)	/* 0..n-1 */
{
	return n ? (uint32_t)(rnd() % n) : 0;
}

static int chance(uint32_t pct)
{
	return rn(100) < pct;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void fail(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "wq_fuzz: worker %d.%d call %llu: FAIL: ", widx,
		tidx, (unsigned long long)seq);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	__atomic_add_fetch(&nfail, 1, __ATOMIC_RELAXED);
	__atomic_add_fetch(&sh->failures, 1, __ATOMIC_RELAXED);
}

/* ---- values ------------------------------------------------------- */

/* [p, p + len) lies in the arena's accessible pages (no wrap-around) */
static int in_arena(uint64_t p, uint64_t len)
{
	uint64_t a = (uint64_t)(uintptr_t)arena, e = (uint64_t)(uintptr_t)arena_end;

	return p >= a && p <= e && len <= e - p;
}

/* [a, a + al) and [b, b + bl) share no byte */
static int apart(uint64_t a, uint64_t al, uint64_t b, uint64_t bl)
{
	return a + al <= b || b + bl <= a;
}

static uint64_t bad_ptr(void)
{
	static const uint64_t kern[] = {
		0xffff888000000000ULL, 0xffffffff81000000ULL,
		0xffffffffffffffffULL, 0x8000000000000000ULL,
		0x00007ffffffff000ULL, 0xffffc90000000000ULL,
	};

	switch (rn(5)) {
	case 0: return 0;
	case 1: return UNMAPPED + rn(PAGE);
	case 2: return kern[rn(sizeof(kern) / sizeof(kern[0]))];
	case 3: return (uint64_t)(uintptr_t)arena_end + rn(PAGE);	/* PROT_NONE */
	default: return rnd();
	}
}

/* A user buffer of len bytes in the arena: ordinary, ending at the guard
 * page, or straddling into it (a few bytes). Sometimes a bad pointer. */
static uint64_t place(size_t len, int hostile_pct)
{
	size_t off;

	if (chance(hostile_pct))
		return bad_ptr();
	if (len > (ARENA_PAGES - 1) * PAGE / 2)
		len = (ARENA_PAGES - 1) * PAGE / 2;
	switch (rn(4)) {
	case 0:
		return (uint64_t)(uintptr_t)(arena_end - len);
	case 1:
		off = 1 + rn(16);
		return (uint64_t)(uintptr_t)(arena_end - len + (off < len ? off : 0));
	default:
		off = rn((ARENA_PAGES - 1) * PAGE / 2 - len + 1);
		return (uint64_t)(uintptr_t)(arena + off);
	}
}

static uint32_t key_len_val(void)
{
	static const uint32_t v[] = { 0, 1, 4096, 4097, 0x7fffffff, 0xffffffff,
				      65536 };

	return chance(70) ? 2 + rn(3) : v[rn(sizeof(v) / sizeof(v[0]))];
}

/* A key of the pool written at a user address; the pointer to use. */
static uint64_t key_ptr(uint32_t len)
{
	uint64_t p, n = len;

	if (n > 8192)
		n = 8192;
	p = place(n + !n, 8);
	if (n && in_arena(p, n)) {
		memset((void *)(uintptr_t)p, 'a' + (int)rn(26), n);
		snprintf((char *)(uintptr_t)p, n, "k%u", rn(NKEYS));
	}
	return p;
}

static uint64_t deadline(void)
{
	switch (rn(8)) {
	case 0: return 0;
	case 1: return now_ns() - rn(1000000);			/* past */
	case 2: return WQ_DEADLINE_NONE;
	case 3: return KTIME_MAX_NS + 1 + rn(1000);		/* > KTIME_MAX */
	case 4: return KTIME_MAX_NS;
	case 5: return rnd();
	default: return now_ns() + rn(2000000);		/* now + <2 ms */
	}
}

static uint32_t flags_val(uint32_t valid)
{
	if (chance(60))
		return (uint32_t)rnd() & valid;
	if (chance(50))
		return 0;
	return chance(50) ? (uint32_t)rnd() : (1U << rn(32));
}

static uint32_t reserved_val(void)
{
	return chance(85) ? 0 : (uint32_t)rnd() | 1;
}

static void name_val(char *name)
{
	memset(name, 0, WQ_NAME_MAX);
	switch (rn(12)) {
	case 0: break;						/* empty */
	case 1: memset(name, 'x', WQ_NAME_MAX); break;		/* no NUL */
	case 2: strcpy(name, "kernel.fuzz"); break;
	case 3: strcpy(name, "a/b"); break;
	case 4: snprintf(name, WQ_NAME_MAX, "fuzz.%u", rn(1000)); break;
	case 5: strcpy(name, "fuzz.0"); name[10] = 'z'; break;	/* dirty tail */
	default: snprintf(name, WQ_NAME_MAX, "fuzz.%u", rn(NQUEUES)); break;
	}
}

static void limiter_val(struct wq_limiter *l)
{
	static const struct wq_limiter def = WQ_LIMITER_DEFAULT_INIT;
	uint32_t i;

	switch (rn(4)) {
	case 0:
		*l = def;
		return;
	case 1:
		memset(l, 0, sizeof(*l));
		return;
	case 2:
		for (i = 0; i < sizeof(*l); i++)
			((unsigned char *)l)[i] = (unsigned char)rnd();
		l->nr_terms = rn(WQ_LIMITER_TERMS_MAX + 3);
		return;
	}
	memset(l, 0, sizeof(*l));
	l->nr_terms = 1 + rn(WQ_LIMITER_TERMS_MAX);
	l->reserved = reserved_val();
	for (i = 0; i < l->nr_terms; i++) {
		struct wq_limiter_term *t = &l->terms[i];

		t->kind = 1 + rn(chance(90) ? 4 : 8);
		t->count = t->kind == WQ_LIMITER_FASTSLOW ? rn(5) : reserved_val();
		t->exponential.base_ns = chance(80) ? rn(5000000) : rnd();
		t->exponential.max_ns = chance(80) ? rn(50000000) : rnd();
		if (t->kind == WQ_LIMITER_BUCKET && chance(80)) {
			t->bucket.rate = 1 + rn(100) * 1000000000ULL;
			t->bucket.burst = rn(200);
		}
		if (t->kind == WQ_LIMITER_MAXWAIT)
			t->maxwait.reserved = reserved_val();
	}
}

/* ---- alarms ------------------------------------------------------- */

static void on_alarm(int sig)
{
	(void)sig;
}

static __thread volatile int stage;

static void on_segv(int sig, siginfo_t *si, void *uc)
{
	char msg[160];
	int len;

	(void)uc;
	len = snprintf(msg, sizeof(msg),
		       "wq_fuzz: worker %d.%d call %llu: signal %d at %p, stage %d\n",
		       widx, tidx, (unsigned long long)seq, sig, si->si_addr, stage);
	if (write(2, msg, (size_t)len) < 0)
		_exit(3);
	_exit(3);
}

static void timer_set(long first_us, long every_us)
{
	struct itimerspec it = {
		.it_value = { first_us / 1000000, first_us % 1000000 * 1000 },
		.it_interval = { every_us / 1000000, every_us % 1000000 * 1000 },
	};

	timer_settime(alarm_timer, 0, &it, NULL);
}

/* This thread's alarm timer (a forked child needs its own: not inherited). */
static void timer_setup(void)
{
	struct sigevent sev;

	memset(&sev, 0, sizeof(sev));
	sev.sigev_notify = SIGEV_THREAD_ID;
	sev.sigev_signo = SIGALRM;
	sev._sigev_un._tid = (pid_t)syscall(SYS_gettid);
	if (timer_create(CLOCK_MONOTONIC, &sev, &alarm_timer) < 0) {
		perror("wq_fuzz: timer_create");
		_exit(2);
	}
}

/* This thread's arena and alarm timer. */
static void thread_setup(void)
{
	arena = mmap(NULL, ARENA_PAGES * PAGE, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (arena == MAP_FAILED) {
		perror("wq_fuzz: mmap");
		exit(2);
	}
	arena_end = arena + (ARENA_PAGES - 1) * PAGE;
	mprotect(arena_end, PAGE, PROT_NONE);
	timer_setup();
}

/* ---- one ioctl ---------------------------------------------------- */

/*
 * The errors each command may return, from its kernel-doc in
 * uapi/linux/wq.h. Every command may also fail with -EINVAL (a size below
 * the struct's first version, flags, reserved and out fields, deadlines),
 * -EFAULT and -EBADF (not a handle, not bound, the wrong access, or an fd
 * another thread closed), and one that reads its struct (_IOC_WRITE) with
 * -E2BIG (a non-zero tail); nothing else. -ENOTTY is for numbers that are
 * no command (and for files other than /dev/wq).
 */
#define ERRS_MAX	8

struct cmdinfo {
	const char *name;
	unsigned int cmd;
	uint32_t size;
	uint32_t min;
	int errs[ERRS_MAX];	/* beyond the common ones; 0 ends */
};

static const struct cmdinfo cmds[] = {
#define C(c, s, last, ...)						\
	{ #c, c, sizeof(s), offsetof(s, last) + sizeof(((s *)0)->last),	\
	  { __VA_ARGS__ } }
	C(WQ_IOC_MODULE_INFO, struct wq_module_info, default_max_tracked, 0),
	C(WQ_IOC_CREATE, struct wq_create, limiter,
	  EBUSY, EACCES, EEXIST, ENOSPC, EDQUOT, ENOMEM),
	C(WQ_IOC_OPEN, struct wq_name, name, EBUSY, ENOENT, EACCES),
	C(WQ_IOC_DESTROY, struct wq_name, name, ENOENT, EACCES),
	C(WQ_IOC_LIST, struct wq_list, entries, ENOMEM),
	C(WQ_IOC_ADD, struct wq_add, delay_ns,
	  EAGAIN, ESHUTDOWN, ETIMEDOUT, EINTR, EDQUOT, ENOMEM),
	C(WQ_IOC_GET, struct wq_get, deadline_ns,
	  EAGAIN, ETIMEDOUT, EINTR, ESHUTDOWN, EMSGSIZE, ENOMEM),
	C(WQ_IOC_DONE, struct wq_key, value, ENOENT, ENOMEM),
	C(WQ_IOC_SHUTDOWN, struct wq_shutdown, deadline_ns,
	  ETIMEDOUT, ECANCELED, EINTR),
	C(WQ_IOC_STAT, struct wq_queue_info, evicted, 0),
	C(WQ_IOC_FORGET, struct wq_key, value, ENOMEM),
	C(WQ_IOC_NUM_REQUEUES, struct wq_key, value, ENOMEM),
	C(WQ_IOC_ADD_BATCH, struct wq_batch, deadline_ns, ENOMEM),
	C(WQ_IOC_GET_BATCH, struct wq_batch, deadline_ns,
	  EAGAIN, ETIMEDOUT, EINTR, ESHUTDOWN, EMSGSIZE, ENOMEM),
	C(WQ_IOC_DONE_BATCH, struct wq_batch, deadline_ns, ENOMEM),
	C(WQ_IOC_METRICS, struct wq_metrics_req, metrics, ENOMEM),
#undef C
};
#define NCMDS (sizeof(cmds) / sizeof(cmds[0]))

_Static_assert(NCMDS <= CMDS_MAX, "CMDS_MAX");

/* Each key's result of a batch (struct wq_batch): 0 or one of these. */
static const int add_key_errs[] = {
	EINVAL, EFAULT, ENOMEM, ESHUTDOWN, EAGAIN, EDQUOT, 0
};
static const int done_key_errs[] = { EINVAL, EFAULT, ENOENT, 0 };

/* An errno's name (EINVAL), for messages. */
static const char *ename(int e)
{
	static __thread char buf[16];
	const char *name = strerrorname_np(e);

	if (name)
		return name;
	snprintf(buf, sizeof(buf), "errno %d", e);
	return buf;
}

static int in_list(const int *l, int e)
{
	for (; *l; l++)
		if (*l == e)
			return 1;
	return 0;
}

/* The command a number is to /dev/wq (its nr and direction), or NULL. */
static const struct cmdinfo *cmd_of(unsigned int cmd)
{
	unsigned int i;

	if (_IOC_TYPE(cmd) != WQ_IOC_MAGIC)
		return NULL;
	for (i = 0; i < NCMDS; i++)
		if (_IOC_NR(cmds[i].cmd) == _IOC_NR(cmd) &&
		    _IOC_DIR(cmds[i].cmd) == _IOC_DIR(cmd))
			return &cmds[i];
	return NULL;
}

/*
 * The types of the ioctls that fs/ioctl.c answers itself before the
 * driver is asked (FIOCLEX, FIONBIO, FIFREEZE, FS_IOC_GETFLAGS, FICLONE,
 * FIGETBSZ, FS_IOC_GETFSUUID, ...): what they return is not ours.
 */
static int vfs_type(unsigned int type)
{
	return type == 'T' || type == 'X' || type == 'f' || type == 0 ||
	       type == 0x94 || type == 0x15;
}

/* May ioctl(fd, cmd) fail with errno e? (FD_NULL: /dev/null.) */
static int errno_ok(int fd, unsigned int cmd, int e)
{
	const struct cmdinfo *c = cmd_of(cmd);

	if (_IOC_TYPE(cmd) != WQ_IOC_MAGIC && vfs_type(_IOC_TYPE(cmd)))
		return 1;
	if (fd < 0 || fd == FD_NOT_OPEN)
		return e == EBADF;
	if (fd == FD_NULL)
		return e == ENOTTY;
	if (!c)		/* EBADF: another thread closed fd */
		return e == ENOTTY || e == EBADF;
	switch (e) {
	case EINVAL: case EFAULT: case EBADF:
		return 1;
	case E2BIG:
		return !!(_IOC_DIR(cmd) & _IOC_WRITE);
	}
	return in_list(c->errs, e);
}

/* May ioctl(fd, cmd) succeed? Not for what is no command of /dev/wq. */
static int success_ok(int fd, unsigned int cmd)
{
	if (_IOC_TYPE(cmd) != WQ_IOC_MAGIC && vfs_type(_IOC_TYPE(cmd)))
		return 1;
	return fd >= 0 && fd != FD_NULL && fd != FD_NOT_OPEN && cmd_of(cmd);
}

/* Count a result of command cmd for the summary (e: 0 for success). */
static void seen(unsigned int cmd, int e)
{
	const struct cmdinfo *c = cmd_of(cmd);
	unsigned int ci = c ? (unsigned int)(c - cmds) : NCMDS;

	if (e < 0 || e >= ERRNO_MAX)
		e = ERRNO_MAX - 1;
	__atomic_add_fetch(&sh->seen[ci][e], 1, __ATOMIC_RELAXED);
}

/* One line a command: how often each result came. */
static void print_seen(void)
{
	unsigned int ci, e;

	for (ci = 0; ci <= NCMDS; ci++) {
		char line[1024];
		int len;

		len = snprintf(line, sizeof(line), "wq_fuzz: %s:",
			       ci < NCMDS ? cmds[ci].name + 7 : "(no command)");
		for (e = 0; e < ERRNO_MAX && len < (int)sizeof(line); e++) {
			if (sh->seen[ci][e])
				len += snprintf(line + len, sizeof(line) - (size_t)len,
						" %s %llu", e ? ename((int)e) : "ok",
						(unsigned long long)sh->seen[ci][e]);
		}
		puts(line);
	}
}

/* Returns the ioctl's result; *err its errno. */
static long do_ioctl(int fd, unsigned int cmd, uint64_t arg, int blocking,
		     int *err)
{
	long r;

	if (blocking)
		timer_set(2000 + rn(8000), 5000);	/* EINTR within ms */
	r = ioctl(fd, cmd, (unsigned long)arg);
	*err = r < 0 ? errno : 0;
	if (blocking)
		timer_set(0, 0);
	return r;
}

static void check_info(const struct wq_queue_info *i)
{
	if (i->queued > i->keys || i->processing > i->keys ||
	    i->waiting > i->keys || i->dirty > i->processing ||
	    (uint64_t)i->queued + i->processing > i->keys ||
	    i->keys > i->max_items || i->handles == 0 ||
	    memchr(i->name, 0, WQ_NAME_MAX) == NULL || i->reserved)
		fail("STAT %.64s: reserved %u queued %u processing %u waiting %u dirty %u keys %u max_items %u handles %u",
		     i->name, i->reserved, i->queued, i->processing, i->waiting, i->dirty,
		     i->keys, i->max_items, i->handles);
}

static void check_hist(const char *what, const struct wq_hist_info *h)
{
	uint32_t i;

	if (h->nbuckets == 0 || h->nbuckets > WQ_HIST_MAX || h->reserved) {
		fail("METRICS %s: nbuckets %u", what, h->nbuckets);
		return;
	}
	for (i = 1; i < h->nbuckets; i++)
		if (h->bucket[i] < h->bucket[i - 1] || h->le_ns[i] <= h->le_ns[i - 1])
			fail("METRICS %s: bucket %u not ascending", what, i);
	if (h->bucket[h->nbuckets - 1] != h->count ||
	    h->le_ns[h->nbuckets - 1] != ~0ULL)
		fail("METRICS %s: last bucket %llu != count %llu", what,
		     (unsigned long long)h->bucket[h->nbuckets - 1],
		     (unsigned long long)h->count);
}

static void check_metrics(const struct wq_metrics_info *m)
{
	if ((int64_t)m->queued < 0 || m->depth < m->queued ||
	    (int64_t)m->processing < 0 || (int64_t)m->waiting < 0)
		fail("METRICS: depth %llu queued %llu processing %llu waiting %llu",
		     (unsigned long long)m->depth, (unsigned long long)m->queued,
		     (unsigned long long)m->processing,
		     (unsigned long long)m->waiting);
	check_hist("queue_duration", &m->queue_duration);
	check_hist("work_duration", &m->work_duration);
}

static int pick_fd(void)
{
	switch (rn(20)) {
	case 0: return -1;
	case 1: return FD_NULL;
	case 2: return FD_NOT_OPEN;
	default: return fds[rn(NFDS)];
	}
}

/* The struct for cmd index ci, built in s (valid-ish, then mangled). */
static void build(unsigned int ci, unsigned char *s, uint32_t *clean,
		  uint64_t *hint)
{
	static const uint32_t counts[] = { 0, 1, 2, 5, 16, WQ_BATCH_MAX,
					   WQ_BATCH_MAX + 1, 0xffffffff };
	unsigned int cmd = cmds[ci].cmd;
	uint32_t i, n;

	*hint = 0;
	switch (cmd) {
	case WQ_IOC_CREATE: {
		struct wq_create *c = (void *)s;

		c->flags = chance(85) ? 0 : flags_val(0);
		c->max_items = chance(70) ? rn(64) : (uint32_t)rnd();
		c->mode = chance(60) ? 0 : chance(50) ? 0666 : (uint32_t)rnd();
		c->max_tracked = chance(70) ? rn(64) : (uint32_t)rnd();
		name_val(c->name);
		limiter_val(&c->limiter);
		break;
	}
	case WQ_IOC_OPEN:
	case WQ_IOC_DESTROY: {
		struct wq_name *nm = (void *)s;

		nm->flags = cmd == WQ_IOC_OPEN ? flags_val(3) : (chance(90) ? 0 : flags_val(0));
		nm->reserved = reserved_val();
		name_val(nm->name);
		break;
	}
	case WQ_IOC_LIST: {
		struct wq_list *l = (void *)s;
		static const uint32_t es[] = { 0, WQ_QUEUE_INFO_SIZE_VER0 - 1,
			WQ_QUEUE_INFO_SIZE_VER0, sizeof(struct wq_queue_info),
			sizeof(struct wq_queue_info) + 8, 4096, 4097, 0xffffffff };

		l->flags = chance(90) ? 0 : flags_val(0);
		l->entry_size = es[rn(sizeof(es) / sizeof(es[0]))];
		l->count = chance(80) ? rn(9) : (uint32_t)rnd();
		l->total = reserved_val();
		n = l->entry_size * (l->count < 9 ? l->count : 9);
		l->entries = place(n > 40000 ? 40000 : n, 10);
		break;
	}
	case WQ_IOC_ADD: {
		struct wq_add *a = (void *)s;

		a->flags = flags_val(WQ_ADD_RATE_LIMITED | WQ_ADD_WAIT | WQ_ADD_AFTER);
		a->key_len = key_len_val();
		a->key = key_ptr(a->key_len);
		a->delay_ns = chance(60) ? 0 : chance(80) ? rn(3000000) : rnd();
		a->deadline_ns = (a->flags & WQ_ADD_WAIT) || chance(10) ? deadline() : 0;
		*hint = 1;
		break;
	}
	case WQ_IOC_GET: {
		struct wq_get *g = (void *)s;

		g->flags = flags_val(WQ_GET_NONBLOCK | WQ_GET_DETACH);
		g->key_len = reserved_val();
		g->buf_cap = chance(70) ? WQ_KEY_MAX : key_len_val();
		g->buf = place(g->buf_cap > 8192 ? 8192 : g->buf_cap, 10);
		g->reserved = reserved_val();
		g->deadline_ns = deadline();
		*hint = 1;
		break;
	}
	case WQ_IOC_DONE:
	case WQ_IOC_FORGET:
	case WQ_IOC_NUM_REQUEUES: {
		struct wq_key *k = (void *)s;

		k->flags = chance(85) ? 0 : flags_val(0);
		k->key_len = key_len_val();
		k->key = key_ptr(k->key_len);
		k->value = reserved_val();
		break;
	}
	case WQ_IOC_SHUTDOWN: {
		struct wq_shutdown *d = (void *)s;

		d->flags = flags_val(WQ_SHUTDOWN_DRAIN | WQ_SHUTDOWN_DISCARD);
		d->reserved = reserved_val();
		d->deadline_ns = (d->flags & WQ_SHUTDOWN_DRAIN) || chance(10) ?
				 deadline() : 0;
		*hint = 1;
		break;
	}
	case WQ_IOC_ADD_BATCH:
	case WQ_IOC_GET_BATCH:
	case WQ_IOC_DONE_BATCH: {
		struct wq_batch *b = (void *)s;
		struct wq_iov *iov;
		uint32_t room;

		b->flags = cmd == WQ_IOC_GET_BATCH ?
			   flags_val(WQ_GET_NONBLOCK | WQ_GET_DETACH) :
			   (chance(85) ? 0 : flags_val(0));
		b->count = chance(60) ? 1 + rn(8) : counts[rn(sizeof(counts) / sizeof(counts[0]))];
		n = b->count > WQ_BATCH_MAX + 1 ? 16 : b->count;
		/* the iovs in the first half of the arena, keys in the second */
		b->keys = place(n * sizeof(struct wq_iov), 8);
		iov = (void *)(uintptr_t)b->keys;
		room = (uint32_t)((uintptr_t)arena_end - (uintptr_t)b->keys) /
		       sizeof(struct wq_iov);
		if (cmd != WQ_IOC_GET_BATCH &&
		    b->keys >= (uint64_t)(uintptr_t)arena &&
		    b->keys < (uint64_t)(uintptr_t)arena_end) {
			for (i = 0; i < n && i < room; i++) {
				uint32_t kl = chance(90) ? 2 + rn(3) : key_len_val();
				char *kp = (char *)arena + (ARENA_PAGES - 1) * PAGE / 2 +
					   i * 8;

				iov[i].len = chance(97) ? kl : rnd();
				iov[i].base = chance(95) ? (uint64_t)(uintptr_t)kp : bad_ptr();
				snprintf(kp, 8, "k%u", rn(NKEYS));
			}
		}
		if (cmd == WQ_IOC_GET_BATCH) {
			b->results = chance(90) ? 0 : rnd();
			b->buf_cap = chance(70) ? 1 + rn(4096) : rnd();
			b->buf = place(b->buf_cap > 8192 ? 8192 : b->buf_cap, 10);
			b->deadline_ns = deadline();
			*hint = 1;
		} else {
			b->results = chance(30) ? 0 : place(n * 4, 10);
			b->buf = chance(95) ? 0 : rnd();
			b->buf_cap = chance(95) ? 0 : rnd();
			b->deadline_ns = chance(95) ? 0 : deadline();
		}
		break;
	}
	case WQ_IOC_METRICS: {
		struct wq_metrics_req *m = (void *)s;
		static const uint32_t ms[] = { 0, WQ_METRICS_INFO_SIZE_VER0 - 1,
			WQ_METRICS_INFO_SIZE_VER0, sizeof(struct wq_metrics_info),
			sizeof(struct wq_metrics_info) + 8,
			WQ_METRICS_INFO_SIZE_MAX, WQ_METRICS_INFO_SIZE_MAX + 1,
			0xffffffff };

		m->flags = chance(90) ? 0 : flags_val(0);
		m->size = chance(50) ? sizeof(struct wq_metrics_info) :
			  ms[rn(sizeof(ms) / sizeof(ms[0]))];
		m->metrics = place(m->size > 8192 ? 8192 : m->size, 10);
		break;
	}
	default:	/* MODULE_INFO, STAT: read-only */
		break;
	}
	*clean = 1;
	/* random bytes over a random field, now and then */
	if (chance(5)) {
		i = rn(cmds[ci].size);
		s[i] ^= (unsigned char)(1 + rn(255));
		*clean = 0;
	}
}

static void one_ioctl(void)
{
	unsigned char s[IOC_SIZE_MAX + 64];
	unsigned int ci = rn(NCMDS), cmd;
	uint32_t size, full, clean;
	uint64_t arg, hint;
	struct wq_batch bin;
	int fd = pick_fd(), err, tail = 0;
	long r;

	memset(s, 0, sizeof(s));
	full = cmds[ci].size;
	stage = 200 + (int)ci;
	build(ci, s, &clean, &hint);
	stage = 300 + (int)ci;

	switch (rn(16)) {
	case 0: size = 0; break;
	case 1: size = cmds[ci].min - 1; break;
	case 2: size = cmds[ci].min; break;
	case 3: size = full + 8; tail = 1; break;
	case 4: size = full + 8; tail = 2; break;
	case 5: size = IOC_SIZE_MAX; tail = chance(50) ? 2 : 1; break;
	case 6: size = rn(full + 16); break;
	default: size = full; break;
	}
	if (tail == 2)
		s[full + rn(size - full)] = (unsigned char)(1 + rn(255));
	cmd = (cmds[ci].cmd & ~(_IOC_SIZEMASK << _IOC_SIZESHIFT)) |
	      (size << _IOC_SIZESHIFT);
	if (chance(4)) {	/* random direction / number / magic */
		unsigned int nr = chance(70) ? rn(0x40) : rn(256);

		cmd = _IOC(rn(4), chance(90) ? WQ_IOC_MAGIC : rn(256), nr, size);
		clean = 0;
		hint = 1;
	}
	arg = place(size ? size : 1, 6);
	if (in_arena(arg, size))
		memcpy((void *)(uintptr_t)arg, s, size);
	else
		clean = 0;
	if (size < full)
		clean = 0;
	/* straddling the guard page is not clean either: place() case 1 */
	if (!in_arena(arg, size))
		clean = 0;

	sh->last_cmd[widx] = cmd;
	if (verbose)
		fprintf(stderr, "[%d:%llu] fd %d ioctl %s(%#x) size %u arg %#llx\n",
			widx, (unsigned long long)seq, fd, cmds[ci].name, cmd,
			size, (unsigned long long)arg);
	r = do_ioctl(fd, cmd, arg, (int)hint, &err);
	stage = 400 + (int)ci;
	if (verbose)
		fprintf(stderr, "[%d:%llu]   = %ld (%s)\n", widx,
			(unsigned long long)seq, r, r < 0 ? strerror(err) : "ok");
	seen(cmd, r < 0 ? err : 0);
	if (r < 0 ? !errno_ok(fd, cmd, err) : !success_ok(fd, cmd)) {
		const struct cmdinfo *c = cmd_of(cmd);

		fail("%s (%#x) size %u fd %d: %s", c ? c->name : "no command",
		     cmd, size, fd, r < 0 ? ename(err) : "returned >= 0");
	}
	if (r < 0)
		return;
	if (cmd != ((cmds[ci].cmd & ~(_IOC_SIZEMASK << _IOC_SIZESHIFT)) |
		    (size << _IOC_SIZESHIFT)))
		return;	/* a random number that is a command */
	memcpy(&bin, s, sizeof(bin));
	if (!in_arena(arg, size)) {
		clean = 0;
		if (cmds[ci].cmd == WQ_IOC_GET && (r < 1 || r > WQ_KEY_MAX))
			fail("GET returned %ld", r);
		return;
	}
	memcpy(s, (void *)(uintptr_t)arg, full < size ? full : size);
	switch (cmds[ci].cmd) {
	case WQ_IOC_GET: {
		struct wq_get *g = (void *)s;

		if (!apart(g->buf, g->buf_cap, arg, size))
			clean = 0;	/* the key overwrote the struct */
		if (r < 1 || r > WQ_KEY_MAX || (clean && (uint32_t)r != g->key_len) ||
		    (clean && g->key_len > g->buf_cap))
			fail("GET returned %ld key_len %u buf_cap %u", r,
			     g->key_len, g->buf_cap);
		if (clean && chance(70)) {	/* done it at once */
			struct wq_key k = { .key_len = (uint32_t)r, .key = g->buf };

			if (ioctl(fd, WQ_IOC_DONE, &k) < 0 &&
			    !errno_ok(fd, WQ_IOC_DONE, errno))
				fail("DONE after GET: %s", ename(errno));
		}
		break;
	}
	case WQ_IOC_ADD_BATCH:
	case WQ_IOC_GET_BATCH:
	case WQ_IOC_DONE_BATCH: {
		struct wq_batch *b = &bin;	/* as sent: _IOW, never written back */
		uint32_t i;

		if (clean && (uint64_t)r > b->count)
			fail("%s returned %ld > count %u", cmds[ci].name, r, b->count);
		if (clean && cmds[ci].cmd != WQ_IOC_GET_BATCH && b->results &&
		    b->count <= WQ_BATCH_MAX &&
		    in_arena(b->results, (uint64_t)b->count * 4) &&
		    apart(b->results, (uint64_t)b->count * 4, arg, size) &&
		    apart(b->results, (uint64_t)b->count * 4, b->keys,
			  (uint64_t)b->count * sizeof(struct wq_iov))) {
			const int32_t *res = (const int32_t *)(uintptr_t)b->results;
			uint32_t ok = 0;

			for (i = 0; i < b->count; i++) {
				if (res[i] == 0)
					ok++;
				else if (res[i] > 0 ||
					 !in_list(cmds[ci].cmd == WQ_IOC_ADD_BATCH ?
						  add_key_errs : done_key_errs,
						  -res[i]))
					fail("%s result[%u] = %d", cmds[ci].name,
					     i, res[i]);
			}
			if (ok != (uint64_t)r)
				fail("%s returned %ld, %u results 0",
				     cmds[ci].name, r, ok);
		}
		break;
	}
	case WQ_IOC_STAT:
		if (clean)
			check_info((const struct wq_queue_info *)s);
		break;
	case WQ_IOC_METRICS: {
		const struct wq_metrics_req *m = (const void *)s;

		if (clean && m->size >= sizeof(struct wq_metrics_info) &&
		    in_arena(m->metrics, sizeof(struct wq_metrics_info)) &&
		    apart(m->metrics, m->size, arg, size)) {
			struct wq_metrics_info mi;

			memcpy(&mi, (void *)(uintptr_t)m->metrics, sizeof(mi));
			check_metrics(&mi);
		}
		break;
	}
	case WQ_IOC_LIST: {
		const struct wq_list *l = (const void *)s;
		uint32_t i;

		if (clean && l->entry_size >= sizeof(struct wq_queue_info) &&
		    l->count <= 8 &&
		    in_arena(l->entries, (uint64_t)l->count * l->entry_size) &&
		    apart(l->entries, (uint64_t)l->count * l->entry_size, arg, size)) {
			for (i = 0; i < l->count; i++) {
				struct wq_queue_info qi;

				memcpy(&qi, (char *)(uintptr_t)l->entries +
				       (size_t)i * l->entry_size, sizeof(qi));
				if (qi.handles)	/* unnamed-but-open counts 0 */
					check_info(&qi);
			}
		}
		break;
	}
	default:
		if (r != 0 && cmds[ci].cmd != WQ_IOC_SHUTDOWN)
			fail("%s returned %ld", cmds[ci].name, r);
		break;
	}
}

/* ---- other operations --------------------------------------------- */

static int open_wq(void)
{
	static const int modes[] = { O_RDWR, O_RDWR, O_RDONLY, O_WRONLY };

	return open("/dev/wq", modes[rn(4)] | (chance(20) ? O_NONBLOCK : 0) |
		    O_CLOEXEC);
}

/* A valid create or open of a pool queue on slot i, so work gets done. */
static void bind_slot(int i)
{
	struct wq_create c;
	int err;

	memset(&c, 0, sizeof(c));
	snprintf(c.name, sizeof(c.name), "fuzz.%u", rn(NQUEUES));
	if (chance(50)) {
		c.max_items = 8 + rn(32);
		c.mode = 0666;
		if (do_ioctl(fds[i], WQ_IOC_CREATE, (uintptr_t)&c, 0, &err) == 0)
			return;
		if (!errno_ok(fds[i], WQ_IOC_CREATE, err))
			fail("CREATE %s: %s", c.name, ename(err));
	}
	{
		struct wq_name nm = { 0 };

		memcpy(nm.name, c.name, sizeof(nm.name));
		if (do_ioctl(fds[i], WQ_IOC_OPEN, (uintptr_t)&nm, 0, &err) < 0 &&
		    !errno_ok(fds[i], WQ_IOC_OPEN, err))
			fail("OPEN %s: %s", nm.name, ename(err));
	}
}

static void run_ops(uint64_t n);

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

static void one_op(void)
{
	int i = rn(NFDS), j, r, op = (int)rn(100);
	pid_t pid;

	stage = op < 8 ? op : 100;
	if (verbose && op < 8)
		fprintf(stderr, "[%d:%llu] op %d slot %d\n", widx,
			(unsigned long long)seq, op, i);
	switch (op) {
	case 0: case 1:		/* reopen a slot, bind it */
		if (fds[i] >= 0)
			close(fds[i]);
		fds[i] = open_wq();
		if (chance(80))
			bind_slot(i);
		break;
	case 2:			/* dup */
		j = rn(NFDS);
		if (i == j)
			break;
		if (fds[i] >= 0)
			close(fds[i]);
		fds[i] = fds[j] >= 0 ? fcntl(fds[j], F_DUPFD_CLOEXEC, 3) : -1;
		break;
	case 3:			/* close */
		if (chance(30) && fds[i] >= 0) {
			close(fds[i]);
			fds[i] = -1;
		}
		break;
	case 4: case 5: {	/* poll */
		struct pollfd p[3];

		for (j = 0; j < 3; j++) {
			p[j].fd = fds[rn(NFDS)];
			p[j].events = (short)(chance(80) ?
				POLLIN | POLLOUT | POLLHUP : rnd());
			p[j].revents = 0;
		}
		r = poll(p, 3, (int)rn(3));
		if (r < 0 && errno != EINTR)
			fail("poll: errno %d", errno);
		break;
	}
	case 6:			/* a stray SIGALRM */
		timer_set(1 + rn(3000), 0);
		break;
	case 7:			/* fork: a child runs a few ops, maybe killed */
		if (!chance(20))
			break;
		fflush(NULL);
		pid = fork();
		if (pid == 0) {
			timer_setup();
			rng ^= 0x9e3779b97f4a7c15ULL;
			nfail = 0;
			run_ops(10 + rn(40));
			_exit(nfail ? 1 : 0);
		}
		if (pid < 0)
			break;
		if (chance(50)) {
			usleep(rn(2000));
			kill(pid, SIGKILL);
		}
		while ((j = (int)waitpid(pid, &r, 0)) < 0 && errno == EINTR)
			;	/* a stray SIGALRM */
		if (j == pid && WIFEXITED(r) && WEXITSTATUS(r))
			fail("forked child failed");
		break;
	case 8:			/* a child holding keys on its own handle, killed */
		if (chance(70))
			break;
		hold_and_die();
		break;
	default:
		one_ioctl();
		break;
	}
}

static void run_ops(uint64_t n)
{
	uint64_t k;

	for (k = 0; k < n; k++) {
		seq++;
		one_op();
		__atomic_add_fetch(&sh->progress[widx], 1, __ATOMIC_RELAXED);
		__atomic_add_fetch(&sh->calls, 1, __ATOMIC_RELAXED);
	}
}

struct thread_arg {
	int idx;
	uint64_t seed;
	uint64_t n;
};

static void *thread_main(void *p)
{
	struct thread_arg *t = p;

	tidx = t->idx;
	rng = t->seed;
	thread_setup();
	run_ops(t->n);
	timer_set(0, 0);
	return NULL;
}

static void worker(int idx, uint64_t seed, uint64_t n)
{
	struct thread_arg args[THREADS_MAX];
	pthread_t tids[THREADS_MAX];
	struct sigaction sa;
	int i;

	widx = idx;
	rng = seed * 0x9e3779b97f4a7c15ULL + (uint64_t)idx + 1;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm;	/* no SA_RESTART: EINTR */
	sigaction(SIGALRM, &sa, NULL);
	sa.sa_handler = NULL;
	sa.sa_sigaction = on_segv;
	sa.sa_flags = SA_SIGINFO;
	sigaction(SIGSEGV, &sa, NULL);
	sigaction(SIGBUS, &sa, NULL);
	for (i = NQUEUES; i < NFDS; i++) {
		fds[i] = open_wq();
		if (chance(70))
			bind_slot(i);
	}
	for (i = 0; i < nthreads; i++) {
		args[i].idx = i;
		args[i].seed = rnd() | 1;
		args[i].n = n / (uint64_t)nthreads +
			    (i == 0 ? n % (uint64_t)nthreads : 0);
	}
	for (i = 1; i < nthreads; i++)
		if (pthread_create(&tids[i], NULL, thread_main, &args[i])) {
			fprintf(stderr, "wq_fuzz: pthread_create failed\n");
			exit(2);
		}
	thread_main(&args[0]);
	for (i = 1; i < nthreads; i++)
		pthread_join(tids[i], NULL);
	for (i = 0; i < NFDS; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	exit(nfail ? 1 : 0);
}

static void destroy_all(void)
{
	int fd = open("/dev/wq", O_RDWR | O_CLOEXEC), i;

	if (fd < 0) {
		fail("open /dev/wq: %s", strerror(errno));
		return;
	}
	for (i = 0; i < NQUEUES; i++) {
		struct wq_name nm = { 0 };

		snprintf(nm.name, sizeof(nm.name), "fuzz.%d", i);
		if (ioctl(fd, WQ_IOC_DESTROY, &nm) < 0 && errno != ENOENT)
			fail("DESTROY %s: %s", nm.name, strerror(errno));
	}
	close(fd);
}

int main(int argc, char **argv)
{
	uint64_t seed = 0, calls = 100000, done = 0, last = 0;
	int procs = 4, opt, i, status, alive, stall = 0;
	pid_t pids[64];
	struct wq_module_info mi;
	time_t t0 = time(NULL);

	while ((opt = getopt(argc, argv, "s:n:p:t:v")) != -1) {
		switch (opt) {
		case 's': seed = strtoull(optarg, NULL, 0); break;
		case 'n': calls = strtoull(optarg, NULL, 0); break;
		case 'p': procs = atoi(optarg); break;
		case 't': nthreads = atoi(optarg); break;
		case 'v': verbose = 1; break;
		default:
			fprintf(stderr, "usage: %s [-s SEED] [-n CALLS] [-p PROCS] [-t THREADS] [-v]\n",
				argv[0]);
			return 2;
		}
	}
	if (procs < 1 || procs > 64)
		procs = 4;
	if (nthreads < 1 || nthreads > THREADS_MAX)
		nthreads = 2;
	if (!seed)
		seed = (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32);
	printf("wq_fuzz: seed %llu calls %llu procs %d threads %d\n",
	       (unsigned long long)seed, (unsigned long long)calls, procs,
	       nthreads);
	fflush(stdout);

	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED) {
		perror("mmap");
		return 2;
	}
	i = open("/dev/wq", O_RDWR | O_CLOEXEC);
	if (i < 0 || ioctl(i, WQ_IOC_MODULE_INFO, &mi) < 0) {
		perror("/dev/wq");
		return 2;
	}
	close(i);
	destroy_all();	/* leftovers of an earlier run */

	/* shared fds: the same open files in every worker */
	rng = seed;
	for (i = 0; i < NQUEUES; i++) {
		struct wq_create c = { .max_items = 32, .mode = 0666 };

		fds[i] = open("/dev/wq", O_RDWR | O_CLOEXEC);
		snprintf(c.name, sizeof(c.name), "fuzz.%d", i);
		if (fds[i] < 0 || ioctl(fds[i], WQ_IOC_CREATE, &c) < 0) {
			perror("create fuzz.N");
			return 2;
		}
	}
	/* orphans (a child's child) come back to us: none outlives the run */
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	for (i = 0; i < procs; i++) {
		pids[i] = fork();
		if (pids[i] == 0)
			worker(i, seed, calls / (uint64_t)procs +
			       (i == 0 ? calls % (uint64_t)procs : 0));
		if (pids[i] < 0) {
			perror("fork");
			return 2;
		}
	}
	for (i = 0; i < NQUEUES; i++)
		close(fds[i]);

	/* watchdog: fail if the workers make no progress for 120 s */
	for (alive = procs; alive > 0;) {
		pid_t p = waitpid(-1, &status, WNOHANG);

		if (p > 0) {
			for (i = 0; i < procs; i++)
				if (pids[i] == p) {
					alive--;
					pids[i] = 0;
					if (!WIFEXITED(status) || WEXITSTATUS(status)) {
						widx = i;
						fail("worker %d: status %#x", i, status);
					}
				}
			continue;
		}
		sleep(1);
		done = sh->calls;
		stall = done == last ? stall + 1 : 0;
		last = done;
		if (stall >= 120) {
			for (i = 0; i < procs; i++)
				if (pids[i]) {
					widx = i;
					fail("worker %d hung (progress %llu, last cmd %#x)",
					     i, (unsigned long long)sh->progress[i],
					     sh->last_cmd[i]);
					kill(pids[i], SIGKILL);
				}
			stall = 0;
		}
	}
	widx = -1;
	/* the workers are gone; their orphans end within seconds */
	for (stall = 0; waitpid(-1, &status, WNOHANG) >= 0; usleep(100000))
		if (++stall > 300) {
			fail("descendants still running 30 s after the workers");
			break;
		}
	destroy_all();
	print_seen();
	printf("wq_fuzz: seed %llu: %llu calls in %lds, %llu failures\n",
	       (unsigned long long)seed, (unsigned long long)sh->calls,
	       (long)(time(NULL) - t0), (unsigned long long)sh->failures);
	return sh->failures ? 1 : 0;
}
