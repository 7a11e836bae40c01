// SPDX-License-Identifier: GPL-2.0
/*
 * wq_fuzz: the workers, their threads, the watchdog, the summary.
 */
#include "fuzz.h"

struct shared *sh;
int widx;
int nthreads = 2;
int verbose;
int fds[NFDS];
int slot_access[NFDS];
int slot_prio[NFDS];
unsigned long nfail;
__thread int tidx;
__thread uint64_t rng;
__thread uint64_t seq;
__thread unsigned char *arena;
__thread unsigned char *arena_end;
__thread volatile int stage;

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
	own_setup();
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
			bind_slot(i, NULL, 0);
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

/* The pool's queues, bound on fds[0..NQUEUES) before the fork: 0 or 2. */
static int create_shared(void)
{
	struct wq_module_info mi;
	int i;

	i = open("/dev/wq", O_RDWR | O_CLOEXEC);
	if (i < 0 || ioctl(i, WQ_IOC_MODULE_INFO, &mi) < 0) {
		perror("/dev/wq");
		return 2;
	}
	close(i);
	uring_probe(&mi);
	destroy_all();	/* leftovers of an earlier run */
	for (i = 0; i < NQUEUES; i++) {
		struct wq_create c = { .max_items = 32, .mode = 0666 };

		fds[i] = open("/dev/wq", O_RDWR | O_CLOEXEC);
		pool_create_args(&c, (uint32_t)i);
		if (fds[i] < 0 || ioctl(fds[i], WQ_IOC_CREATE, &c) < 0) {
			perror("create fuzz.N");
			return 2;
		}
		slot_access[i] = ACC_READ | ACC_WRITE;
		slot_prio[i] = !!(c.flags & WQ_CREATE_PRIORITY);
	}
	return 0;
}

/* A worker that ended: fail if it failed. How many were procs's. */
static int reaped(pid_t *pids, int procs, pid_t p, int status)
{
	int i, n = 0;

	for (i = 0; i < procs; i++) {
		if (pids[i] != p)
			continue;
		n++;
		pids[i] = 0;
		if (!WIFEXITED(status) || WEXITSTATUS(status)) {
			widx = i;
			fail("worker %d: status %#x", i, status);
		}
	}
	return n;
}

/* Waits for the workers: fail (and kill) any that make no progress for 120 s. */
static void watch(pid_t *pids, int procs)
{
	uint64_t done, last = 0;
	int alive, status, stall = 0, i;

	for (alive = procs; alive > 0;) {
		pid_t p = waitpid(-1, &status, WNOHANG);

		if (p > 0) {
			alive -= reaped(pids, procs, p, status);
			continue;
		}
		sleep(1);
		done = sh->calls;
		stall = done == last ? stall + 1 : 0;
		last = done;
		if (stall < 120)
			continue;
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
	widx = -1;
	/* the workers are gone; their orphans end within seconds */
	for (stall = 0; waitpid(-1, &status, WNOHANG) >= 0; usleep(100000))
		if (++stall > 300) {
			fail("descendants still running 30 s after the workers");
			break;
		}
}

int main(int argc, char **argv)
{
	uint64_t seed = 0, calls = 100000;
	int procs = 4, opt, i;
	pid_t pids[64];
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
	rng = seed;
	if (create_shared())
		return 2;
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
	watch(pids, procs);
	destroy_all();
	print_seen();
	uring_print();
	printf("wq_fuzz: %llu live calls found no bound slot for them; %llu were checked against a model (own.c); %llu CANCEL_AFTERs dropped a delay\n",
	       (unsigned long long)sh->no_slot,
	       (unsigned long long)sh->own_calls,
	       (unsigned long long)sh->cancelled);
	if (!check_reached() || !uring_check_reached())
		fail("fewer than half of the queue commands reached the queue");
	printf("wq_fuzz: seed %llu: %llu calls in %lds, %llu failures\n",
	       (unsigned long long)seed, (unsigned long long)sh->calls,
	       (long)(time(NULL) - t0), (unsigned long long)sh->failures);
	return sh->failures ? 1 : 0;
}
