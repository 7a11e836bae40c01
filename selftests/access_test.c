// SPDX-License-Identifier: GPL-2.0
/*
 * Access modes (wq_create(3), doc/security.md): wq_open_flags() with O_RDONLY,
 * O_WRONLY, O_RDWR and O_NONBLOCK; the queue's mode checked for the access
 * asked, as mq_open() does; -EBADF for a call the handle's access does not
 * allow; a listing that shows only the queues the caller may open. The
 * checks of other users run in children that drop to other uids.
 */
#include "wq_test_util.h"
#include "wq_test_ioctl.h"
#include "wq_test_users.h"

FIXTURE(access) {
	char name[WQ_NAME_MAX];
	int fd;
};

FIXTURE_SETUP(access)
{
	if (!wqt_have_dev())
		SKIP(return, "/dev/wq missing (module not loaded)");
	wqt_name(self->name, "acc");
	self->fd = wq_create(self->name, NULL);
	ASSERT_GE(self->fd, 0);
}

FIXTURE_TEARDOWN(access)
{
	wqt_reap_all();
	if (self->fd >= 0) {
		wq_destroy(self->name);
		wq_close(self->fd);
	}
}

/* A consumer: get and done, nothing a producer does. */
TEST_F(access, read_only_handle)
{
	char buf[16];
	uint64_t d;
	int fd;

	ASSERT_EQ(0, wq_add(self->fd, "k", 1));
	fd = wq_open_flags(self->name, O_RDONLY);
	ASSERT_GE(fd, 0);
	EXPECT_EQ(-EBADF, wq_add(fd, "x", 1));
	EXPECT_EQ(-EBADF, wq_add_after(fd, "x", 1, SEC));
	EXPECT_EQ(-EBADF, wq_add_rate_limited(fd, "x", 1, &d));
	EXPECT_EQ(-EBADF, wq_forget(fd, "k", 1));
	EXPECT_EQ(-EBADF, wq_shutdown(fd));
	EXPECT_EQ(-EBADF, wq_shutdown_with_drain(fd, 0));
	EXPECT_EQ(0, wq_shutting_down(fd));	/* nothing changed */
	EXPECT_EQ(1, wq_len(fd));
	EXPECT_EQ(0, wq_num_requeues(fd, "k", 1));
	EXPECT_EQ(1, wq_get(fd, buf, sizeof(buf), 0));
	EXPECT_EQ(0, wq_done(fd, "k", 1));
	EXPECT_EQ(0, wq_len(self->fd));
	wq_close(fd);
}

/* A producer: add, forget and shutdown, no get or done. */
TEST_F(access, write_only_handle)
{
	char buf[16];
	uint64_t d;
	int fd;

	fd = wq_open_flags(self->name, O_WRONLY);
	ASSERT_GE(fd, 0);
	EXPECT_EQ(0, wq_add(fd, "k", 1));
	EXPECT_EQ(0, wq_add_after(fd, "w", 1, 3600 * SEC));
	EXPECT_EQ(0, wq_add_rate_limited(fd, "r", 1, &d));
	EXPECT_EQ(0, wq_forget(fd, "r", 1));
	EXPECT_EQ(-EBADF, wq_get(fd, buf, sizeof(buf), 0));
	EXPECT_LE(1, wq_len(fd));	/* nothing taken (r may be due: 5 ms) */
	EXPECT_EQ(1, wq_get(self->fd, buf, sizeof(buf), 0));
	EXPECT_EQ(-EBADF, wq_done(fd, "k", 1));
	EXPECT_EQ(0, wq_done(self->fd, "k", 1));
	EXPECT_EQ(0, wq_shutdown(fd));
	EXPECT_EQ(1, wq_shutting_down(self->fd));
	wq_close(fd);
}

/* O_RDWR is both, as wq_open(); unknown flags and O_ACCMODE are -EINVAL. */
TEST_F(access, flags)
{
	char buf[16];
	int fd;

	fd = wq_open_flags(self->name, O_RDWR);
	ASSERT_GE(fd, 0);
	EXPECT_EQ(0, wq_add(fd, "k", 1));
	EXPECT_EQ(1, wq_get(fd, buf, sizeof(buf), 0));
	EXPECT_EQ(0, wq_done(fd, "k", 1));
	wq_close(fd);
	EXPECT_EQ(-EINVAL, wq_open_flags(self->name, O_ACCMODE));
	EXPECT_EQ(-EINVAL, wq_open_flags(self->name, O_RDWR | O_CREAT));
	EXPECT_EQ(-EINVAL, wq_open_flags(self->name, O_RDONLY | O_APPEND));
	EXPECT_EQ(-ENOENT, wq_open_flags("acc-no-such-queue", O_RDONLY));
}

/* O_NONBLOCK: a get that would wait without limit returns at once. */
TEST_F(access, nonblock)
{
	int64_t t0, t1;
	char buf[16];
	int fd;

	fd = wq_open_flags(self->name, O_RDONLY | O_NONBLOCK);
	ASSERT_GE(fd, 0);
	t0 = wqt_now_ms();
	EXPECT_EQ(-EAGAIN, wq_get(fd, buf, sizeof(buf), -1));
	t1 = wqt_now_ms();
	EXPECT_LT(t1 - t0, 5000);	/* it did not wait for a key */
	/* an O_NONBLOCK handle never sleeps, whatever the timeout */
	t0 = wqt_now_ms();
	EXPECT_EQ(-EAGAIN, wq_get(fd, buf, sizeof(buf), 3000));
	EXPECT_LT(wqt_now_ms() - t0, 2500);
	ASSERT_EQ(0, wq_add(self->fd, "k", 1));
	EXPECT_EQ(1, wq_get(fd, buf, sizeof(buf), -1));
	EXPECT_EQ(0, wq_done(fd, "k", 1));
	wq_close(fd);
}

