// SPDX-License-Identifier: GPL-2.0
/*
 * Readiness (doc/queue.md, "Readiness"): a handle in poll(), select() and
 * epoll. POLLIN when a get would not block (a key queued, or shutting down
 * and empty), POLLOUT when an add of a new key would not fail for capacity
 * and the queue is not shutting down, POLLHUP when shutting down and empty.
 *
 * The states are checked with poll() at each step; every transition into a
 * state is checked with a consumer blocked in epoll_wait (seen asleep
 * before the transition is made), once level- and once edge-triggered: the
 * first key queued (by an add, a batch, an AddAfter firing, a done of a
 * dirty key, a closing handle), the shutdown, a discard, the last key
 * taken after shutdown (EPOLLHUP), and room appearing (EPOLLOUT).
 */
#include <sys/select.h>

#include "wq_test_util.h"
#include "wq_test_jobs.h"
#include "wq_test_ioctl.h"

#define ROOM	2	/* max_items of the fixture's queue */

FIXTURE(ready) {
	int fd;
	int ep;
	char name[WQ_NAME_MAX];
};

FIXTURE_VARIANT(ready) {
	uint32_t et;	/* 0 or EPOLLET */
};

FIXTURE_VARIANT_ADD(ready, level) {
	.et = 0,
};

FIXTURE_VARIANT_ADD(ready, edge) {
	.et = EPOLLET,
};

FIXTURE_SETUP(ready)
{
	struct wq_attr attr = { .limiter = "none", .max_items = ROOM };

	self->ep = -1;
	WQT_SETUP_QUEUE(&attr);
}

FIXTURE_TEARDOWN(ready)
{
	if (self->ep >= 0)
		close(self->ep);
	WQT_TEARDOWN_QUEUE();
}

/* Watches self->fd for events (plus the variant's EPOLLET). */
#define WATCH(events) do {						\
		self->ep = wqt_epoll(self->fd, (events) | variant->et);	\
		ASSERT_LE(0, self->ep) TH_LOG("epoll: %s", strerror(-self->ep)); \
	} while (0)

/* Starts a consumer blocked in epoll_wait of self->ep; waits until it sleeps. */
#define BLOCK(job) do {							\
		ASSERT_EQ(0, wqt_job_start(job, wqt_call_epoll, self->ep, UPPER_MS)); \
		ASSERT_TRUE(wqt_job_asleep(job));			\
		ASSERT_FALSE(wqt_job_returned(job))			\
			TH_LOG("epoll_wait returned %ld early, events %#x", \
			       (job)->ret, (job)->events);		\
	} while (0)

/* The blocked consumer is woken (within UPPER_MS) with the events want. */
#define WOKEN(job, want) do {						\
		ASSERT_TRUE(wqt_job_wait(job, UPPER_MS + 5000));	\
		ASSERT_EQ(1, (job)->ret) TH_LOG("not woken");		\
		EXPECT_EQ((uint32_t)(want), (job)->events & (EPOLLIN | EPOLLOUT | EPOLLHUP)) \
			TH_LOG("events %#x", (job)->events);		\
	} while (0)

/* Every state in turn, with poll(): what is reported, and what is not. */
TEST_F(ready, poll_states)
{
	char buf[16];

	EXPECT_EQ(POLLOUT, wqt_revents(self->fd));		/* empty */
	ASSERT_EQ(0, ADD(self->fd, "a"));
	EXPECT_EQ(POLLIN | POLLOUT, wqt_revents(self->fd));
	EXPECT_GET(self->fd, "a");				/* processing */
	EXPECT_EQ(POLLOUT, wqt_revents(self->fd));
	ASSERT_EQ(0, ADD(self->fd, "b"));			/* 2 of ROOM held */
	EXPECT_EQ(POLLIN, wqt_revents(self->fd));
	ASSERT_EQ(0, DONE(self->fd, "a"));			/* room again */
	EXPECT_EQ(POLLIN | POLLOUT, wqt_revents(self->fd));
	ASSERT_EQ(0, AFTER(self->fd, "c", LONG_DELAY));		/* waiting: held */
	EXPECT_EQ(POLLIN, wqt_revents(self->fd));
	EXPECT_GET(self->fd, "b");
	EXPECT_EQ(0, wqt_revents(self->fd));	/* full, nothing queued */
	ASSERT_EQ(0, DONE(self->fd, "b"));
	EXPECT_EQ(POLLOUT, wqt_revents(self->fd));	/* only "c", waiting */
	ASSERT_EQ(0, ADD(self->fd, "d"));
	ASSERT_EQ(0, wq_shutdown(self->fd));	/* drops "c"; "d" queued */
	EXPECT_EQ(POLLIN, wqt_revents(self->fd));	/* no POLLOUT, no POLLHUP */
	EXPECT_EQ(1, wq_get(self->fd, buf, sizeof(buf), 0));
	EXPECT_EQ(POLLIN | POLLHUP, wqt_revents(self->fd));	/* "d" processing */
	ASSERT_EQ(0, DONE(self->fd, "d"));
	EXPECT_EQ(POLLIN | POLLHUP, wqt_revents(self->fd));
}

