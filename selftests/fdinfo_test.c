// SPDX-License-Identifier: GPL-2.0
/*
 * /proc/PID/fdinfo/FD of a queue handle, as eventfd, timerfd and io_uring
 * show theirs: the lines "wq-id:\tN" (wq_stat()'s id), "wq-name:\tNAME"
 * or "wq-name:\t(private)", "wq-depth:\tN" (workqueue_depth),
 * "wq-processing:\tN" and "wq-held:\tN" (the keys this handle holds), so
 * an administrator sees private queues and who holds what.
 */
#include "wq_test_util.h"

/* The value of "KEY:\t" in fd's fdinfo into val (cap bytes); 0 or -1. */
static int fdinfo_get(int fd, const char *key, char *val, size_t cap)
{
	char path[64], line[256];
	size_t klen = strlen(key);
	FILE *f;
	int ret = -1;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	f = fopen(path, "re");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, key, klen) || line[klen] != ':' || line[klen + 1] != '\t')
			continue;
		line[strcspn(line, "\n")] = '\0';
		snprintf(val, cap, "%s", line + klen + 2);
		ret = 0;
		break;
	}
	fclose(f);
	return ret;
}

/* The number of "KEY:\tN", or -1 if missing or not a plain number. */
static long long fdinfo_num(int fd, const char *key)
{
	char val[64], *end;
	long long v;

	if (fdinfo_get(fd, key, val, sizeof(val)) || !val[0])
		return -1;
	v = strtoll(val, &end, 10);
	return *end || v < 0 ? -1 : v;
}

FIXTURE(fdinfo) {
	char name[WQ_NAME_MAX];
	int fd;
};

FIXTURE_SETUP(fdinfo)
{
	if (!wqt_have_dev())
		SKIP(return, "/dev/wq missing (module not loaded)");
	wqt_name(self->name, "fdinfo");
	self->fd = wq_create(self->name, NULL);
	ASSERT_GE(self->fd, 0);
}

FIXTURE_TEARDOWN(fdinfo)
{
	if (self->fd >= 0) {
		wq_close(self->fd);
		wq_destroy(self->name);
	}
}

/* A named queue: its id as wq_stat says, its name, its counts. */
TEST_F(fdinfo, named)
{
	struct wq_stats st;
	char val[WQ_NAME_MAX + 8], key[16];

	ASSERT_EQ(0, wqt_stat(self->fd, &st));
	ASSERT_EQ(0, fdinfo_get(self->fd, "wq-name", val, sizeof(val)));
	EXPECT_STREQ(self->name, val);
	EXPECT_EQ((long long)st.id, fdinfo_num(self->fd, "wq-id"));
	EXPECT_EQ(0, fdinfo_num(self->fd, "wq-depth"));
	EXPECT_EQ(0, fdinfo_num(self->fd, "wq-processing"));
	EXPECT_EQ(0, fdinfo_num(self->fd, "wq-held"));

	ASSERT_EQ(0, ADD(self->fd, "a"));
	ASSERT_EQ(0, ADD(self->fd, "b"));
	ASSERT_EQ(0, ADD(self->fd, "c"));
	ASSERT_EQ(1, get_str(self->fd, key, sizeof(key), 0));
	EXPECT_EQ(2, fdinfo_num(self->fd, "wq-depth"));
	EXPECT_EQ(1, fdinfo_num(self->fd, "wq-processing"));
	EXPECT_EQ(1, fdinfo_num(self->fd, "wq-held"));
	ASSERT_EQ(0, ADD(self->fd, "a"));		/* dirty: depth counts it */
	EXPECT_EQ(3, fdinfo_num(self->fd, "wq-depth"));
	ASSERT_EQ(0, DONE(self->fd, "a"));
	EXPECT_EQ(3, fdinfo_num(self->fd, "wq-depth"));
	EXPECT_EQ(0, fdinfo_num(self->fd, "wq-processing"));
	EXPECT_EQ(0, fdinfo_num(self->fd, "wq-held"));
}

/* wq-held is the handle's own; the queue's lines are the same for both. */
TEST_F(fdinfo, held_per_handle)
{
	char key[16];
	int other = wq_open(self->name);

	ASSERT_GE(other, 0);
	ASSERT_EQ(0, ADD(self->fd, "x"));
	ASSERT_EQ(0, ADD(self->fd, "y"));
	ASSERT_EQ(1, get_str(other, key, sizeof(key), 0));
	ASSERT_EQ(1, get_str(other, key, sizeof(key), 0));
	EXPECT_EQ(2, fdinfo_num(other, "wq-held"));
	EXPECT_EQ(0, fdinfo_num(self->fd, "wq-held"));
	EXPECT_EQ(2, fdinfo_num(self->fd, "wq-processing"));
	EXPECT_EQ(fdinfo_num(self->fd, "wq-id"), fdinfo_num(other, "wq-id"));
	wq_close(other);	/* its keys go back */
	EXPECT_EQ(2, fdinfo_num(self->fd, "wq-depth"));
	EXPECT_EQ(0, fdinfo_num(self->fd, "wq-processing"));
}

/* A private queue says so; its id is its own. */
TEST_F(fdinfo, private)
{
	struct wq_stats st;
	char val[WQ_NAME_MAX + 8];
	int p = wq_create_private(NULL);

	ASSERT_GE(p, 0);
	ASSERT_EQ(0, ADD(p, "k"));
	ASSERT_EQ(0, fdinfo_get(p, "wq-name", val, sizeof(val)));
	EXPECT_STREQ("(private)", val);
	ASSERT_EQ(0, wqt_stat(p, &st));
	EXPECT_EQ((long long)st.id, fdinfo_num(p, "wq-id"));
	EXPECT_NE(fdinfo_num(self->fd, "wq-id"), fdinfo_num(p, "wq-id"));
	EXPECT_EQ(1, fdinfo_num(p, "wq-depth"));
	EXPECT_EQ(0, fdinfo_num(p, "wq-held"));
	close(p);
}

/* The same lines by the process's pid, as an administrator reads them. */
TEST_F(fdinfo, by_pid)
{
	char path[64], buf[512];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/fdinfo/%d", (int)getpid(), self->fd);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	ASSERT_GE(fd, 0);
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	ASSERT_GT(n, 0);
	buf[n] = '\0';
	EXPECT_NE(NULL, strstr(buf, "\nwq-id:\t"));
	EXPECT_NE(NULL, strstr(buf, "\nwq-held:\t0\n"));
}

TEST_HARNESS_MAIN
