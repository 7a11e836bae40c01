// SPDX-License-Identifier: GPL-2.0
/*
 * A detached key (WQ_GET_DETACH: held by no handle) through everything
 * that moves records about: spare records recycled by short keys coming
 * and going, the key table growing several times, another handle closing
 * with keys it holds (put back), a discard. Whatever happened meanwhile,
 * a done of the detached key through any handle of its queue is 0, and
 * the queue's counts come back to 0.
 */
#include "wq_test_util.h"

#define CHURN		256	/* short keys through get and done: spares */
#define GROW		3000	/* new keys: the table grows from 16 buckets */
#define HELD		10	/* keys the second handle holds when it closes */

WQT_FIXTURE(detached);

/* Every key queued, handed out and done through fd: how many there were. */
static int drain_all(int fd)
{
	char buf[WQ_KEY_MAX];
	ssize_t r;
	int n = 0;

	while ((r = wq_get(fd, buf, sizeof(buf), 0)) > 0) {
		if (wq_done(fd, buf, (size_t)r))
			return -1;
		n++;
	}
	return r == -EAGAIN || r == -ESHUTDOWN ? n : (int)r;
}

/* The detached key "det" taken through fd, then spares and a growth. */
static int detach_and_churn(int fd)
{
	char buf[16];
	int i;

	if (ADD(fd, "det") || wq_get_detached(fd, buf, sizeof(buf), 0) != 3)
		return -1;
	for (i = 0; i < CHURN; i++)	/* a record freed, and taken again */
		if (wqt_add_i(fd, i % 8) || wqt_get_i(fd, 0) != i % 8 ||
		    wqt_done_i(fd, i % 8))
			return -1;
	for (i = 0; i < GROW; i++)
		if (wqt_add_i(fd, 100 + i))
			return -1;
	return 0;
}

TEST_F(detached, done_after_spares_growth_and_a_closing_handle)
{
	struct wq_metrics m;
	int other = wq_open(self->name), i;

	ASSERT_LE(0, other);
	ASSERT_EQ(0, detach_and_churn(self->fd));
	EXPECT_STATS(self->fd, STAT(queued, GROW), STAT(processing, 1),
		     STAT(keys, GROW + 1));
	/* the second handle takes keys and goes: they come back */
	for (i = 0; i < HELD; i++)
		ASSERT_EQ(100 + i, wqt_get_i(other, 0));
	EXPECT_STATS(self->fd, STAT(processing, HELD + 1));
	ASSERT_EQ(0, wq_close(other));
	EXPECT_STATS(self->fd, STAT(queued, GROW), STAT(processing, 1));

	/* the detached key ends, from another handle than its get's */
	other = wq_open(self->name);
	ASSERT_LE(0, other);
	EXPECT_EQ(0, DONE(other, "det"));
	EXPECT_EQ(-ENOENT, DONE(self->fd, "det"));
	EXPECT_EQ(GROW, drain_all(other));
	EXPECT_STATS(self->fd, STAT(queued, 0), STAT(processing, 0),
		     STAT(dirty, 0), STAT(waiting, 0), STAT(keys, 0));
	ASSERT_EQ(0, wq_metrics(self->fd, &m));
	EXPECT_EQ(HELD, m.requeued_on_close_total);
	EXPECT_EQ(0, m.depth);
	/* each get but those of the keys put back ended in a done */
	EXPECT_EQ(m.queue_duration.count, m.work_duration.count + HELD);
	wq_close(other);
}

TEST_F(detached, done_after_a_discard)
{
	int other = wq_open(self->name), i;
	char buf[16];

	ASSERT_LE(0, other);
	ASSERT_EQ(0, detach_and_churn(self->fd));
	for (i = 0; i < HELD; i++)
		ASSERT_EQ(100 + i, wqt_get_i(other, 0));
	ASSERT_EQ(0, ADD(self->fd, "det"));	/* dirty: a mark the discard drops */
	EXPECT_STATS(self->fd, STAT(dirty, 1));
	EXPECT_EQ(GROW - HELD, wq_shutdown_discard(self->fd));
	EXPECT_STATS(self->fd, STAT(queued, 0), STAT(dirty, 0),
		     STAT(processing, HELD + 1), STAT(keys, HELD + 1));

	/* the detached key ends through the handle that holds others */
	EXPECT_EQ(0, DONE(other, "det"));
	EXPECT_EQ(-ESHUTDOWN, wq_get(self->fd, buf, sizeof(buf), 0));
	/* its own keys: some done, the rest dropped when it closes */
	for (i = 0; i < HELD / 2; i++)
		EXPECT_EQ(0, wqt_done_i(other, 100 + i));
	ASSERT_EQ(0, wq_close(other));
	EXPECT_STATS(self->fd, STAT(queued, 0), STAT(processing, 0),
		     STAT(dirty, 0), STAT(waiting, 0), STAT(keys, 0));
}

TEST_HARNESS_MAIN
