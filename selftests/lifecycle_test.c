// SPDX-License-Identifier: GPL-2.0
/*
 * Lifecycle of queues and handles: names, create/open/destroy/close, the
 * lifetime of a named queue, attributes and permission bits, handles that
 * are not queue handles. Closing a handle that holds keys, shutdown and
 * drain: lifecycle_shutdown_test.c.
 */
#include "wq_test_util.h"
#include "wq_test_files.h"
#include "wq_test_ioctl.h"

WQT_FIXTURE(life);

/* ---- names ---------------------------------------------------------------- */

TEST_F(life, valid_names)
{
	const char *names[] = { "a", "Z", "0", "-", "_", "A.b-c_D.9",
				"ns.pod-1_x", NULL };
	char name[WQ_NAME_MAX];
	size_t i, n;
	int fd;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (names[i]) {
			snprintf(name, sizeof(name), "%d%s", (int)getpid(), names[i]);
		} else {	/* the longest name: 63 characters */
			n = snprintf(name, sizeof(name), "%d", (int)getpid());
			memset(name + n, 'q', 63 - n);
			name[63] = '\0';
			ASSERT_EQ(63U, strlen(name));
		}
		fd = wq_create(name, NULL);
		ASSERT_LE(0, fd) TH_LOG("wq_create(\"%s\"): %s", name, strerror(-fd));
		ASSERT_EQ(0, wq_close(fd));
		fd = wq_open(name);
		ASSERT_LE(0, fd) TH_LOG("wq_open(\"%s\")", name);
		ASSERT_EQ(0, wq_close(fd));
		ASSERT_EQ(0, wq_destroy(name));
	}
}

/* "." and ".." match [A-Za-z0-9._-]{1,63}; queues are not files. */
TEST_F(life, dot_names)
{
	const char *names[] = { ".", "..", "...", ".hidden" };
	size_t i;
	int fd;

	for (i = 0; i < 4; i++) {
		wq_destroy(names[i]);	/* left over from an earlier run */
		fd = wq_create(names[i], NULL);
		ASSERT_LE(0, fd) TH_LOG("wq_create(\"%s\"): %s", names[i],
					strerror(-fd));
		ASSERT_EQ(0, wq_close(fd));
		ASSERT_EQ(0, wq_destroy(names[i]));
	}
}

TEST_F(life, invalid_names)
{
	char n64[65];
	const char *bad[] = { "", n64, "a/b", "/a", "a b", "\xc3\xa9t\xc3\xa9",
			      "a\n", "a*", "a:b", "tab\t", "\x7f" };
	size_t i;

	memset(n64, 'a', 64);
	n64[64] = '\0';
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		EXPECT_EQ(-EINVAL, wq_create(bad[i], NULL)) TH_LOG("name #%zu", i);
		EXPECT_EQ(-EINVAL, wq_open(bad[i])) TH_LOG("name #%zu", i);
		EXPECT_EQ(-EINVAL, wq_destroy(bad[i])) TH_LOG("name #%zu", i);
	}
}

TEST_F(life, create_twice)
{
	int fd = wq_create(self->name, NULL);

	ASSERT_EQ(-EEXIST, fd);
	/* the existing queue is untouched */
	ASSERT_EQ(0, ADD(self->fd, "k"));
	ASSERT_EQ(1, wq_len(self->fd));
}

TEST_F(life, missing_queue)
{
	char name[WQ_NAME_MAX];

	wqt_name(name, "missing");
	ASSERT_EQ(-ENOENT, wq_open(name));
	ASSERT_EQ(-ENOENT, wq_destroy(name));
	ASSERT_EQ(0, wq_destroy(self->name));
	ASSERT_EQ(-ENOENT, wq_destroy(self->name));
	ASSERT_EQ(-ENOENT, wq_open(self->name));
}

/* ---- lifetime ------------------------------------------------------------- */

/* A queue lives after its last handle closes, until it is destroyed. */
TEST_F(life, queue_outlives_handles)
{
	char buf[16];
	int fd;

	ASSERT_EQ(0, ADD(self->fd, "one"));
	ASSERT_EQ(0, ADD(self->fd, "two"));
	ASSERT_EQ(0, wq_close(self->fd));
	self->fd = -1;
	fd = wq_open(self->name);
	ASSERT_LE(0, fd);
	self->fd = fd;
	ASSERT_EQ(2, wq_len(fd));
	EXPECT_GET(fd, "one");
	EXPECT_GET(fd, "two");
	ASSERT_EQ(-EAGAIN, wq_get(fd, buf, sizeof(buf), 0));
}

