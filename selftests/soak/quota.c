// SPDX-License-Identifier: GPL-2.0
/*
 * wq_soak: a user (uid 1001 or 1002, one per round) filling its queue and
 * key budgets until -EDQUOT: a refused create leaves no name, a refused
 * add of any kind changes nothing, a done gives room back, and its usage
 * goes back to 0 once its queues are destroyed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "soak.h"

static size_t quota_key(char *buf, unsigned int n, size_t len)
{
	int h = snprintf(buf, 40, "quota.%u.%u:", round_no, n);
	size_t j;

	for (j = (size_t)h; j < len; j++)
		buf[j] = (char)('A' + (j + n) % 26);
	return len;
}

int usage_is(uint32_t queues, uint64_t bytes, const char *when)
{
	struct wq_module_info mi;
	int r = module_info(&mi);

	call();
	if (r || mi.user_queues != queues || (bytes != UINT64_MAX && mi.user_key_bytes != bytes)) {
		fail(F_QUOTA, "uid %d %s: %s, %u queues and %llu key bytes charged, expected %u and %llu",
		     (int)getuid(), when, err_name(r), mi.user_queues,
		     (unsigned long long)mi.user_key_bytes, queues,
		     (unsigned long long)bytes);
		return 0;
	}
	return 1;
}

/* Creates queues until -EDQUOT (their handles in fds): how many. */
static int fill_queue_budget(int *fds, const struct wq_module_info *mi)
{
	struct wq_attr attr = { .limiter = "none", .mode = 0600 };
	char name[WQ_NAME_MAX];
	int nq = 0, r, fd;

	for (;;) {
		snprintf(name, sizeof(name), "soak.%d.%u.u%d", (int)getppid(),
			 round_no, nq);
		fd = wq_create(name, &attr);
		call();
		if (fd == -EDQUOT) {
			atomic_fetch_add(&sh->edquot, 1);
			r = wq_open(name);
			call();
			if (r != -ENOENT)
				fail(F_QUOTA, "a create refused with -EDQUOT left %s: %s",
				     name, err_name(r));
			break;
		}
		if (fd < 0) {
			fail(F_QUOTA, "create %s: %s", name, err_name(fd));
			break;
		}
		fds[nq++] = fd;
		if (nq == 64)
			break;
	}
	if ((unsigned int)nq != mi->user_max_queues)
		fail(F_QUOTA, "uid %d created %d queues, budget %u", (int)getuid(),
		     nq, mi->user_max_queues);
	return nq;
}

/* A max_items above the ceiling of unprivileged users is refused. */
static void above_ceiling(const struct wq_module_info *mi)
{
	struct wq_attr big = { .limiter = "none", .mode = 0600 };
	char name[WQ_NAME_MAX];
	int r;

	if (mi->unpriv_max_items >= mi->max_items_limit)
		return;
	big.max_items = mi->unpriv_max_items + 1;
	snprintf(name, sizeof(name), "soak.%d.%u.ubig", (int)getppid(),
		 round_no);
	r = wq_create(name, &big);
	call();
	if (r != -EINVAL && r != -EDQUOT)
		fail(F_QUOTA, "create with max_items %u above the ceiling: %s",
		     big.max_items, err_name(r));
	if (r >= 0)
		close(r);
}

/* The keys of the key budget: the next one's number, and the first added. */
struct qfill {
	unsigned int n, added, first_n;
	size_t first;
};

/*
 * Adds batches of long keys until -EDQUOT: 1 when it came, 0 if it did
 * not (100000 keys added), -1 on a failed add_batch.
 */
static int fill_key_budget(int fd, struct qfill *f)
{
	static char keys[8][WQ_KEY_MAX];
	struct iovec iov[8];
	int errs[8], r, j, hit = 0;

	while (!hit && f->added < 100000) {
		for (j = 0; j < 8; j++) {
			iov[j].iov_base = keys[j];
			iov[j].iov_len = quota_key(keys[j], f->n++, 3000 + rn(1097));
			errs[j] = 1;
		}
		r = wq_add_batch(fd, iov, 8, errs);
		call();
		if (r < 0) {
			fail(F_QUOTA, "add_batch: %s", err_name(r));
			return -1;
		}
		for (j = 0; j < 8; j++) {
			if (errs[j] == 0) {
				if (!f->added++) {
					f->first = iov[j].iov_len;
					f->first_n = f->n - 8 + (unsigned int)j;
				}
			} else if (errs[j] == -EDQUOT)
				hit = 1;
			else
				fail(F_QUOTA, "add_batch key %d: %s", j,
				     err_name(errs[j]));
		}
	}
	return hit;
}

