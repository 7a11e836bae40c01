// SPDX-License-Identifier: GPL-2.0
/*
 * wq_soak: the soak test of /dev/wq (issue 11), run by soak.sh.
 *
 *	wq_soak [-t SECONDS] [-s SEED] [-r ROUNDS] [-v]
 *
 * Runs rounds of 2 to 10 s each for SECONDS (default 600), or ROUNDS
 * rounds. A round creates one to three named queues (some by uid 1000 in
 * a forked child; a mode, a limiter, 8 to 2048 keys, sometimes a small
 * max_items each) and runs on them at once:
 * - producers (processes; one sometimes as uid 1000, whose handles the
 *   modes allow or refuse): add, add_after (0 to 20 ms, a few 300 ms),
 *   add_rate_limited, forget, num_requeues, add_batch, add_wait, len,
 *   stat, metrics;
 * - consumers (a process of two threads sharing handles, a process of
 *   one, sometimes a third as uid 1000 with read-only handles): get,
 *   get_batch, detached gets, a get into a too small buffer, done,
 *   done_batch, re-adds while processing (dirty keys), gets and dones
 *   through a second handle of their own (a key done by another handle
 *   than the one that got it), that handle closed and opened again;
 * - SIGUSR1 interrupting a producer's and a consumer's waits (-EINTR);
 * - victims: consumers that take a few keys (some detached) and are
 *   SIGKILLed holding them, asleep in get, add_wait or
 *   shutdown_with_drain on the round's idle queue (full and empty) or in
 *   pause(); the release of their handles puts the keys back, the
 *   detached ones stay processing until the parent's done; the idle queue
 *   is then destroyed and closed with armed delays and a processing key;
 * - a handle passed to another process (SCM_RIGHTS over a unix socket,
 *   or pidfd_getfd() where the kernel has no unix sockets): its sender
 *   took a key and exited, the receiver ends that key, works with the
 *   handle, and closes it holding another key (put back);
 * - a user (uid 1001 or 1002) filling its queue and key budgets until
 *   -EDQUOT, checking that a refused add of any kind changes nothing, that
 *   a done gives room back, and that its usage goes back to 0;
 * - the destroy of a queue in mid-round (its handles keep working), and
 *   sometimes a new queue of the same name while the old one is open;
 * and ends each queue with one of: shutdown_with_drain while producers
 * and consumers run, shutdown, shutdown_discard, or a drain in another
 * process cut short by a shutdown or a discard; then destroys it. A
 * quarter of the rounds have one queue whose consumers (and add_wait
 * producers) wait without a timeout, so a lost wake-up shows: a monitor
 * fails a queue whose keys stay queued with no hand-out for 5 s, or a
 * producer asleep in add_wait for 5 s while the queue had room.
 *
 * Book-keeping in shared memory, per key: who holds it (set with a
 * compare-and-swap at get, cleared before done: a failed swap is a key
 * held by two consumers), a sequence number taken before its last add
 * and one taken after its last hand-out. At the end of a round every key
 * whose last add was an immediate one must have been handed out after
 * it, and every key put back by a closing handle handed out again; the
 * exceptions are the documented drops, counted: keys whose last add was
 * delayed (a shutdown drops waiting keys: at most discarded_total of
 * them) and, after a discarding shutdown, at most as many keys as were
 * dropped (plus those whose done or release came after it, as their dirty
 * marks are dropped uncounted). The queue's counters must match what its
 * clients counted: gets, dones, retries, refusals for capacity, keys put
 * back on close, discards; adds_total lies between the gets less the
 * keys put back and the gets. After each round wq's record cache holds
 * as many objects as at the start (/proc/slabinfo).
 *
 * Prints what it did and one TAP line per invariant; exit 0 if all held,
 * 1 otherwise. The seed (from the clock unless -s) is printed first; a
 * seed replays the same choices, not the same timing. Needs root (it
 * switches users and sets the quota parameters, restored at the end).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "wq.h"
#include "uapi/linux/wq.h"
#include "wq_test_files.h"

#define MAXQ		3	/* queues per round */
#define MAXK		2048	/* keys per queue */
#define MAXW		24	/* worker ids per round (0: none) */
#define MAXV		2	/* victims per round */
#define BATCH		32	/* most keys in one of our batches */
#define BATCH_BUF	(8 * WQ_KEY_MAX)
#define UID_OWNER	1000	/* creates queues, runs some workers */
#define UID_QUOTA	1001	/* and 1002: fills its budgets */
#define QUOTA_QUEUES	6u	/* user_max_queues while we run */
#define QUOTA_BYTES	(2UL << 20)	/* user_max_key_bytes while we run */
#define PARENT_ID	(MAXW - 1)	/* the parent's worker id */
#define HOLDER_NONE	0u
#define HOLDER_BACK	0xffffffffu	/* put back: to be handed out again */
#define MAX_PRINTED	20	/* failure messages printed per kind */

enum wstate { W_FREE, W_ALIVE, W_KILLED, W_REAPED, W_EXITED };
enum qend { END_DRAIN, END_SHUTDOWN, END_DISCARD, END_CANCEL, END_NR };
static const char *const end_name[END_NR] = {
	"drain", "shutdown", "discard", "drain cut short",
};

enum fcat {
	F_DOUBLE, F_LOST, F_KILL, F_PASS, F_COUNT, F_END, F_QUOTA, F_RESULT,
	F_HANG, F_MEM, F_NR
};
static const char *const fcat_name[F_NR] = {
	"two holders", "key lost", "killed consumer", "passed handle",
	"counters", "shutdown/drain/discard/destroy", "quota",
	"call result", "hang", "memory",
};

static const char *const limiters[] = {
	"none", "exponential:1ms:20ms", "fastslow:500us:5ms:3",
	"bucket:2000:20", "exponential:100us:10ms,bucket:500:50,maxwait:15ms",
	"default",
};
#define NLIMITERS (sizeof(limiters) / sizeof(limiters[0]))

struct keyrec {
	_Atomic uint32_t holder;	/* worker id, HOLDER_NONE or _BACK */
	_Atomic uint32_t excused;	/* done or put back after a discard */
	_Atomic uint32_t detached;	/* a killed holder's detached key */
	_Atomic uint64_t last_add;	/* seq << 1 | delayed, of the last add */
	_Atomic uint64_t last_get;	/* seq after the last hand-out */
};

/* What the clients of one queue counted. */
struct qcount {
	_Atomic uint64_t gets;		/* keys handed out */
	_Atomic uint64_t dones;		/* successful dones */
	_Atomic uint64_t adds;		/* immediate adds that succeeded */
	_Atomic uint64_t afters;	/* add_after that succeeded */
	_Atomic uint64_t rls;		/* add_rate_limited that succeeded */
	_Atomic uint64_t delayed;	/* of those, with a delay */
	_Atomic uint64_t refused;	/* -EAGAIN for capacity */
	_Atomic uint64_t shut;		/* -ESHUTDOWN */
	_Atomic uint64_t dquot;		/* -EDQUOT (uid 1000's queues) */
	_Atomic uint64_t timedout;	/* add_wait -ETIMEDOUT */
	_Atomic uint64_t intr;		/* -EINTR (SIGUSR1) */
	_Atomic uint64_t cross;		/* dones by another handle */
	_Atomic uint64_t back;		/* keys put back by a closing handle */
	_Atomic uint64_t batches;	/* batch calls */
};

struct squeue {
	char name[WQ_NAME_MAX];
	unsigned int nkeys;
	unsigned int max_items;		/* 0: module default */
	unsigned int mode;
	unsigned int limiter;
	int unpriv;			/* created by UID_OWNER */
	int end;			/* enum qend */
	int destroy_early;
	_Atomic int ending;		/* set before the shutdown */
	_Atomic int discarding;		/* set before a discard */
	struct qcount c;
	struct keyrec key[MAXK];
};

struct worker {
	_Atomic int state;
	pid_t pid;
	_Atomic int64_t asleep;	/* in a get that waits since (ms), or 0 */
	_Atomic int64_t adding;	/* in an add_wait since (ms), or 0 */
	_Atomic int adding_q;	/* on that queue */
};

struct round {
	_Atomic int go;			/* workers start */
	_Atomic int stop;		/* producers stop */
	_Atomic int over;		/* consumers leave at -ESHUTDOWN */
	int nq;
	int patient;		/* consumers wait without a timeout */
	char idle[WQ_NAME_MAX];	/* where victims wait to be killed */
	struct worker w[MAXW];
	struct squeue q[MAXQ];
};

struct shared {
	_Atomic uint64_t seq;
	_Atomic uint64_t calls;
	_Atomic uint64_t fails[F_NR];
	_Atomic uint32_t quiet[F_NR];	/* failures no longer printed */
	_Atomic uint64_t edquot;	/* -EDQUOT hits of the quota users */
	_Atomic uint64_t quota_keys;	/* keys they added before it */
	struct round rd;
};

static struct shared *sh;
static unsigned int round_no;
static uint64_t seed;
static int verbose;
static __thread uint64_t rng;
static __thread uint32_t self_id;
static int pfd[MAXQ] = { -1, -1, -1 };	/* the parent's handles */
static int idle_fd = -1;		/* and of the idle queue */

/* ---- helpers ------------------------------------------------------- */

static uint64_t rnd(void)
{
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return rng * 2685821657736338717ULL;
}

static uint32_t rn(uint32_t n)
{
	return n ? (uint32_t)(rnd() % n) : 0;
}

static int chance(uint32_t pct)
{
	return rn(100) < pct;
}

static void seed_rng(uint64_t salt)
{
	rng = seed ^ (salt * 0x9e3779b97f4a7c15ULL) ^ ((uint64_t)round_no << 40);
	if (!rng)
		rng = 1;
	rnd();
}

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