/* The size of the objects of slab cache @cache (/proc/slabinfo), or -1. */
static long slab_objsize(const char *cache)
{
	char line[256], name[64];
	long size = -1, active, num, v;
	FILE *f = fopen("/proc/slabinfo", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%63s %ld %ld %ld", name, &active, &num,
			   &v) == 4 && !strcmp(name, cache))
			size = v;
	fclose(f);
	return size;
}

/*
 * A queue is one object of a cache of its own, about 2.5 KiB: not a
 * kmalloc-4096 slot, which would cost each queue 1.5 KiB more. Destroyed
 * with no handle open, it is freed.
 */
TEST_F(life, a_queue_is_one_object_of_its_own_cache)
{
	char names[3][WQ_NAME_MAX];
	long before, with, after = -1;
	int i, fd, tries;

	before = wqt_slab_active("wq_queue");
	ASSERT_LE(0, before) TH_LOG("no wq_queue in /proc/slabinfo");
	/* 2,512 bytes; more with the debug kernel's locks and red zones */
	EXPECT_GT(4096, slab_objsize("wq_queue"));
	for (i = 0; i < 3; i++) {
		fd = wqt_create_named(names[i], "size", NULL);
		ASSERT_LE(0, fd);
		ASSERT_EQ(0, wq_close(fd));
	}
	with = wqt_slab_active("wq_queue");
	for (i = 0; i < 3; i++)
		ASSERT_EQ(0, wq_destroy(names[i]));
	EXPECT_EQ(before + 3, with);
	for (tries = 0; tries < 50; tries++) {
		after = wqt_slab_active("wq_queue");
		if (after == before)
			break;
		usleep(100 * 1000);
	}
	EXPECT_EQ(before, after);
}

/* Destroy unlinks the name; open handles keep the old queue working. */
TEST_F(life, destroy_keeps_open_handles)
{
	struct wq_stats st;
	char buf[16];
	int fd2, fd3;

	fd2 = wq_open(self->name);
	ASSERT_LE(0, fd2);
	ASSERT_EQ(0, ADD(self->fd, "old"));
	ASSERT_EQ(0, wq_destroy(self->name));
	ASSERT_EQ(-ENOENT, wq_open(self->name));
	ASSERT_EQ(0, wqt_stat(self->fd, &st));
	EXPECT_TRUE(st.unlinked);
	/* both old handles still work on the old queue */
	ASSERT_EQ(0, ADD(fd2, "old2"));
	ASSERT_EQ(2, wq_len(self->fd));
	EXPECT_GET(fd2, "old");
	ASSERT_EQ(0, DONE(self->fd, "old"));

	/* the name can be reused: a different, empty queue */
	fd3 = wq_create(self->name, NULL);
	ASSERT_LE(0, fd3);
	ASSERT_EQ(0, wq_len(fd3));
	ASSERT_EQ(-EAGAIN, wq_get(fd3, buf, sizeof(buf), 0));
	ASSERT_EQ(0, ADD(fd3, "new"));
	ASSERT_EQ(1, wq_len(self->fd));	/* old queue: only "old2" */
	ASSERT_EQ(1, wq_len(fd3));
	EXPECT_GET(self->fd, "old2");
	EXPECT_GET(fd3, "new");
	ASSERT_EQ(0, wqt_stat(fd3, &st));
	EXPECT_FALSE(st.unlinked);
	ASSERT_EQ(0, wq_close(fd2));
	ASSERT_EQ(0, wq_close(fd3));
	/* teardown destroys the new queue through self->name */
}

/* Two handles of one queue (also one per process) share it. */
TEST_F(life, handles_share_queue)
{
	int fd2 = wq_open(self->name);
	char buf[16];

	ASSERT_LE(0, fd2);
	ASSERT_NE(self->fd, fd2);
	ASSERT_EQ(0, ADD(self->fd, "x"));
	ASSERT_EQ(0, ADD(fd2, "x"));
	ASSERT_EQ(1, wq_len(fd2));
	EXPECT_GET(fd2, "x");
	ASSERT_EQ(-EAGAIN, wq_get(self->fd, buf, sizeof(buf), 0));
	/* any handle may end processing of a key another handle got */
	ASSERT_EQ(0, DONE(self->fd, "x"));
	ASSERT_EQ(-ENOENT, DONE(fd2, "x"));
	EXPECT_STATS(self->fd, STAT(handles, 2), STAT(keys, 0));
	ASSERT_EQ(0, wq_close(fd2));
	EXPECT_STATS(self->fd, STAT(handles, 1));
}

struct fork_arg {
	int fd;
	const char *name;
};