/*
 * At the key budget: a refused add of any kind changes nothing, and a key
 * the queue holds costs nothing more.
 */
static void over_key_budget(int *fds, struct qfill *f)
{
	struct wq_stats st0, st1;
	char buf[WQ_KEY_MAX];
	size_t len;
	int r;

	/* a refused add of any kind changes nothing */
	wq_stat(fds[0], &st0);
	len = quota_key(buf, f->n++, WQ_KEY_MAX);
	r = wq_add(fds[0], buf, len);
	call();
	if (r != -EDQUOT)
		fail(F_QUOTA, "add over the budget: %s", err_name(r));
	r = wq_add_after(fds[0], buf, len, 1000000);
	call();
	if (r != -EDQUOT)
		fail(F_QUOTA, "add_after over the budget: %s", err_name(r));
	r = wq_add_rate_limited(fds[0], buf, len, NULL);
	call();
	if (r != -EDQUOT)
		fail(F_QUOTA, "add_rate_limited over the budget: %s", err_name(r));
	r = wq_add_wait(fds[1], buf, len, 5);
	call();
	if (r != -EDQUOT)
		fail(F_QUOTA, "add_wait over the budget (other queue): %s",
		     err_name(r));
	atomic_fetch_add(&sh->edquot, 4);
	wq_stat(fds[0], &st1);
	if (st1.keys != st0.keys || st1.queued != st0.queued ||
	    st1.waiting != st0.waiting)
		fail(F_QUOTA, "refused adds changed the queue: keys %u -> %u, queued %u -> %u",
		     st0.keys, st1.keys, st0.queued, st1.queued);
	/* a key the queue holds costs nothing more */
	if (f->first) {
		len = quota_key(buf, f->first_n, f->first);
		r = wq_add(fds[0], buf, len);
		call();
		if (r)
			fail(F_QUOTA, "add of a key the queue holds: %s", err_name(r));
	}
}

/* A done gives room back for a key no longer than the one done. */
static void room_back(int fd, struct qfill *f)
{
	char buf[WQ_KEY_MAX];
	size_t len;
	ssize_t g;
	int r;

	g = wq_get(fd, buf, sizeof(buf), 0);
	call();
	if (g <= 0) {
		fail(F_QUOTA, "get: %s", err_name((int)g));
		return;
	}
	r = wq_done(fd, buf, (size_t)g);
	call();
	if (r)
		fail(F_QUOTA, "done: %s", err_name(r));
	len = quota_key(buf, f->n++, (size_t)g);
	r = wq_add(fd, buf, len);
	call();
	if (r)
		fail(F_QUOTA, "add after a done gave room back: %s", err_name(r));
}

/* The key budget, in batches of long keys (on two queues at least). */
static void use_key_budget(int *fds, struct wq_module_info *mi)
{
	struct qfill f = { 0, 0, 0, 0 };
	int r = fill_key_budget(fds[0], &f);

	if (r < 0)
		return;
	if (!r) {
		fail(F_QUOTA, "uid %d added %u keys without -EDQUOT", (int)getuid(),
		     f.added);
		return;
	}
	atomic_fetch_add(&sh->edquot, 1);
	atomic_fetch_add(&sh->quota_keys, f.added);
	if (module_info(mi) || mi->user_key_bytes > mi->user_max_key_bytes)
		fail(F_QUOTA, "usage %llu above the budget %llu",
		     (unsigned long long)mi->user_key_bytes,
		     (unsigned long long)mi->user_max_key_bytes);
	over_key_budget(fds, &f);
	room_back(fds[0], &f);
}

/* Its nq queues destroyed and closed. */
static void destroy_all(const int *fds, int nq)
{
	char name[WQ_NAME_MAX];
	int r, j;

	for (j = 0; j < nq; j++) {
		snprintf(name, sizeof(name), "soak.%d.%u.u%d", (int)getppid(),
			 round_no, j);
		r = wq_destroy(name);
		call();
		if (r)
			fail(F_QUOTA, "destroy %s: %s", name, err_name(r));
		wq_close(fds[j]);
		call();
	}
}

/* uid 1001 or 1002: its budgets filled, checked, given back. */
int quota_main(struct child *c)
{
	struct wq_module_info mi;
	int fds[64], nq;

	if (drop_to(c->uid))
		return 3;
	ready(c);
	wait_go();
	usage_is(0, 0, "at the start");
	if (module_info(&mi))
		return 1;
	/* the queue budget */
	nq = fill_queue_budget(fds, &mi);
	above_ceiling(&mi);
	if (nq >= 2)
		use_key_budget(fds, &mi);
	destroy_all(fds, nq);
	usage_is(0, 0, "after destroying its queues");
	return 0;
}
