// SPDX-License-Identifier: GPL-2.0
/*
 * wq_fuzz: each thread's own queues, a private priority queue (no
 * starvation bound) and a private plain one, which no other call ever
 * reaches: their fds sit at OWN_FD and up, numbers that no open or dup of
 * the fuzzer returns and so no close of a slot can hit, and a forked child
 * drops them. What the shared queues cannot tell with every worker at
 * them, a model tells here: every answer, the order keys come out in
 * (higher first, equal ones in the order they became ready, a raise at
 * the tail of its new level), the priority each is handed out with, what
 * each add did, a key's state, a cancel, the counts and the depth of each
 * level. Delays are one or two hours: no key becomes ready behind the
 * model's back. Keys "o0".."o15".
 */
#include "fuzz.h"

#define HOUR_NS		3600000000000ULL
#define OWN_BATCH	6
#define STATES		(WQ_KEY_QUEUED | WQ_KEY_PROCESSING | WQ_KEY_DIRTY | \
			 WQ_KEY_WAITING)

struct mkey {
	uint32_t state;		/* WQ_KEY_*, never TRACKED (no limiter) */
	int set;		/* processing: an add since the get set prio */
	int32_t prio;		/* its level; processing: queued again at it */
	int32_t prio_out;	/* processing: handed out with it */
	uint64_t seq;		/* queued: its place among its level's */
	uint64_t lo, hi;	/* waiting: its ready time lies between */
};

struct own {
	int fd;			/* -1: none */
	int prio;		/* WQ_CREATE_PRIORITY */
	uint64_t seq;
	struct mkey k[NKEYS];
};

static __thread struct own own[2];	/* [0] by priority, [1] plain */

/* The own queue o made anew (the model empty); fd -1 if that fails. */
static void own_make(struct own *o, int i)
{
	struct wq_create c;
	int fd = open("/dev/wq", O_RDWR | O_CLOEXEC);

	memset(&c, 0, sizeof(c));
	c.flags = WQ_CREATE_PRIVATE | (o->prio ? WQ_CREATE_PRIORITY : 0);
	c.max_items = 64;
	if (o->fd >= 0)
		close(o->fd);
	o->fd = -1;
	memset(o->k, 0, sizeof(o->k));
	o->seq = 0;
	if (fd < 0)
		return;
	if (ioctl(fd, WQ_IOC_CREATE, &c) == 0)
		o->fd = fcntl(fd, F_DUPFD_CLOEXEC, OWN_FD + 2 * tidx + i);
	else if (errno != ENOMEM)
		fail("own CREATE: %s", ename(errno));
	close(fd);
	if (o->fd >= 0 && o->fd != OWN_FD + 2 * tidx + i) {
		fail("own fd %d, not %d", o->fd, OWN_FD + 2 * tidx + i);
		close(o->fd);
		o->fd = -1;
	}
}

void own_setup(void)
{
	own[0].fd = -1;
	own[1].fd = -1;
	own[0].prio = 1;
	own[1].prio = 0;
	own_make(&own[0], 0);
	own_make(&own[1], 1);
}

/* A forked child: the queues stay the parent thread's. */
void own_forget(void)
{
	int i;

	for (i = 0; i < 2; i++) {
		if (own[i].fd >= 0)
			close(own[i].fd);
		own[i].fd = -1;
	}
}

/*
 * ioctl on o's fd, counted as a live call: the errno (0 on success), *r
 * the result. An errno that uapi/linux/wq.h does not document fails;
 * -ENOMEM (the kernel may be short) leaves the model behind: o is made
 * anew (*r then -1 and the errno ENOMEM: the caller stops).
 */
static int own_call(struct own *o, unsigned int cmd, void *arg, long *r)
{
	int err;

	sh->last_cmd[widx] = cmd;
	*r = do_ioctl(o->fd, cmd, (uintptr_t)arg, 0, &err);
	if (verbose)
		fprintf(stderr, "[%d:%llu] own %s %s = %ld (%s)\n", widx,
			(unsigned long long)seq, o->prio ? "prio" : "plain",
			cmd_of(cmd)->name, *r, *r < 0 ? strerror(err) : "ok");
	seen(cmd, *r < 0 ? err : 0, 1);
	__atomic_add_fetch(&sh->own_calls, 1, __ATOMIC_RELAXED);
	if (*r < 0 && !errno_ok(o->fd, cmd, err))
		fail("own %s: %s", cmd_of(cmd)->name, ename(err));
	if (*r < 0 && err == ENOMEM)
		own_make(o, (int)(o - own));
	return *r < 0 ? err : 0;
}