static void fail(int cat, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void fail(int cat, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (atomic_fetch_add(&sh->fails[cat], 1) < MAX_PRINTED)
		fprintf(stderr, "# FAIL round %u worker %u (%s): %s\n",
			round_no, self_id, fcat_name[cat], msg);
	else if (!atomic_exchange(&sh->quiet[cat], 1))
		fprintf(stderr, "# (further failures of %s not printed)\n",
			fcat_name[cat]);
}

static void call(void)
{
	atomic_fetch_add_explicit(&sh->calls, 1, memory_order_relaxed);
}

static uint64_t tick(void)
{
	return atomic_fetch_add(&sh->seq, 1) + 1;
}

static void atomic_max(_Atomic uint64_t *p, uint64_t v)
{
	uint64_t cur = atomic_load(p);

	while (cur < v && !atomic_compare_exchange_weak(p, &cur, v))
		;
}

static const char *err_name(int e)
{
	static __thread char buf[32];

	if (e >= 0) {
		snprintf(buf, sizeof(buf), "%d", e);
		return buf;
	}
	snprintf(buf, sizeof(buf), "-%s", strerrorname_np(-e) ?: "?");
	return buf;
}

static int drop_to(uid_t uid)
{
	if (setgroups(0, NULL) || setresgid(uid, uid, uid) ||
	    setresuid(uid, uid, uid))
		return -1;
	return prctl(PR_SET_DUMPABLE, 1, 0, 0, 0);
}

static int module_info(struct wq_module_info *mi)
{
	int fd = open(WQ_DEV_PATH, O_RDWR | O_CLOEXEC), r;

	if (fd < 0)
		return -errno;
	memset(mi, 0, sizeof(*mi));
	r = ioctl(fd, WQ_IOC_MODULE_INFO, mi) < 0 ? -errno : 0;
	close(fd);
	return r;
}

/* ---- keys ---------------------------------------------------------- */

/*
 * Key i of queue q in this round: "s<round>.<q>.<i>:" and a pattern, 16
 * to 47 bytes mostly, some longer than the 48 kept inline, one in 61
 * close to WQ_KEY_MAX. Every key handed out is checked byte for byte.
 */
static size_t key_len(unsigned int q, unsigned int i)
{
	uint32_t h = (i + 1) * 2654435761u ^ (q + 1) * 40503u;

	h ^= h >> 15;
	if (i % 61 == 60)
		return WQ_KEY_MAX - h % 32;
	if (h % 4 == 0)
		return 49 + h % 160;
	return 16 + h % 32;
}

static size_t make_key(char *buf, unsigned int q, unsigned int i)
{
	size_t len = key_len(q, i), j;
	int n = snprintf(buf, 32, "s%u.%u.%u:", round_no, q, i);

	if ((size_t)n > len)
		len = (size_t)n;
	for (j = (size_t)n; j < len; j++)
		buf[j] = (char)('a' + (j * 7 + i) % 26);
	return len;
}

/* The index of a key handed out by queue q, or -1 if it is not ours. */
static int key_index(const void *key, size_t len, unsigned int q)
{
	char head[32], want[WQ_KEY_MAX];
	unsigned int r, qq, i;
	size_t n = len < sizeof(head) - 1 ? len : sizeof(head) - 1;

	memcpy(head, key, n);
	head[n] = '\0';
	if (sscanf(head, "s%u.%u.%u:", &r, &qq, &i) != 3 || r != round_no ||
	    qq != q || i >= sh->rd.q[q].nkeys)
		return -1;
	if (make_key(want, q, i) != len || memcmp(want, key, len))
		return -1;
	return (int)i;
}

static void note_add(struct squeue *q, unsigned int i, uint64_t seq,
		     int delayed)
{
	atomic_max(&q->key[i].last_add, seq << 1 | (delayed ? 1 : 0));
}

/* A key handed out to self_id: take its holder slot. */
static void take(struct squeue *q, unsigned int i)
{
	struct keyrec *k = &q->key[i];
	uint32_t cur = HOLDER_NONE;
	int st, waited = 0;

	for (;;) {
		if (atomic_compare_exchange_strong(&k->holder, &cur, self_id))
			break;
		if (cur == HOLDER_BACK)
			continue;
		if (cur < MAXW && cur != HOLDER_NONE) {
			st = atomic_load(&sh->rd.w[cur].state);
			if (st == W_REAPED && !atomic_load(&k->detached))
				continue;
			/* killed: its release ran before it can be reaped */
			if (st == W_KILLED && waited++ < 20000) {
				sleep_ms(1);
				cur = atomic_load(&k->holder);
				continue;
			}
		}
		fail(F_DOUBLE, "%s key %u handed out while worker %u (state %d) holds it",
		     q->name, i, cur, cur < MAXW ? atomic_load(&sh->rd.w[cur].state) : -1);
		atomic_store(&k->holder, self_id);
		break;
	}
	atomic_max(&k->last_get, tick());
	atomic_fetch_add(&q->c.gets, 1);
}

/* Before the done of a key self_id holds. */
static void release(struct squeue *q, unsigned int i)
{
	uint32_t cur = self_id;

	if (!atomic_compare_exchange_strong(&q->key[i].holder, &cur, HOLDER_NONE))
		fail(F_DOUBLE, "%s key %u: held by %u, not by %u, at its done",
		     q->name, i, cur, self_id);
}

/* After a done (or a put back): a discard may have dropped its mark. */
static void after_done(struct squeue *q, unsigned int i)
{
	if (atomic_load(&q->discarding))
		atomic_store(&q->key[i].excused, 1);
}

/* The result of an add of any kind: 1 if the key is pending. */
static int add_ok(struct squeue *q, int r, const char *what)
{
	switch (r) {
	case 0:
		return 1;
	case -ESHUTDOWN:
		atomic_fetch_add(&q->c.shut, 1);
		if (!atomic_load(&q->ending))
			fail(F_RESULT, "%s %s: -ESHUTDOWN before the shutdown",
			     what, q->name);
		return 0;
	case -EAGAIN:
		atomic_fetch_add(&q->c.refused, 1);
		if (!q->max_items)
			fail(F_RESULT, "%s %s: -EAGAIN without a small max_items",
			     what, q->name);
		return 0;
	case -EDQUOT:
		atomic_fetch_add(&q->c.dquot, 1);
		if (!q->unpriv)
			fail(F_RESULT, "%s %s: -EDQUOT on root's queue", what,
			     q->name);
		return 0;
	}
	fail(F_RESULT, "%s %s: %s", what, q->name, err_name(r));
	return 0;
}

static void on_signal(int sig)
{
	(void)sig;
}

/* SIGUSR1 (from the parent) interrupts calls that wait: -EINTR. */
static void catch_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;	/* no SA_RESTART */
	sigaction(SIGUSR1, &sa, NULL);
}

/* The parent's handles are not the children's business. */
static void close_parent_fds(void)
{
	int i;

	for (i = 0; i < MAXQ; i++)
		if (pfd[i] >= 0) {
			close(pfd[i]);
			pfd[i] = -1;
		}
	if (idle_fd >= 0) {
		close(idle_fd);
		idle_fd = -1;
	}
}

static void wait_go(void)
{
	while (!atomic_load(&sh->rd.go))
		sleep_ms(1);
}

/* Whether uid may open a queue for access (4 read, 2 write). */
static int may_open(const struct squeue *q, uid_t uid, unsigned int access)
{
	unsigned int bits = q->unpriv && uid == UID_OWNER ? q->mode >> 6 : q->mode;

	return (bits & access) == access;
}

/* ---- children ------------------------------------------------------ */

/* Where a victim waits when it is killed (on the round's idle queue). */
enum { BLOCK_NONE, BLOCK_GET, BLOCK_ADD, BLOCK_DRAIN, BLOCK_NR };
static const char *const block_name[BLOCK_NR] = {
	"pause", "get", "add_wait", "shutdown_with_drain",
};

struct child {
	pid_t pid;
	int block;		/* victims: BLOCK_* */
	uint32_t id;		/* worker id */
	int to[2], from[2];	/* parent -> child, child -> parent */
	int qi;
	uid_t uid;
	int nthreads;
	const char *what;
};

typedef int (*child_fn)(struct child *c);

/* Forks a worker; it runs fn and exits with its result. */
static int spawn(struct child *c, const char *what, child_fn fn)
{
	c->what = what;
	if (pipe2(c->to, O_CLOEXEC) || pipe2(c->from, O_CLOEXEC))
		return -errno;
	fflush(stdout);
	fflush(stderr);
	c->pid = fork();
	if (c->pid < 0)
		return -errno;
	if (c->pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() == 1)
			_exit(1);
		close(c->to[1]);
		close(c->from[0]);
		close_parent_fds();
		self_id = c->id;
		seed_rng(c->id + 1000);
		_exit(fn(c));
	}
	close(c->to[0]);
	close(c->from[1]);
	c->to[0] = c->from[1] = -1;
	if (c->id)
		sh->rd.w[c->id].pid = c->pid;
	return 0;
}

static int send_u32(int fd, uint32_t v)
{
	return write(fd, &v, sizeof(v)) == sizeof(v) ? 0 : -1;
}

/* Reads a u32 from fd within timeout_ms: 0, or -1. */
static int recv_u32(int fd, uint32_t *v, int timeout_ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	if (poll(&p, 1, timeout_ms) != 1)
		return -1;
	return read(fd, v, sizeof(*v)) == sizeof(*v) ? 0 : -1;
}

static void close_child_pipes(struct child *c)
{
	if (c->to[1] >= 0)
		close(c->to[1]);
	if (c->from[0] >= 0)
		close(c->from[0]);
	c->to[1] = c->from[0] = -1;
}

/* Waits for a child up to timeout_ms (then kills it): its status. */
static int reap(struct child *c, int timeout_ms)
{
	int64_t end = now_ms() + timeout_ms;
	int status;
	pid_t r;

	if (c->pid <= 0)
		return 0;
	for (;;) {
		r = waitpid(c->pid, &status, WNOHANG);
		if (r == c->pid)
			break;
		if (r < 0 && errno != EINTR) {
			status = -1;
			goto out;
		}
		if (now_ms() > end) {
			fail(F_HANG, "%s (pid %d) still running after %d ms: killed",
			     c->what, (int)c->pid, timeout_ms);
			kill(c->pid, SIGKILL);
			waitpid(c->pid, &status, 0);
			status = -1;
			goto out;
		}
		sleep_ms(5);
	}
	if (WIFSIGNALED(status)) {
		fail(F_RESULT, "%s (pid %d) died of signal %d", c->what,
		     (int)c->pid, WTERMSIG(status));
		status = -1;
	} else {
		status = WEXITSTATUS(status);
		if (status)
			fail(F_RESULT, "%s (pid %d) exited with %d", c->what,
			     (int)c->pid, status);
	}
out:
	c->pid = 0;
	close_child_pipes(c);
	return status;
}

static void ready(struct child *c)
{
	send_u32(c->from[1], 0);
}

/* Opens the round's queues: fds[i], or -1 where the mode refuses uid. */
static void open_all(int *fds, int flags, uid_t uid)
{
	unsigned int access = (flags & O_ACCMODE) == O_RDONLY ? 4 :
			      (flags & O_ACCMODE) == O_WRONLY ? 2 : 6;
	int i;

	for (i = 0; i < sh->rd.nq; i++) {
		struct squeue *q = &sh->rd.q[i];
		int want = uid == 0 || may_open(q, uid, access);
		int fd = wq_open_flags(q->name, flags);

		call();
		if (want && fd < 0)
			fail(F_RESULT, "uid %d: open %s (mode %o): %s", (int)uid,
			     q->name, q->mode, err_name(fd));
		else if (!want && fd != -EACCES)
			fail(F_RESULT, "uid %d: open %s (mode %o): %s, not -EACCES",
			     (int)uid, q->name, q->mode, err_name(fd));
		if (fd >= 0 && !want) {
			close(fd);
			fd = -1;
		}
		fds[i] = fd < 0 ? -1 : fd;
	}
}

/* ---- producers ----------------------------------------------------- */

struct pbuf {
	char keys[BATCH][WQ_KEY_MAX];
	struct iovec iov[BATCH];
	unsigned int idx[BATCH];
	int errs[BATCH];
};

static uint64_t pick_delay(void)
{
	uint32_t p = rn(100);

	if (p < 10)
		return 0;
	if (p < 60)
		return 50000 + rn(1950000);
	if (p < 95)
		return 2000000 + rn(18000000);
	return 300000000;
}

static void check_stat(int fd, struct squeue *q)
{
	struct wq_metrics m;
	struct wq_stats st;
	int r;

	r = wq_stat(fd, &st);
	call();
	if (r) {
		fail(F_RESULT, "stat %s: %s", q->name, err_name(r));
		return;
	}
	if (strcmp(st.name, q->name) || st.queued + st.processing > st.keys ||
	    st.dirty > st.processing || (q->max_items && st.keys > q->max_items) ||
	    st.shutting_down < 0 || st.shutting_down > 1 ||
	    st.mode != q->mode || st.uid != (q->unpriv ? UID_OWNER : 0))
		fail(F_RESULT, "stat %s: name %s queued %u processing %u dirty %u keys %u mode %o uid %u",
		     q->name, st.name, st.queued, st.processing, st.dirty,
		     st.keys, st.mode, st.uid);
	if (st.shutting_down && !atomic_load(&q->ending))
		fail(F_RESULT, "stat %s: shutting down before the shutdown", q->name);
	r = wq_metrics(fd, &m);
	call();
	if (r)
		fail(F_RESULT, "metrics %s: %s", q->name, err_name(r));
	else if (m.depth < m.queued || m.queue_duration.count < m.work_duration.count)
		fail(F_RESULT, "metrics %s: depth %llu queued %llu gets %llu dones %llu",
		     q->name, (unsigned long long)m.depth,
		     (unsigned long long)m.queued,
		     (unsigned long long)m.queue_duration.count,
		     (unsigned long long)m.work_duration.count);
	r = wq_len(fd);
	call();
	if (r < 0)
		fail(F_RESULT, "len %s: %s", q->name, err_name(r));
	r = wq_shutting_down(fd);
	call();
	if (r < 0 || r > 1 || (r && !atomic_load(&q->ending)))
		fail(F_RESULT, "shutting_down %s: %s", q->name, err_name(r));
}