/* The raw ABI: both access flags at once; the device file's own access. */
TEST_F(access, raw_open_rules)
{
	struct wq_name n;
	struct wq_create c;
	int fd;

	memset(&n, 0, sizeof(n));
	set_name(n.name, self->name);
	fd = raw_open_dev();
	ASSERT_GE(fd, 0);
	n.flags = WQ_OPEN_READ_ONLY | WQ_OPEN_WRITE_ONLY;
	EXPECT_EQ(EINVAL, xioctl(fd, WQ_IOC_OPEN, &n));
	n.flags = 1u << 5;
	EXPECT_EQ(EINVAL, xioctl(fd, WQ_IOC_OPEN, &n));
	close(fd);

	/* a /dev/wq file opened read-only gives no write access */
	fd = open("/dev/wq", O_RDONLY | O_CLOEXEC);
	ASSERT_GE(fd, 0);
	n.flags = 0;
	EXPECT_EQ(EBADF, xioctl(fd, WQ_IOC_OPEN, &n));
	n.flags = WQ_OPEN_WRITE_ONLY;
	EXPECT_EQ(EBADF, xioctl(fd, WQ_IOC_OPEN, &n));
	memset(&c, 0, sizeof(c));
	set_name(c.name, "acc-raw-ro");
	EXPECT_EQ(EBADF, xioctl(fd, WQ_IOC_CREATE, &c));
	EXPECT_EQ(-ENOENT, wq_open("acc-raw-ro"));	/* nothing made */
	n.flags = WQ_OPEN_READ_ONLY;
	EXPECT_EQ(0, xioctl(fd, WQ_IOC_OPEN, &n));
	EXPECT_EQ(EBADF, raw_add(fd, "k", 1));
	close(fd);
}

/* ---- other users ------------------------------------------------------- */

struct modes {
	const char *name;
	int rdonly, wronly, rdwr;	/* expected: 0 or -errno */
};

static int try_open(const char *name, int flags, int want)
{
	int fd = wq_open_flags(name, flags);

	if (fd >= 0)
		wq_close(fd);
	return (fd >= 0 ? 0 : fd) == want;
}

static int check_modes(void *p)
{
	const struct modes *m = p;

	CHILD_CHECK(try_open(m->name, O_RDONLY, m->rdonly));
	CHILD_CHECK(try_open(m->name, O_WRONLY, m->wronly));
	CHILD_CHECK(try_open(m->name, O_RDWR, m->rdwr));
	CHILD_CHECK(wq_destroy(m->name) == -EACCES);	/* not the owner */
	return 0;
}

/* The mode is checked for the access asked, per class (other here). */
TEST_F(access, mode_checked_for_the_access_asked)
{
	static const struct { mode_t mode; int r, w, rw; } cases[] = {
		{ 0604, 0, -EACCES, -EACCES },
		{ 0602, -EACCES, 0, -EACCES },
		{ 0606, 0, 0, 0 },
		{ 0600, -EACCES, -EACCES, -EACCES },
	};
	char name[WQ_NAME_MAX];
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		struct wq_attr attr = { .mode = cases[i].mode };
		struct modes m = { name, cases[i].r, cases[i].w, cases[i].rw };
		mode_t old = umask(0);
		int fd;

		wqt_name(name, "accmode");
		fd = wq_create(name, &attr);
		umask(old);
		ASSERT_GE(fd, 0);
		EXPECT_EQ(0, as_user(UID_A, check_modes, &m))
			TH_LOG("mode %04o", (unsigned int)cases[i].mode);
		EXPECT_EQ(0, wq_destroy(name));
		wq_close(fd);
	}
}

struct seen {
	char open[WQ_NAME_MAX], hidden[WQ_NAME_MAX];
};

static int list_has(const char *name)
{
	static struct wq_stats st[1024];
	int n = wq_list(st, 1024), i;

	for (i = 0; i < n && i < 1024; i++)
		if (!strcmp(st[i].name, name))
			return 1;
	return 0;
}

static int check_list(void *p)
{
	const struct seen *s = p;

	CHILD_CHECK(list_has(s->open));
	CHILD_CHECK(!list_has(s->hidden));
	return 0;
}

/* A listing shows what the caller may open; root (CAP_IPC_OWNER) all. */
TEST_F(access, list_shows_only_what_may_be_opened)
{
	struct wq_attr open_attr = { .mode = 0604 }, hidden_attr = { .mode = 0600 };
	struct seen s;
	int fo, fh;

	wqt_name(s.open, "accls");
	wqt_name(s.hidden, "accls");
	fo = wq_create(s.open, &open_attr);
	fh = wq_create(s.hidden, &hidden_attr);
	ASSERT_GE(fo, 0);
	ASSERT_GE(fh, 0);
	EXPECT_EQ(1, list_has(s.open));
	EXPECT_EQ(1, list_has(s.hidden));
	EXPECT_EQ(0, as_user(UID_A, check_list, &s));
	wq_destroy(s.open);
	wq_destroy(s.hidden);
	wq_close(fo);
	wq_close(fh);
}

TEST_HARNESS_MAIN
