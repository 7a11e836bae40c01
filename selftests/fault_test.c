// SPDX-License-Identifier: GPL-2.0
/*
 * A call that fails changes nothing; a call that took effect does not
 * fail (uapi: results are written after the change, to fields found
 * writable before it). The struct of a call that waits is unmapped by
 * another thread while it waits: ADD (waiting for room) still adds and
 * succeeds, its outcome lost with the struct; DONE_GET (its get waiting for a key) has made its
 * done and returns 0, the key it took put back. A struct that cannot be
 * written to begin with fails the call with EFAULT, nothing changed.
 */
#include "wq_test_util.h"
#include "wq_test_ioctl.h"
#include "wq_test_jobs.h"

#include <sys/mman.h>

FIXTURE(fault) {
	int fd;
	char name[WQ_NAME_MAX];
	void *page;
	long pagesz;
};

FIXTURE_SETUP(fault)
{
	struct wq_attr attr = { .limiter = "none", .max_items = 1 };

	self->page = MAP_FAILED;
	WQT_SETUP_QUEUE(&attr);
	self->pagesz = sysconf(_SC_PAGESIZE);
	self->page = mmap(NULL, self->pagesz, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, self->page);
}

FIXTURE_TEARDOWN(fault)
{
	if (self->page != MAP_FAILED)
		munmap(self->page, self->pagesz);
	WQT_TEARDOWN_QUEUE();
}

/* The struct of the job's call (in the fixture's page). */
static void *job_arg;

/* ioctl(j->fd, WQ_IOC_ADD, job_arg): its result, or -errno. */
static long call_add(struct wqt_job *j)
{
	int r = ioctl(j->fd, WQ_IOC_ADD, job_arg);

	return r < 0 ? -errno : r;
}

/* ioctl(j->fd, WQ_IOC_DONE_GET, job_arg): its result, or -errno. */
static long call_done_get(struct wqt_job *j)
{
	int r = ioctl(j->fd, WQ_IOC_DONE_GET, job_arg);

	return r < 0 ? -errno : r;
}

/*
 * ADD waiting for room, its struct unmapped meanwhile: the room comes,
 * the add is made and the call succeeds, not EFAULT.
 */
TEST_F(fault, add_struct_unmapped_while_it_waits)
{
	struct wq_add *a = self->page;
	struct wq_key_state ks;
	struct wqt_job j;
	char *key = (char *)self->page + 512;

	ASSERT_EQ(0, ADD(self->fd, "full"));	/* max_items 1: no room */
	strcpy(key, "new");
	a->flags = WQ_ADD_WAIT;
	a->key_len = 3;
	a->key = (uintptr_t)key;
	a->deadline_ns = WQ_DEADLINE_NONE;
	job_arg = a;
	ASSERT_EQ(0, wqt_job_start(&j, call_add, self->fd, -1));
	ASSERT_TRUE(wqt_job_asleep(&j));
	ASSERT_FALSE(wqt_job_returned(&j));
	ASSERT_EQ(0, munmap(self->page, self->pagesz));
	self->page = MAP_FAILED;
	EXPECT_GET(self->fd, "full");
	ASSERT_EQ(0, DONE(self->fd, "full"));	/* room */
	ASSERT_TRUE(wqt_job_wait(&j, UPPER_MS + 5000));
	EXPECT_EQ(0, j.ret);			/* made, not -EFAULT */
	ASSERT_EQ(0, wq_key_state(self->fd, "new", 3, &ks));
	EXPECT_EQ(WQ_KEY_QUEUED, ks.flags);
}

/* ADD of a struct that cannot be written: EFAULT, nothing added. */
TEST_F(fault, add_struct_read_only)
{
	struct wq_add *a = self->page;
	struct wq_key_state ks;
	char *key = (char *)self->page + 512;

	strcpy(key, "ro");
	a->key_len = 2;
	a->key = (uintptr_t)key;
	ASSERT_EQ(0, mprotect(self->page, self->pagesz, PROT_READ));
	EXPECT_EQ(EFAULT, xioctl(self->fd, WQ_IOC_ADD, a));
	ASSERT_EQ(0, wq_key_state(self->fd, "ro", 2, &ks));
	EXPECT_EQ(0, ks.flags);
	EXPECT_EQ(0, wq_len(self->fd));
}

/*
 * DONE_GET whose get waits, its struct unmapped meanwhile: the done was
 * made, the key the get took goes back, and the call returns 0.
 */
TEST_F(fault, done_get_struct_unmapped_while_it_waits)
{
	struct wq_done_get *dg = self->page;
	struct wq_key_state ks;
	static char buf[64];
	char *key = (char *)self->page + 512;
	struct wqt_job j;

	ASSERT_EQ(0, ADD(self->fd, "a"));
	EXPECT_GET(self->fd, "a");		/* processing */
	strcpy(key, "a");
	dg->prev = (uintptr_t)key;
	dg->prev_len = 1;
	dg->get.buf = (uintptr_t)buf;
	dg->get.buf_cap = sizeof(buf);
	dg->get.deadline_ns = WQ_DEADLINE_NONE;
	job_arg = dg;
	ASSERT_EQ(0, wqt_job_start(&j, call_done_get, self->fd, -1));
	ASSERT_TRUE(wqt_job_asleep(&j));
	ASSERT_FALSE(wqt_job_returned(&j));
	ASSERT_EQ(0, wq_key_state(self->fd, "a", 1, &ks));
	EXPECT_EQ(0, ks.flags);			/* the done is made */
	ASSERT_EQ(0, munmap(self->page, self->pagesz));
	self->page = MAP_FAILED;
	ASSERT_EQ(0, ADD(self->fd, "b"));
	ASSERT_TRUE(wqt_job_wait(&j, UPPER_MS + 5000));
	EXPECT_EQ(0, j.ret);
	ASSERT_EQ(0, wq_key_state(self->fd, "b", 1, &ks));
	EXPECT_EQ(WQ_KEY_QUEUED, ks.flags);	/* put back, not lost */
	EXPECT_GET(self->fd, "b");
}

TEST_HARNESS_MAIN