/* select() sees the same readiness. */
TEST_F(ready, select)
{
	struct timeval tv = { 0, 0 };
	fd_set rd, wr;

	ASSERT_LT(self->fd, FD_SETSIZE);
	FD_ZERO(&rd);
	FD_ZERO(&wr);
	FD_SET(self->fd, &rd);
	FD_SET(self->fd, &wr);
	ASSERT_EQ(1, select(self->fd + 1, &rd, &wr, NULL, &tv));
	EXPECT_FALSE(FD_ISSET(self->fd, &rd));
	EXPECT_TRUE(FD_ISSET(self->fd, &wr));
	ASSERT_EQ(0, ADD(self->fd, "a"));
	FD_SET(self->fd, &rd);
	FD_ZERO(&wr);
	tv.tv_sec = 5;
	ASSERT_EQ(1, select(self->fd + 1, &rd, &wr, NULL, &tv));
	EXPECT_TRUE(FD_ISSET(self->fd, &rd));
}

/* A consumer blocked in epoll_wait is woken by an add. */
TEST_F(ready, woken_by_add)
{
	struct wqt_job j;

	WATCH(EPOLLIN);
	BLOCK(&j);
	ASSERT_EQ(0, ADD(self->fd, "a"));
	WOKEN(&j, EPOLLIN);
}

/* ... by a batch add. */
TEST_F(ready, woken_by_batch)
{
	struct iovec keys[] = { IOV("a"), IOV("b") };
	struct wqt_job j;

	WATCH(EPOLLIN);
	BLOCK(&j);
	ASSERT_EQ(2, wq_add_batch(self->fd, keys, 2, NULL));
	WOKEN(&j, EPOLLIN);
}

/* ... by an AddAfter firing, and not before it fires. */
TEST_F(ready, woken_by_add_after)
{
	struct wqt_job j;
	int64_t t0;

	WATCH(EPOLLIN);
	BLOCK(&j);
	t0 = now_ns();
	ASSERT_EQ(0, AFTER(self->fd, "a", 100 * MS));
	WOKEN(&j, EPOLLIN);
	EXPECT_LE(t0 + 100 * MS, j.end_ns)
		TH_LOG("woken %.3f ms before the key was ready",
		       ms_of(t0 + 100 * MS - j.end_ns));
	EXPECT_EQ(1, wq_len(self->fd));
}

/* ... by a done that queues a dirty key again (the first key queued). */
TEST_F(ready, woken_by_done_of_dirty_key)
{
	struct wqt_job j;

	ASSERT_EQ(0, ADD(self->fd, "a"));
	EXPECT_GET(self->fd, "a");
	ASSERT_EQ(0, ADD(self->fd, "a"));	/* dirty */
	WATCH(EPOLLIN);
	BLOCK(&j);
	ASSERT_EQ(0, DONE(self->fd, "a"));
	WOKEN(&j, EPOLLIN);
}

