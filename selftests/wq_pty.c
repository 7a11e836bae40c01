// SPDX-License-Identifier: GPL-2.0
/*
 * wq_pty: runs a command on a pseudo-terminal, for the tests of what a
 * program does on a terminal (wqctl watch: the line redrawn in place, q
 * and Ctrl-C quitting). busybox has no script(1).
 *
 *	wq_pty MS TEXT COMMAND [ARG...]
 *
 * The command gets the terminal as its stdin, stdout, stderr and
 * controlling terminal. MS milliseconds after it starts, TEXT is typed
 * (C escapes \n, \003 and the like are not interpreted: pass the bytes).
 * Everything it writes is copied to our stdout. Exits with its status,
 * 128 + the signal that killed it, or 124 if it was still running 10 s
 * after TEXT was typed (it is then killed).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

/* Copies what the terminal has to stdout, waiting up to ms. */
static void pump(int master, int ms)
{
	struct pollfd p = { .fd = master, .events = POLLIN };
	char buf[4096];
	ssize_t n;

	if (poll(&p, 1, ms) <= 0)
		return;
	n = read(master, buf, sizeof(buf));
	if (n > 0 && write(1, buf, (size_t)n) != n)
		exit(1);
}

int main(int argc, char **argv)
{
	long long typed_at, end;
	int master, status, ms;
	char *slave;
	pid_t pid;

	if (argc < 4) {
		fputs("usage: wq_pty MS TEXT COMMAND [ARG...]\n", stderr);
		return 2;
	}
	ms = atoi(argv[1]);
	master = posix_openpt(O_RDWR | O_NOCTTY);
	if (master < 0 || grantpt(master) || unlockpt(master) ||
	    !(slave = ptsname(master))) {
		perror("wq_pty: pty");
		return 2;
	}
	pid = fork();
	if (pid == 0) {
		int fd;

		setsid();
		fd = open(slave, O_RDWR);
		if (fd < 0 || ioctl(fd, TIOCSCTTY, 0) < 0)
			_exit(125);
		dup2(fd, 0);
		dup2(fd, 1);
		dup2(fd, 2);
		close(master);
		execvp(argv[3], argv + 3);
		_exit(127);
	}
	typed_at = now_ms() + ms;
	while (now_ms() < typed_at)
		pump(master, (int)(typed_at - now_ms()));
	if (write(master, argv[2], strlen(argv[2])) < 0)
		perror("wq_pty: write");
	end = now_ms() + 10000;
	while (waitpid(pid, &status, WNOHANG) == 0) {
		if (now_ms() > end) {
			kill(pid, SIGKILL);
			waitpid(pid, &status, 0);
			return 124;
		}
		pump(master, 20);
	}
	pump(master, 0);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}
