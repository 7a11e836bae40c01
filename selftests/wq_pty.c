// SPDX-License-Identifier: GPL-2.0
/*
 * wq_pty: run a command on a pseudo-terminal and print what it wrote, for
 * testing interactive tools (wqctl top) in a guest without script(1).
 *
 *	wq_pty [-k KEYS] [-d MS] [-t MS] -- COMMAND [ARG...]
 *
 * The command's stdin, stdout and stderr are the pty's slave (a 80x24
 * terminal); after -d MS (default 1500) the KEYS are typed; the command's
 * output is copied to stdout until it exits, or until -t MS (default
 * 10000), when it is killed. Exit status: the command's, 124 on timeout.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int main(int argc, char **argv)
{
	const char *keys = NULL;
	long delay = 1500, limit = 10000, start;
	struct winsize ws = { .ws_row = 24, .ws_col = 80 };
	int master, opt, status = 0;
	bool typed = false;
	char *slave;
	pid_t pid;

	while ((opt = getopt(argc, argv, "k:d:t:")) != -1) {
		switch (opt) {
		case 'k': keys = optarg; break;
		case 'd': delay = atol(optarg); break;
		case 't': limit = atol(optarg); break;
		default: return 2;
		}
	}
	if (optind >= argc) {
		fprintf(stderr, "usage: wq_pty [-k KEYS] [-d MS] [-t MS] -- CMD...\n");
		return 2;
	}
	master = posix_openpt(O_RDWR | O_NOCTTY);
	if (master < 0 || grantpt(master) || unlockpt(master) ||
	    !(slave = ptsname(master))) {
		perror("wq_pty: pty");
		return 2;
	}
	ioctl(master, TIOCSWINSZ, &ws);
	pid = fork();
	if (pid < 0)
		return 2;
	if (!pid) {
		int fd;

		setsid();
		fd = open(slave, O_RDWR);
		if (fd < 0)
			_exit(127);
		ioctl(fd, TIOCSCTTY, 0);
		dup2(fd, 0);
		dup2(fd, 1);
		dup2(fd, 2);
		if (fd > 2)
			close(fd);
		close(master);
		execvp(argv[optind], argv + optind);
		_exit(127);
	}
	start = now_ms();
	for (;;) {
		struct pollfd p = { .fd = master, .events = POLLIN };
		long t = now_ms() - start;
		char buf[4096];
		ssize_t n;

		if (keys && !typed && t >= delay) {
			if (write(master, keys, strlen(keys)) < 0)
				perror("wq_pty: write");
			typed = true;
		}
		if (t >= limit) {
			kill(pid, SIGKILL);
			waitpid(pid, &status, 0);
			return 124;
		}
		if (poll(&p, 1, 50) <= 0)
			continue;
		n = read(master, buf, sizeof(buf));
		if (n <= 0)
			break;	/* EIO: every slave fd is closed */
		fwrite(buf, 1, (size_t)n, stdout);
		fflush(stdout);
	}
	waitpid(pid, &status, 0);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
