// SPDX-License-Identifier: GPL-2.0
/*
 * epoll_consumer: one thread serves two queues and a timer in one epoll
 * loop, as an event loop serves sockets (Go: a select over two channels
 * and a time.Ticker).
 *
 * A producer thread adds 50 "order-N" keys to the queue "orders" in one
 * batch call, and 20 "mail-N" keys to "mails" with AddAfter delays of up to
 * 200 ms, so the loop is also woken by delays firing. The loop watches the
 * two queue handles edge-triggered (each event: take keys in batches until
 * -EAGAIN) and a timerfd ticking every 100 ms (housekeeping: a progress
 * line). When every key is served it shuts both queues down; EPOLLHUP then
 * says a queue is shut down and empty, and the loop ends when both have
 * hung up.
 *
 * Exit status 0 when all 70 keys were served and both queues hung up.
 */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "wq.h"

#define ORDERS		50
#define MAILS		20
#define MAX_TICKS	300	/* 30 s: give up on a stuck loop */

struct queue {
	const char *what;
	char name[WQ_NAME_MAX];
	int fd;
	int served;
	int hung_up;
};

static struct queue orders = { .what = "orders" }, mails = { .what = "mails" };

static void *producer(void *unused)
{
	static char text[ORDERS][16];
	struct iovec keys[ORDERS];
	char key[16];

	(void)unused;
	for (int i = 0; i < ORDERS; i++) {
		keys[i].iov_base = text[i];
		keys[i].iov_len = (size_t)snprintf(text[i], sizeof(text[i]),
						   "order-%d", i);
	}
	wq_add_batch(orders.fd, keys, ORDERS, NULL);	/* one system call */
	for (int i = 0; i < MAILS; i++)
		wq_add_after(mails.fd, key,
			     (size_t)snprintf(key, sizeof(key), "mail-%d", i),
			     (uint64_t)(i % 5 + 1) * 40 * 1000000);
	return NULL;
}

/* Takes and serves whatever q has (edge-triggered: until -EAGAIN). */
static void serve(struct queue *q)
{
	static char buf[64 * 1024];
	struct iovec keys[16];
	ssize_t n;

	while ((n = wq_get_batch(q->fd, buf, sizeof(buf), keys, 16, 0)) > 0) {
		q->served += (int)n;	/* the work on keys[0..n) goes here */
		wq_done_batch(q->fd, keys, (unsigned int)n, NULL);
	}
	if (n == -ESHUTDOWN)
		q->hung_up = 1;
	else if (n != -EAGAIN)
		fprintf(stderr, "epoll_consumer: %s: %s\n", q->what, strerror((int)-n));
}

static int make_queue(struct queue *q)
{
	struct wq_attr attr = { .limiter = "none" };

	snprintf(q->name, sizeof(q->name), "%s.%d", q->what, (int)getpid());
	q->fd = wq_create(q->name, &attr);
	if (q->fd < 0)
		fprintf(stderr, "epoll_consumer: wq_create %s: %s\n", q->name,
			strerror(-q->fd));
	return q->fd;
}

int main(void)
{
	struct itimerspec every = { { 0, 100000000L }, { 0, 100000000L } };
	struct epoll_event ev, events[4];
	int ep, tfd, ticks = 0, shut = 0;
	pthread_t th;

	if (make_queue(&orders) < 0 || make_queue(&mails) < 0)
		return 1;
	ep = epoll_create1(EPOLL_CLOEXEC);
	tfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	timerfd_settime(tfd, 0, &every, NULL);
	ev.events = EPOLLIN;
	ev.data.ptr = NULL;			/* the timer */
	epoll_ctl(ep, EPOLL_CTL_ADD, tfd, &ev);
	ev.events = EPOLLIN | EPOLLET;		/* EPOLLHUP is always reported */
	ev.data.ptr = &orders;
	epoll_ctl(ep, EPOLL_CTL_ADD, orders.fd, &ev);
	ev.data.ptr = &mails;
	epoll_ctl(ep, EPOLL_CTL_ADD, mails.fd, &ev);
	pthread_create(&th, NULL, producer, NULL);

	while (!(orders.hung_up && mails.hung_up) && ticks < MAX_TICKS) {
		int n = epoll_wait(ep, events, 4, -1);

		for (int i = 0; i < n; i++) {
			struct queue *q = events[i].data.ptr;
			uint64_t expirations;

			if (q) {
				serve(q);	/* EPOLLIN, or EPOLLHUP */
				if (q->hung_up)
					epoll_ctl(ep, EPOLL_CTL_DEL, q->fd, NULL);
				continue;
			}
			if (read(tfd, &expirations, sizeof(expirations)) > 0)
				ticks += (int)expirations;
			printf("tick %d: orders %d/%d, mails %d/%d\n", ticks,
			       orders.served, ORDERS, mails.served, MAILS);
		}
		if (!shut && orders.served == ORDERS && mails.served == MAILS) {
			wq_shutdown(orders.fd);	/* close(orders); close(mails) */
			wq_shutdown(mails.fd);
			shut = 1;
		}
	}
	pthread_join(th, NULL);
	printf("served orders %d, mails %d; hung up: orders %s, mails %s\n",
	       orders.served, mails.served, orders.hung_up ? "yes" : "no",
	       mails.hung_up ? "yes" : "no");
	wq_close(orders.fd);
	wq_close(mails.fd);
	wq_destroy(orders.name);
	wq_destroy(mails.name);
	return !(orders.hung_up && mails.hung_up && orders.served == ORDERS &&
		 mails.served == MAILS);
}
