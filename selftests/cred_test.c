// SPDX-License-Identifier: GPL-2.0
/*
 * A descriptor's rights are its opener's (doc/security.md): CREATE, OPEN,
 * DESTROY, LIST and MODULE_INFO through a /dev/wq file passed over a unix
 * socket act with the credentials of the task that opened it, not of the
 * task that makes the call. A user's descriptor in root's hands gains
 * nothing (no queue of root's, no ceiling lifted, the user charged); root's
 * descriptor in a user's hands keeps root's rights, as a file root opened
 * does.
 */
#include "wq_test_util.h"
#include "wq_test_ioctl.h"
#include "wq_test_users.h"

#include <sys/socket.h>

/* Sends @fd over the unix socket @sock: 0 or -1. */
static int send_fd(int sock, int fd)
{
	char cbuf[CMSG_SPACE(sizeof(int))] = { 0 };
	char byte = 'f';
	struct iovec iov = { .iov_base = &byte, .iov_len = 1 };
	struct msghdr msg = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = cbuf, .msg_controllen = sizeof(cbuf),
	};
	struct cmsghdr *c = CMSG_FIRSTHDR(&msg);

	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(c), &fd, sizeof(int));
	return sendmsg(sock, &msg, 0) == 1 ? 0 : -1;
}

/* Receives a descriptor from @sock: it, or -1. */
static int recv_fd(int sock)
{
	char cbuf[CMSG_SPACE(sizeof(int))] = { 0 };
	char byte;
	struct iovec iov = { .iov_base = &byte, .iov_len = 1 };
	struct msghdr msg = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = cbuf, .msg_controllen = sizeof(cbuf),
	};
	struct cmsghdr *c;
	int fd;

	if (recvmsg(sock, &msg, MSG_CMSG_CLOEXEC) != 1)
		return -1;
	c = CMSG_FIRSTHDR(&msg);
	if (!c || c->cmsg_type != SCM_RIGHTS)
		return -1;
	memcpy(&fd, CMSG_DATA(c), sizeof(int));
	return fd;
}

FIXTURE(cred) {
	char secret[WQ_NAME_MAX];
	int fd;
	int sv[2];
};

FIXTURE_SETUP(cred)
{
	struct wq_attr attr = { .limiter = "none", .mode = 0600 };

	if (!wqt_have_dev())
		SKIP(return, "/dev/wq missing (module not loaded)");
	if (geteuid())
		SKIP(return, "needs root");
	wqt_name(self->secret, "cred");
	self->fd = wq_create(self->secret, &attr);	/* root's, 0600 */
	ASSERT_LE(0, self->fd);
	ASSERT_EQ(0, ADD(self->fd, "s"));
	ASSERT_EQ(0, socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0,
				self->sv));
}

FIXTURE_TEARDOWN(cred)
{
	wqt_reap_all();
	if (self->fd >= 0) {
		wq_destroy(self->secret);
		wq_close(self->fd);
	}
}

/* As UID_A: /dev/wq opened and sent, unbound, to the parent. */
static int send_own_dev(void *arg)
{
	int *sv = arg, fd = raw_open_dev();

	CHILD_CHECK(fd >= 0);
	CHILD_CHECK(send_fd(sv[1], fd) == 0);
	CHILD_CHECK(hs_recv(sv[1]) == 0);	/* the parent is done */
	return 0;
}

/* A user's descriptor in root's hands acts with the user's rights. */
TEST_F(cred, a_users_descriptor_gains_nothing_from_root)
{
	struct wq_queue_info qi;
	struct wq_module_info mi;
	struct wq_name n;
	char name[WQ_NAME_MAX];
	pid_t pid;
	int fd;

	pid = as_user_start(UID_A, send_own_dev, self->sv);
	ASSERT_LT(0, pid);
	fd = recv_fd(self->sv[0]);
	ASSERT_LE(0, fd);

	memset(&n, 0, sizeof(n));
	set_name(n.name, self->secret);
	EXPECT_EQ(EACCES, xioctl(fd, WQ_IOC_OPEN, &n));	/* 0600, root's */
	EXPECT_EQ(EACCES, xioctl(fd, WQ_IOC_DESTROY, &n));
	memset(&mi, 0, sizeof(mi));
	ASSERT_EQ(0, xioctl(fd, WQ_IOC_MODULE_INFO, &mi));
	/* above the unprivileged ceiling: only CAP_SYS_RESOURCE may */
	wqt_name(name, "credc");
	EXPECT_EQ(EINVAL, raw_create(fd, name, NULL, mi.unpriv_max_items + 1,
				     0));
	ASSERT_EQ(0, raw_create(fd, name, NULL, 0, 0));	/* the user's */
	ASSERT_EQ(0, raw_stat(fd, &qi));
	EXPECT_EQ(UID_A, qi.uid);
	memset(&mi, 0, sizeof(mi));
	ASSERT_EQ(0, xioctl(fd, WQ_IOC_MODULE_INFO, &mi));
	EXPECT_EQ(1, mi.user_queues);		/* charged to UID_A */
	EXPECT_EQ(0, wq_destroy(name));		/* root may */
	close(fd);
	EXPECT_EQ(0, hs_send(self->sv[0]));
	EXPECT_EQ(0, wqt_wait_child(pid, 30000));
	EXPECT_EQ(1, wq_len(self->fd));		/* the secret untouched */
}

struct passed {
	const char *secret;
	int sock;
};

/* As UID_A: a descriptor of root's reaches what root may; its own does not. */
static int use_roots_dev(void *arg)
{
	struct passed *p = arg;
	struct wq_name n;
	char b[8];
	int fd, own;

	memset(&n, 0, sizeof(n));
	set_name(n.name, p->secret);
	own = raw_open_dev();
	CHILD_CHECK(own >= 0);
	CHILD_CHECK(xioctl(own, WQ_IOC_OPEN, &n) == EACCES);
	fd = recv_fd(p->sock);
	CHILD_CHECK(fd >= 0);
	CHILD_CHECK(xioctl(fd, WQ_IOC_OPEN, &n) == 0);
	CHILD_CHECK(get_str(fd, b, sizeof(b), 0) == 1 && !strcmp(b, "s"));
	CHILD_CHECK(DONE(fd, "s") == 0);
	close(fd);
	close(own);
	return 0;
}

TEST_F(cred, roots_descriptor_keeps_roots_rights)
{
	struct passed p = { .secret = self->secret, .sock = self->sv[1] };
	pid_t pid;
	int fd;

	pid = as_user_start(UID_A, use_roots_dev, &p);
	ASSERT_LT(0, pid);
	fd = raw_open_dev();			/* root's, unbound */
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, send_fd(self->sv[0], fd));
	close(fd);
	EXPECT_EQ(0, wqt_wait_child(pid, 30000));
	EXPECT_EQ(0, wq_len(self->fd));		/* the child took it, done */
}

TEST_HARNESS_MAIN