static void produce_one(int fd, int qi, struct pbuf *b)
{
	struct squeue *q = &sh->rd.q[qi];
	unsigned int i = rn(q->nkeys), n, j;
	uint32_t op = rn(100);
	char *key = b->keys[0];
	size_t len = make_key(key, (unsigned int)qi, i);
	uint64_t s, d;
	int r, ok;

	if (op < 38) {
		s = tick();
		r = wq_add(fd, key, len);
		call();
		if (add_ok(q, r, "add")) {
			note_add(q, i, s, 0);
			atomic_fetch_add(&q->c.adds, 1);
		}
	} else if (op < 52) {
		d = pick_delay();
		s = tick();
		r = wq_add_after(fd, key, len, d);
		call();
		if (add_ok(q, r, "add_after")) {
			note_add(q, i, s, d != 0);
			atomic_fetch_add(&q->c.afters, 1);
			if (d)
				atomic_fetch_add(&q->c.delayed, 1);
		}
	} else if (op < 62) {
		d = UINT64_MAX;
		s = tick();
		r = wq_add_rate_limited(fd, key, len, &d);
		call();
		if (add_ok(q, r, "add_rate_limited")) {
			if (d == UINT64_MAX)
				fail(F_RESULT, "add_rate_limited %s: no delay reported",
				     q->name);
			note_add(q, i, s, d != 0);
			atomic_fetch_add(&q->c.rls, 1);
			if (d)
				atomic_fetch_add(&q->c.delayed, 1);
		}
	} else if (op < 68) {
		r = wq_forget(fd, key, len);
		call();
		if (r)
			fail(F_RESULT, "forget %s: %s", q->name, err_name(r));
	} else if (op < 71) {
		r = wq_num_requeues(fd, key, len);
		call();
		if (r < 0)
			fail(F_RESULT, "num_requeues %s: %s", q->name, err_name(r));
	} else if (op < 85) {
		n = 2 + rn(BATCH - 1);
		for (j = 0; j < n; j++) {
			/* sometimes a key twice in one batch */
			b->idx[j] = j && chance(10) ? b->idx[rn(j)] : rn(q->nkeys);
			b->iov[j].iov_base = b->keys[j];
			b->iov[j].iov_len = make_key(b->keys[j], (unsigned int)qi,
						     b->idx[j]);
			b->errs[j] = 1;
		}
		s = tick();
		r = wq_add_batch(fd, b->iov, n, b->errs);
		call();
		atomic_fetch_add(&q->c.batches, 1);
		if (r < 0) {
			fail(F_RESULT, "add_batch %s of %u: %s", q->name, n,
			     err_name(r));
			return;
		}
		for (ok = 0, j = 0; j < n; j++) {
			if (b->errs[j] > 0) {
				fail(F_RESULT, "add_batch %s: no result for key %u",
				     q->name, j);
				continue;
			}
			if (add_ok(q, b->errs[j], "add_batch")) {
				note_add(q, b->idx[j], s, 0);
				atomic_fetch_add(&q->c.adds, 1);
				ok++;
			}
		}
		if (ok != r)
			fail(F_RESULT, "add_batch %s: returned %d, %d keys added",
			     q->name, r, ok);
	} else if (op < 92) {
		atomic_store(&sh->rd.w[self_id].adding_q, qi);
		atomic_store(&sh->rd.w[self_id].adding, now_ms());
		s = tick();
		r = wq_add_wait(fd, key, len, sh->rd.patient ? -1 : 1 + (int)rn(20));
		atomic_store(&sh->rd.w[self_id].adding, 0);
		call();
		if (r == -EINTR) {
			atomic_fetch_add(&q->c.intr, 1);
		} else if (r == -ETIMEDOUT) {
			atomic_fetch_add(&q->c.timedout, 1);
			if (!q->max_items)
				fail(F_RESULT, "add_wait %s: -ETIMEDOUT without a small max_items",
				     q->name);
		} else if (add_ok(q, r, "add_wait")) {
			note_add(q, i, s, 0);
			atomic_fetch_add(&q->c.adds, 1);
		}
	} else {
		check_stat(fd, q);
	}
}

static int producer_main(struct child *c)
{
	struct pbuf *b;
	int fds[MAXQ];

	if (c->uid && drop_to(c->uid))
		return 3;
	b = malloc(sizeof(*b));
	if (!b)
		return 2;
	open_all(fds, chance(50) ? O_WRONLY : O_RDWR, c->uid);
	catch_signals();
	ready(c);
	wait_go();
	while (!atomic_load(&sh->rd.stop)) {
		int qi = (int)rn((uint32_t)sh->rd.nq);

		if (fds[qi] < 0)
			continue;
		produce_one(fds[qi], qi, b);
		if (chance(30))
			usleep(rn(400));
	}
	free(b);
	return 0;
}

/* ---- consumers ----------------------------------------------------- */

struct cctx {
	struct child *c;
	int *fds;
	int alt[MAXQ];		/* a second handle of its own per queue */
	int oflags;
	int rdwr;
	uint32_t id;
	int ret;
};

struct cbuf {
	char buf[BATCH_BUF];
	struct iovec iov[BATCH];
	int idx[BATCH];
	int errs[BATCH];
};

/* Takes the n keys just handed out; their indexes in b->idx. */
static void took(struct squeue *q, int qi, struct cbuf *b, unsigned int n)
{
	unsigned int j;

	for (j = 0; j < n; j++) {
		b->idx[j] = key_index(b->iov[j].iov_base, b->iov[j].iov_len,
				      (unsigned int)qi);
		if (b->idx[j] < 0) {
			fail(F_RESULT, "%s handed out a key that is not ours (%zu bytes: %.40s)",
			     q->name, b->iov[j].iov_len,
			     (const char *)b->iov[j].iov_base);
			atomic_fetch_add(&q->c.gets, 1);
			continue;
		}
		take(q, (unsigned int)b->idx[j]);
	}
}

/* Ends the n keys of b (done or done_batch). */
static void finish(int fd, struct squeue *q, struct cbuf *b, unsigned int n)
{
	unsigned int j;
	int r;

	for (j = 0; j < n; j++)
		if (b->idx[j] >= 0)
			release(q, (unsigned int)b->idx[j]);
	if (n > 1 && chance(50)) {
		unsigned int ok;

		for (j = 0; j < n; j++)
			b->errs[j] = 1;
		r = wq_done_batch(fd, b->iov, n, b->errs);
		call();
		atomic_fetch_add(&q->c.batches, 1);
		if (r < 0) {
			fail(F_RESULT, "done_batch %s of %u: %s", q->name, n,
			     err_name(r));
			return;
		}
		for (ok = 0, j = 0; j < n; j++) {
			if (b->errs[j] == 0)
				ok++;
			else
				fail(F_RESULT, "done_batch %s key %d: %s", q->name,
				     b->idx[j], err_name(b->errs[j]));
		}
		if ((int)ok != r)
			fail(F_RESULT, "done_batch %s returned %d, %u done",
			     q->name, r, ok);
		atomic_fetch_add(&q->c.dones, ok);
	} else {
		for (j = 0; j < n; j++) {
			r = wq_done(fd, b->iov[j].iov_base, b->iov[j].iov_len);
			call();
			if (r)
				fail(F_RESULT, "done %s key %d: %s", q->name,
				     b->idx[j], err_name(r));
			else
				atomic_fetch_add(&q->c.dones, 1);
		}
	}
	for (j = 0; j < n; j++)
		if (b->idx[j] >= 0)
			after_done(q, (unsigned int)b->idx[j]);
}

/* A consumer with a read-write handle adds a key it is processing. */
static void readd(int fd, struct squeue *q, struct cbuf *b, unsigned int j)
{
	uint64_t s, d = 0;
	int r;

	if (b->idx[j] < 0)
		return;
	s = tick();
	if (chance(60)) {
		r = wq_add(fd, b->iov[j].iov_base, b->iov[j].iov_len);
		call();
		if (add_ok(q, r, "add (processing)")) {
			note_add(q, (unsigned int)b->idx[j], s, 0);
			atomic_fetch_add(&q->c.adds, 1);
		}
		return;
	}
	r = wq_add_rate_limited(fd, b->iov[j].iov_base, b->iov[j].iov_len, &d);
	call();
	if (add_ok(q, r, "add_rate_limited (processing)")) {
		note_add(q, (unsigned int)b->idx[j], s, d != 0);
		atomic_fetch_add(&q->c.rls, 1);
		if (d)
			atomic_fetch_add(&q->c.delayed, 1);
	}
}

/* One get of some kind on queue qi: 1 on keys, 0 nothing, -1 finished. */
static int consume_one(struct cctx *x, int qi, struct cbuf *b)
{
	struct squeue *q = &sh->rd.q[qi];
	int over = atomic_load(&sh->rd.over), alt = x->alt[qi];
	int fd = alt >= 0 && chance(15) ? alt : x->fds[qi];
	int timeout = chance(25) ? 0 : sh->rd.patient ? -1 : 10 + (int)rn(60);
	int probe = 0;
	uint32_t op = rn(100);
	unsigned int n = 1;
	ssize_t r;

	if (timeout)
		atomic_store(&sh->rd.w[self_id].asleep, now_ms());
	if (op < 55) {
		r = wq_get(fd, b->buf, WQ_KEY_MAX, timeout);
	} else if (op < 60) {
		r = wq_get_detached(fd, b->buf, WQ_KEY_MAX, timeout);
	} else if (op < 65) {
		probe = 1;
		r = wq_get(fd, b->buf, 24, 0);
	} else if (op < 95) {
		r = wq_get_batch(fd, b->buf, BATCH_BUF, b->iov, 1 + rn(16), timeout);
		n = 0;
	} else {
		r = wq_get_batch_detached(fd, b->buf, BATCH_BUF, b->iov, 1 + rn(8),
					  timeout);
		n = 0;
	}
	atomic_store(&sh->rd.w[self_id].asleep, 0);
	call();
	if (r == -EAGAIN || r == -ETIMEDOUT || (probe && r == -EMSGSIZE))
		return 0;
	if (r == -EINTR) {
		atomic_fetch_add(&q->c.intr, 1);
		return 0;
	}
	if (r == -ESHUTDOWN) {
		if (!atomic_load(&q->ending))
			fail(F_RESULT, "get %s: -ESHUTDOWN before the shutdown", q->name);
		if (over)
			return -1;
		sleep_ms(1);
		return 0;
	}
	if (r <= 0) {
		fail(F_RESULT, "get %s: %s", q->name, err_name((int)r));
		sleep_ms(1);
		return 0;
	}
	if (n) {
		b->iov[0].iov_base = b->buf;
		b->iov[0].iov_len = (size_t)r;
	} else {
		n = (unsigned int)r;
		if (n > BATCH) {
			fail(F_RESULT, "get_batch %s: %u keys", q->name, n);
			return 0;
		}
		atomic_fetch_add(&q->c.batches, 1);
	}
	took(q, qi, b, n);
	if (x->rdwr)
		for (unsigned int j = 0; j < n; j++)
			if (chance(15))
				readd(fd, q, b, j);
	if (chance(20))
		usleep(rn(500));
	/* any handle may end a key's processing */
	if (alt >= 0 && chance(25)) {
		fd = fd == alt ? x->fds[qi] : alt;
		atomic_fetch_add(&q->c.cross, n);
	}
	finish(fd, q, b, n);
	/* its second handle goes (holding nothing) and comes again */
	if (alt >= 0 && chance(3)) {
		wq_close(alt);
		x->alt[qi] = wq_open_flags(q->name, x->oflags);
		call();
		if (x->alt[qi] < 0 && !(x->alt[qi] == -ENOENT && q->destroy_early))
			fail(F_RESULT, "open %s again: %s", q->name,
			     err_name(x->alt[qi]));
	}
	return 1;
}

static void *consumer_thread(void *arg)
{
	struct cctx *x = arg;
	int finished[MAXQ] = { 0 }, left, qi, r;
	struct cbuf *b = malloc(sizeof(*b));

	self_id = x->id;
	seed_rng(x->id + 2000);
	if (!b) {
		x->ret = 2;
		return NULL;
	}
	for (qi = 0, left = 0; qi < sh->rd.nq; qi++) {
		if (x->fds[qi] < 0)
			finished[qi] = 1;
		else
			left++;
	}
	while (left) {
		qi = (int)rn((uint32_t)sh->rd.nq);
		if (finished[qi])
			continue;
		r = consume_one(x, qi, b);
		if (r < 0) {
			finished[qi] = 1;
			left--;
		}
	}
	for (qi = 0; qi < sh->rd.nq; qi++)
		if (x->alt[qi] >= 0)
			wq_close(x->alt[qi]);
	free(b);
	return NULL;
}

static int consumer_main(struct child *c)
{
	struct cctx x[2];
	pthread_t t;
	int fds[MAXQ], rdwr = !c->uid, i, qi;

	if (c->uid && drop_to(c->uid))
		return 3;
	open_all(fds, rdwr ? O_RDWR : O_RDONLY, c->uid);
	for (i = 0; i < c->nthreads; i++) {
		x[i].oflags = rdwr ? O_RDWR : O_RDONLY;
		for (qi = 0; qi < MAXQ; qi++) {
			x[i].alt[qi] = -1;
			if (qi < sh->rd.nq && fds[qi] >= 0) {
				x[i].alt[qi] = wq_open_flags(sh->rd.q[qi].name,
							     x[i].oflags);
				call();
			}
		}
	}
	catch_signals();
	ready(c);
	wait_go();
	for (i = 0; i < c->nthreads; i++) {
		x[i].c = c;
		x[i].fds = fds;
		x[i].rdwr = rdwr;
		x[i].id = c->id + (uint32_t)i;
		x[i].ret = 0;
	}
	if (c->nthreads > 1 && pthread_create(&t, NULL, consumer_thread, &x[1]))
		return 4;
	consumer_thread(&x[0]);
	if (c->nthreads > 1)
		pthread_join(t, NULL);
	return x[0].ret | (c->nthreads > 1 ? x[1].ret : 0);
}

