// SPDX-License-Identifier: GPL-2.0
/*
 * wq_fuzz: randomness, failures, and the per-thread alarm that cuts
 * every blocking call short (SIGALRM, no SA_RESTART: -EINTR).
 */
#include "fuzz.h"

static __thread timer_t alarm_timer;	/* SIGALRM to this thread */

uint64_t rnd(void)
{
	/* xorshift64* */
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return rng * 2685821657736338717ULL;
}

uint32_t rn(uint32_t n)	/* 0..n-1 */
{
	return n ? (uint32_t)(rnd() % n) : 0;
}

int chance(uint32_t pct)
{
	return rn(100) < pct;
}

uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}
void fail(const char *fmt, ...)
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

/* ---- alarms ------------------------------------------------------- */

void on_alarm(int sig)
{
	(void)sig;
}

void on_segv(int sig, siginfo_t *si, void *uc)
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

void timer_set(long first_us, long every_us)
{
	struct itimerspec it = {
		.it_value = { first_us / 1000000, first_us % 1000000 * 1000 },
		.it_interval = { every_us / 1000000, every_us % 1000000 * 1000 },
	};

	timer_settime(alarm_timer, 0, &it, NULL);
}

/* This thread's alarm timer (a forked child needs its own: not inherited). */
void timer_setup(void)
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
void thread_setup(void)
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