/* A model mismatch: said, and the queue made anew (the model is lost). */
static void own_wrong(struct own *o, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void own_wrong(struct own *o, const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	fail("own %s queue: %s", o->prio ? "priority" : "plain", msg);
	own_make(o, (int)(o - own));
}

static uint32_t okey(char *buf, uint32_t n)
{
	return (uint32_t)snprintf(buf, 8, "o%u", n);
}

/* The n of a key "o<n>" (len bytes at buf, no NUL), or -1. */
static int okey_index(const char *buf, uint64_t len)
{
	char want[8];
	uint32_t n;

	for (n = 0; n < NKEYS; n++)
		if (okey(want, n) == len && !memcmp(want, buf, len))
			return (int)n;
	return -1;
}

/* ---- the model --------------------------------------------------------- */

/* A priority an add gives: few, to meet on levels, and the extremes. */
static int32_t own_prio(void)
{
	static const int32_t p[] = { INT32_MIN, -7, INT32_MAX };

	return chance(85) ? (int32_t)rn(5) - 1 : p[rn(3)];
}

/* @k takes priority @p (to the tail of its new level if queued). */
static void m_move(struct own *o, struct mkey *k, int32_t p)
{
	if (p == k->prio)
		return;
	k->prio = p;
	if (k->state & WQ_KEY_QUEUED)
		k->seq = ++o->seq;
}

/* An add of @k at @p gives it a priority (kwq_prio_add_locked()). */
static void m_prio(struct own *o, struct mkey *k, int32_t p)
{
	if (!(k->state & (WQ_KEY_QUEUED | WQ_KEY_PROCESSING | WQ_KEY_WAITING))) {
		memset(k, 0, sizeof(*k));
		k->prio = p;
	} else if ((k->state & WQ_KEY_PROCESSING) && !k->set) {
		k->set = 1;
		m_move(o, k, p);
	} else if (p > k->prio) {
		m_move(o, k, p);
	}
}

/* A plain add of @k at @p: what it did. */
static uint32_t m_add(struct own *o, struct mkey *k, int32_t p)
{
	m_prio(o, k, p);
	if (o->prio)			/* the waiting copy dropped */
		k->state &= ~WQ_KEY_WAITING;
	if (k->state & WQ_KEY_QUEUED)
		return WQ_ADDED_COALESCED;
	if (k->state & WQ_KEY_DIRTY)
		return WQ_ADDED_DIRTY;
	if (k->state & WQ_KEY_PROCESSING) {
		k->state |= WQ_KEY_DIRTY;
		return WQ_ADDED_DIRTY;
	}
	k->state |= WQ_KEY_QUEUED;
	k->seq = ++o->seq;
	return WQ_ADDED_QUEUED;
}

/* An AddAfter of @k at @p (priority queue) ready in [lo, hi]. */
static uint32_t m_after(struct own *o, struct mkey *k, int32_t p,
			uint64_t lo, uint64_t hi)
{
	m_prio(o, k, p);
	if (k->state & WQ_KEY_QUEUED)
		return WQ_ADDED_COALESCED;
	if (k->state & WQ_KEY_DIRTY)
		return WQ_ADDED_DIRTY;
	if (k->state & WQ_KEY_WAITING) {
		if (lo >= k->hi)
			return WQ_ADDED_KEPT;
		if (hi >= k->lo)	/* cannot tell: the test is wrong */
			fail("own AfterAdd: ready times overlap");
		k->lo = lo;
		k->hi = hi;
		return WQ_ADDED_WAITING;
	}
	k->state |= WQ_KEY_WAITING;
	k->lo = lo;
	k->hi = hi;
	return WQ_ADDED_WAITING;
}

/* The queued key a get takes next (higher first, then ready order), or -1. */
static int m_next(const struct own *o)
{
	int n, best = -1;

	for (n = 0; n < NKEYS; n++) {
		const struct mkey *k = &o->k[n];

		if (!(k->state & WQ_KEY_QUEUED))
			continue;
		if (best < 0 || k->prio > o->k[best].prio ||
		    (k->prio == o->k[best].prio && k->seq < o->k[best].seq))
			best = n;
	}
	return best;
}

static void m_take(struct mkey *k)
{
	k->state = (k->state & ~WQ_KEY_QUEUED) | WQ_KEY_PROCESSING;
	k->prio_out = k->prio;
	k->set = !!(k->state & WQ_KEY_WAITING);
}

/* A done of @k: 0 or -ENOENT. */
static int m_done(struct own *o, struct mkey *k)
{
	if (!(k->state & WQ_KEY_PROCESSING))
		return -ENOENT;
	k->set = 0;
	if (k->state & WQ_KEY_DIRTY) {
		k->state &= ~(WQ_KEY_PROCESSING | WQ_KEY_DIRTY);
		k->state |= WQ_KEY_QUEUED;
		k->seq = ++o->seq;
	} else {
		k->state &= ~WQ_KEY_PROCESSING;
	}
	return 0;
}

/* ---- the calls --------------------------------------------------------- */

/*
 * An add (AddAfter of an hour or two: priority queue only), with a
 * priority mostly (on the plain queue now and then: refused, unchanged).
 */
static void own_add(struct own *o, int after)
{
	uint32_t n = rn(NKEYS), want;
	struct wq_add a = { 0 };
	uint64_t t0, t1;
	char key[8];
	long r;
	int err;

	a.key_len = okey(key, n);
	a.key = (uintptr_t)key;
	if (chance(o->prio ? 75 : 3)) {
		a.flags |= WQ_ADD_PRIORITY;
		a.priority = own_prio();
	}
	if (after) {
		a.flags |= WQ_ADD_AFTER;
		a.delay_ns = HOUR_NS * (1 + rn(2));
	}
	t0 = now_ns();
	err = own_call(o, WQ_IOC_ADD, &a, &r);
	t1 = now_ns();
	if (err == ENOMEM)
		return;
	if (!o->prio && (a.flags & WQ_ADD_PRIORITY)) {
		if (err != EINVAL)
			own_wrong(o, "ADD with a priority: %s", ename(err));
		return;
	}
	if (err) {
		own_wrong(o, "ADD o%u: %s", n, ename(err));
		return;
	}
	want = after ? m_after(o, &o->k[n], a.priority, t0 + a.delay_ns,
			       t1 + a.delay_ns) :
		       m_add(o, &o->k[n], a.priority);
	if (a.outcome != want || r)
		own_wrong(o, "ADD%s o%u at %d: outcome %u, returned %ld, not %u",
			  after ? " after" : "", n, a.priority, a.outcome, r,
			  want);
}

/* A key got (n < 0: the get failed with err) against the model's next. */
static int own_got(struct own *o, const char *what, int n, int32_t prio)
{
	int want = m_next(o);

	if (n != want || (n >= 0 && prio != (o->prio ? o->k[n].prio : 0))) {
		own_wrong(o, "%s: o%d at %d, not o%d at %d", what, n, prio,
			  want, want >= 0 ? o->k[want].prio : 0);
		return -1;
	}
	if (n >= 0)
		m_take(&o->k[n]);
	return 0;
}

static void own_get(struct own *o)
{
	struct wq_get g = { .flags = WQ_GET_NONBLOCK, .buf_cap = 64 };
	char buf[64];
	long r;
	int err;

	g.buf = (uintptr_t)buf;
	err = own_call(o, WQ_IOC_GET, &g, &r);
	if (err == ENOMEM)
		return;
	if (err && err != EAGAIN) {
		own_wrong(o, "GET: %s", ename(err));
		return;
	}
	own_got(o, "GET", err ? -1 : okey_index(buf, (uint64_t)r), g.priority);
}

/* GET_BATCH: the keys in the model's order, their priorities. */
static void own_get_batch(struct own *o)
{
	struct wq_iov iov[OWN_BATCH];
	int32_t prios[OWN_BATCH];
	struct wq_batch b = { .flags = WQ_GET_NONBLOCK };
	char buf[OWN_BATCH * 8];
	long r, i;
	int err;

	b.count = 1 + rn(OWN_BATCH);
	b.keys = (uintptr_t)iov;
	b.results = (uintptr_t)prios;
	b.buf = (uintptr_t)buf;
	b.buf_cap = sizeof(buf);
	err = own_call(o, WQ_IOC_GET_BATCH, &b, &r);
	if (err == ENOMEM)
		return;
	if (err && err != EAGAIN) {
		own_wrong(o, "GET_BATCH: %s", ename(err));
		return;
	}
	for (i = 0; i < r && i < (long)b.count; i++)
		if (own_got(o, "GET_BATCH",
			    okey_index((const char *)(uintptr_t)iov[i].base,
				       iov[i].len), prios[i]))
			return;
	/* it took every queued key it had room for */
	if (r < (long)b.count && own_got(o, "GET_BATCH end", -1, 0))
		return;
}

/* A key to end or look at: mostly one the model holds in that state. */
static uint32_t own_pick(const struct own *o, uint32_t state)
{
	uint32_t n = rn(NKEYS), i;

	if (chance(20))
		return n;
	for (i = 0; i < NKEYS; i++, n = (n + 1) % NKEYS)
		if (o->k[n].state & state)
			return n;
	return n;
}

static void own_done(struct own *o)
{
	uint32_t n = own_pick(o, WQ_KEY_PROCESSING);
	struct wq_key k = { 0 };
	char key[8];
	long r;
	int err, want;

	k.key_len = okey(key, n);
	k.key = (uintptr_t)key;
	err = own_call(o, WQ_IOC_DONE, &k, &r);
	if (err == ENOMEM)
		return;
	want = m_done(o, &o->k[n]);
	if (-err != want)
		own_wrong(o, "DONE o%u: %s, not %s", n, ename(err), ename(-want));
}

/* ADD_BATCH or DONE_BATCH of up to OWN_BATCH keys, some twice. */
static void own_batch(struct own *o, unsigned int cmd)
{
	uint32_t state = cmd == WQ_IOC_DONE_BATCH ? WQ_KEY_PROCESSING : 0;
	struct wq_batch b = { .count = 1 + rn(OWN_BATCH) };
	struct wq_iov iov[OWN_BATCH];
	char keys[OWN_BATCH][8];
	int32_t res[OWN_BATCH];
	uint32_t i, n[OWN_BATCH], ok = 0;
	long r;
	int want;

	for (i = 0; i < b.count; i++) {
		n[i] = own_pick(o, state);
		iov[i].base = (uintptr_t)keys[i];
		iov[i].len = okey(keys[i], n[i]);
	}
	b.keys = (uintptr_t)iov;
	b.results = (uintptr_t)res;
	if (cmd == WQ_IOC_ADD_BATCH && chance(70))
		b.flags |= WQ_ADD_OUTCOME;
	if (cmd == WQ_IOC_ADD_BATCH && o->prio && chance(75)) {
		b.flags |= WQ_ADD_PRIORITY;
		b.priority = own_prio();
	}
	if (own_call(o, cmd, &b, &r))
		return;		/* -ENOMEM: made anew; else said */
	for (i = 0; i < b.count; i++) {
		if (res[i] == -ENOMEM) {	/* the kernel was short */
			own_make(o, (int)(o - own));
			return;
		}
		if (cmd == WQ_IOC_DONE_BATCH)
			want = m_done(o, &o->k[n[i]]);
		else
			want = (int)m_add(o, &o->k[n[i]], b.priority);
		ok += want >= 0;
		if (cmd == WQ_IOC_ADD_BATCH && !(b.flags & WQ_ADD_OUTCOME))
			want = 0;
		if (res[i] != want) {
			own_wrong(o, "%s o%u (key %u of %u): %d, not %d",
				  cmd_of(cmd)->name, n[i], i, b.count, res[i],
				  want);
			return;
		}
	}
	if (r != (long)ok)
		own_wrong(o, "%s returned %ld, not %u", cmd_of(cmd)->name, r, ok);
}

/* CANCEL_AFTER: 1 if the key waited (it no longer does), else 0. */
static void own_cancel(struct own *o)
{
	uint32_t n = own_pick(o, WQ_KEY_WAITING);
	struct mkey *m = &o->k[n];
	struct wq_key k = { 0 };
	char key[8];
	long r, want = !!(m->state & WQ_KEY_WAITING);

	k.key_len = okey(key, n);
	k.key = (uintptr_t)key;
	if (own_call(o, WQ_IOC_CANCEL_AFTER, &k, &r))
		return;
	m->state &= ~WQ_KEY_WAITING;
	if (r == 1)
		__atomic_add_fetch(&sh->cancelled, 1, __ATOMIC_RELAXED);
	if (r != want)
		own_wrong(o, "CANCEL_AFTER o%u: %ld, not %ld", n, r, want);
}

/* KEY_STATE: the model's state, priority and ready time, no failures. */
static void own_key_state(struct own *o)
{
	uint32_t n = own_pick(o, STATES);
	const struct mkey *m = &o->k[n];
	struct wq_key_info ks = { 0 };
	int32_t prio = 0;
	char key[8];
	long r;

	ks.key_len = okey(key, n);
	ks.key = (uintptr_t)key;
	if (own_call(o, WQ_IOC_KEY_STATE, &ks, &r))
		return;
	if (o->prio && (m->state & WQ_KEY_PROCESSING))
		prio = m->prio_out;
	else if (o->prio && m->state)
		prio = m->prio;
	if (ks.state != m->state || ks.priority != prio || ks.requeues ||
	    ((m->state & WQ_KEY_WAITING) ?
	     ks.ready_ns < m->lo || ks.ready_ns > m->hi : ks.ready_ns != 0))
		own_wrong(o, "KEY_STATE o%u: state %#x priority %d ready_ns %llu requeues %u, not %#x %d",
			  n, ks.state, ks.priority,
			  (unsigned long long)ks.ready_ns, ks.requeues,
			  m->state, prio);
}

/*
 * STAT and METRICS: the model's counts, and its depth by level (queued
 * keys and dirty ones at the level they go back to), highest first.
 */
static void own_counts(struct own *o)
{
	struct wq_metrics_req req = { .size = sizeof(struct wq_metrics_info) };
	uint32_t c[5] = { 0 }, nl = 0, i, n;
	struct wq_level_info lv[NKEYS];
	struct wq_metrics_info m;
	struct wq_queue_info qi;
	long r;

	for (n = 0; n < NKEYS; n++) {
		const struct mkey *k = &o->k[n];

		c[0] += !!(k->state & WQ_KEY_QUEUED);
		c[1] += !!(k->state & WQ_KEY_PROCESSING);
		c[2] += !!(k->state & WQ_KEY_WAITING);
		c[3] += !!(k->state & WQ_KEY_DIRTY);
		c[4] += !!k->state;
		if (!o->prio || !(k->state & (WQ_KEY_QUEUED | WQ_KEY_DIRTY)))
			continue;
		for (i = 0; i < nl && lv[i].priority > k->prio; i++)
			;
		if (i == nl || lv[i].priority != k->prio) {
			memmove(&lv[i + 1], &lv[i], (nl++ - i) * sizeof(lv[0]));
			lv[i] = (struct wq_level_info){ .priority = k->prio };
		}
		lv[i].depth++;
	}
	memset(&qi, 0, sizeof(qi));
	req.metrics = (uintptr_t)&m;
	if (own_call(o, WQ_IOC_STAT, &qi, &r) ||
	    own_call(o, WQ_IOC_METRICS, &req, &r))
		return;
	if (qi.queued != c[0] || qi.processing != c[1] || qi.waiting != c[2] ||
	    qi.dirty != c[3] || qi.keys != c[4] || qi.tracked ||
	    !(qi.state & WQ_STATE_PRIORITY) != !o->prio) {
		own_wrong(o, "STAT: queued %u processing %u waiting %u dirty %u keys %u state %#x, not %u %u %u %u %u",
			  qi.queued, qi.processing, qi.waiting, qi.dirty,
			  qi.keys, qi.state, c[0], c[1], c[2], c[3], c[4]);
		return;
	}
	if (m.depth != c[0] + c[3] || m.nr_levels != nl || m.levels_summed ||
	    memcmp(m.levels, lv, nl * sizeof(lv[0])))
		own_wrong(o, "METRICS: depth %llu, %u levels (the first %d: %llu), not %u, %u (%d: %llu)",
			  (unsigned long long)m.depth, m.nr_levels,
			  m.nr_levels ? m.levels[0].priority : 0,
			  (unsigned long long)(m.nr_levels ? m.levels[0].depth : 0),
			  c[0] + c[3], nl, nl ? lv[0].priority : 0,
			  (unsigned long long)(nl ? lv[0].depth : 0));
}

/* One call on one of this thread's own queues, checked by its model. */
void one_own(void)
{
	struct own *o = &own[chance(75) ? 0 : 1];
	uint32_t op = rn(100);

	if (o->fd < 0)
		return;
	stage = 700 + (int)op;
	if (op < 25)
		own_add(o, 0);
	else if (op < 35)
		own_add(o, o->prio);
	else if (op < 50)
		own_get(o);
	else if (op < 58)
		own_get_batch(o);
	else if (op < 72)
		own_done(o);
	else if (op < 78)
		own_batch(o, WQ_IOC_ADD_BATCH);
	else if (op < 83)
		own_batch(o, WQ_IOC_DONE_BATCH);
	else if (op < 88)
		own_cancel(o);
	else if (op < 94)
		own_key_state(o);
	else
		own_counts(o);
}
