// SPDX-License-Identifier: GPL-2.0
/*
 * wq_hold: a tiny libwq client for module_load.sh.
 *
 *   wq_hold create NAME N   create NAME, add N keys, close; exit 0
 *   wq_hold hold NAME N     create NAME, add N keys, get one (processing),
 *                           print "ready", then keep the handle open until
 *                           killed
 *   wq_hold open NAME       open NAME, print its length; exit 0, or 2 when
 *                           it does not exist (-ENOENT)
 *
 * Any other failure prints the error and exits 1.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "wq.h"

static int fail(const char *what, const char *name, int err)
{
	fprintf(stderr, "wq_hold: %s %s: %s\n", what, name, strerror(-err));
	return 1;
}

static int create_with_keys(const char *name, int n)
{
	char key[32];
	int fd, i, r;

	fd = wq_create(name, NULL);
	if (fd < 0)
		return fd;
	for (i = 0; i < n; i++) {
		snprintf(key, sizeof(key), "key-%d", i);
		r = wq_add(fd, key, strlen(key));
		if (r < 0) {
			wq_close(fd);
			return r;
		}
	}
	return fd;
}

int main(int argc, char **argv)
{
	char buf[WQ_KEY_MAX];
	const char *cmd, *name;
	ssize_t n;
	int fd;

	if (argc < 3) {
		fprintf(stderr, "usage: wq_hold create|hold NAME N | open NAME\n");
		return 1;
	}
	cmd = argv[1];
	name = argv[2];
	if (!strcmp(cmd, "open")) {
		fd = wq_open(name);
		if (fd == -ENOENT)
			return 2;
		if (fd < 0)
			return fail("open", name, fd);
		printf("%s: len %d\n", name, wq_len(fd));
		return wq_close(fd) ? 1 : 0;
	}
	if (argc < 4 || (strcmp(cmd, "create") && strcmp(cmd, "hold"))) {
		fprintf(stderr, "wq_hold: bad command\n");
		return 1;
	}
	fd = create_with_keys(name, atoi(argv[3]));
	if (fd < 0)
		return fail("create", name, fd);
	if (!strcmp(cmd, "create"))
		return wq_close(fd) ? 1 : 0;
	n = wq_get(fd, buf, sizeof(buf), 0);
	if (n < 0)
		return fail("get", name, (int)n);
	printf("ready\n");
	fflush(stdout);
	for (;;)
		pause();
}