/* ---- victims: SIGKILLed holding keys ---------------------------------- */

static int victim_main(struct child *c)
{
	struct squeue *q = &sh->rd.q[c->qi];
	uint32_t go, held = 0, det = 0;
	int fd, idle, detached;
	struct cbuf *b;
	ssize_t r;

	fd = wq_open(q->name);	/* an open file of its own */
	call();
	if (fd < 0) {
		fail(F_KILL, "victim: open %s: %s", q->name, err_name(fd));
		return 1;
	}
	idle = wq_open(sh->rd.idle);
	call();
	if (idle < 0) {
		fail(F_KILL, "victim: open %s: %s", sh->rd.idle, err_name(idle));
		return 1;
	}
	ready(c);
	if (recv_u32(c->to[0], &go, -1))
		return 1;
	b = malloc(sizeof(*b));	/* never freed: the process is killed */
	if (!b)
		return 2;
	/* some keys detached: they stay processing when it dies */
	detached = chance(30);
	if (detached)
		r = wq_get_batch_detached(fd, b->buf, BATCH_BUF, b->iov,
					  1 + rn(4), 500);
	else
		r = wq_get_batch(fd, b->buf, BATCH_BUF, b->iov, 1 + rn(8), 500);
	call();
	if (r > 0) {
		atomic_fetch_add(&q->c.batches, 1);
		took(q, c->qi, b, (unsigned int)r);
		for (ssize_t i = 0; detached && i < r; i++)
			if (b->idx[i] >= 0)
				atomic_store(&q->key[b->idx[i]].detached, 1);
		if (detached)
			det = (uint32_t)r;
		else
			held = (uint32_t)r;
	} else if (r != -ETIMEDOUT) {
		fail(F_KILL, "victim: get_batch %s: %s", q->name, err_name((int)r));
	}
	r = wq_get(fd, b->buf, WQ_KEY_MAX, 50);
	call();
	if (r > 0) {
		b->iov[0].iov_base = b->buf;
		b->iov[0].iov_len = (size_t)r;
		took(q, c->qi, b, 1);
		held++;
	}
	send_u32(c->from[1], held | det << 16);
	/* killed in a call that waits, on the idle queue */
	if (c->block == BLOCK_GET)
		r = wq_get(idle, b->buf, WQ_KEY_MAX, -1);
	else if (c->block == BLOCK_ADD)
		r = wq_add_wait(idle, "soak.victim", 11, -1);
	else if (c->block == BLOCK_DRAIN)
		r = wq_shutdown_with_drain(idle, -1);
	else
		r = 0;
	call();
	if (c->block != BLOCK_NONE)
		fail(F_KILL, "victim: %s on the idle queue returned %s",
		     block_name[c->block], err_name((int)r));
	for (;;)
		pause();
	return 0;
}

/* ---- a handle passed to another process -------------------------------- */

/*
 * Over a unix socket (SCM_RIGHTS) where the kernel has them, else (the
 * debug kernel has no networking) with pidfd_getfd(): the receiver takes
 * the sender's descriptor. Either way the receiver ends up with the
 * sender's open file, the sender closes its descriptor and exits, and
 * the key it took stays processing in the receiver's file.
 */
struct passmsg {
	int32_t idx;	/* the key the sender holds, or -1 */
	uint32_t qi;
	int32_t pid;	/* the sender */
	int32_t fd;	/* its descriptor (pidfd_getfd) */
};

static int pass_chan[2] = { -1, -1 };	/* sender -> receiver ([1] -> [0]) */
static int pass_ack[2] = { -1, -1 };	/* receiver -> sender ([1] -> [0]) */
static int pass_scm;			/* pass_chan is a unix socket */
static uint32_t passer_id;

static int send_msg(int sock, int fd, const struct passmsg *m)
{
	char cbuf[CMSG_SPACE(sizeof(int))];
	struct iovec iov = { (void *)m, sizeof(*m) };
	struct msghdr msg = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = cbuf, .msg_controllen = sizeof(cbuf),
	};
	struct cmsghdr *cm;

	if (!pass_scm)
		return write(sock, m, sizeof(*m)) == sizeof(*m) ? 0 : -EIO;
	memset(cbuf, 0, sizeof(cbuf));
	cm = CMSG_FIRSTHDR(&msg);
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cm), &fd, sizeof(int));
	return sendmsg(sock, &msg, 0) == sizeof(*m) ? 0 : -errno;
}

/* The passed handle as a descriptor of ours, or -errno. */
static int recv_msg(int sock, struct passmsg *m, int *pidfd)
{
	char cbuf[CMSG_SPACE(sizeof(int))];
	struct iovec iov = { m, sizeof(*m) };
	struct msghdr msg = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = cbuf, .msg_controllen = sizeof(cbuf),
	};
	int fd = -1;

	if (pass_scm) {
		struct cmsghdr *cm;

		if (recvmsg(sock, &msg, MSG_CMSG_CLOEXEC) != sizeof(*m))
			return -EIO;
		cm = CMSG_FIRSTHDR(&msg);
		if (!cm || cm->cmsg_type != SCM_RIGHTS)
			return -EBADMSG;
		memcpy(&fd, CMSG_DATA(cm), sizeof(int));
	} else if (read(sock, m, sizeof(*m)) != sizeof(*m)) {
		return -EIO;
	}
	*pidfd = (int)syscall(SYS_pidfd_open, m->pid, 0);
	if (*pidfd < 0)
		return -errno;
	if (!pass_scm) {
		fd = (int)syscall(SYS_pidfd_getfd, *pidfd, m->fd, 0);
		if (fd < 0)
			return -errno;
	}
	return fd;
}

/* Takes a key, passes its handle to the receiver, exits holding it. */
static int passer_main(struct child *c)
{
	struct squeue *q = &sh->rd.q[c->qi];
	char buf[WQ_KEY_MAX];
	struct passmsg m = { -1, (uint32_t)c->qi, (int32_t)getpid(), -1 };
	uint32_t go;
	ssize_t r;
	int fd;

	close(pass_chan[0]);
	close(pass_ack[1]);
	fd = wq_open(q->name);
	call();
	if (fd < 0) {
		fail(F_PASS, "passer: open %s: %s", q->name, err_name(fd));
		return 1;
	}
	m.fd = fd;
	ready(c);
	if (recv_u32(c->to[0], &go, -1))
		return 1;
	r = wq_get(fd, buf, sizeof(buf), 500);
	call();
	if (r > 0) {
		m.idx = key_index(buf, (size_t)r, (unsigned int)c->qi);
		if (m.idx < 0)
			fail(F_RESULT, "%s handed out a key that is not ours", q->name);
		else
			take(q, (unsigned int)m.idx);
	} else if (r != -ETIMEDOUT) {
		fail(F_PASS, "passer: get %s: %s", q->name, err_name((int)r));
	}
	r = send_msg(pass_chan[1], fd, &m);
	if (r)
		fail(F_PASS, "passer: send: %s", err_name((int)r));
	if (pass_scm)
		close(fd);	/* the handle in flight holds the file */
	if (recv_u32(pass_ack[0], &go, 30000))
		fail(F_PASS, "passer: no word from the receiver");
	close(fd);
	/* the key stays processing: the receiver has the open file */
	atomic_store(&sh->rd.w[c->id].state, W_EXITED);
	return 0;
}

/* Works with the handle it receives, closes it holding a key. */
static int receiver_main(struct child *c)
{
	struct squeue *q;
	struct passmsg m = { -1, 0, 0, -1 };
	struct pollfd p = { .events = POLLIN };
	struct wq_stats st;
	char buf[WQ_KEY_MAX], key[WQ_KEY_MAX];
	uint32_t cur;
	unsigned int i;
	size_t len;
	ssize_t r;
	int fd, k;

	close(pass_chan[1]);
	close(pass_ack[0]);
	p.fd = -1;
	ready(c);
	fd = recv_msg(pass_chan[0], &m, &p.fd);
	send_u32(pass_ack[1], 0);
	if (fd < 0) {
		fail(F_PASS, "receiver: %s: %s",
		     pass_scm ? "recvmsg" : "pidfd_getfd", err_name(fd));
		return 1;
	}
	/* the sender gone (its exit released what it still had) */
	if (poll(&p, 1, 30000) != 1)
		fail(F_PASS, "receiver: the sender did not exit");
	close(p.fd);
	q = &sh->rd.q[m.qi];
	r = wq_stat(fd, &st);
	call();
	if (r || strcmp(st.name, q->name))
		fail(F_PASS, "receiver: stat of the passed handle: %s, name %s",
		     err_name((int)r), r ? "" : st.name);
	if (m.idx >= 0) {
		i = (unsigned int)m.idx;
		cur = passer_id;
		if (!atomic_compare_exchange_strong(&q->key[i].holder, &cur, c->id))
			fail(F_PASS, "%s key %u of the handle's sender held by %u",
			     q->name, i, cur);
		len = make_key(key, m.qi, i);
		release(q, i);
		r = wq_done(fd, key, len);
		call();
		if (r)
			fail(F_PASS, "receiver: done %s key %u: %s", q->name, i,
			     err_name((int)r));
		else
			atomic_fetch_add(&q->c.dones, 1);
		after_done(q, i);
	}
	for (k = 0; k < 3; k++) {
		uint64_t s;

		i = rn(q->nkeys);
		len = make_key(key, m.qi, i);
		s = tick();
		r = wq_add(fd, key, len);
		call();
		if (add_ok(q, (int)r, "add (passed handle)")) {
			note_add(q, i, s, 0);
			atomic_fetch_add(&q->c.adds, 1);
		}
	}
	r = wq_get(fd, buf, sizeof(buf), 300);
	call();
	if (r > 0) {
		k = key_index(buf, (size_t)r, m.qi);
		if (k < 0) {
			fail(F_RESULT, "%s handed out a key that is not ours", q->name);
		} else {
			take(q, (unsigned int)k);
			/* put back by the close below: mark it first */
			cur = c->id;
			if (!atomic_compare_exchange_strong(&q->key[k].holder, &cur,
							    HOLDER_BACK))
				fail(F_DOUBLE, "%s key %d: held by %u, not by %u",
				     q->name, k, cur, c->id);
			atomic_fetch_add(&q->c.back, 1);
		}
	} else if (r != -ETIMEDOUT) {
		fail(F_PASS, "receiver: get %s: %s", q->name, err_name((int)r));
	}
	r = wq_close(fd);
	call();
	if (r)
		fail(F_PASS, "receiver: close: %s", err_name((int)r));
	send_u32(c->from[1], m.idx >= 0);
	return 0;
}

/* ---- a user filling its budgets -------------------------------------- */

static size_t quota_key(char *buf, unsigned int n, size_t len)
{
	int h = snprintf(buf, 40, "quota.%u.%u:", round_no, n);
	size_t j;

	for (j = (size_t)h; j < len; j++)
		buf[j] = (char)('A' + (j + n) % 26);
	return len;
}

static int usage_is(uint32_t queues, uint64_t bytes, const char *when)
{
	struct wq_module_info mi;
	int r = module_info(&mi);

	call();
	if (r || mi.user_queues != queues || (bytes != UINT64_MAX && mi.user_key_bytes != bytes)) {
		fail(F_QUOTA, "uid %d %s: %s, %u queues and %llu key bytes charged, expected %u and %llu",
		     (int)getuid(), when, err_name(r), mi.user_queues,
		     (unsigned long long)mi.user_key_bytes, queues,
		     (unsigned long long)bytes);
		return 0;
	}
	return 1;
}

