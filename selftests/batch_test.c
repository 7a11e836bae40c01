// SPDX-License-Identifier: GPL-2.0
/*
 * Work done in batches (wq_queue.h: no hold of the queue lock grows with
 * the queue): many more keys than one batch (64) expiring at the same
 * instant, dropped by a shutdown, or put back by a closing handle, all
 * arrive whole and in order; and the readiness edges those paths make
 * (edge-triggered epoll sees EPOLLIN from a timer batch and EPOLLHUP when
 * the last key is taken after shutdown).
 */
#include <sys/epoll.h>

#include "wq_test_util.h"

#define MANY	5000	/* about 78 batches */

WQT_FIXTURE(batch);

/* AddAfter of key i (wqt_key()). */
static int after_i(int fd, int i, uint64_t delay_ns)
{
	char k[WQT_KEY_LEN + 1];

	return wq_add_after(fd, k, wqt_key(k, i), delay_ns);
}

/* Many keys with one ready time: all come, none early, in add order. */
TEST_F_TIMEOUT(batch, many_keys_expire_together, 120)
{
	int64_t t0 = now_ns(), ready;
	int i, got;

	for (i = 0; i < MANY; i++)
		ASSERT_EQ(0, after_i(self->fd, i, 200 * MS));
	ready = t0 + 200 * MS;
	for (i = 0; i < MANY; i++) {
		got = wqt_get_i(self->fd, UPPER_MS);
		ASSERT_EQ(i, got) TH_LOG("key %d of %d", i, MANY);
		if (i == 0)
			ASSERT_GE(now_ns(), ready);	/* never early */
		ASSERT_EQ(0, wqt_done_i(self->fd, got));
	}
	EXPECT_STATS(self->fd, STAT(waiting, 0), STAT(keys, 0));
}

/* A shutdown drops every waiting key before it returns. */
TEST_F_TIMEOUT(batch, shutdown_drops_many_waiting, 120)
{
	struct wq_stats st;
	int i;

	for (i = 0; i < MANY; i++)
		ASSERT_EQ(0, after_i(self->fd, i, 3600 * SEC));
	ASSERT_EQ(0, ADD(self->fd, "q"));
	ASSERT_EQ(0, wqt_stat(self->fd, &st));
	ASSERT_EQ((uint32_t)MANY, st.waiting);
	ASSERT_EQ(0, wq_shutdown(self->fd));
	EXPECT_STATS(self->fd, STAT(waiting, 0), STAT(keys, 1),
		     STAT(queued, 1));
	EXPECT_GET(self->fd, "q");
	EXPECT_EQ(-ESHUTDOWN, wq_get(self->fd, (char[8]){0}, 8, 0));
}

/* A drain drops them too, and waits only for what is queued. */
TEST_F_TIMEOUT(batch, drain_drops_many_waiting, 120)
{
	int i;

	for (i = 0; i < MANY; i++)
		ASSERT_EQ(0, after_i(self->fd, i, 3600 * SEC));
	EXPECT_EQ(0, wq_shutdown_with_drain(self->fd, 10000));
	EXPECT_STATS(self->fd, STAT(waiting, 0), STAT(keys, 0));
}

/* A handle holding many keys puts them all back, in the order got. */
TEST_F_TIMEOUT(batch, close_returns_many_keys, 120)
{
	int fd2, i, got;

	for (i = 0; i < MANY; i++)
		ASSERT_EQ(0, wqt_add_i(self->fd, i));
	fd2 = wq_open(self->name);
	ASSERT_GE(fd2, 0);
	for (i = 0; i < MANY; i++)
		ASSERT_EQ(i, wqt_get_i(fd2, 0));
	EXPECT_STATS(self->fd, STAT(processing, MANY), STAT(queued, 0));
	ASSERT_EQ(0, wq_close(fd2));
	EXPECT_STATS(self->fd, STAT(processing, 0), STAT(queued, MANY));
	for (i = 0; i < MANY; i++) {
		got = wqt_get_i(self->fd, 0);
		ASSERT_EQ(i, got) TH_LOG("key %d of %d", i, MANY);
		ASSERT_EQ(0, wqt_done_i(self->fd, got));
	}
}

static int et_wait(int ep, uint32_t *events, int timeout_ms)
{
	struct epoll_event ev;
	int n = epoll_wait(ep, &ev, 1, timeout_ms);

	*events = n > 0 ? ev.events : 0;
	return n;
}

/* Edge-triggered epoll: a timer batch is one EPOLLIN edge; the last key
 * taken after shutdown is the EPOLLHUP edge. */
TEST_F(batch, edges_for_epoll_et)
{
	struct epoll_event ev = { .events = EPOLLIN | EPOLLET };
	char buf[16];
	uint32_t got;
	int ep;

	ep = epoll_create1(EPOLL_CLOEXEC);
	ASSERT_GE(ep, 0);
	ASSERT_EQ(0, epoll_ctl(ep, EPOLL_CTL_ADD, self->fd, &ev));
	EXPECT_EQ(0, et_wait(ep, &got, 0));

	ASSERT_EQ(0, after_i(self->fd, 1, 50 * MS));
	ASSERT_EQ(0, after_i(self->fd, 2, 50 * MS));
	EXPECT_EQ(1, et_wait(ep, &got, UPPER_MS));	/* woken by the timer */
	EXPECT_TRUE(got & EPOLLIN);
	EXPECT_EQ(2, wait_len(self->fd, 2));

	ASSERT_EQ(0, wq_shutdown(self->fd));
	EXPECT_EQ(1, et_wait(ep, &got, UPPER_MS));	/* shutting down */
	EXPECT_TRUE(got & EPOLLIN);
	EXPECT_FALSE(got & EPOLLHUP);			/* keys still queued */
	EXPECT_EQ(6, wq_get(self->fd, buf, sizeof(buf), 0));
	EXPECT_EQ(0, et_wait(ep, &got, 0));		/* no new state */
	EXPECT_EQ(6, wq_get(self->fd, buf, sizeof(buf), 0));
	EXPECT_EQ(1, et_wait(ep, &got, UPPER_MS));	/* the last one taken */
	EXPECT_TRUE(got & EPOLLHUP);
	close(ep);
}

TEST_HARNESS_MAIN
