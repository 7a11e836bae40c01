// SPDX-License-Identifier: GPL-2.0
/*
 * wq_fuzz: live calls. Well formed, on a slot bound with the access the
 * command needs, with keys of the pool the hostile calls use too ("k0" to
 * "k15", shared by every worker) and dones of keys this thread holds: they
 * reach the queue, and its answers are the queue's (0, -EAGAIN, -ENOENT,
 * -ESHUTDOWN, -ETIMEDOUT, -EINTR from the alarm). Their structs, keys and
 * buffers live in the thread's arena at fixed places, away from the
 * hostile calls' (which build each call afresh). A queue that some call
 * shut down is now and then destroyed and made again under its name, so
 * the queues keep working to the end of the run.
 */
#include "fuzz.h"

#define HELD_MAX	32	/* keys a thread remembers holding */
#define LIVE_BATCH	8	/* keys in a live batch call */
/* the arena's places of a live call */
#define AT_STRUCT	0
#define AT_IOV		1024
#define AT_RESULTS	2048
#define AT_KEYS		3072	/* LIVE_BATCH keys of 8 bytes */
#define AT_BUF		(4 * PAGE)
#define BUF_CAP		(2 * PAGE)

struct held {
	char key[8];
	uint32_t len;
	int slot;	/* where it was got */
};

static __thread struct held held[HELD_MAX];
static __thread int nheld;
static __thread int last_after = -1;	/* the pool key last AddAfter'd long */

static void *at(size_t off)
{
	return arena + off;
}

static uint64_t uat(size_t off)
{
	return (uint64_t)(uintptr_t)(arena + off);
}

/* A slot bound for acc (ACC_*; 0: any), or -1 after a few tries. */
int live_slot(int acc)
{
	int i, k;

	for (i = 0; i < 8; i++) {
		k = (int)rn(NFDS);
		if (fds[k] >= 0 && slot_access[k] &&
		    (slot_access[k] & acc) == acc)
			return k;
	}
	__atomic_add_fetch(&sh->no_slot, 1, __ATOMIC_RELAXED);
	return -1;
}

/* Key "k<n>" of the pool at p; its length. */
uint32_t pool_key_n(char *p, uint32_t n)
{
	return (uint32_t)snprintf(p, 8, "k%u", n);
}

static uint32_t pool_key(char *p)
{
	return pool_key_n(p, rn(NKEYS));
}

static void live_refresh(int slot);

/*
 * ioctl(fds[slot], cmd, arg), counted and checked; the result (-errno).
 * A queue found shut down is often made anew (live_refresh()).
 */
static long live_call(int slot, unsigned int cmd, uint64_t arg, int blocking)
{
	int fd = fds[slot], err;
	long r;

	sh->last_cmd[widx] = cmd;
	r = do_ioctl(fd, cmd, arg, blocking, &err);
	if (verbose)
		fprintf(stderr, "[%d:%llu] live fd %d %s = %ld (%s)\n", widx,
			(unsigned long long)seq, fd, cmd_of(cmd)->name, r,
			r < 0 ? strerror(err) : "ok");
	seen(cmd, r < 0 ? err : 0, 1);
	if (r < 0 ? !errno_ok(fd, cmd, err) : !success_ok(fd, cmd))
		fail("live %s fd %d: %s", cmd_of(cmd)->name, fd,
		     r < 0 ? ename(err) : "returned >= 0");
	if (r < 0 && err == ESHUTDOWN && chance(50))
		live_refresh(slot);
	return r < 0 ? -err : r;
}

/* A deadline a few milliseconds away, or none to wait (NONBLOCK). */
uint64_t short_deadline(void)
{
	return now_ns() + 100000 + rn(2000000);
}

/* A key this thread holds, got through slot, for a later done. */
void remember(const char *key, uint32_t len, int slot)
{
	struct held *h;

	if (len < 1 || len >= sizeof(h->key))
		return;
	if (nheld == HELD_MAX)	/* forget the oldest: it stays processing */
		memmove(held, held + 1, sizeof(held[0]) * --nheld);
	h = &held[nheld++];
	memcpy(h->key, key, len);
	h->len = len;
	h->slot = slot;
}