/* ... by a handle that closes with a key, which goes back on the queue. */
TEST_F(ready, woken_by_close_of_holder)
{
	struct wqt_job j;
	int fd2;

	fd2 = wq_open(self->name);
	ASSERT_LE(0, fd2);
	ASSERT_EQ(0, ADD(self->fd, "a"));
	EXPECT_GET(fd2, "a");
	WATCH(EPOLLIN);
	BLOCK(&j);
	ASSERT_EQ(0, wq_close(fd2));
	WOKEN(&j, EPOLLIN);
	EXPECT_GET(self->fd, "a");
}

/* ... by a shutdown: a get would not block any more (-ESHUTDOWN). */
TEST_F(ready, woken_by_shutdown)
{
	struct wqt_job j;

	WATCH(EPOLLIN);
	BLOCK(&j);
	ASSERT_EQ(0, wq_shutdown(self->fd));
	WOKEN(&j, EPOLLIN | EPOLLHUP);
}

/* ... by a discard, while a key is still processing. */
TEST_F(ready, woken_by_discard)
{
	struct wqt_job j;

	ASSERT_EQ(0, ADD(self->fd, "a"));
	EXPECT_GET(self->fd, "a");
	WATCH(EPOLLIN);
	BLOCK(&j);
	ASSERT_EQ(0, wq_shutdown_discard(self->fd));
	WOKEN(&j, EPOLLIN | EPOLLHUP);
	EXPECT_EQ(0, DONE(self->fd, "a"));
}

/*
 * EPOLLHUP (always reported: the consumer watches no other event) comes
 * when the last key is taken after the shutdown, not before.
 */
TEST_F(ready, hup_when_last_key_taken)
{
	char buf[16];
	struct wqt_job j;
	uint32_t got;

	ASSERT_EQ(0, ADD(self->fd, "a"));
	ASSERT_EQ(0, ADD(self->fd, "b"));
	ASSERT_EQ(0, wq_shutdown(self->fd));
	WATCH(0);
	EXPECT_EQ(0, wqt_epoll_wait(self->ep, &got, 0)) TH_LOG("events %#x", got);
	BLOCK(&j);
	EXPECT_EQ(1, wq_get(self->fd, buf, sizeof(buf), 0));
	EXPECT_EQ(0, wqt_epoll_wait(self->ep, &got, 0)) TH_LOG("events %#x", got);
	EXPECT_FALSE(wqt_job_returned(&j)) TH_LOG("woken with \"b\" queued");
	EXPECT_EQ(1, wq_get(self->fd, buf, sizeof(buf), 0));	/* the last */
	WOKEN(&j, EPOLLHUP);
}

/* A producer waiting for EPOLLOUT on a full queue is woken by room. */
TEST_F(ready, pollout_when_room_appears)
{
	struct wqt_job j;
	uint32_t got;

	ASSERT_EQ(0, ADD(self->fd, "a"));
	ASSERT_EQ(0, ADD(self->fd, "b"));
	ASSERT_EQ(-EAGAIN, ADD(self->fd, "c"));
	EXPECT_GET(self->fd, "a");
	WATCH(EPOLLOUT);
	BLOCK(&j);
	ASSERT_EQ(0, ADD(self->fd, "a"));	/* dirty: still held at done */
	ASSERT_EQ(0, DONE(self->fd, "a"));
	EXPECT_EQ(0, wqt_epoll_wait(self->ep, &got, 0)) TH_LOG("events %#x", got);
	EXPECT_GET(self->fd, "b");
	ASSERT_EQ(0, DONE(self->fd, "b"));	/* not queued again: room */
	WOKEN(&j, EPOLLOUT);
	EXPECT_EQ(0, ADD(self->fd, "c"));
}

/*
 * Waiting keys count toward max_items (no POLLOUT); the shutdown that drops
 * them brings POLLIN and POLLHUP, never POLLOUT.
 */
TEST_F(ready, no_pollout_after_shutdown)
{
	struct wqt_job j;

	ASSERT_EQ(0, AFTER(self->fd, "a", LONG_DELAY));
	ASSERT_EQ(0, AFTER(self->fd, "b", LONG_DELAY));
	EXPECT_EQ(0, wqt_revents(self->fd));
	WATCH(EPOLLIN | EPOLLOUT);
	BLOCK(&j);
	ASSERT_EQ(0, wq_shutdown(self->fd));	/* drops both, but shuts down */
	WOKEN(&j, EPOLLIN | EPOLLHUP);
}

