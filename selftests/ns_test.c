// SPDX-License-Identifier: GPL-2.0
/*
 * IPC namespaces (doc/security.md: named queues belong to the IPC
 * namespace of their creator): another namespace neither sees, opens nor
 * destroys a queue and may reuse its name; a /dev/wq file belongs to the
 * namespace it was opened in, wherever it is used later; a namespace's
 * queues live as long as the namespace, files or not, and go with it,
 * nothing of the namespace (its System V objects) outliving it by more
 * than the documented bound; ns_max_queues bounds each namespace; names
 * beginning with "kernel." are the kernel API's. The other namespaces are
 * made by children with unshare(CLONE_NEWIPC). (pod_test.c: a pod's.)
 */
#include "wq_test_util.h"
#include "wq_test_ioctl.h"
#include "wq_test_users.h"
#include "wq_test_files.h"

#include <sched.h>
#include <sys/shm.h>
#include <sys/stat.h>
#include <sys/syscall.h>

FIXTURE(ns) {
	char name[WQ_NAME_MAX];
	int fd;
	unsigned long ns_max, max;
};

FIXTURE_SETUP(ns)
{
	if (!wqt_have_dev())
		SKIP(return, "/dev/wq missing (module not loaded)");
	if (access("/proc/self/ns/ipc", F_OK))
		SKIP(return, "no IPC namespaces in this kernel");
	self->ns_max = wqt_param_get("ns_max_queues");
	ASSERT_NE(0, self->ns_max);
	self->max = wqt_param_get("max_queues");
	ASSERT_NE(0, self->max);
	wqt_name(self->name, "ns");
	self->fd = wq_create(self->name, NULL);
	ASSERT_GE(self->fd, 0);
	ASSERT_EQ(0, ADD(self->fd, "parent"));
}