/* A held key, taken off the list (the newest, or any): its index. */
static struct held take_held(void)
{
	int i = chance(50) ? nheld - 1 : (int)rn((uint32_t)nheld);
	struct held h = held[i];

	held[i] = held[--nheld];
	return h;
}

/*
 * uring.c's dones: a held key into key (8 bytes), its length, and the
 * slot it was got through in *slot; 0 if none is held.
 */
uint32_t held_take(char *key, int *slot)
{
	struct held h;

	if (!nheld)
		return 0;
	h = take_held();
	memcpy(key, h.key, h.len);
	*slot = h.slot;
	return h.len;
}

/*
 * The kind of an add of pool key @n by @slot (-1: none found) into @a,
 * whose other fields are the caller's: plain, AddAfter (some long enough
 * for a cancel to find: then true), AddRateLimited (on a priority queue
 * also capped by a delay), waiting for room; on a priority queue mostly
 * with a priority of the key's set (cmds.c). The ioctls' and the ring's.
 */
bool live_add_kind(struct wq_add *a, int slot, uint32_t n)
{
	uint32_t how = rn(100);
	bool prio = slot >= 0 && slot_prio[slot];
	bool long_after = false;

	if (how < 10) {
		a->flags = WQ_ADD_AFTER;
		a->delay_ns = chance(30) ? 0 : rn(2000000);
	} else if (how < 15) {
		a->flags = WQ_ADD_AFTER;
		a->delay_ns = 5000000 + rn(50000000);
		long_after = true;
	} else if (how < 25) {
		a->flags = WQ_ADD_RATE_LIMITED;
		if (prio && chance(50)) {	/* the shorter delay */
			a->flags |= WQ_ADD_AFTER;
			a->delay_ns = rn(3000000);
		}
	} else if (how < 35) {
		a->flags = WQ_ADD_WAIT;
		a->deadline_ns = short_deadline();
	}
	if (prio && chance(70)) {
		a->flags |= WQ_ADD_PRIORITY;
		a->priority = prio_of(n);
	}
	return long_after;
}

/* An add of a pool key (live_add_kind()). */
static void live_add(void)
{
	struct wq_add *a = at(AT_STRUCT);
	int slot = live_slot(ACC_WRITE);
	long r;
	uint32_t n = rn(NKEYS);

	if (slot < 0)
		return;
	memset(a, 0, sizeof(*a));
	a->key_len = pool_key_n(at(AT_KEYS), n);
	a->key = uat(AT_KEYS);
	if (live_add_kind(a, slot, n))
		last_after = (int)n;
	r = live_call(slot, WQ_IOC_ADD, uat(AT_STRUCT), a->flags & WQ_ADD_WAIT);
	if (r >= 0 && (r || a->outcome > WQ_ADDED_KEPT))
		fail("ADD returned %ld, outcome %u", r, a->outcome);
}

static void live_get(void)
{
	struct wq_get *g = at(AT_STRUCT);
	int slot = live_slot(ACC_READ);
	long r;

	if (slot < 0)
		return;
	memset(g, 0, sizeof(*g));
	g->flags = (chance(40) ? WQ_GET_NONBLOCK : 0) |
		   (chance(10) ? WQ_GET_DETACH : 0);
	g->buf = uat(AT_BUF);
	g->buf_cap = chance(95) ? WQ_KEY_MAX : 1 + rn(4);	/* -EMSGSIZE */
	g->deadline_ns = short_deadline();
	r = live_call(slot, WQ_IOC_GET, uat(AT_STRUCT), 1);
	if (r <= 0)
		return;
	if (r > WQ_KEY_MAX || (uint32_t)r != g->key_len) {
		fail("live GET returned %ld, key_len %u", r, g->key_len);
		return;
	}
	check_key_prio("live GET", at(AT_BUF), (uint64_t)r, g->priority);
	remember(at(AT_BUF), (uint32_t)r, slot);
}

