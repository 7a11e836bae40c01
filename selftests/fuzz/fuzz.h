/* SPDX-License-Identifier: GPL-2.0 */
/*
 * wq_fuzz: a seeded ioctl fuzzer for /dev/wq.
 *
 *	wq_fuzz [-s SEED] [-n CALLS] [-p PROCS] [-t THREADS] [-v]
 *
 * PROCS processes (default 4) share four named queues (fuzz.0..3, bound
 * on fds opened before the fork) and their own fds; each runs THREADS
 * threads (default 2) on the same fds (a close races the other thread's
 * calls on that fd), and together they issue CALLS operations (default
 * 100000). Two kinds of ioctls:
 * - live calls (live.c, seven in ten): well formed, on a handle
 *   bound with the access the command needs, with keys of a small pool
 *   that every worker shares and dones of keys the thread holds, so that
 *   they reach the queue and its answers are the queue's (0, -EAGAIN,
 *   -ENOENT, -ESHUTDOWN, -ETIMEDOUT, ...); a queue shut down is now and
 *   then destroyed and made again under its name;
 * - hostile calls (hostile.c): every WQ_IOC_* command (and random numbers
 *   in the same magic), with boundary _IOC_SIZEs (0, min-1, min, full,
 *   full+8 with a zero and a non-zero tail, huge), random flag bits and
 *   reserved fields, key lengths 0/1/4096/4097/huge, bad pointers (NULL,
 *   unmapped, kernel-looking, a PROT_NONE page, buffers ending at a guard
 *   page or straddling it), random deadlines (0, past, now+small, NONE,
 *   beyond KTIME_MAX), on any fd;
 * - own calls (own.c, one live call in sixteen): each thread's own
 *   private queues, one by priority and one plain, that nothing else
 *   reaches, checked call by call against a model of the queue;
 * - io_uring commands (uring.c, uring_cmds.c; one call in seven where the
 *   module has WQ_FEATURE_URING): a ring with SQE128 per thread, live and
 *   hostile IORING_OP_URING_CMD submissions (the six commands, and others,
 *   with boundary sizes, unknown tails, mangled SQE fields, on any fd),
 *   cancels of commands in flight, teardowns of the ring with gets
 *   outstanding, commands through a ring without SQE128; counted and
 *   checked as the ioctls are, in rows of their own;
 * and other operations (ops.c): poll, close/dup/reopen, forks killed
 * mid-way, SIGALRM interrupting blocking calls, a child holding keys on
 * its own handle SIGKILLed. fuzz.2 and fuzz.3 hand out by priority (fuzz.3
 * with starvation bounded), as do some slots' private queues. Every blocking call runs under a periodic
 * per-thread timer (SIGALRM to that thread), so none outlives a few
 * milliseconds; a watchdog in the parent fails the run if a worker makes
 * no progress for 120 s.
 *
 * Checks (cmds.c): every ioctl returns >= 0 or an errno that
 * uapi/linux/wq.h documents for its command (the table cmds[]; a number
 * that is no command, and any number on a file that is not /dev/wq, gets
 * only -ENOTTY); GET's length is 1..WQ_KEY_MAX and the key_len it
 * reports; batch counts and per-key results are sane (with WQ_ADD_OUTCOME
 * what each add did); STAT and METRICS gauges are consistent; KEY_STATE's
 * answer agrees with itself, CANCEL_AFTER returns 0 or 1; every pool key
 * is handed out (GET, GET_BATCH) and reported (KEY_STATE) with one of the
 * priorities its adds give it (cmds.c: every add of key n, live or
 * hostile, takes a priority of n's set), whatever the other workers do. At the end everything is closed and fuzz.*
 * destroyed, and a line a command counts its results by errno; a run of
 * 20,000 calls or more fails if no more than half of the calls of a queue
 * command (one on a bound handle, 500 calls or more) reached the queue:
 * succeeded, or failed for a reason of the queue's.
 * Exit 0 if no check failed, 1 otherwise. Seed 0 (the default) picks one
 * from the clock; the seed is printed first. With -p 1 -t 1 a seed
 * replays the same call sequence (up to timing); -v traces every call on
 * stderr.
 */
#ifndef WQ_FUZZ_H
#define WQ_FUZZ_H

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdbool.h>
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

#define CMDS_MAX	21
#define ERRNO_MAX	134	/* errnos counted; the last: any other */
#define FD_NULL		0	/* /dev/null (vm-run's stdin) */
#define FD_NOT_OPEN	1000
#define THREADS_MAX	8
#define OWN_FD		800	/* own.c's fds: OWN_FD + 2 * thread index + 0, 1 */
#define ACC_READ	1	/* slot_access: GET, DONE */
#define ACC_WRITE	2	/* ADD, FORGET, SHUTDOWN */
/*
 * Never mapped: far below where mmap() places anything (a page unmapped
 * after use would be reused for a thread's stack or arena, and the kernel
 * would then write there).
 */
#define UNMAPPED	0x100000000000UL

#define URING_ROWS	9	/* uring.c's table: UR_* (uring.h) */
/* uring.c's counts (struct shared's uring) */
enum {
	U_RINGS, U_NORING, U_TEARDOWNS, U_TORN, U_CANCELS, U_CANCEL_HIT,
	U_ECANCELED, U_NOSLOT, U_NR
};