/* Level-triggered reports a state again; edge-triggered only a new one. */
TEST_F(ready, level_repeats_edge_does_not)
{
	uint32_t got;

	WATCH(EPOLLIN);
	ASSERT_EQ(0, ADD(self->fd, "a"));
	ASSERT_EQ(1, wqt_epoll_wait(self->ep, &got, UPPER_MS));
	EXPECT_EQ((uint32_t)EPOLLIN, got);
	EXPECT_EQ(variant->et ? 0 : 1, wqt_epoll_wait(self->ep, &got, 0));
	EXPECT_GET(self->fd, "a");
	EXPECT_EQ(0, wqt_epoll_wait(self->ep, &got, 0));	/* empty */
	ASSERT_EQ(0, ADD(self->fd, "b"));			/* a new edge */
	EXPECT_EQ(1, wqt_epoll_wait(self->ep, &got, UPPER_MS));
}

/* Readiness is the queue's: consumers on two handles are both woken. */
TEST_F(ready, every_handle_is_woken)
{
	struct wqt_job j1, j2;
	int fd2, ep2;

	fd2 = wq_open(self->name);
	ASSERT_LE(0, fd2);
	ep2 = wqt_epoll(fd2, EPOLLIN | variant->et);
	ASSERT_LE(0, ep2);
	WATCH(EPOLLIN);
	BLOCK(&j1);
	ASSERT_EQ(0, wqt_job_start(&j2, wqt_call_epoll, ep2, UPPER_MS));
	ASSERT_TRUE(wqt_job_asleep(&j2));
	ASSERT_EQ(0, ADD(self->fd, "a"));
	WOKEN(&j1, EPOLLIN);
	WOKEN(&j2, EPOLLIN);
	close(ep2);
	wq_close(fd2);
}

/*
 * epoll registered before the handle is bound: nothing is reported (no
 * EPOLLERR, no spinning) until CREATE, whose queue has room (EPOLLOUT);
 * a consumer asleep in epoll_wait for EPOLLIN meanwhile is woken by a key
 * added through another handle, and edge-triggered sees each new edge.
 */
TEST_F(ready, registered_before_bind)
{
	char name[WQ_NAME_MAX];
	struct wqt_job j;
	int fd, other, ep_out;
	uint32_t got;

	fd = raw_open_dev();
	ASSERT_LE(0, fd);
	self->ep = wqt_epoll(fd, EPOLLIN | variant->et);
	ASSERT_LE(0, self->ep);
	ep_out = wqt_epoll(fd, EPOLLOUT | variant->et);
	ASSERT_LE(0, ep_out);
	EXPECT_EQ(0, wqt_epoll_wait(self->ep, &got, 50)) TH_LOG("%#x", got);
	EXPECT_EQ(0, wqt_epoll_wait(ep_out, &got, 50)) TH_LOG("%#x", got);
	BLOCK(&j);
	wqt_name(name, "rbb");
	ASSERT_EQ(0, raw_create(fd, name, NULL, ROOM, 0));
	EXPECT_EQ(1, wqt_epoll_wait(ep_out, &got, UPPER_MS));
	EXPECT_EQ((uint32_t)EPOLLOUT, got);
	EXPECT_FALSE(wqt_job_returned(&j));	/* no key yet */
	other = wq_open(name);
	ASSERT_LE(0, other);
	ASSERT_EQ(0, ADD(other, "a"));		/* through another handle */
	WOKEN(&j, EPOLLIN);
	EXPECT_GET(fd, "a");
	EXPECT_EQ(0, wqt_epoll_wait(self->ep, &got, 0));	/* empty */
	ASSERT_EQ(0, ADD(other, "b"));		/* a new edge */
	EXPECT_EQ(1, wqt_epoll_wait(self->ep, &got, UPPER_MS));
	EXPECT_EQ((uint32_t)EPOLLIN, got);
	wq_destroy(name);
	wq_close(other);
	close(ep_out);
	close(fd);
}

TEST_HARNESS_MAIN