static int quota_main(struct child *c)
{
	static char keys[8][WQ_KEY_MAX];
	struct iovec iov[8];
	int errs[8], fds[64], nq = 0, r, j, hit = 0, fd;
	struct wq_attr attr = { .limiter = "none", .mode = 0600 };
	struct wq_module_info mi;
	struct wq_stats st0, st1;
	char name[WQ_NAME_MAX], buf[WQ_KEY_MAX];
	unsigned int n = 0, added = 0, first_n = 0;
	size_t len, first = 0;
	ssize_t g;

	if (drop_to(c->uid))
		return 3;
	ready(c);
	wait_go();
	usage_is(0, 0, "at the start");
	if (module_info(&mi))
		return 1;
	/* the queue budget */
	for (;;) {
		snprintf(name, sizeof(name), "soak.%d.%u.u%d", (int)getppid(),
			 round_no, nq);
		fd = wq_create(name, &attr);
		call();
		if (fd == -EDQUOT) {
			atomic_fetch_add(&sh->edquot, 1);
			r = wq_open(name);
			call();
			if (r != -ENOENT)
				fail(F_QUOTA, "a create refused with -EDQUOT left %s: %s",
				     name, err_name(r));
			break;
		}
		if (fd < 0) {
			fail(F_QUOTA, "create %s: %s", name, err_name(fd));
			break;
		}
		fds[nq++] = fd;
		if (nq == 64)
			break;
	}
	if ((unsigned int)nq != mi.user_max_queues)
		fail(F_QUOTA, "uid %d created %d queues, budget %u", (int)getuid(),
		     nq, mi.user_max_queues);
	if (mi.unpriv_max_items < mi.max_items_limit) {
		struct wq_attr big = attr;

		big.max_items = mi.unpriv_max_items + 1;
		snprintf(name, sizeof(name), "soak.%d.%u.ubig", (int)getppid(),
			 round_no);
		r = wq_create(name, &big);
		call();
		if (r != -EINVAL && r != -EDQUOT)
			fail(F_QUOTA, "create with max_items %u above the ceiling: %s",
			     big.max_items, err_name(r));
		if (r >= 0)
			close(r);
	}
	if (nq < 2)
		goto out;
	/* the key budget, in batches of long keys */
	while (!hit && added < 100000) {
		for (j = 0; j < 8; j++) {
			iov[j].iov_base = keys[j];
			iov[j].iov_len = quota_key(keys[j], n++, 3000 + rn(1097));
			errs[j] = 1;
		}
		r = wq_add_batch(fds[0], iov, 8, errs);
		call();
		if (r < 0) {
			fail(F_QUOTA, "add_batch: %s", err_name(r));
			goto out;
		}
		for (j = 0; j < 8; j++) {
			if (errs[j] == 0) {
				if (!added++) {
					first = iov[j].iov_len;
					first_n = n - 8 + (unsigned int)j;
				}
			} else if (errs[j] == -EDQUOT)
				hit = 1;
			else
				fail(F_QUOTA, "add_batch key %d: %s", j,
				     err_name(errs[j]));
		}
	}
	if (!hit) {
		fail(F_QUOTA, "uid %d added %u keys without -EDQUOT", (int)getuid(),
		     added);
		goto out;
	}
	atomic_fetch_add(&sh->edquot, 1);
	atomic_fetch_add(&sh->quota_keys, added);
	if (module_info(&mi) || mi.user_key_bytes > mi.user_max_key_bytes)
		fail(F_QUOTA, "usage %llu above the budget %llu",
		     (unsigned long long)mi.user_key_bytes,
		     (unsigned long long)mi.user_max_key_bytes);
	/* a refused add of any kind changes nothing */
	wq_stat(fds[0], &st0);
	len = quota_key(buf, n++, WQ_KEY_MAX);
	r = wq_add(fds[0], buf, len);
	call();
	if (r != -EDQUOT)
		fail(F_QUOTA, "add over the budget: %s", err_name(r));
	r = wq_add_after(fds[0], buf, len, 1000000);
	call();
	if (r != -EDQUOT)
		fail(F_QUOTA, "add_after over the budget: %s", err_name(r));
	r = wq_add_rate_limited(fds[0], buf, len, NULL);
	call();
	if (r != -EDQUOT)
		fail(F_QUOTA, "add_rate_limited over the budget: %s", err_name(r));
	r = wq_add_wait(fds[1], buf, len, 5);
	call();
	if (r != -EDQUOT)
		fail(F_QUOTA, "add_wait over the budget (other queue): %s",
		     err_name(r));
	atomic_fetch_add(&sh->edquot, 4);
	wq_stat(fds[0], &st1);
	if (st1.keys != st0.keys || st1.queued != st0.queued ||
	    st1.waiting != st0.waiting)
		fail(F_QUOTA, "refused adds changed the queue: keys %u -> %u, queued %u -> %u",
		     st0.keys, st1.keys, st0.queued, st1.queued);
	/* a key the queue holds costs nothing more */
	if (first) {
		len = quota_key(buf, first_n, first);
		r = wq_add(fds[0], buf, len);
		call();
		if (r)
			fail(F_QUOTA, "add of a key the queue holds: %s", err_name(r));
	}
	/* a done gives room back for a key no longer than the one done */
	g = wq_get(fds[0], buf, sizeof(buf), 0);
	call();
	if (g <= 0) {
		fail(F_QUOTA, "get: %s", err_name((int)g));
		goto out;
	}
	r = wq_done(fds[0], buf, (size_t)g);
	call();
	if (r)
		fail(F_QUOTA, "done: %s", err_name(r));
	len = quota_key(buf, n++, (size_t)g);
	r = wq_add(fds[0], buf, len);
	call();
	if (r)
		fail(F_QUOTA, "add after a done gave room back: %s", err_name(r));
out:
	for (j = 0; j < nq; j++) {
		snprintf(name, sizeof(name), "soak.%d.%u.u%d", (int)getppid(),
			 round_no, j);
		r = wq_destroy(name);
		call();
		if (r)
			fail(F_QUOTA, "destroy %s: %s", name, err_name(r));
		wq_close(fds[j]);
		call();
	}
	usage_is(0, 0, "after destroying its queues");
	return 0;
}

/* ---- the parent ------------------------------------------------------ */

struct totals {
	unsigned int rounds, queues, unpriv_queues, kills, destroys, patient;
	unsigned int passed, passed_scm;	/* pidfd_getfd, SCM_RIGHTS */
	unsigned int ends[END_NR], cancelled, early, blocked[BLOCK_NR];
	unsigned int cut_discard, reused, detached;
	uint64_t gets, dones, adds, afters, rls, delayed, refused, shut;
	uint64_t back, batches, discarded, dropped_delayed, dquot;
	uint64_t excused, timedout, intr, signals, cross;
};

static struct totals tot;

static void pick_queue(struct squeue *q, unsigned int i)
{
	static const unsigned int nkeys[] = { 8, 32, 128, 512, 2048 };
	static const unsigned int modes[] = { 0600, 0644, 0666, 0622 };

	snprintf(q->name, sizeof(q->name), "soak.%d.%u.%u", (int)getpid(),
		 round_no, i);
	q->nkeys = nkeys[chance(10) ? 4 : rn(4)];
	q->max_items = chance(25) ? q->nkeys / 4 + 1 : 0;
	q->limiter = rn(NLIMITERS);
	q->unpriv = chance(35);
	q->mode = q->unpriv ? (chance(50) ? 0666 : 0660) : modes[rn(4)];
	q->end = (int)rn(END_NR);
	q->destroy_early = chance(25);
}

static int create_queue(struct squeue *q)
{
	struct wq_attr attr = {
		.limiter = limiters[q->limiter],
		.max_items = q->max_items,
		.mode = q->mode,
	};

	return wq_create(q->name, &attr);
}

/* uid 1000 creates the round's queues it owns (one child for all). */
static int owner_main(struct child *c)
{
	struct round *rd = &sh->rd;
	int i, fd;

	(void)c;
	if (drop_to(UID_OWNER))
		return 3;
	usage_is(0, 0, "before creating its queues");
	for (i = 0; i < rd->nq; i++) {
		if (!rd->q[i].unpriv)
			continue;
		fd = create_queue(&rd->q[i]);
		call();
		if (fd < 0) {
			fail(F_RESULT, "uid %d: create %s: %s", UID_OWNER,
			     rd->q[i].name, err_name(fd));
			return 1;
		}
		close(fd);
	}
	return 0;
}

static uint32_t next_id = 1;

static void child_init(struct child *c, uint32_t nids, int qi, uid_t uid)
{
	memset(c, 0, sizeof(*c));
	c->to[0] = c->to[1] = c->from[0] = c->from[1] = -1;
	c->id = nids ? next_id : 0;
	c->qi = qi;
	c->uid = uid;
	c->nthreads = (int)nids;
	while (nids--)
		atomic_store(&sh->rd.w[next_id++].state, W_ALIVE);
}

/*
 * The idle queue: where victims wait when they are killed. Full
 * (max_items) and empty: IDLE_WAITING keys wait a minute, one is
 * processing (the parent's), nothing is queued.
 */
#define IDLE_WAITING	4

static void idle_setup(void)
{
	struct wq_attr attr = {
		.limiter = "none", .max_items = IDLE_WAITING + 1, .mode = 0600,
	};
	char key[16], buf[16];
	int i, r;

	snprintf(sh->rd.idle, WQ_NAME_MAX, "soak.%d.%u.idle", (int)getpid(),
		 round_no);
	idle_fd = wq_create(sh->rd.idle, &attr);
	call();
	if (idle_fd < 0) {
		fprintf(stderr, "wq_soak: create %s: %s\n", sh->rd.idle,
			err_name(idle_fd));
		exit(1);
	}
	for (i = 0; i < IDLE_WAITING; i++) {
		snprintf(key, sizeof(key), "w%d", i);
		r = wq_add_after(idle_fd, key, strlen(key), 60000000000ULL);
		call();
		if (r)
			fail(F_END, "add_after %s: %s", sh->rd.idle, err_name(r));
	}
	r = wq_add(idle_fd, "held", 4);
	call();
	if (r)
		fail(F_END, "add %s: %s", sh->rd.idle, err_name(r));
	r = (int)wq_get(idle_fd, buf, sizeof(buf), 0);
	call();
	if (r != 4)
		fail(F_END, "get %s: %s", sh->rd.idle, err_name(r));
}

/*
 * Once its victims are dead: as it was (or drained by one), then
 * destroyed and closed as it is, its waiting keys' timers armed and a key
 * processing: freed with them.
 */
static void idle_abandon(int drained)
{
	struct wq_stats st;
	int r = wq_stat(idle_fd, &st);

	call();
	if (r || st.queued || st.processing != 1 ||
	    st.waiting != (drained ? 0 : IDLE_WAITING) ||
	    st.keys != st.waiting + 1 || st.handles != 1 ||
	    st.shutting_down != drained || st.draining)
		fail(F_KILL, "%s after its victims: %s queued %u processing %u waiting %u keys %u handles %u shutting_down %d draining %d",
		     sh->rd.idle, err_name(r), st.queued, st.processing,
		     st.waiting, st.keys, st.handles, st.shutting_down,
		     st.draining);
	r = wq_destroy(sh->rd.idle);
	call();
	if (r)
		fail(F_END, "destroy %s: %s", sh->rd.idle, err_name(r));
	r = wq_close(idle_fd);
	call();
	if (r)
		fail(F_END, "close %s: %s", sh->rd.idle, err_name(r));
	idle_fd = -1;
	r = wq_open(sh->rd.idle);
	call();
	if (r != -ENOENT)
		fail(F_END, "open %s after its destroy and close: %s",
		     sh->rd.idle, err_name(r));
}

/* Whether a process sleeps (state S: in its blocking call, or pause). */
static int sleeping(pid_t pid)
{
	char path[64], buf[256], *p;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	p = strrchr(buf, ')');
	return p && p[1] == ' ' && p[2] == 'S';
}

