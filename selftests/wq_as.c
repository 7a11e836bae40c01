// SPDX-License-Identifier: GPL-2.0
/*
 * wq_as UID COMMAND [ARG...]: runs COMMAND as user and group UID, with no
 * supplementary groups and so no capabilities, for the shell tests that
 * need an unprivileged wqctl (busybox has no setpriv --reuid). Root only.
 */
#define _GNU_SOURCE
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	char *end;
	long id;

	if (argc < 3) {
		fprintf(stderr, "usage: wq_as UID COMMAND [ARG...]\n");
		return 2;
	}
	id = strtol(argv[1], &end, 10);
	if (*end || id <= 0 || id > 65534) {
		fprintf(stderr, "wq_as: bad uid '%s'\n", argv[1]);
		return 2;
	}
	if (setgroups(0, NULL) || setresgid((gid_t)id, (gid_t)id, (gid_t)id) ||
	    setresuid((uid_t)id, (uid_t)id, (uid_t)id)) {
		perror("wq_as");
		return 125;
	}
	execvp(argv[2], argv + 2);
	perror(argv[2]);
	return 127;
}