struct shared {
	volatile uint64_t progress[64];
	volatile uint32_t last_cmd[64];
	volatile uint64_t calls;
	volatile uint64_t failures;
	/* results of each command (the last: no command), by errno */
	volatile uint64_t seen[CMDS_MAX + 1][ERRNO_MAX];
	/* the same, of the live calls only */
	volatile uint64_t live[CMDS_MAX + 1][ERRNO_MAX];
	volatile uint64_t no_slot;	/* live calls that found no slot */
	volatile uint64_t own_calls;	/* calls checked by own.c's models */
	volatile uint64_t cancelled;	/* CANCEL_AFTERs that dropped a delay */
	/* uring.c's io_uring commands: their results, by row and errno */
	volatile uint64_t useen[URING_ROWS][ERRNO_MAX];
	volatile uint64_t ulive[URING_ROWS][ERRNO_MAX];
	volatile uint64_t uring[U_NR];	/* uring.c's counts */
};

extern struct shared *sh;
extern int widx;			/* worker (process) index */
extern int nthreads;			/* threads a worker */
extern int verbose;
extern int fds[NFDS];			/* shared by the worker's threads */
extern int slot_access[NFDS];		/* ACC_* a slot is bound with, or 0 */
extern int slot_prio[NFDS];		/* its queue hands out by priority */
extern unsigned long nfail;		/* atomic */
extern __thread int tidx;		/* thread index in the worker */
extern __thread uint64_t rng;
extern __thread uint64_t seq;
/* each thread's own: ARENA_PAGES pages, the last PROT_NONE */
extern __thread unsigned char *arena;
extern __thread unsigned char *arena_end;	/* start of the guard page */
extern __thread volatile int stage;	/* where a SIGSEGV hit */

/* util.c: randomness, failures, alarms */
uint64_t rnd(void);
uint32_t rn(uint32_t n);
int chance(uint32_t pct);
uint64_t now_ns(void);
void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void on_alarm(int sig);
void on_segv(int sig, siginfo_t *si, void *uc);
void timer_set(long first_us, long every_us);
void timer_setup(void);
void thread_setup(void);

/* values.c: argument values, ordinary and hostile */
int in_arena(uint64_t p, uint64_t len);
int apart(uint64_t a, uint64_t al, uint64_t b, uint64_t bl);
uint64_t bad_ptr(void);
size_t arena_half(void);
uint64_t place(size_t len, int hostile_pct);
uint32_t key_len_val(void);
uint64_t key_ptr(uint32_t len);
uint64_t deadline(void);
uint32_t flags_val(uint32_t valid);
uint32_t reserved_val(void);
void name_val(char *name);
void limiter_val(struct wq_limiter *l);

/* cmds.c: the commands, their documented errors, the results seen */
#define ERRS_MAX	8
struct cmdinfo {
	const char *name;
	unsigned int cmd;
	uint32_t size;
	uint32_t min;
	int errs[ERRS_MAX];	/* beyond the common ones; 0 ends */
};
extern const struct cmdinfo cmds[];
extern const unsigned int ncmds;
extern const int add_key_errs[];
extern const int done_key_errs[];
const char *ename(int e);
int in_list(const int *l, int e);
const struct cmdinfo *cmd_of(unsigned int cmd);
int errno_ok(int fd, unsigned int cmd, int e);
int success_ok(int fd, unsigned int cmd);
void seen(unsigned int cmd, int e, int live);
void print_seen(void);
int queue_reason(unsigned int e);
void reached(volatile uint64_t (*t)[ERRNO_MAX], unsigned int ci,
	     uint64_t *all, uint64_t *in);
void print_row(const char *title, volatile uint64_t (*seen)[ERRNO_MAX],
	       volatile uint64_t (*live)[ERRNO_MAX], unsigned int r, bool share);
int check_reached(void);
long do_ioctl(int fd, unsigned int cmd, uint64_t arg, int blocking, int *err);
void check_info(const struct wq_queue_info *i);
void check_metrics(const struct wq_metrics_info *m);
void check_batch_results(unsigned int cmd, const struct wq_batch *b, long r,
			 uint64_t arg, uint32_t size);
int32_t prio_of(uint32_t n);
int pool_index(const void *key, uint64_t len);
void check_key_prio(const char *what, const void *key, uint64_t len,
		    int32_t prio);
void check_key_info(const struct wq_key_info *ks, const struct wq_key_info *in);

/* hostile.c, live.c: one ioctl of each kind */
void one_ioctl(void);
void one_live(void);
/* ... and what uring.c takes of them */
void hostile_struct(unsigned int ci, unsigned char *s, uint32_t *clean);
uint32_t whole_priority(unsigned int ci, const unsigned char *s,
			uint32_t size);
int live_slot(int acc);
uint32_t pool_key_n(char *p, uint32_t n);
uint64_t short_deadline(void);
bool live_add_kind(struct wq_add *a, int slot, uint32_t n);
void remember(const char *key, uint32_t len, int slot);
uint32_t held_take(char *key, int *slot);

/* uring.c: io_uring commands */
extern int uring_on;
extern const char *uring_why;
void uring_probe(const struct wq_module_info *mi);
void one_uring(void);
void uring_forget(void);
void seen_uring(unsigned int row, int e, int live);
void uring_print(void);
int uring_check_reached(void);

/* own.c: each thread's own queues, checked against a model */
void own_setup(void);
void own_forget(void);
void one_own(void);

/* ops.c: the other operations */
void pool_create_args(struct wq_create *c, uint32_t n);
int open_wq(void);
void bind_slot(int i, const char *name, int create);
void run_ops(uint64_t n);

#endif /* WQ_FUZZ_H */