/* A victim: let it take keys, SIGKILL it, reap it, mark its keys. */
static void kill_victim(struct child *v)
{
	struct squeue *q = &sh->rd.q[v->qi];
	uint32_t held = 0, cur, marked = 0, det, done = 0;
	char key[WQ_KEY_MAX];
	unsigned int i;
	int status;

	send_u32(v->to[1], 1);
	if (recv_u32(v->from[0], &held, 20000)) {
		fail(F_KILL, "victim on %s did not report its keys", q->name);
		held = 0;
	}
	det = held >> 16;
	held &= 0xffff;
	/* asleep in its call (a drain: seen draining) */
	for (i = 0; i < 2000; i++) {
		struct wq_stats st;

		if (sleeping(v->pid) && (v->block != BLOCK_DRAIN ||
		    (!wq_stat(idle_fd, &st) && st.draining)))
			break;
		sleep_ms(1);
	}
	if (i == 2000)
		fail(F_KILL, "victim %d not asleep in %s after 2 s", (int)v->pid,
		     block_name[v->block]);
	sleep_ms((int)rn(30));
	/* before the kill: its keys may be back before kill() returns */
	atomic_store(&sh->rd.w[v->id].state, W_KILLED);
	kill(v->pid, SIGKILL);
	if (waitpid(v->pid, &status, 0) != v->pid || !WIFSIGNALED(status) ||
	    WTERMSIG(status) != SIGKILL)
		fail(F_KILL, "victim %d: wait status %#x", (int)v->pid, status);
	v->pid = 0;
	close_child_pipes(v);
	atomic_store(&sh->rd.w[v->id].state, W_REAPED);
	for (i = 0; i < q->nkeys; i++) {
		struct keyrec *k = &q->key[i];
		int r;

		cur = v->id;
		if (!atomic_load(&k->detached)) {
			if (atomic_compare_exchange_strong(&k->holder, &cur,
							   HOLDER_BACK))
				marked++;
			continue;
		}
		/* detached: still processing, until some handle's done */
		if (!atomic_compare_exchange_strong(&k->holder, &cur, PARENT_ID)) {
			fail(F_KILL, "%s key %u: detached by a killed consumer, now held by %u",
			     q->name, i, cur);
			continue;
		}
		atomic_store(&k->detached, 0);
		release(q, i);
		r = wq_done(pfd[v->qi], key, make_key(key, (unsigned int)v->qi, i));
		call();
		if (r)
			fail(F_KILL, "done %s of a key a killed consumer got detached: %s",
			     q->name, err_name(r));
		else
			atomic_fetch_add(&q->c.dones, 1);
		after_done(q, i);
		done++;
	}
	if (marked > held || done != det)
		fail(F_KILL, "victim held %u keys (%u marked), %u detached (%u done)",
		     held, marked, det, done);
	tot.detached += det;
	atomic_fetch_add(&q->c.back, held);
	tot.kills++;
	tot.blocked[v->block]++;
	if (verbose)
		printf("# round %u: killed a consumer of %s holding %u keys (%u not yet taken again)\n",
		       round_no, q->name, held, marked);
}

static int drain_fd = -1;

/*
 * The drain another process waits in while the parent shuts down, on a
 * handle it inherits (the queue may have been destroyed already).
 */
static int drainer_main(struct child *c)
{
	int fd = drain_fd, r;

	ready(c);
	r = wq_shutdown_with_drain(fd, 60000);
	call();
	send_u32(c->from[1], (uint32_t)r);
	close(fd);
	return 0;
}

static void end_cancel(int qi, int64_t *discard_ret)
{
	struct squeue *q = &sh->rd.q[qi];
	struct child d;
	uint32_t v, res;
	int r;

	child_init(&d, 0, qi, 0);
	drain_fd = dup(pfd[qi]);
	r = spawn(&d, "drainer", drainer_main);
	close(drain_fd);
	if (r) {
		fail(F_END, "fork: %s", strerror(-r));
		return;
	}
	if (recv_u32(d.from[0], &v, 20000))
		fail(F_END, "drainer of %s not ready", q->name);
	sleep_ms(5 + (int)rn(20));
	if (chance(50)) {
		r = wq_shutdown(pfd[qi]);
		call();
		if (r)
			fail(F_END, "shutdown %s under a drain: %s", q->name,
			     err_name(r));
	} else {
		atomic_store(&q->discarding, 1);
		r = wq_shutdown_discard(pfd[qi]);
		call();
		if (r < 0)
			fail(F_END, "shutdown_discard %s under a drain: %s",
			     q->name, err_name(r));
		*discard_ret = r < 0 ? 0 : r;
		tot.cut_discard++;
	}
	if (recv_u32(d.from[0], &res, 70000)) {
		fail(F_END, "drain of %s did not return after a shutdown", q->name);
	} else {
		r = (int)res;
		if (r == -ECANCELED)
			tot.cancelled++;
		else if (r)
			fail(F_END, "drain of %s under a shutdown: %s (0 or -ECANCELED)",
			     q->name, err_name(r));
	}
	reap(&d, 20000);
}

static void end_one(int qi, int64_t *discard_ret)
{
	struct squeue *q = &sh->rd.q[qi];
	int r;

	*discard_ret = -1;
	atomic_store(&q->ending, 1);
	if (q->end == END_CANCEL) {
		end_cancel(qi, discard_ret);
	} else if (q->end == END_DRAIN) {
		r = wq_shutdown_with_drain(pfd[qi], 60000);
		call();
		if (r)
			fail(F_END, "shutdown_with_drain %s: %s", q->name, err_name(r));
	} else if (q->end == END_SHUTDOWN) {
		r = wq_shutdown(pfd[qi]);
		call();
		if (r)
			fail(F_END, "shutdown %s: %s", q->name, err_name(r));
		r = wq_shutdown(pfd[qi]);
		call();
		if (r)
			fail(F_END, "second shutdown %s: %s", q->name, err_name(r));
	} else {
		atomic_store(&q->discarding, 1);
		r = wq_shutdown_discard(pfd[qi]);
		call();
		if (r < 0)
			fail(F_END, "shutdown_discard %s: %s", q->name, err_name(r));
		*discard_ret = r < 0 ? 0 : r;
		r = wq_shutdown_discard(pfd[qi]);
		call();
		if (r)
			fail(F_END, "second shutdown_discard %s: %s, not 0", q->name,
			     err_name(r));
	}
	r = wq_shutting_down(pfd[qi]);
	call();
	if (r != 1)
		fail(F_END, "shutting_down %s after its end: %s", q->name,
		     err_name(r));
	tot.ends[q->end]++;
}

/* Whatever is still queued once the consumers left (none should be). */
static unsigned int sweep(int qi)
{
	struct squeue *q = &sh->rd.q[qi];
	char buf[WQ_KEY_MAX];
	unsigned int n = 0;

	for (;;) {
		ssize_t r = wq_get(pfd[qi], buf, sizeof(buf), 0);
		int i;

		call();
		if (r == -ESHUTDOWN)
			break;
		if (r <= 0) {
			fail(F_END, "get %s after its end: %s", q->name,
			     err_name((int)r));
			break;
		}
		n++;
		i = key_index(buf, (size_t)r, (unsigned int)qi);
		if (i < 0) {
			fail(F_RESULT, "%s handed out a key that is not ours", q->name);
			atomic_fetch_add(&q->c.gets, 1);
		} else {
			take(q, (unsigned int)i);
			release(q, (unsigned int)i);
		}
		r = wq_done(pfd[qi], buf, (size_t)r);
		call();
		if (r)
			fail(F_RESULT, "done %s: %s", q->name, err_name((int)r));
		else
			atomic_fetch_add(&q->c.dones, 1);
	}
	return n;
}

#define EXPECT_EQ(what, a, b) do {					\
	if ((uint64_t)(a) != (uint64_t)(b))				\
		fail(F_COUNT, "%s %s: queue %llu, clients %llu", q->name, \
		     what, (unsigned long long)(a),			\
		     (unsigned long long)(b));				\
} while (0)

/* The round's checks of queue qi, then its destroy and close. */
static void check_queue(int qi, int64_t discard_ret)
{
	struct squeue *q = &sh->rd.q[qi];
	struct qcount *c = &q->c;
	uint64_t gets = atomic_load(&c->gets);
	unsigned int i, lost = 0, excused = 0, delayed = 0, held = 0, back = 0;
	struct wq_metrics m;
	struct wq_stats st;
	int r;

	r = wq_stat(pfd[qi], &st);
	call();
	if (r)
		fail(F_END, "stat %s: %s", q->name, err_name(r));
	r = wq_metrics(pfd[qi], &m);
	call();
	if (r)
		fail(F_END, "metrics %s: %s", q->name, err_name(r));
	/* every key accounted for */
	for (i = 0; i < q->nkeys; i++) {
		struct keyrec *k = &q->key[i];
		uint32_t h = atomic_load(&k->holder);
		uint64_t la = atomic_load(&k->last_add);
		uint64_t lg = atomic_load(&k->last_get);

		if (h != HOLDER_NONE && h != HOLDER_BACK) {
			held++;
			fail(F_LOST, "%s key %u still held by worker %u at the end",
			     q->name, i, h);
			continue;
		}
		if (h == HOLDER_BACK)
			back++;
		if (!(la && (la >> 1) > lg) && h != HOLDER_BACK)
			continue;
		if (discard_ret >= 0) {
			if (atomic_load(&k->excused))
				excused++;
			else
				lost++;
		} else if (h == HOLDER_BACK) {
			fail(F_KILL, "%s key %u: put back by a closing handle, never handed out again",
			     q->name, i);
		} else if (la & 1) {
			delayed++;
		} else {
			fail(F_LOST, "%s key %u: last added at seq %llu, last handed out at %llu",
			     q->name, i, (unsigned long long)(la >> 1),
			     (unsigned long long)lg);
		}
	}
	/* (a drain before a discard may have dropped waiting keys too) */
	if (discard_ret >= 0 && lost > m.discarded_total)
		fail(F_LOST, "%s: %u keys never handed out after their last add, %llu dropped",
		     q->name, lost, (unsigned long long)m.discarded_total);
	if (delayed > m.discarded_total)
		fail(F_LOST, "%s: %u keys last added with a delay never handed out, %llu dropped",
		     q->name, delayed, (unsigned long long)m.discarded_total);
	/* the queue's gauges: nothing left */
	if (st.queued || st.processing || st.waiting || st.dirty || st.keys ||
	    !st.shutting_down || st.draining || st.handles != 1 ||
	    st.unlinked != (q->destroy_early ? 1 : 0) || m.depth || m.queued ||
	    m.processing || m.waiting)
		fail(F_COUNT, "%s at the end: queued %u processing %u waiting %u dirty %u keys %u shutting_down %d draining %d handles %u unlinked %d depth %llu",
		     q->name, st.queued, st.processing, st.waiting, st.dirty,
		     st.keys, st.shutting_down, st.draining, st.handles,
		     st.unlinked, (unsigned long long)m.depth);
	/* the queue's counters against the clients' */
	EXPECT_EQ("gets (queue_duration count)", m.queue_duration.count, gets);
	EXPECT_EQ("dones (work_duration count)", m.work_duration.count,
		  atomic_load(&c->dones));
	EXPECT_EQ("retries", m.retries_total,
		  atomic_load(&c->afters) + atomic_load(&c->rls));
	EXPECT_EQ("stat retries", st.retries, m.retries_total);
	EXPECT_EQ("stat adds", st.adds, m.adds_total);
	EXPECT_EQ("refused", m.refused_total, atomic_load(&c->refused));
	EXPECT_EQ("requeued on close", m.requeued_on_close_total,
		  atomic_load(&c->back));
	if (discard_ret >= 0) {
		if (q->end == END_DISCARD)
			EXPECT_EQ("discarded", m.discarded_total, discard_ret);
		else if (m.discarded_total < (uint64_t)discard_ret)
			fail(F_COUNT, "%s: discarded_total %llu, the discard dropped %lld",
			     q->name, (unsigned long long)m.discarded_total,
			     (long long)discard_ret);
		if (m.adds_total + m.requeued_on_close_total < gets)
			fail(F_COUNT, "%s: adds %llu + put back %llu < gets %llu",
			     q->name, (unsigned long long)m.adds_total,
			     (unsigned long long)m.requeued_on_close_total,
			     (unsigned long long)gets);
	} else if (m.adds_total > gets ||
		   gets > m.adds_total + m.requeued_on_close_total) {
		/*
		 * Each add that made a key pending is one hand-out, and so is
		 * each key put back that was not pending already (a dirty
		 * key put back was counted by its add).
		 */
		fail(F_COUNT, "%s: gets %llu not within adds %llu .. adds + put back %llu",
		     q->name, (unsigned long long)gets,
		     (unsigned long long)m.adds_total,
		     (unsigned long long)(m.adds_total + m.requeued_on_close_total));
	}
	if (m.adds_total > atomic_load(&c->adds) + atomic_load(&c->afters) +
			   atomic_load(&c->rls))
		fail(F_COUNT, "%s: adds_total %llu above the adds made", q->name,
		     (unsigned long long)m.adds_total);
	tot.dropped_delayed += delayed;
	tot.excused += excused;
	if (discard_ret > 0)
		tot.discarded += (uint64_t)discard_ret;
	if (verbose || held)
		printf("# round %u: %s: %llu gets, %llu dones, adds_total %llu, retries %llu, refused %llu, put back %llu, discarded %llu; %u delayed keys dropped, %u lost to the discard (%u excused), %u put back, %u held\n",
		       round_no, q->name, (unsigned long long)gets,
		       (unsigned long long)atomic_load(&c->dones),
		       (unsigned long long)m.adds_total,
		       (unsigned long long)m.retries_total,
		       (unsigned long long)m.refused_total,
		       (unsigned long long)m.requeued_on_close_total,
		       (unsigned long long)m.discarded_total, delayed, lost,
		       excused, back, held);
	/* destroy, and the name is gone */
	r = wq_destroy(q->name);
	call();
	if (r != (q->destroy_early ? -ENOENT : 0))
		fail(F_END, "destroy %s: %s", q->name, err_name(r));
	r = wq_open(q->name);
	call();
	if (r != -ENOENT)
		fail(F_END, "open %s after its destroy: %s", q->name, err_name(r));
	if (r >= 0)
		close(r);
	r = wq_close(pfd[qi]);
	call();
	if (r)
		fail(F_END, "close %s: %s", q->name, err_name(r));
	pfd[qi] = -1;
	tot.destroys++;
}