static int child_inherited_add(void *p)
{
	struct fork_arg *a = p;

	return ADD(a->fd, "from-child") == 0 ? 0 : 1;
}

static int child_open_get_done(void *p)
{
	struct fork_arg *a = p;
	char buf[32];
	int fd = wq_open(a->name);

	if (fd < 0)
		return 2;
	if (get_str(fd, buf, sizeof(buf), 5000) != 6 || strcmp(buf, "parent"))
		return 3;
	if (DONE(fd, "parent"))
		return 4;
	return wq_close(fd) ? 5 : 0;
}

/* Handles in different processes (inherited or opened by name) share it. */
TEST_F(life, fork_shares_queue)
{
	struct fork_arg a = { self->fd, self->name };
	pid_t pid;

	pid = wqt_spawn(child_inherited_add, &a);
	ASSERT_LT(0, pid);
	ASSERT_EQ(0, wqt_wait_child(pid, 10000));
	EXPECT_GET(self->fd, "from-child");
	ASSERT_EQ(0, DONE(self->fd, "from-child"));

	pid = wqt_spawn(child_open_get_done, &a);
	ASSERT_LT(0, pid);
	wqt_sleep_ms(100);
	ASSERT_EQ(0, ADD(self->fd, "parent"));
	ASSERT_EQ(0, wqt_wait_child(pid, 10000));
	ASSERT_EQ(0, wq_len(self->fd));
	ASSERT_EQ(-ENOENT, DONE(self->fd, "parent"));
}

/* ---- attributes and permissions ------------------------------------------ */

TEST_F(life, default_attributes)
{
	struct wq_stats st;

	ASSERT_EQ(0, wqt_stat(self->fd, &st));
	EXPECT_STREQ(self->name, st.name);
	EXPECT_EQ(0600U, st.mode & 07777);
	EXPECT_EQ((uint32_t)geteuid(), st.uid);
	EXPECT_EQ((uint32_t)getegid(), st.gid);
	EXPECT_LT(0U, st.max_items);
	EXPECT_EQ(0, st.shutting_down);
	EXPECT_EQ(0, wq_shutting_down(self->fd));
	EXPECT_NE('\0', st.limiter[0]);
}

/*
 * Creates a queue with attr under the umask mask and checks its mode bits;
 * its stats in *st. The queue is destroyed again.
 */
static void create_with(struct __test_metadata *_metadata,
			const struct wq_attr *attr, mode_t mask,
			uint32_t want_mode, struct wq_stats *st)
{
	char name[WQ_NAME_MAX];
	int fd;

	umask(mask);
	wqt_name(name, "attr");
	fd = wq_create(name, attr);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, wqt_stat(fd, st));
	EXPECT_EQ(want_mode, st->mode & 07777);
	wq_close(fd);
	wq_destroy(name);
}

TEST_F(life, create_attributes)
{
	struct wq_attr attr = { .limiter = "none", .max_items = 7, .mode = 0640 };
	struct wq_stats st;

	create_with(_metadata, &attr, 022, 0640, &st);
	EXPECT_EQ(7U, st.max_items);
	/* mode 0 means 0600; like mq_open() the umask applies */
	attr.mode = 0;
	attr.max_items = 0;
	create_with(_metadata, &attr, 022, 0600, &st);
	EXPECT_LT(0U, st.max_items);
	attr.mode = 0666;
	create_with(_metadata, &attr, 077, 0600, &st);
	umask(022);
}

TEST_F(life, bad_limiter_creates_nothing)
{
	struct wq_attr attr = { .limiter = "exponential:5ms" };
	char name[WQ_NAME_MAX];

	wqt_name(name, "badlim");
	ASSERT_EQ(-EINVAL, wq_create(name, &attr));
	ASSERT_EQ(-ENOENT, wq_open(name));
	attr.limiter = "bogus";
	ASSERT_EQ(-EINVAL, wq_create(name, &attr));
	ASSERT_EQ(-ENOENT, wq_open(name));
}

struct perm_arg {
	const char *name;
	int expect;
};

/* As user nobody: wq_open must return a->expect (0 meaning success). */
static int child_open_as_nobody(void *p)
{
	struct perm_arg *a = p;
	int fd;

	if (setgid(65534) || setuid(65534))
		return 10;
	fd = wq_open(a->name);
	if (a->expect == 0)
		return fd >= 0 ? 0 : 1;
	return fd == a->expect ? 0 : 2;
}