/* The worker loop's call: DONE of the key at AT_KEYS, then a GET. */
static void live_done_get(int slot, uint32_t len)
{
	struct wq_done_get *dg = at(AT_STRUCT);
	long r;

	memset(dg, 0, sizeof(*dg));
	dg->prev = uat(AT_KEYS);
	dg->prev_len = len;
	dg->get.flags = chance(70) ? WQ_GET_NONBLOCK : 0;
	dg->get.buf = uat(AT_BUF);
	dg->get.buf_cap = WQ_KEY_MAX;
	dg->get.deadline_ns = short_deadline();
	r = live_call(slot, WQ_IOC_DONE_GET, uat(AT_STRUCT), 1);
	if (r <= 0)
		return;
	if (r > WQ_KEY_MAX || (uint32_t)r != dg->get.key_len) {
		fail("live DONE_GET returned %ld, key_len %u", r,
		     dg->get.key_len);
		return;
	}
	check_key_prio("live DONE_GET", at(AT_BUF), (uint64_t)r,
		       dg->get.priority);
	remember(at(AT_BUF), (uint32_t)r, slot);
}

/* A done of a key held (its own slot mostly), or of any pool key. */
static void live_done(void)
{
	struct wq_key *k = at(AT_STRUCT);
	int slot = -1;

	memset(k, 0, sizeof(*k));
	k->key = uat(AT_KEYS);
	if (nheld && chance(85)) {
		struct held h = take_held();

		memcpy(at(AT_KEYS), h.key, h.len);
		k->key_len = h.len;
		if (chance(70) && fds[h.slot] >= 0 &&
		    (slot_access[h.slot] & ACC_READ))
			slot = h.slot;
	} else {
		k->key_len = pool_key(at(AT_KEYS));
	}
	if (slot < 0)
		slot = live_slot(ACC_READ);
	if (slot < 0)
		return;
	if (chance(60))
		live_call(slot, WQ_IOC_DONE, uat(AT_STRUCT), 0);
	else
		live_done_get(slot, k->key_len);
}

/*
 * keys[0..n) in the arena: held ones (taken off the list) or pool ones
 * "k<lo + 0..span-1>"
 */
static void batch_keys(uint32_t n, int from_held, uint32_t lo, uint32_t span)
{
	struct wq_iov *iov = at(AT_IOV);
	uint32_t i;

	for (i = 0; i < n; i++) {
		char *p = at(AT_KEYS + i * 8);

		iov[i].base = (uint64_t)(uintptr_t)p;
		if (from_held && nheld) {
			struct held h = take_held();

			memcpy(p, h.key, h.len);
			iov[i].len = h.len;
		} else {
			iov[i].len = pool_key_n(p, lo + rn(span));
		}
	}
}

/*
 * ADD_BATCH or DONE_BATCH of up to LIVE_BATCH keys; an ADD_BATCH mostly
 * saying what each add did, and on a priority queue often with a
 * priority (and then keys of one group of the pool, cmds.c's sets).
 */
static void live_batch_in(unsigned int cmd)
{
	struct wq_batch *b = at(AT_STRUCT);
	int slot = live_slot(cmd == WQ_IOC_ADD_BATCH ? ACC_WRITE :
						       ACC_READ);
	uint32_t n = 1 + rn(LIVE_BATCH), lo = 0, span = NKEYS;
	long r;

	if (slot < 0)
		return;
	memset(b, 0, sizeof(*b));
	if (cmd == WQ_IOC_DONE_BATCH && nheld && (uint32_t)nheld < n)
		n = (uint32_t)nheld;
	if (cmd == WQ_IOC_ADD_BATCH && chance(70))
		b->flags |= WQ_ADD_OUTCOME;
	if (cmd == WQ_IOC_ADD_BATCH && slot_prio[slot] && chance(60)) {
		b->flags |= WQ_ADD_PRIORITY;
		lo = chance(50) ? 8 : 12;
		span = 4;
		b->priority = prio_of(lo);
	}
	batch_keys(n, cmd == WQ_IOC_DONE_BATCH && chance(85), lo, span);
	b->count = n;
	b->keys = uat(AT_IOV);
	b->results = uat(AT_RESULTS);
	r = live_call(slot, cmd, uat(AT_STRUCT), 0);
	if (r >= 0)
		check_batch_results(cmd, b, r, uat(AT_STRUCT), sizeof(*b));
}