static void add_totals(const struct qcount *c)
{
	tot.gets += atomic_load(&c->gets);
	tot.dones += atomic_load(&c->dones);
	tot.adds += atomic_load(&c->adds);
	tot.afters += atomic_load(&c->afters);
	tot.rls += atomic_load(&c->rls);
	tot.delayed += atomic_load(&c->delayed);
	tot.refused += atomic_load(&c->refused);
	tot.shut += atomic_load(&c->shut);
	tot.back += atomic_load(&c->back);
	tot.batches += atomic_load(&c->batches);
	tot.dquot += atomic_load(&c->dquot);
	tot.timedout += atomic_load(&c->timedout);
	tot.intr += atomic_load(&c->intr);
	tot.cross += atomic_load(&c->cross);
}

/* Sleeps until ms after t0, returning early at the round's end. */
/*
 * Keys queued while nobody takes any for STALL_MS: consumers asleep in
 * their gets with keys queued (a lost wake-up), or stuck elsewhere.
 */
#define STALL_MS	5000

static struct {
	uint64_t gets[MAXQ];
	int64_t since[MAXQ];
	int reported[MAXQ];
	int64_t adding[MAXW], room_since[MAXW];
	int wreported[MAXW];
	pid_t sig[2];		/* processes interrupted with SIGUSR1 */
} mon;

static void monitor(void)
{
	struct wq_stats st;
	int64_t now = now_ms();
	int qi, w;

	for (qi = 0; qi < sh->rd.nq; qi++) {
		struct squeue *q = &sh->rd.q[qi];
		uint64_t gets = atomic_load(&q->c.gets);

		if (atomic_load(&q->ending) || wq_stat(pfd[qi], &st) ||
		    !st.queued || gets != mon.gets[qi] || !mon.since[qi]) {
			mon.gets[qi] = gets;
			mon.since[qi] = now;
			continue;
		}
		if (now - mon.since[qi] < STALL_MS || mon.reported[qi])
			continue;
		mon.reported[qi] = 1;
		fail(F_HANG, "%s: %u keys queued, none handed out for %lld ms (processing %u, waiting %u)",
		     q->name, st.queued, (long long)(now - mon.since[qi]),
		     st.processing, st.waiting);
		for (w = 1; w < MAXW; w++) {
			int64_t a = atomic_load(&sh->rd.w[w].asleep);

			if (a)
				fprintf(stderr, "#   worker %d asleep in a get for %lld ms\n",
					w, (long long)(now - a));
		}
	}
	/* room all along, and a producer asleep in add_wait all along */
	for (w = 1; w < MAXW; w++) {
		int64_t a = atomic_load(&sh->rd.w[w].adding);
		int room;

		qi = atomic_load(&sh->rd.w[w].adding_q);
		if (!a || mon.wreported[w] || qi < 0 || qi >= sh->rd.nq) {
			mon.room_since[w] = 0;
			continue;
		}
		room = !wq_stat(pfd[qi], &st) && st.keys < st.max_items &&
		       !st.shutting_down;
		if (!room || mon.adding[w] != a || !mon.room_since[w]) {
			mon.adding[w] = a;
			mon.room_since[w] = room ? now : 0;
			continue;
		}
		if (now - mon.room_since[w] < STALL_MS)
			continue;
		mon.wreported[w] = 1;
		fail(F_HANG, "%s: worker %d asleep in add_wait for %lld ms, room (%u of %u keys held) for %lld ms",
		     sh->rd.q[qi].name, w, (long long)(now - a), st.keys,
		     st.max_items, (long long)(now - mon.room_since[w]));
	}
	/* interrupt some waits */
	for (w = 0; w < 2; w++)
		if (mon.sig[w] > 0 && chance(30) && !kill(mon.sig[w], SIGUSR1))
			tot.signals++;
}

/* Sleeps until ms after t0, watching the queues. */
static void until(int64_t t0, int64_t ms)
{
	int64_t d;

	while ((d = t0 + ms - now_ms()) > 0) {
		sleep_ms(d < 100 ? (int)d : 100);
		monitor();
	}
}

/*
 * The objects in use in wq's record cache (after a shrink, which also
 * empties KASAN's quarantine of it), or -1 where /proc/slabinfo cannot
 * say.
 */
static long wq_items(void)
{
	char line[256], name[64];
	long active = -1, v;
	FILE *f;

	f = fopen("/sys/kernel/slab/wq_item/shrink", "w");
	if (f) {
		fputs("1\n", f);
		fclose(f);
	}
	f = fopen("/proc/slabinfo", "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%63s %ld", name, &v) == 2 &&
		    !strcmp(name, "wq_item"))
			active = v;
	fclose(f);
	return active;
}

static long items0 = -1;	/* wq_items() at the start */

/* After a round: every record freed (a few tries: frees may trail). */
static void check_items(void)
{
	long n = -1;
	int i;

	if (items0 < 0)
		return;
	for (i = 0; i < 20; i++) {
		n = wq_items();
		if (n == items0)
			return;
		sleep_ms(50);
	}
	fail(F_MEM, "wq_item: %ld objects in use after the round, %ld at the start",
	     n, items0);
}

/*
 * A queue destroyed but still open: its name makes a new queue, which is
 * another one (the old handles stay on the old queue).
 */
static void reuse_name(struct squeue *q)
{
	struct wq_stats st = { .queued = 0 };
	int fd, fd2, r;

	fd = wq_create(q->name, NULL);
	call();
	if (fd < 0) {
		fail(F_END, "create %s again after its destroy: %s", q->name,
		     err_name(fd));
		return;
	}
	r = wq_add(fd, "reused", 6);
	call();
	fd2 = wq_open(q->name);
	call();
	if (r || fd2 < 0 || wq_stat(fd2, &st) || st.queued != 1 || st.unlinked ||
	    st.handles != 2)
		fail(F_END, "%s created again: add %s, open %s, queued %u handles %u unlinked %d",
		     q->name, err_name(r), err_name(fd2), st.queued, st.handles,
		     st.unlinked);
	r = wq_destroy(q->name);
	call();
	if (r)
		fail(F_END, "destroy %s again: %s", q->name, err_name(r));
	if (fd2 >= 0)
		wq_close(fd2);
	wq_close(fd);
	tot.reused++;
}

/* The round's children, by role. */
enum {
	C_PROD0, C_PROD1, C_CONS0, C_CONS1, C_CONS2, C_PASS, C_RECV, C_QUOTA,
	C_VICTIM, C_NR = C_VICTIM + MAXV
};

static void run_round(int duration_ms)
{
	struct round *rd = &sh->rd;
	struct child ch[C_NR];
	int64_t t0, discard_ret[MAXQ];
	uint64_t calls0 = atomic_load(&sh->calls);
	uint64_t fails0 = 0, fails1 = 0;
	unsigned int nvictims, i, nready = 0, unpriv = 0;
	uint32_t v;
	int qi, r, k;
	char line[512];
	size_t off = 0;

	for (k = 0; k < F_NR; k++)
		fails0 += atomic_load(&sh->fails[k]);
	memset(rd, 0, sizeof(*rd));
	seed_rng(0);
	next_id = 1;
	atomic_store(&rd->w[PARENT_ID].state, W_ALIVE);
	memset(&mon, 0, sizeof(mon));
	rd->patient = chance(25);
	rd->nq = rd->patient ? 1 : 1 + (int)rn(MAXQ);
	for (qi = 0; qi < rd->nq; qi++) {
		pick_queue(&rd->q[qi], (unsigned int)qi);
		unpriv += (unsigned int)rd->q[qi].unpriv;
	}
	/* the queues: root's by the parent, uid 1000's by a child */
	for (qi = 0; qi < rd->nq; qi++) {
		if (rd->q[qi].unpriv)
			continue;
		pfd[qi] = create_queue(&rd->q[qi]);
		call();
		if (pfd[qi] < 0) {
			fail(F_RESULT, "create %s: %s", rd->q[qi].name,
			     err_name(pfd[qi]));
			exit(1);
		}
	}
	if (unpriv) {
		child_init(&ch[0], 0, 0, UID_OWNER);
		if (spawn(&ch[0], "owner", owner_main) || reap(&ch[0], 30000))
			exit(1);
		for (qi = 0; qi < rd->nq; qi++) {
			if (!rd->q[qi].unpriv)
				continue;
			pfd[qi] = wq_open(rd->q[qi].name);
			call();
			if (pfd[qi] < 0) {
				fail(F_RESULT, "open %s: %s", rd->q[qi].name,
				     err_name(pfd[qi]));
				exit(1);
			}
		}
	}
	for (qi = 0; qi < rd->nq; qi++)
		check_stat(pfd[qi], &rd->q[qi]);

	/* the workers */
	memset(ch, 0, sizeof(ch));
	child_init(&ch[C_PROD0], 1, -1, 0);
	child_init(&ch[C_PROD1], 1, -1, chance(40) ? UID_OWNER : 0);
	child_init(&ch[C_CONS0], 2, -1, 0);
	child_init(&ch[C_CONS1], 1, -1, 0);
	child_init(&ch[C_CONS2], 1, -1, chance(40) ? UID_OWNER : 0);
	child_init(&ch[C_PASS], 1, (int)rn((uint32_t)rd->nq), 0);
	child_init(&ch[C_RECV], 1, -1, 0);
	child_init(&ch[C_QUOTA], 0, -1, UID_QUOTA + round_no % 2);
	nvictims = 1 + rn(MAXV);
	for (i = 0; i < MAXV; i++) {
		child_init(&ch[C_VICTIM + i], 1, (int)rn((uint32_t)rd->nq), 0);
		ch[C_VICTIM + i].block = (int)rn(i + 1 == nvictims ? BLOCK_NR :
						  BLOCK_DRAIN);
	}
	idle_setup();
	passer_id = ch[C_PASS].id;
	/* SCM_RIGHTS and pidfd_getfd in turn (the first where it works) */
	pass_scm = round_no % 2 && !socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC,
					       0, pass_chan);
	if ((!pass_scm && pipe2(pass_chan, O_CLOEXEC)) || pipe2(pass_ack, O_CLOEXEC)) {
		fprintf(stderr, "wq_soak: pipe: %s\n", strerror(errno));
		exit(1);
	}
	r = spawn(&ch[C_PROD0], "producer", producer_main);
	r = r ?: spawn(&ch[C_PROD1], "producer", producer_main);
	r = r ?: spawn(&ch[C_CONS0], "consumer", consumer_main);
	r = r ?: spawn(&ch[C_CONS1], "consumer", consumer_main);
	if (ch[C_CONS2].uid)
		r = r ?: spawn(&ch[C_CONS2], "consumer", consumer_main);
	r = r ?: spawn(&ch[C_PASS], "passer", passer_main);
	r = r ?: spawn(&ch[C_RECV], "receiver", receiver_main);
	r = r ?: spawn(&ch[C_QUOTA], "quota user", quota_main);
	for (i = 0; i < nvictims; i++)
		r = r ?: spawn(&ch[C_VICTIM + i], "victim", victim_main);
	close(pass_chan[0]);
	close(pass_chan[1]);
	close(pass_ack[0]);
	close(pass_ack[1]);
	if (r) {
		fprintf(stderr, "wq_soak: fork: %s\n", strerror(-r));
		exit(1);
	}
	mon.sig[0] = ch[C_PROD0].pid;
	mon.sig[1] = ch[C_CONS1].pid;
	for (k = 0; k < C_NR; k++) {
		if (!ch[k].pid)
			continue;
		if (recv_u32(ch[k].from[0], &v, 30000))
			fail(F_HANG, "%s not ready", ch[k].what);
		else
			nready++;
	}
	t0 = now_ms();
	atomic_store(&rd->go, 1);

	/* the middle: kills, a passed handle, destroys */
	for (i = 0; i < nvictims; i++) {
		until(t0, duration_ms * (2 + (int)i) / 10);
		kill_victim(&ch[C_VICTIM + i]);
	}
	idle_abandon(ch[C_VICTIM + nvictims - 1].block == BLOCK_DRAIN);
	until(t0, duration_ms / 2);
	send_u32(ch[C_PASS].to[1], 1);
	for (qi = 0; qi < rd->nq; qi++) {
		struct wq_stats st;

		if (!rd->q[qi].destroy_early)
			continue;
		r = wq_destroy(rd->q[qi].name);
		call();
		if (r)
			fail(F_END, "destroy %s in mid-round: %s", rd->q[qi].name,
			     err_name(r));
		r = wq_open(rd->q[qi].name);
		call();
		if (r != -ENOENT)
			fail(F_END, "open %s after its destroy: %s",
			     rd->q[qi].name, err_name(r));
		r = wq_stat(pfd[qi], &st);
		call();
		if (r || !st.unlinked)
			fail(F_END, "stat %s after its destroy: %s, unlinked %d",
			     rd->q[qi].name, err_name(r), r ? -1 : st.unlinked);
		tot.early++;
		if (chance(50))
			reuse_name(&rd->q[qi]);
	}
	reap(&ch[C_PASS], 30000);
	if (recv_u32(ch[C_RECV].from[0], &v, 60000))
		fail(F_PASS, "the receiver did not report");
	else if (pass_scm)
		tot.passed_scm++;
	else
		tot.passed++;
	reap(&ch[C_RECV], 30000);

	/* the end */
	until(t0, duration_ms);
	for (qi = 0; qi < rd->nq; qi++)
		end_one(qi, &discard_ret[qi]);
	mon.sig[0] = mon.sig[1] = 0;
	atomic_store(&rd->stop, 1);
	reap(&ch[C_PROD0], 30000);
	reap(&ch[C_PROD1], 30000);
	reap(&ch[C_QUOTA], 60000);
	atomic_store(&rd->over, 1);
	reap(&ch[C_CONS0], 60000);
	reap(&ch[C_CONS1], 60000);
	reap(&ch[C_CONS2], 60000);
	for (k = 0; k < C_NR; k++)
		if (ch[k].pid)
			reap(&ch[k], 1000);
	for (qi = 0; qi < rd->nq; qi++) {
		i = sweep(qi);
		if (i && verbose)
			printf("# round %u: %s: %u keys left after the consumers\n",
			       round_no, rd->q[qi].name, i);
	}
	for (qi = 0; qi < rd->nq; qi++) {
		check_queue(qi, discard_ret[qi]);
		add_totals(&rd->q[qi].c);
	}
	check_items();
	tot.rounds++;
	tot.queues += (unsigned int)rd->nq;
	tot.unpriv_queues += unpriv;

	for (k = 0; k < F_NR; k++)
		fails1 += atomic_load(&sh->fails[k]);
	for (qi = 0; qi < rd->nq; qi++) {
		struct squeue *q = &rd->q[qi];

		off += (size_t)snprintf(line + off, sizeof(line) - off,
				"%s%s%s %u keys%s %o '%s' %s%s", qi ? "; " : "",
				q->unpriv ? "uid 1000 " : "", q->name + 5, q->nkeys,
				q->max_items ? " (max_items small)" : "", q->mode,
				limiters[q->limiter], end_name[q->end],
				q->destroy_early ? " (destroyed early)" : "");
		if (off >= sizeof(line))
			break;
	}
	printf("# round %u: %.1f s, %llu calls, %u kills, %u workers%s: %s%s\n",
	       round_no, (double)(now_ms() - t0) / 1000,
	       (unsigned long long)(atomic_load(&sh->calls) - calls0), nvictims,
	       nready, rd->patient ? " (waiting without timeouts)" : "", line,
	       fails1 != fails0 ? " -- FAILED" : "");
	tot.patient += (unsigned int)rd->patient;
	fflush(stdout);
}

