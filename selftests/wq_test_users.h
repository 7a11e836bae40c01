/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Tests as other users: the test runs as root and forks a child that drops
 * to another uid (and so loses every capability) to run a function. The
 * harness's ASSERT/EXPECT cannot be used there: the child checks with
 * CHILD_CHECK, which ends it with the line of the first failed check
 * (printed too), and the test EXPECTs the child's exit code to be 0.
 */
#ifndef WQ_TEST_USERS_H
#define WQ_TEST_USERS_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <grp.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "wq_test_util.h"

#define UID_A	1000
#define UID_B	1001

/* In a child: the first failed check ends it with its line number. */
#define CHILD_CHECK(cond) do {						\
	if (!(cond)) {							\
		fprintf(stderr, "# child uid %d: %s:%d: %s\n",		\
			(int)getuid(), __func__, __LINE__, #cond);	\
		return __LINE__ & 0x7f ? __LINE__ & 0x7f : 1;		\
	}								\
} while (0)

static inline int drop_to(uid_t uid)
{
	if (setgroups(0, NULL) || setresgid(uid, uid, uid) ||
	    setresuid(uid, uid, uid))
		return -1;
	/* a uid change makes /proc/self root's: the process's own again */
	return prctl(PR_SET_DUMPABLE, 1, 0, 0, 0);
}

struct as_user {
	uid_t uid;
	int (*fn)(void *arg);
	void *arg;
};

static inline int as_user_main(void *p)
{
	struct as_user *a = p;

	if (drop_to(a->uid)) {
		fprintf(stderr, "# cannot become uid %d\n", (int)a->uid);
		return 126;
	}
	umask(077);
	return a->fn(a->arg);
}

/* Starts fn(arg) in a child as uid; its pid, for wqt_wait_child(). */
static inline pid_t as_user_start(uid_t uid, int (*fn)(void *), void *arg)
{
	struct as_user a = { .uid = uid, .fn = fn, .arg = arg };

	return wqt_spawn(as_user_main, &a);
}

/* Runs fn(arg) in a child as uid; its exit code (0: every check held). */
static inline int as_user(uid_t uid, int (*fn)(void *), void *arg)
{
	pid_t pid = as_user_start(uid, fn, arg);

	return pid < 0 ? -1 : wqt_wait_child(pid, 60000);
}

/*
 * A child that stops once for the parent: it sends on up and waits on
 * down; the parent waits on up, acts, and sends on down.
 */
struct handshake {
	int up[2], down[2];
};

static inline int hs_init(struct handshake *h)
{
	return pipe(h->up) || pipe(h->down) ? -1 : 0;
}

static inline int hs_send(int fd)
{
	return write(fd, "x", 1) == 1 ? 0 : -1;
}

static inline int hs_recv(int fd)
{
	char c;

	return read(fd, &c, 1) == 1 ? 0 : -1;
}

#endif /* WQ_TEST_USERS_H */