static void live_get_batch(void)
{
	struct wq_done_get_batch *d = at(AT_STRUCT);
	struct wq_batch *b = &d->get;
	struct wq_iov *iov = at(AT_IOV);
	int slot = live_slot(ACC_READ);
	uint32_t n_done = 0;
	int loop = chance(60);	/* the worker loop's call (DONE_GET_BATCH) */
	long r, i;

	if (slot < 0)
		return;
	/* held keys done first, if there are */
	if (loop && nheld) {
		n_done = 1 + rn(LIVE_BATCH);
		if (n_done > (uint32_t)nheld)
			n_done = (uint32_t)nheld;
		batch_keys(n_done, 1, 0, NKEYS);
		memcpy(at(AT_IOV + 512), iov, n_done * sizeof(*iov));
	}
	memset(d, 0, sizeof(*d));
	if (n_done) {
		d->done_keys = uat(AT_IOV + 512);
		d->n_done = n_done;
		d->done_results = chance(50) ? uat(AT_RESULTS + 512) : 0;
	}
	b->flags = (chance(40) ? WQ_GET_NONBLOCK : 0) |
		   (chance(10) ? WQ_GET_DETACH : 0);
	b->count = 1 + rn(LIVE_BATCH);
	b->keys = uat(AT_IOV);
	b->results = chance(60) ? uat(AT_RESULTS) : 0;	/* priorities */
	b->buf = uat(AT_BUF);
	b->buf_cap = BUF_CAP;
	b->deadline_ns = short_deadline();
	r = live_call(slot, loop ? WQ_IOC_DONE_GET_BATCH : WQ_IOC_GET_BATCH,
		      uat(AT_STRUCT), 1);
	if (r > (long)b->count)
		fail("live GET_BATCH returned %ld of %u", r, b->count);
	for (i = 0; i < r && i < (long)b->count; i++) {
		if (!in_arena(iov[i].base, iov[i].len) || iov[i].len < 1 ||
		    iov[i].len > WQ_KEY_MAX) {
			fail("live GET_BATCH key %ld: %#llx, %llu bytes", i,
			     (unsigned long long)iov[i].base,
			     (unsigned long long)iov[i].len);
			break;
		}
		if (b->results)
			check_key_prio("live GET_BATCH",
				       (const void *)(uintptr_t)iov[i].base,
				       iov[i].len,
				       ((const int32_t *)at(AT_RESULTS))[i]);
		remember((const char *)(uintptr_t)iov[i].base,
			 (uint32_t)iov[i].len, slot);
	}
}

/* KEY_STATE of a pool key (any handle), checked (cmds.c) */
static void live_key_state(void)
{
	struct wq_key_info *ks = at(AT_STRUCT), in;
	int slot = live_slot(0);

	if (slot < 0)
		return;
	memset(ks, 0, sizeof(*ks));
	ks->key_len = pool_key(at(AT_KEYS));
	ks->key = uat(AT_KEYS);
	in = *ks;
	if (live_call(slot, WQ_IOC_KEY_STATE, uat(AT_STRUCT), 0) < 0)
		return;
	check_key_info(ks, &in);
	check_key_prio("live KEY_STATE", at(AT_KEYS), ks->key_len,
		       ks->priority);
}

/*
 * CANCEL_AFTER of a pool key (write access), often the one this thread
 * last added with a long delay: 1 or 0
 */
static void live_cancel(void)
{
	struct wq_key *k = at(AT_STRUCT);
	int slot = live_slot(ACC_WRITE);
	long r;

	if (slot < 0)
		return;
	memset(k, 0, sizeof(*k));
	k->key_len = last_after >= 0 && chance(60) ?
		     pool_key_n(at(AT_KEYS), (uint32_t)last_after) :
		     pool_key(at(AT_KEYS));
	k->key = uat(AT_KEYS);
	r = live_call(slot, WQ_IOC_CANCEL_AFTER, uat(AT_STRUCT), 0);
	if (r > 1)
		fail("live CANCEL_AFTER returned %ld", r);
	else if (r == 1)
		__atomic_add_fetch(&sh->cancelled, 1, __ATOMIC_RELAXED);
}

/*
 * URING_CANCEL of a bound slot: all its parked io_uring commands, or one
 * buffer's (of a get of uring.c's, or none): how many ended
 */