/* The mode bits are checked at open, like a file (root bypasses them). */
TEST_F(life, permissions)
{
	struct wq_attr attr = { .mode = 0666 };
	struct perm_arg a = { self->name, -EACCES };
	char name[WQ_NAME_MAX];
	pid_t pid;
	int fd;

	if (geteuid() != 0)
		SKIP(return, "needs root to switch users");
	umask(0);
	/* self->name has the default mode 0600, owned by root */
	pid = wqt_spawn(child_open_as_nobody, &a);
	ASSERT_LT(0, pid);
	ASSERT_EQ(0, wqt_wait_child(pid, 10000)) TH_LOG("0600 queue opened by nobody");

	wqt_name(name, "perm");
	fd = wq_create(name, &attr);
	ASSERT_LE(0, fd);
	a.name = name;
	a.expect = 0;
	pid = wqt_spawn(child_open_as_nobody, &a);
	ASSERT_LT(0, pid);
	EXPECT_EQ(0, wqt_wait_child(pid, 10000)) TH_LOG("0666 queue not opened by nobody");
	wq_close(fd);
	wq_destroy(name);
	umask(022);
}

/* wq_list sees every named queue, and not destroyed ones. */
TEST_F(life, list_names)
{
	struct wq_stats *st;
	int n, cap, i, found = 0;

	n = wq_list(NULL, 0);
	ASSERT_LE(1, n);
	cap = n + 8;
	st = calloc(cap, sizeof(*st));
	ASSERT_NE(NULL, st);
	n = wq_list(st, cap);
	ASSERT_LE(1, n);
	for (i = 0; i < n && i < cap; i++)
		if (!strcmp(st[i].name, self->name))
			found++;
	ASSERT_EQ(1, found);
	ASSERT_EQ(0, wq_destroy(self->name));
	n = wq_list(st, cap);
	found = 0;
	for (i = 0; i < n && i < cap; i++)
		if (!strcmp(st[i].name, self->name))
			found++;
	ASSERT_EQ(0, found);
	free(st);
}

/* Creating beyond the module's queue limit (max_queues) is -ENOSPC. */
/* ---- not a queue handle --------------------------------------------------- */

static void expect_ebadf_everywhere(struct __test_metadata *_metadata, int fd)
{
	struct wq_stats st;
	uint64_t d;
	char buf[8];

	EXPECT_EQ(-EBADF, ADD(fd, "k"));
	EXPECT_EQ(-EBADF, wq_get(fd, buf, sizeof(buf), 0));
	EXPECT_EQ(-EBADF, wq_get(fd, buf, sizeof(buf), 100));
	EXPECT_EQ(-EBADF, wq_get_detached(fd, buf, sizeof(buf), 0));
	EXPECT_EQ(-EBADF, DONE(fd, "k"));
	EXPECT_EQ(-EBADF, wq_len(fd));
	EXPECT_EQ(-EBADF, wq_shutting_down(fd));
	EXPECT_EQ(-EBADF, wq_shutdown(fd));
	EXPECT_EQ(-EBADF, wq_shutdown_with_drain(fd, 100));
	EXPECT_EQ(-EBADF, wq_add_after(fd, "k", 1, 1000));
	EXPECT_EQ(-EBADF, wq_add_rate_limited(fd, "k", 1, &d));
	EXPECT_EQ(-EBADF, wq_forget(fd, "k", 1));
	EXPECT_EQ(-EBADF, wq_num_requeues(fd, "k", 1));
	EXPECT_EQ(-EBADF, wq_stat(fd, &st));
}

TEST_F(life, not_a_queue_handle)
{
	int devnull = open("/dev/null", O_RDWR);
	int unbound = open("/dev/wq", O_RDWR);
	int closed = wq_open(self->name);

	ASSERT_LE(0, devnull);
	ASSERT_LE(0, unbound);
	ASSERT_LE(0, closed);
	ASSERT_EQ(0, wq_close(closed));

	expect_ebadf_everywhere(_metadata, devnull);
	expect_ebadf_everywhere(_metadata, unbound);
	expect_ebadf_everywhere(_metadata, closed);
	expect_ebadf_everywhere(_metadata, -1);
	/* the real queue saw none of it */
	ASSERT_EQ(0, wq_len(self->fd));
	ASSERT_EQ(0, wq_shutting_down(self->fd));
	close(devnull);
	close(unbound);
}

TEST_F(life, close_bad_fd)
{
	int devnull = open("/dev/null", O_RDWR);
	int fd = wq_open(self->name);

	ASSERT_LE(0, devnull);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, wq_close(fd));
	ASSERT_EQ(-EBADF, wq_close(fd));
	ASSERT_EQ(-EBADF, wq_close(-1));
	ASSERT_EQ(-EBADF, wq_close(devnull));
	close(devnull);
}

TEST_HARNESS_MAIN
