// SPDX-License-Identifier: GPL-2.0
/*
 * IPC namespaces (doc/security.md: named queues belong to the IPC
 * namespace of their creator): another namespace neither sees, opens nor
 * destroys a queue and may reuse its name; a namespace that goes away takes
 * its queues with it, and one that is alive keeps them; names beginning
 * with "kernel." are the kernel API's. The other namespaces are made by
 * children with unshare(CLONE_NEWIPC).
 */
#include "wq_test_util.h"
#include "wq_test_ioctl.h"
#include "wq_test_users.h"

#include <sched.h>

FIXTURE(ns) {
	char name[WQ_NAME_MAX];
	int fd;
};

FIXTURE_SETUP(ns)
{
	if (!wqt_have_dev())
		SKIP(return, "/dev/wq missing (module not loaded)");
	if (access("/proc/self/ns/ipc", F_OK))
		SKIP(return, "no IPC namespaces in this kernel");
	wqt_name(self->name, "ns");
	self->fd = wq_create(self->name, NULL);
	ASSERT_GE(self->fd, 0);
	ASSERT_EQ(0, ADD(self->fd, "parent"));
}

FIXTURE_TEARDOWN(ns)
{
	wqt_reap_all();
	if (self->fd >= 0) {
		wq_destroy(self->name);
		wq_close(self->fd);
	}
}

/* In a new IPC namespace: the parent's queue does not exist; its name does. */
static int in_new_ns(void *arg)
{
	const char *name = arg;
	struct wq_stats st[4];
	int fd;

	CHILD_CHECK(unshare(CLONE_NEWIPC) == 0);
	CHILD_CHECK(wq_open(name) == -ENOENT);
	CHILD_CHECK(wq_open_flags(name, O_RDONLY) == -ENOENT);
	CHILD_CHECK(wq_destroy(name) == -ENOENT);
	/* root here, CAP_IPC_OWNER included: still nothing to list */
	CHILD_CHECK(wq_list(st, 4) == 0);

	fd = wq_create(name, NULL);
	CHILD_CHECK(fd >= 0);
	CHILD_CHECK(ADD(fd, "child") == 0);
	CHILD_CHECK(ADD(fd, "child2") == 0);
	CHILD_CHECK(wq_create(name, NULL) == -EEXIST);
	CHILD_CHECK(wq_list(st, 4) == 1);
	CHILD_CHECK(strcmp(st[0].name, name) == 0);
	CHILD_CHECK(st[0].queued == 2);
	wq_close(fd);
	fd = wq_open(name);			/* its own queue, by name */
	CHILD_CHECK(fd >= 0);
	CHILD_CHECK(wq_len(fd) == 2);
	wq_close(fd);
	return 0;
}

TEST_F(ns, other_namespace_neither_sees_nor_opens)
{
	struct wq_stats st[64];
	int fd, i, n, found = 0;

	EXPECT_EQ(0, wqt_wait_child(wqt_spawn(in_new_ns, self->name), 30000));

	/* the parent's queue: its own key only, and listed once */
	EXPECT_EQ(1, wq_len(self->fd));
	fd = wq_open(self->name);
	ASSERT_GE(fd, 0);
	EXPECT_GET(fd, "parent");
	EXPECT_EQ(0, DONE(fd, "parent"));
	wq_close(fd);
	n = wq_list(st, 64);
	ASSERT_GE(n, 1);
	for (i = 0; i < n && i < 64; i++)
		found += !strcmp(st[i].name, self->name);
	EXPECT_EQ(1, found);
}

struct creator {
	int dev;			/* an unbound /dev/wq handle, shared */
	struct handshake hs;
};

/*
 * Makes a queue in a new IPC namespace on the shared handle, tells the
 * parent, waits for its word, exits: the namespace then has no task left.
 */
static int create_and_exit(void *arg)
{
	struct creator *c = arg;

	CHILD_CHECK(unshare(CLONE_NEWIPC) == 0);
	CHILD_CHECK(raw_create(c->dev, "nsgone", NULL, 0, 0) == 0);
	CHILD_CHECK(ADD(c->dev, "left") == 0);
	CHILD_CHECK(hs_send(c->hs.up[1]) == 0);
	CHILD_CHECK(hs_recv(c->hs.down[0]) == 0);
	return 0;
}

static int unlinked(int fd)
{
	struct wq_stats st;

	return wq_stat(fd, &st) ? -1 : st.unlinked;
}

TEST_F(ns, namespace_going_away_destroys_its_queues)
{
	struct creator c;
	int64_t end;
	pid_t pid;

	c.dev = raw_open_dev();
	ASSERT_GE(c.dev, 0);
	ASSERT_EQ(0, hs_init(&c.hs));
	pid = wqt_spawn(create_and_exit, &c);
	ASSERT_GT(pid, 0);
	ASSERT_EQ(0, hs_recv(c.hs.up[0]));

	/* alive (a task is in it): kept past the reaper's 1 s period */
	wqt_sleep_ms(2500);
	EXPECT_EQ(0, unlinked(c.dev));
	EXPECT_EQ(-ENOENT, wq_open("nsgone"));	/* and not ours */

	ASSERT_EQ(0, hs_send(c.hs.down[1]));
	EXPECT_EQ(0, wqt_wait_child(pid, 30000));
	end = wqt_now_ms() + 30000;
	while (unlinked(c.dev) == 0 && wqt_now_ms() < end)
		wqt_sleep_ms(50);
	EXPECT_EQ(1, unlinked(c.dev));
	/* destroyed but open, as after wq_destroy: the key is still there */
	EXPECT_EQ(1, wq_len(c.dev));
	close(c.dev);
}

/* Names beginning with "kernel." are the kernel API's: no user makes one. */
static int kernel_name(void *arg)
{
	int fd;

	(void)arg;
	CHILD_CHECK(wq_create(WQ_KERNEL_PREFIX "wqtest", NULL) == -EACCES);
	fd = wq_create("wqtest.kernel.x", NULL);	/* not a prefix: ordinary */
	CHILD_CHECK(fd >= 0);
	CHILD_CHECK(wq_destroy("wqtest.kernel.x") == 0);
	wq_close(fd);
	return 0;
}

TEST_F(ns, kernel_prefix_is_the_kernels)
{
	EXPECT_EQ(-EACCES, wq_create("kernel.wqtest", NULL));	/* root too */
	EXPECT_EQ(-ENOENT, wq_open("kernel.wqtest"));
	EXPECT_EQ(0, as_user(UID_A, kernel_name, NULL));
}

TEST_HARNESS_MAIN