static void live_uring_cancel(void)
{
	struct wq_uring_cancel *c = at(AT_STRUCT);
	int slot = live_slot(0);
	long r;

	if (slot < 0)
		return;
	memset(c, 0, sizeof(*c));
	if (chance(50))
		c->flags = WQ_URING_CANCEL_ALL;
	else
		c->addr = uat(AT_BUF);
	r = live_call(slot, WQ_IOC_URING_CANCEL, uat(AT_STRUCT), 0);
	if (r > 65536)
		fail("live URING_CANCEL returned %ld", r);
}

/* STAT (0), METRICS (1), NUM_REQUEUES (2) or FORGET (3) */
static void live_look(uint32_t what)
{
	int slot = live_slot(what == 3 ? ACC_WRITE : 0);

	if (slot < 0)
		return;
	memset(at(AT_STRUCT), 0, sizeof(struct wq_queue_info));
	if (what == 0) {
		if (live_call(slot, WQ_IOC_STAT, uat(AT_STRUCT), 0) == 0)
			check_info(at(AT_STRUCT));
	} else if (what == 1) {
		struct wq_metrics_req *m = at(AT_STRUCT);

		m->size = sizeof(struct wq_metrics_info);
		m->metrics = uat(AT_BUF);
		if (live_call(slot, WQ_IOC_METRICS, uat(AT_STRUCT), 0) == 0)
			check_metrics(at(AT_BUF));
	} else {
		struct wq_key *k = at(AT_STRUCT);

		k->key_len = pool_key(at(AT_KEYS));
		k->key = uat(AT_KEYS);
		live_call(slot, what == 2 ? WQ_IOC_NUM_REQUEUES : WQ_IOC_FORGET,
			  uat(AT_STRUCT), 0);
	}
}

/*
 * A shutdown, plain, draining (a few ms) or discarding; the queue is then
 * mostly made anew at once (its other handles find it shut down).
 */
static void live_shutdown(void)
{
	struct wq_shutdown *d = at(AT_STRUCT);
	int slot = live_slot(ACC_WRITE);
	uint32_t how = rn(100);

	if (slot < 0)
		return;
	memset(d, 0, sizeof(*d));
	if (how < 25) {
		d->flags = WQ_SHUTDOWN_DRAIN;
		d->deadline_ns = short_deadline();
	} else if (how < 40) {
		d->flags = WQ_SHUTDOWN_DISCARD;
	}
	live_call(slot, WQ_IOC_SHUTDOWN, uat(AT_STRUCT), how < 25);
	if (chance(70))
		live_refresh(slot);
}

/*
 * A slot whose queue is shutting down: its name destroyed and made again
 * (or opened, if another worker was first), the slot bound to it.
 */
static void live_refresh(int slot)
{
	struct wq_queue_info info;
	struct wq_name nm = { 0 };
	int fd, err;

	if (slot < 0)
		return;
	fd = fds[slot];	/* the other thread may change fds[slot] */
	if (ioctl(fd, WQ_IOC_STAT, &info) < 0 ||
	    !(info.state & WQ_STATE_SHUTTING_DOWN))
		return;
	memcpy(nm.name, info.name, sizeof(nm.name));
	if (!(info.state & WQ_STATE_UNLINKED) &&
	    do_ioctl(fd, WQ_IOC_DESTROY, (uintptr_t)&nm, 0, &err) < 0 &&
	    !errno_ok(fd, WQ_IOC_DESTROY, err))
		fail("DESTROY %s: %s", nm.name, ename(err));
	close(fd);
	slot_access[slot] = 0;
	fds[slot] = open("/dev/wq", O_RDWR | O_CLOEXEC);
	bind_slot(slot, nm.name, 1);
}

void one_live(void)
{
	uint32_t op = rn(100);

	stage = 500 + (int)op;
	if (op < 15)
		live_add();
	else if (op < 26)
		live_get();
	else if (op < 38)
		live_done();
	else if (op < 44)
		live_batch_in(WQ_IOC_ADD_BATCH);
	else if (op < 50)
		live_get_batch();
	else if (op < 55)
		live_batch_in(WQ_IOC_DONE_BATCH);
	else if (op < 75)
		live_look((op - 55) / 5);
	else if (op < 80)
		live_key_state();
	else if (op < 82)
		live_cancel();
	else if (op < 85)
		live_uring_cancel();
	else if (op < 90)
		live_shutdown();
	else if (op < 94)
		live_refresh(live_slot(0));
	else
		one_own();
}