static unsigned long saved_queues, saved_bytes;

static void restore_params(void)
{
	if (saved_queues)
		wqt_param_set("user_max_queues", saved_queues);
	if (saved_bytes)
		wqt_param_set("user_max_key_bytes", saved_bytes);
}

static void usage(void)
{
	fprintf(stderr, "usage: wq_soak [-t SECONDS] [-s SEED] [-r ROUNDS] [-v]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	unsigned long seconds = 600, max_rounds = 0;
	int64_t start, end;
	uint64_t nfail = 0;
	int opt, k;

	while ((opt = getopt(argc, argv, "t:s:r:v")) != -1) {
		switch (opt) {
		case 't':
			seconds = strtoul(optarg, NULL, 0);
			break;
		case 's':
			seed = strtoull(optarg, NULL, 0);
			break;
		case 'r':
			max_rounds = strtoul(optarg, NULL, 0);
			break;
		case 'v':
			verbose = 1;
			break;
		default:
			usage();
		}
	}
	if (!seed) {
		struct timespec ts;

		clock_gettime(CLOCK_REALTIME, &ts);
		seed = (uint64_t)ts.tv_sec * 1000000007ULL ^ (uint64_t)ts.tv_nsec ^
		       (uint64_t)getpid() << 32;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	self_id = PARENT_ID;
	printf("TAP version 13\n");
	if (max_rounds)
		printf("# wq_soak: seed %llu, %lu rounds\n",
		       (unsigned long long)seed, max_rounds);
	else
		printf("# wq_soak: seed %llu, %lu s\n", (unsigned long long)seed,
		       seconds);
	if (geteuid() != 0) {
		printf("1..0 # SKIP needs root\n");
		return 4;
	}
	if (access(WQ_DEV_PATH, F_OK)) {
		printf("1..0 # SKIP %s missing (module not loaded)\n", WQ_DEV_PATH);
		return 4;
	}
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED)
		return 1;
	signal(SIGPIPE, SIG_IGN);
	umask(0);	/* the modes asked are the modes the queues get */
	saved_queues = wqt_param_get("user_max_queues");
	saved_bytes = wqt_param_get("user_max_key_bytes");
	if (wqt_param_set("user_max_queues", QUOTA_QUEUES) ||
	    wqt_param_set("user_max_key_bytes", QUOTA_BYTES)) {
		fprintf(stderr, "wq_soak: cannot set the quota parameters\n");
		return 1;
	}
	atexit(restore_params);
	printf("# quotas while running: user_max_queues %u, user_max_key_bytes %lu (were %lu, %lu)\n",
	       QUOTA_QUEUES, QUOTA_BYTES, saved_queues, saved_bytes);

	items0 = wq_items();
	if (items0 < 0)
		printf("# no wq_item in /proc/slabinfo: records are not counted\n");
	start = now_ms();
	end = start + (int64_t)seconds * 1000;
	for (round_no = 1; !max_rounds || round_no <= max_rounds; round_no++) {
		int64_t left = end - now_ms() - 1000;	/* a second for the end */
		unsigned int t;

		seed_rng(7);
		t = 2000 + rn(8000);
		if (max_rounds == 0 && left < 1500)
			break;
		if (max_rounds == 0 && (int64_t)t > left)
			t = (unsigned int)left;
		run_round((int)t);
	}

	for (k = 0; k < F_NR; k++)
		nfail += atomic_load(&sh->fails[k]);
	printf("# %u rounds in %.0f s (%u with consumers waiting without timeouts), seed %llu: %u queues (%u created by uid %d, %u destroyed in mid-round), %llu calls\n",
	       tot.rounds, (double)(now_ms() - start) / 1000, tot.patient,
	       (unsigned long long)seed, tot.queues, tot.unpriv_queues, UID_OWNER,
	       tot.early, (unsigned long long)atomic_load(&sh->calls));
	printf("# keys: %llu added (%llu add_after, %llu add_rate_limited, %llu with a delay), %llu handed out, %llu done, %llu batch calls\n",
	       (unsigned long long)(tot.adds + tot.afters + tot.rls),
	       (unsigned long long)tot.afters, (unsigned long long)tot.rls,
	       (unsigned long long)tot.delayed, (unsigned long long)tot.gets,
	       (unsigned long long)tot.dones, (unsigned long long)tot.batches);
	printf("# interrupted: %llu SIGUSR1 sent, %llu calls returned -EINTR\n",
	       (unsigned long long)tot.signals, (unsigned long long)tot.intr);
	printf("# refused: %llu -EAGAIN (max_items), %llu add_wait -ETIMEDOUT, %llu -ESHUTDOWN after a shutdown, %llu -EDQUOT on uid %d's queues\n",
	       (unsigned long long)tot.refused, (unsigned long long)tot.timedout,
	       (unsigned long long)tot.shut, (unsigned long long)tot.dquot,
	       UID_OWNER);
	printf("# kills: %u consumers SIGKILLed holding keys (%u in get, %u in add_wait, %u in shutdown_with_drain, %u in pause), %llu keys put back by closing handles, %u detached keys done by another handle after the kill\n",
	       tot.kills, tot.blocked[BLOCK_GET], tot.blocked[BLOCK_ADD],
	       tot.blocked[BLOCK_DRAIN], tot.blocked[BLOCK_NONE],
	       (unsigned long long)tot.back, tot.detached);
	printf("# handles: %u passed over unix sockets, %u with pidfd_getfd; %llu keys done by another handle than the one that got them\n",
	       tot.passed_scm, tot.passed, (unsigned long long)tot.cross);
	printf("# ends: %u drains, %u shutdowns, %u discards, %u drains cut by a shutdown or (%u) a discard (%u -ECANCELED); %llu keys dropped by discards (%llu more excused), %llu delayed keys by shutdowns; %u destroys (%u names created again while the old queue was open)\n",
	       tot.ends[END_DRAIN], tot.ends[END_SHUTDOWN], tot.ends[END_DISCARD],
	       tot.ends[END_CANCEL], tot.cut_discard, tot.cancelled,
	       (unsigned long long)tot.discarded, (unsigned long long)tot.excused,
	       (unsigned long long)tot.dropped_delayed, tot.destroys, tot.reused);
	printf("# quotas: %llu -EDQUOT hits by uids %d and %d (%llu keys added before the key budget ran out)\n",
	       (unsigned long long)atomic_load(&sh->edquot), UID_QUOTA, UID_QUOTA + 1,
	       (unsigned long long)atomic_load(&sh->quota_keys));

#define TAP(n, cat, ...) do {						\
	printf("%sok %d ", atomic_load(&sh->fails[cat]) ? "not " : "", n); \
	printf(__VA_ARGS__);						\
	if (atomic_load(&sh->fails[cat]))				\
		printf(" (%llu failures)",				\
		       (unsigned long long)atomic_load(&sh->fails[cat])); \
	printf("\n");							\
} while (0)
	TAP(1, F_DOUBLE, "no key held by two consumers at once (%llu hand-outs)",
	    (unsigned long long)tot.gets);
	TAP(2, F_LOST, "every key added before a shutdown handed out after its last add");
	TAP(3, F_KILL, "keys of SIGKILLed consumers and closed handles came back (%u kills, %llu keys)",
	    tot.kills, (unsigned long long)tot.back);
	TAP(4, F_PASS, "handles passed to another process work there (%u by SCM_RIGHTS, %u by pidfd_getfd)",
	    tot.passed_scm, tot.passed);
	TAP(5, F_COUNT, "queue counters match what the clients counted (%u queues)",
	    tot.queues);
	TAP(6, F_END, "shutdowns, drains, discards and destroys as documented");
	TAP(7, F_QUOTA, "unprivileged users hit their quotas (%llu -EDQUOT), usage back to 0",
	    (unsigned long long)atomic_load(&sh->edquot));
	TAP(8, F_RESULT, "every call returned a documented result (%llu calls)",
	    (unsigned long long)atomic_load(&sh->calls));
	TAP(9, F_HANG, "every process finished in time, no queue stalled");
	TAP(10, F_MEM, "wq's record cache back to %ld objects in use after every round",
	    items0);
	printf("1..10\n");
	if (!tot.rounds) {
		printf("# no round ran\n");
		return 1;
	}
	return nfail ? 1 : 0;
}