FIXTURE_TEARDOWN(ns)
{
	wqt_reap_all();
	if (self->ns_max)
		wqt_param_set("ns_max_queues", self->ns_max);
	if (self->max)
		wqt_param_set("max_queues", self->max);
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
	int fd, keep;

	CHILD_CHECK(unshare(CLONE_NEWIPC) == 0);
	keep = raw_open_dev();		/* an unbound handle: no name */
	CHILD_CHECK(keep >= 0);
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
	close(keep);
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

/*
 * A namespace's names live as long as the namespace, with no /dev/wq file
 * open (the task that made them is in it): a file opened later finds the
 * queue and its keys; a destroy is what frees the name.
 */
static int names_live_with_ns(void *arg)
{
	const char *name = arg;
	int fd;

	CHILD_CHECK(unshare(CLONE_NEWIPC) == 0);
	fd = wq_create(name, NULL);
	CHILD_CHECK(fd >= 0);
	CHILD_CHECK(ADD(fd, "k") == 0);
	wq_close(fd);				/* the namespace's only file */
	fd = wq_open(name);
	CHILD_CHECK(fd >= 0);
	CHILD_CHECK(wq_len(fd) == 1);
	wq_close(fd);
	wqt_sleep_ms(2 * 1000);			/* past the reaper's round */
	fd = wq_open(name);
	CHILD_CHECK(fd >= 0);
	CHILD_CHECK(wq_len(fd) == 1);
	CHILD_CHECK(wq_create(name, NULL) == -EEXIST);
	CHILD_CHECK(wq_destroy(name) == 0);
	wq_close(fd);
	CHILD_CHECK(wq_open(name) == -ENOENT);
	fd = wq_create(name, NULL);		/* the name is free again */
	CHILD_CHECK(fd >= 0);
	CHILD_CHECK(wq_len(fd) == 0);
	wq_close(fd);
	return 0;
}

TEST_F(ns, names_live_with_the_namespace)
{
	EXPECT_EQ(0, wqt_wait_child(wqt_spawn(names_live_with_ns,
					      self->name), 30000));
	EXPECT_EQ(1, wq_len(self->fd));		/* ours untouched */
}

/* ---- what outlives a namespace -------------------------------------- */

#define SHM_BYTES	(64 << 20)

/* /proc/meminfo's Shmem (System V segments are there), in KiB; -1 if none. */
static long shmem_kb(void)
{
	char line[128];
	long kb = -1;
	FILE *f = fopen("/proc/meminfo", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Shmem: %ld kB", &kb) == 1)
			break;
	fclose(f);
	return kb;
}

/* Waits up to ms for Shmem to be below kb; its last value. */
static long shmem_below(long kb, int ms)
{
	int64_t end = wqt_now_ms() + ms;
	long now;

	while ((now = shmem_kb()) >= kb && wqt_now_ms() < end)
		wqt_sleep_ms(50);
	return now;
}

/*
 * In a new IPC namespace: a System V segment that outlives every process
 * (never removed), touched so Shmem counts it, and a /dev/wq file.
 */
struct nsdev {
	struct handshake hs;
	int fd;			/* the child's /dev/wq descriptor (or -1) */
	int share;		/* leave it open for the parent to take */
	long shmem_before;	/* Shmem (KiB) before it, -1 if not known */
	struct stat nsst;	/* the namespace's inode */
};

static int make_ns(void *arg)
{
	struct nsdev *d = arg;
	char *p;
	int id;

	CHILD_CHECK(unshare(CLONE_NEWIPC) == 0);
	id = shmget(IPC_PRIVATE, SHM_BYTES, IPC_CREAT | 0600);
	CHILD_CHECK(id >= 0);
	p = shmat(id, NULL, 0);
	CHILD_CHECK(p != (void *)-1);
	memset(p, 1, SHM_BYTES);
	CHILD_CHECK(shmdt(p) == 0);
	d->fd = wq_create("nsq", NULL);
	CHILD_CHECK(d->fd >= 0);
	CHILD_CHECK(ADD(d->fd, "left") == 0);
	if (!d->share)
		wq_close(d->fd);
	CHILD_CHECK(write(d->hs.up[1], &d->fd, sizeof(d->fd)) ==
		    sizeof(d->fd));
	CHILD_CHECK(hs_recv(d->hs.down[0]) == 0);	/* parent took it */
	return 0;
}

/*
 * Notes Shmem in d->shmem_before (none: -1, nothing started), then starts
 * make_ns() and waits for its word: its pid (-1 on failure), its
 * namespace's inode in d->nsst, its /dev/wq descriptor number in d->fd.
 */
static pid_t ns_start(struct nsdev *d)
{
	char path[64];
	pid_t pid;

	d->shmem_before = shmem_kb();
	if (d->shmem_before < 0 || hs_init(&d->hs))
		return -1;
	pid = wqt_spawn(make_ns, d);
	if (pid < 0 ||
	    read(d->hs.up[0], &d->fd, sizeof(d->fd)) != sizeof(d->fd))
		return -1;
	snprintf(path, sizeof(path), "/proc/%d/ns/ipc", (int)pid);
	return stat(path, &d->nsst) ? -1 : pid;
}

/* Shmem with the segment, and after it is gone, from the value before. */
#define SHM_HELD(before)	((before) + SHM_BYTES / 1024 * 3 / 4)
#define SHM_GONE(before)	((before) + SHM_BYTES / 1024 / 4)

/*
 * A namespace whose last process exited, its queue left with no /dev/wq
 * file, goes within the reaper's round (WQ_IPC_REAP_INTERVAL, one second;
 * waited for generously), its System V objects with it: wq keeps nothing
 * of it alive.
 */
TEST_F(ns, nothing_outlives_the_namespace)
{
	struct nsdev d = { .share = 0 };
	pid_t pid;

	pid = ns_start(&d);
	if (d.shmem_before < 0)
		SKIP(return, "no Shmem in /proc/meminfo");
	ASSERT_GT(pid, 0);
	EXPECT_GE(shmem_kb(), SHM_HELD(d.shmem_before));
	ASSERT_EQ(0, hs_send(d.hs.down[1]));
	EXPECT_EQ(0, wqt_wait_child(pid, 30000));
	/* freed by the kernel's own work once the last reference went */
	EXPECT_LT(shmem_below(SHM_GONE(d.shmem_before), 30000),
		  SHM_GONE(d.shmem_before));
	EXPECT_EQ(0, wqt_debugfs_lists("nsq", d.nsst.st_ino) > 0 ? 1 : 0);
}

/*
 * A /dev/wq file belongs to the namespace it was opened in, used anywhere
 * later (here passed to the parent with pidfd_getfd(), the namespace's
 * last process gone): it pins the namespace, its calls see that
 * namespace's names, and its close, nothing else holding the namespace,
 * takes the namespace's queues and the namespace with it.
 */
TEST_F(ns, a_file_keeps_its_namespace)
{
	struct nsdev d = { .share = 1 };
	int pidfd, dev, fd;
	pid_t pid;

	pid = ns_start(&d);
	if (d.shmem_before < 0)
		SKIP(return, "no Shmem in /proc/meminfo");
	ASSERT_GT(pid, 0);
	pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
	ASSERT_GE(pidfd, 0);
	dev = (int)syscall(SYS_pidfd_getfd, pidfd, d.fd, 0);
	ASSERT_GE(dev, 0) TH_LOG("pidfd_getfd: %s", strerror(errno));
	close(pidfd);
	ASSERT_EQ(0, hs_send(d.hs.down[1]));
	EXPECT_EQ(0, wqt_wait_child(pid, 30000));

	/* no task is in the namespace; the file holds it, and its queue */
	wqt_sleep_ms(500);
	EXPECT_GE(shmem_kb(), SHM_HELD(d.shmem_before));
	EXPECT_EQ(1, wq_len(dev));
	EXPECT_EQ(-ENOENT, wq_open("nsq"));		/* not ours */
	if (wqt_debugfs_lists("nsq", d.nsst.st_ino) >= 0)
		EXPECT_EQ(1, wqt_debugfs_lists("nsq", d.nsst.st_ino));

	/* the parent's own files see the parent's names: "nsq" is free */
	fd = wq_create("nsq", NULL);
	ASSERT_GE(fd, 0);
	EXPECT_EQ(0, wq_len(fd));
	EXPECT_EQ(0, wq_destroy("nsq"));
	wq_close(fd);

	close(dev);
	EXPECT_LT(shmem_below(SHM_GONE(d.shmem_before), 30000),
		  SHM_GONE(d.shmem_before));
	EXPECT_EQ(0, wqt_debugfs_lists("nsq", d.nsst.st_ino) > 0 ? 1 : 0);
}

/* ---- ns_max_queues ---------------------------------------------------- */

#define NS_MAX	3

struct filler {
	struct handshake hs;
	int drop;		/* run as UID_A (no CAP_SYS_RESOURCE) */
};

/*
 * In a new IPC namespace, as UID_A (or root): NS_MAX queues, then -ENOSPC
 * (root: a fourth); tells the parent and holds them until its word.
 */
static int fill_ns(void *arg)
{
	struct filler *f = arg;
	struct wq_module_info mi;
	char name[WQ_NAME_MAX];
	int fd[NS_MAX + 1], i;

	CHILD_CHECK(unshare(CLONE_NEWIPC) == 0);
	if (f->drop)
		CHILD_CHECK(drop_to(UID_A) == 0);
	CHILD_CHECK(raw_module_info(&mi) == 0);
	CHILD_CHECK(mi.max_queues == NS_MAX);	/* this namespace's limit */
	for (i = 0; i < NS_MAX; i++) {
		snprintf(name, sizeof(name), "nsmax.%d", i);
		fd[i] = wq_create(name, NULL);
		CHILD_CHECK(fd[i] >= 0);
	}
	if (f->drop) {
		CHILD_CHECK(wq_create("nsmax.x", NULL) == -ENOSPC);
		CHILD_CHECK(wq_open("nsmax.x") == -ENOENT);	/* nothing made */
		CHILD_CHECK(wq_destroy("nsmax.0") == 0);	/* room again */
		wq_close(fd[0]);
		fd[0] = wq_create("nsmax.x", NULL);
		CHILD_CHECK(fd[0] >= 0);
	} else {
		fd[NS_MAX] = wq_create("nsmax.x", NULL);	/* the admin's */
		CHILD_CHECK(fd[NS_MAX] >= 0);
	}
	CHILD_CHECK(hs_send(f->hs.up[1]) == 0);
	CHILD_CHECK(hs_recv(f->hs.down[0]) == 0);
	return 0;
}

/* In the initial namespace, as UID_A: two queues, then -ENOSPC. */
static int fill_two(void *arg)
{
	int fd[2], i;

	(void)arg;
	fd[0] = wq_create("nsmax.host.0", NULL);
	fd[1] = wq_create("nsmax.host.1", NULL);
	CHILD_CHECK(fd[0] >= 0 && fd[1] >= 0);
	CHILD_CHECK(wq_create("nsmax.host.2", NULL) == -ENOSPC);
	for (i = 0; i < 2; i++)
		wq_close(fd[i]);
	CHILD_CHECK(wq_destroy("nsmax.host.0") == 0);
	CHILD_CHECK(wq_destroy("nsmax.host.1") == 0);
	return 0;
}

/*
 * Each namespace other than the initial one has ns_max_queues names: a
 * full one does not take another's, nor the initial namespace's.
 */
TEST_F(ns, ns_max_queues_bounds_each_namespace)
{
	struct filler f1 = { .drop = 1 }, f2 = { .drop = 1 }, f3 = { .drop = 0 };
	pid_t p1, p2, p3;

	ASSERT_EQ(0, wqt_param_set("ns_max_queues", NS_MAX));
	ASSERT_EQ(0, hs_init(&f1.hs));
	ASSERT_EQ(0, hs_init(&f2.hs));
	ASSERT_EQ(0, hs_init(&f3.hs));
	p1 = wqt_spawn(fill_ns, &f1);
	ASSERT_GT(p1, 0);
	close(f1.hs.up[1]);		/* a child that fails ends the wait */
	ASSERT_EQ(0, hs_recv(f1.hs.up[0]));
	/* while the first is full: another namespace has its own share */
	p2 = wqt_spawn(fill_ns, &f2);
	ASSERT_GT(p2, 0);
	close(f2.hs.up[1]);
	ASSERT_EQ(0, hs_recv(f2.hs.up[0]));
	/* root (CAP_SYS_RESOURCE) past it, as past max_queues */
	p3 = wqt_spawn(fill_ns, &f3);
	ASSERT_GT(p3, 0);
	close(f3.hs.up[1]);
	ASSERT_EQ(0, hs_recv(f3.hs.up[0]));
	/*
	 * and the initial namespace has its own limit (max_queues), which
	 * the containers' 10 queues do not count against
	 */
	ASSERT_EQ(0, wqt_param_set("max_queues", wq_list(NULL, 0) + 2));
	EXPECT_EQ(0, as_user(UID_A, fill_two, NULL));
	EXPECT_EQ(0, hs_send(f1.hs.down[1]));
	EXPECT_EQ(0, hs_send(f2.hs.down[1]));
	EXPECT_EQ(0, hs_send(f3.hs.down[1]));
	EXPECT_EQ(0, wqt_wait_child(p1, 30000));
	EXPECT_EQ(0, wqt_wait_child(p2, 30000));
	EXPECT_EQ(0, wqt_wait_child(p3, 30000));
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
