// SPDX-License-Identifier: GPL-2.0
/*
 * wq_soak: the random choices (a generator per thread, seeded from the
 * seed, the round and who draws), time, failures and their count, and
 * small helpers of every process.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include "soak.h"

__thread uint32_t self_id;	/* the worker id of this thread */
static __thread uint64_t rng;

static const char *const fcat_name[F_NR] = {
	"two holders", "key lost", "killed consumer", "passed handle",
	"counters", "shutdown/drain/discard/destroy", "quota",
	"call result", "hang", "memory", "io_uring",
};

static uint64_t rnd(void)
{
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return rng * 2685821657736338717ULL;
}

uint32_t rn(uint32_t n)
{
	return n ? (uint32_t)(rnd() % n) : 0;
}

int chance(uint32_t pct)
{
	return rn(100) < pct;
}

void seed_rng(uint64_t salt)
{
	rng = seed ^ (salt * 0x9e3779b97f4a7c15ULL) ^ ((uint64_t)round_no << 40);
	if (!rng)
		rng = 1;
	rnd();
}

int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

void fail(int cat, const char *fmt, ...)
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

/* The failures so far, of every kind. */
uint64_t fail_count(void)
{
	uint64_t n = 0;
	int k;

	for (k = 0; k < F_NR; k++)
		n += atomic_load(&sh->fails[k]);
	return n;
}

void call(void)
{
	atomic_fetch_add_explicit(&sh->calls, 1, memory_order_relaxed);
}

uint64_t tick(void)
{
	return atomic_fetch_add(&sh->seq, 1) + 1;
}

void atomic_max(_Atomic uint64_t *p, uint64_t v)
{
	uint64_t cur = atomic_load(p);

	while (cur < v && !atomic_compare_exchange_weak(p, &cur, v))
		;
}

const char *err_name(int e)
{
	static __thread char buf[32];

	if (e >= 0) {
		snprintf(buf, sizeof(buf), "%d", e);
		return buf;
	}
	snprintf(buf, sizeof(buf), "-%s", strerrorname_np(-e) ?: "?");
	return buf;
}

int drop_to(uid_t uid)
{
	if (setgroups(0, NULL) || setresgid(uid, uid, uid) ||
	    setresuid(uid, uid, uid))
		return -1;
	return prctl(PR_SET_DUMPABLE, 1, 0, 0, 0);
}

int module_info(struct wq_module_info *mi)
{
	int fd = open(WQ_DEV_PATH, O_RDWR | O_CLOEXEC), r;

	if (fd < 0)
		return -errno;
	memset(mi, 0, sizeof(*mi));
	r = ioctl(fd, WQ_IOC_MODULE_INFO, mi) < 0 ? -errno : 0;
	close(fd);
	return r;
}

/* Is /proc/PID/fdinfo/FD that of a handle of queue @id (its wq-id line)? */
static int fd_of_queue(const char *pid, const char *fd, uint64_t id)
{
	char path[600], line[128];
	unsigned long long v;
	int found = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%s/fdinfo/%s", pid, fd);
	f = fopen(path, "re");
	if (!f)
		return 0;
	while (!found && fgets(line, sizeof(line), f))
		if (sscanf(line, "wq-id: %llu", &v) == 1)
			found = v == id;
	fclose(f);
	return found;
}

/*
 * Who holds handles of queue @id: every /dev/wq file of every process
 * whose fdinfo names the queue, as "# holder: pid P (comm) fd N".
 */
void print_holders(uint64_t id)
{
	DIR *procs = opendir("/proc"), *fds;
	char path[600], link[64], comm[32];
	struct dirent *p, *d;
	ssize_t n;
	FILE *f;

	if (!procs)
		return;
	while ((p = readdir(procs))) {
		if (p->d_name[0] < '0' || p->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/fd", p->d_name);
		fds = opendir(path);
		if (!fds)
			continue;
		while ((d = readdir(fds))) {
			snprintf(path, sizeof(path), "/proc/%s/fd/%s", p->d_name,
				 d->d_name);
			n = readlink(path, link, sizeof(link) - 1);
			if (n <= 0)
				continue;
			link[n] = '\0';
			if (strcmp(link, WQ_DEV_PATH) ||
			    !fd_of_queue(p->d_name, d->d_name, id))
				continue;
			comm[0] = '\0';
			snprintf(path, sizeof(path), "/proc/%s/comm", p->d_name);
			f = fopen(path, "re");
			if (f) {
				if (!fgets(comm, sizeof(comm), f))
					comm[0] = '\0';
				comm[strcspn(comm, "\n")] = '\0';
				fclose(f);
			}
			printf("# holder of queue %llu: pid %s (%s) fd %s\n",
			       (unsigned long long)id, p->d_name, comm,
			       d->d_name);
		}
		closedir(fds);
	}
	closedir(procs);
}
