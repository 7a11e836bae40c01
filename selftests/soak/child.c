// SPDX-License-Identifier: GPL-2.0
/*
 * wq_soak: the worker processes of a round: forked (the parent's handles
 * closed in them, their generator seeded by their worker id), told to go,
 * talked to over pipes, and waited for (killed when late).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "soak.h"

static void on_signal(int sig)
{
	(void)sig;
}

/* SIGUSR1 (from the parent) interrupts calls that wait: -EINTR. */
void catch_signals(void)
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

void wait_go(void)
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

/* Forks a worker; it runs fn and exits with its result. */
int spawn(struct child *c, const char *what, child_fn fn)
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

int send_u32(int fd, uint32_t v)
{
	return write(fd, &v, sizeof(v)) == sizeof(v) ? 0 : -1;
}

/* Reads a u32 from fd within timeout_ms: 0, or -1. */
int recv_u32(int fd, uint32_t *v, int timeout_ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	if (poll(&p, 1, timeout_ms) != 1)
		return -1;
	return read(fd, v, sizeof(*v)) == sizeof(*v) ? 0 : -1;
}

void close_child_pipes(struct child *c)
{
	if (c->to[1] >= 0)
		close(c->to[1]);
	if (c->from[0] >= 0)
		close(c->from[0]);
	c->to[1] = c->from[0] = -1;
}

/* Waits for a child up to timeout_ms (then kills it): its status. */
int reap(struct child *c, int timeout_ms)
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

void ready(struct child *c)
{
	send_u32(c->from[1], 0);
}

/* Opens the round's queues: fds[i], or -1 where the mode refuses uid. */
void open_all(int *fds, int flags, uid_t uid)
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

static uint32_t next_id = 1;

/* A new round: its worker ids given from 1 again. */
void children_reset(void)
{
	next_id = 1;
}

/* A child of nids worker ids (0: none), each marked alive. */
void child_init(struct child *c, uint32_t nids, int qi, uid_t uid)
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
