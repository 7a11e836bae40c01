/* SPDX-License-Identifier: GPL-2.0 */
/*
 * wq_soak: what its files share. What the soak does, and which file does
 * what, is told at the top of main.c. Here: the limits, the layout of the
 * shared memory (struct shared: the round, its queues, the book-keeping of
 * their keys and what their clients counted), the children, the totals,
 * the globals and the helpers used by more than one file.
 */
#ifndef WQ_SOAK_H
#define WQ_SOAK_H

#include <stdatomic.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/uio.h>

#include "wq.h"
#include "uapi/linux/wq.h"

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

enum fcat {
	F_DOUBLE, F_LOST, F_KILL, F_PASS, F_COUNT, F_END, F_QUOTA, F_RESULT,
	F_HANG, F_MEM, F_URING, F_NR
};

/* Where a victim waits when it is killed (on the round's idle queue). */
enum { BLOCK_NONE, BLOCK_GET, BLOCK_ADD, BLOCK_DRAIN, BLOCK_NR };

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
	uint64_t id;			/* its identity (wq_stat) */
	_Atomic int reopen_now;		/* -x reuse: consumers, open it again */
	_Atomic uint32_t users;		/* consumer threads with a handle of it */
	_Atomic uint32_t reopened;	/* of those, done so since reopen_now */
	/* consumers' opens by name: begun, and over (the handle closed, or
	 * kept because it reached this queue) */
	_Atomic uint64_t reopen_begun, reopen_over;
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
	_Atomic uint64_t relanded;	/* reopens by name that found a new queue */
	_Atomic uint64_t quota_keys;	/* keys they added before it */
	/* uring.c's io_uring workers */
	_Atomic uint64_t ur_adds;	/* keys their adds made pending */
	_Atomic uint64_t ur_gets;	/* keys their gets took */
	_Atomic uint64_t ur_cancels;	/* gets they cancelled */
	_Atomic uint64_t ur_cancelled;	/* gets that completed -ECANCELED */
	struct round rd;
};

/* A forked child: its worker id (the first of nthreads), queue, uid, pipes. */
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

/* A consumer's keys from one get: shared by consumers and victims. */
struct cbuf {
	char buf[BATCH_BUF];
	struct iovec iov[BATCH];
	int idx[BATCH];
	int errs[BATCH];
	char where[384];	/* the get that took them, for failure lines */
};

/* What the parent counted over all rounds: the summary. */
struct totals {
	unsigned int rounds, queues, unpriv_queues, kills, destroys, patient;
	unsigned int passed, passed_scm;	/* pidfd_getfd, SCM_RIGHTS */
	unsigned int ends[END_NR], cancelled, early, blocked[BLOCK_NR];
	unsigned int cut_discard, reused, detached, reopens, reuse_seen;
	uint64_t gets, dones, adds, afters, rls, delayed, refused, shut;
	uint64_t back, batches, discarded, dropped_delayed, dquot;
	uint64_t excused, timedout, intr, signals, cross;
};

/* main.c: the options, the shared memory, the totals */
extern struct shared *sh;
extern unsigned int round_no;
extern uint64_t seed;
extern int verbose;
extern int force_reuse;	/* -x reuse: every round, every queue */
extern int blind;	/* -x blind: ... and no id compared at a reopen */
extern struct totals tot;

/* round.c: the parent's handles of the round's queues */
extern int pfd[MAXQ];
extern int idle_fd;		/* and of the idle queue */
void run_round(int duration_ms);

/* util.c: random choices (per thread), time, failures, small helpers */
extern __thread uint32_t self_id;
uint32_t rn(uint32_t n);
int chance(uint32_t pct);
void seed_rng(uint64_t salt);
int64_t now_ms(void);
void sleep_ms(int ms);
void fail(int cat, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
uint64_t fail_count(void);
void call(void);
uint64_t tick(void);
void atomic_max(_Atomic uint64_t *p, uint64_t v);
const char *err_name(int e);
int drop_to(uid_t uid);
int module_info(struct wq_module_info *mi);
void print_holders(uint64_t id);

/* child.c: workers forked, talked to and waited for */
void catch_signals(void);
void wait_go(void);
void children_reset(void);
void child_init(struct child *c, uint32_t nids, int qi, uid_t uid);
int spawn(struct child *c, const char *what, child_fn fn);
int send_u32(int fd, uint32_t v);
int recv_u32(int fd, uint32_t *v, int timeout_ms);
void close_child_pipes(struct child *c);
int reap(struct child *c, int timeout_ms);
void ready(struct child *c);
void open_all(int *fds, int flags, uid_t uid);

/* keys.c: the keys and their book-keeping */
size_t make_key(char *buf, unsigned int q, unsigned int i);
int key_index(const void *key, size_t len, unsigned int q);
void note_add(struct squeue *q, unsigned int i, uint64_t seq, int delayed);
void take(struct squeue *q, unsigned int i);
void release(struct squeue *q, unsigned int i);
void after_done(struct squeue *q, unsigned int i);
int add_ok(struct squeue *q, int r, const char *what);

/* producer.c */
void check_stat(int fd, struct squeue *q);
int producer_main(struct child *c);

/* consumer.c */
void took(struct squeue *q, int qi, struct cbuf *b, unsigned int n);
int consumer_main(struct child *c);

/* victim.c: victims, and the idle queue they are killed on */
int victim_main(struct child *c);
void idle_setup(void);
void idle_abandon(int drained);
void kill_victim(struct child *v);

/* pass.c: a handle passed to another process */
extern int pass_scm;	/* this round's passes over a unix socket */
void pass_open(uint32_t passer);
void pass_close(void);
int passer_main(struct child *c);
int receiver_main(struct child *c);

/* quota.c: a user filling its budgets */
int usage_is(uint32_t queues, uint64_t bytes, const char *when);
int quota_main(struct child *c);

/* check.c: the end of a queue, its checks, its destroy */
void end_one(int qi, int64_t *discard_ret);
unsigned int sweep(int qi);
void check_queue(int qi, int64_t discard_ret);
void add_totals(const struct qcount *c);

/* uring.c: a producer and a consumer of io_uring commands */
extern int uring_ok;
extern const char *uring_why;
void uring_probe(void);
int uring_producer_main(struct child *c);
int uring_consumer_main(struct child *c);

/* watch.c: stalls watched during a round, wq's record cache after it */
extern long items0;	/* wqt_wq_items() at the start */
void monitor_reset(void);
void monitor_signal(pid_t a, pid_t b);
void until(int64_t t0, int64_t ms);
void check_items(void);

#endif /* WQ_SOAK_H */
