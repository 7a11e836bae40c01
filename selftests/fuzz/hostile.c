// SPDX-License-Identifier: GPL-2.0
/*
 * wq_fuzz: hostile calls. A command's struct is built valid-ish, then
 * mangled: random flags and reserved fields, boundary sizes and key
 * lengths, pointers into the arena, at its guard page or wild, random
 * deadlines; sent with a boundary _IOC_SIZE (sometimes a random number in
 * the same magic) on any fd, bound or not, /dev/null or none. What comes
 * back is checked against what uapi/linux/wq.h documents (cmds.c).
 */
#include "fuzz.h"

static int pick_fd(void)
{
	switch (rn(20)) {
	case 0: return -1;
	case 1: return FD_NULL;
	case 2: return FD_NOT_OPEN;
	default: return fds[rn(NFDS)];
	}
}

static void build_create(struct wq_create *c)
{
	c->flags = chance(65) ? 0 : flags_val(WQ_CREATE_PRIVATE |
					      WQ_CREATE_PRIORITY);
	c->max_items = chance(70) ? rn(64) : (uint32_t)rnd();
	c->mode = chance(60) ? 0 : chance(50) ? 0666 : (uint32_t)rnd();
	c->max_tracked = chance(70) ? rn(64) : (uint32_t)rnd();
	name_val(c->name);
	/* a private queue has no name: mostly as it should be */
	if ((c->flags & WQ_CREATE_PRIVATE) && chance(70))
		memset(c->name, 0, sizeof(c->name));
	limiter_val(&c->limiter);
	/* a priority queue's starvation bound, else 0 (or -EINVAL) */
	if (c->flags & WQ_CREATE_PRIORITY)
		c->starve_ns = chance(50) ? 0 : chance(80) ? rn(5000000) : rnd();
	else
		c->starve_ns = chance(90) ? 0 : rnd();
}

static void build_name(struct wq_name *nm, unsigned int cmd)
{
	nm->flags = cmd == WQ_IOC_OPEN ? flags_val(3) : (chance(90) ? 0 : flags_val(0));
	nm->reserved = reserved_val();
	name_val(nm->name);
}

static void build_list(struct wq_list *l)
{
	static const uint32_t es[] = { 0, WQ_QUEUE_INFO_SIZE_VER0 - 1,
		WQ_QUEUE_INFO_SIZE_VER0, sizeof(struct wq_queue_info),
		sizeof(struct wq_queue_info) + 8, 4096, 4097, 0xffffffff };
	uint32_t n;

	l->flags = chance(90) ? 0 : flags_val(0);
	l->entry_size = es[rn(sizeof(es) / sizeof(es[0]))];
	l->count = chance(80) ? rn(9) : (uint32_t)rnd();
	l->total = reserved_val();
	n = l->entry_size * (l->count < 9 ? l->count : 9);
	l->entries = place(n > 40000 ? 40000 : n, 10);
}

static void build_add(struct wq_add *a)
{
	a->flags = flags_val(WQ_ADD_RATE_LIMITED | WQ_ADD_WAIT | WQ_ADD_AFTER |
			     WQ_ADD_PRIORITY);
	a->key_len = key_len_val();
	a->key = key_ptr(a->key_len);
	a->delay_ns = chance(60) ? 0 : chance(80) ? rn(3000000) : rnd();
	a->deadline_ns = (a->flags & WQ_ADD_WAIT) || chance(10) ? deadline() : 0;
	a->outcome = reserved_val();	/* out only: must be 0 */
	a->priority = (a->flags & WQ_ADD_PRIORITY) && chance(90) ?
		      (int32_t)rnd() : (int32_t)reserved_val();
}

static void build_get(struct wq_get *g)
{
	g->flags = flags_val(WQ_GET_NONBLOCK | WQ_GET_DETACH);
	g->key_len = reserved_val();
	g->buf_cap = chance(70) ? WQ_KEY_MAX : key_len_val();
	g->buf = place(g->buf_cap > 8192 ? 8192 : g->buf_cap, 10);
	g->priority = (int32_t)reserved_val();	/* out only */
	g->deadline_ns = deadline();
}

static void build_key(struct wq_key *k)
{
	k->flags = chance(85) ? 0 : flags_val(WQ_KEY_RESULT_STATE);
	k->key_len = key_len_val();
	k->key = key_ptr(k->key_len);
	k->value = reserved_val();
}

/* KEY_STATE: the out fields must be 0 on input */
static void build_key_info(struct wq_key_info *ks)
{
	ks->flags = chance(90) ? 0 : flags_val(0);
	ks->key_len = key_len_val();
	ks->key = key_ptr(ks->key_len);
	ks->state = reserved_val();
	ks->priority = (int32_t)reserved_val();
	ks->ready_ns = reserved_val();
	ks->requeues = reserved_val();
	ks->reserved = reserved_val();
}

static void build_shutdown(struct wq_shutdown *d)
{
	d->flags = flags_val(WQ_SHUTDOWN_DRAIN | WQ_SHUTDOWN_DISCARD);
	d->reserved = reserved_val();
	d->deadline_ns = (d->flags & WQ_SHUTDOWN_DRAIN) || chance(10) ?
			 deadline() : 0;
}

/*
 * ADD_BATCH with WQ_ADD_PRIORITY: its priority, and the keys it may go
 * with (cmds.c's sets, which the live checks rely on): pool keys of one
 * group and a priority of its set, or any priority with keys "w<n>",
 * which are no pool keys. Without the flag any non-zero priority is only
 * refused.
 */
static void batch_prio(struct wq_batch *b, char *prefix, uint32_t *lo,
		       uint32_t *span)
{
	*prefix = 'k';
	*lo = 0;
	*span = NKEYS;
	if (!(b->flags & WQ_ADD_PRIORITY)) {
		b->priority = (int32_t)reserved_val();
	} else if (chance(70)) {
		*lo = chance(50) ? 8 : 12;
		*span = 4;
		b->priority = prio_of(*lo);
	} else {
		*prefix = 'w';
		b->priority = (int32_t)rnd();
	}
}

/*
 * ADD_BATCH and DONE_BATCH: up to n keys "<prefix><lo + 0..span-1>" in
 * the arena (DONE_BATCH: of the whole pool).
 */
static void build_batch_keys(struct wq_batch *b, uint32_t n)
{
	uint32_t lo = 0, span = NKEYS;
	char prefix = 'k';
	struct wq_iov *iov = (void *)(uintptr_t)b->keys;
	uint32_t room, i;

	if (b->flags & WQ_ADD_PRIORITY)	/* only ADD_BATCH's are built so */
		batch_prio(b, &prefix, &lo, &span);
	if (b->keys < (uint64_t)(uintptr_t)arena ||
	    b->keys >= (uint64_t)(uintptr_t)arena_end)
		return;
	/* the iovs in the first half of the arena, keys in the second */
	room = (uint32_t)((uintptr_t)arena_end - (uintptr_t)b->keys) /
	       sizeof(struct wq_iov);
	for (i = 0; i < n && i < room; i++) {
		uint32_t kl = chance(90) ? 2 + rn(3) : key_len_val();
		char *kp = (char *)arena + arena_half() + i * 8;

		int len = snprintf(kp, 8, "%c%u", prefix, lo + rn(span));

		/* a pool key given a priority is never cut to another one */
		if ((b->flags & WQ_ADD_PRIORITY) && kl >= 2 && kl < (uint32_t)len)
			kl = (uint32_t)len;
		iov[i].len = chance(97) ? kl : rnd();
		iov[i].base = chance(95) ? (uint64_t)(uintptr_t)kp : bad_ptr();
	}
}

static void build_batch(struct wq_batch *b, unsigned int cmd)
{
	static const uint32_t counts[] = { 0, 1, 2, 5, 16, WQ_BATCH_MAX,
					   WQ_BATCH_MAX + 1, 0xffffffff };
	uint32_t n;

	if (cmd == WQ_IOC_GET_BATCH)
		b->flags = flags_val(WQ_GET_NONBLOCK | WQ_GET_DETACH);
	else if (cmd == WQ_IOC_ADD_BATCH)
		b->flags = chance(40) ? 0 :
			   flags_val(WQ_ADD_PRIORITY | WQ_ADD_OUTCOME);
	else
		b->flags = chance(85) ? 0 : flags_val(0);
	/* only ADD_BATCH may carry a priority (batch_prio() gives it one) */
	if (cmd != WQ_IOC_ADD_BATCH && (b->flags & WQ_ADD_PRIORITY))
		b->flags &= ~WQ_ADD_PRIORITY;
	b->priority = chance(90) ? 0 : (int32_t)reserved_val();
	b->reserved = reserved_val();
	b->count = chance(60) ? 1 + rn(8) : counts[rn(sizeof(counts) / sizeof(counts[0]))];
	n = b->count > WQ_BATCH_MAX + 1 ? 16 : b->count;
	b->keys = place(n * sizeof(struct wq_iov), 8);
	if (cmd != WQ_IOC_GET_BATCH)
		build_batch_keys(b, n);
	if (cmd == WQ_IOC_GET_BATCH) {
		/* the taken keys' priorities */
		b->results = chance(50) ? 0 : chance(90) ? place(n * 4, 10) : rnd();
		b->buf_cap = chance(70) ? 1 + rn(4096) : rnd();
		b->buf = place(b->buf_cap > 8192 ? 8192 : b->buf_cap, 10);
		b->deadline_ns = deadline();
	} else {
		b->results = chance(30) ? 0 : place(n * 4, 10);
		b->buf = chance(95) ? 0 : rnd();
		b->buf_cap = chance(95) ? 0 : rnd();
		b->deadline_ns = chance(95) ? 0 : deadline();
	}
}

/* DONE_GET: a GET, and a key to end first (or none) */
static void build_done_get(struct wq_done_get *d)
{
	build_get(&d->get);
	d->prev_len = chance(20) ? 0 : key_len_val();
	d->prev = d->prev_len ? key_ptr(d->prev_len) : chance(95) ? 0 : rnd();
	d->reserved = reserved_val();
}

/* URING_CANCEL: all, or one buffer's (an arena address, mostly) */
static void build_uring_cancel(struct wq_uring_cancel *c)
{
	c->flags = chance(30) ? WQ_URING_CANCEL_ALL : chance(95) ? 0 : rnd();
	c->reserved = reserved_val();
	c->addr = c->flags ? (chance(95) ? 0 : rnd()) :
		  chance(90) ? place(8, 0) : rnd();
}

/* DONE_GET_BATCH: a GET_BATCH, and keys to end first (or none) */
static void build_done_get_batch(struct wq_done_get_batch *d)
{
	struct wq_batch done = { 0 };

	build_batch(&d->get, WQ_IOC_GET_BATCH);
	d->n_done = chance(20) ? 0 : chance(95) ? 1 + rn(8) : rnd();
	if (d->n_done && d->n_done <= WQ_BATCH_MAX) {
		done.count = d->n_done;
		done.keys = place(d->n_done * sizeof(struct wq_iov), 8);
		build_batch_keys(&done, d->n_done);
	}
	d->done_keys = done.keys;
	d->done_results = d->n_done && chance(50) ? place(d->n_done * 4, 10) : 0;
	d->reserved = reserved_val();
}

static void build_metrics(struct wq_metrics_req *m)
{
	static const uint32_t ms[] = { 0, WQ_METRICS_INFO_SIZE_VER0 - 1,
		WQ_METRICS_INFO_SIZE_VER0, sizeof(struct wq_metrics_info),
		sizeof(struct wq_metrics_info) + 8,
		WQ_METRICS_INFO_SIZE_MAX, WQ_METRICS_INFO_SIZE_MAX + 1,
		0xffffffff };

	m->flags = chance(90) ? 0 : flags_val(0);
	m->size = chance(50) ? sizeof(struct wq_metrics_info) :
		  ms[rn(sizeof(ms) / sizeof(ms[0]))];
	m->metrics = place(m->size > 8192 ? 8192 : m->size, 10);
}

/* An add that gives its keys a priority (WQ_ADD_PRIORITY)? */
static int adds_priority(unsigned int cmd, const unsigned char *s)
{
	uint32_t flags;

	if (cmd != WQ_IOC_ADD && cmd != WQ_IOC_ADD_BATCH)
		return 0;
	memcpy(&flags, s, sizeof(flags));	/* the first field of both */
	return !!(flags & WQ_ADD_PRIORITY);
}

/* A size not ending inside an add's priority: a cut one is its first bytes */
uint32_t whole_priority(unsigned int ci, const unsigned char *s, uint32_t size)
{
	unsigned int cmd = cmds[ci].cmd;
	uint32_t off = cmd == WQ_IOC_ADD ? offsetof(struct wq_add, priority) :
					   offsetof(struct wq_batch, priority);

	if (adds_priority(cmd, s) && size > off && size < off + 4)
		return chance(50) ? off : off + 4;
	return size;
}

/*
 * The struct for cmd index ci, built in s (valid-ish, then mangled);
 * *clean says whether it was left well formed, *hint whether the call
 * may block.
 */
static void build(unsigned int ci, unsigned char *s, uint32_t *clean,
		  uint64_t *hint)
{
	unsigned int cmd = cmds[ci].cmd, i;

	*hint = cmd == WQ_IOC_ADD || cmd == WQ_IOC_GET ||
		cmd == WQ_IOC_SHUTDOWN || cmd == WQ_IOC_GET_BATCH ||
		cmd == WQ_IOC_DONE_GET || cmd == WQ_IOC_DONE_GET_BATCH;
	switch (cmd) {
	case WQ_IOC_CREATE: build_create((void *)s); break;
	case WQ_IOC_OPEN:
	case WQ_IOC_DESTROY: build_name((void *)s, cmd); break;
	case WQ_IOC_LIST: build_list((void *)s); break;
	case WQ_IOC_ADD: build_add((void *)s); break;
	case WQ_IOC_GET: build_get((void *)s); break;
	case WQ_IOC_DONE:
	case WQ_IOC_FORGET:
	case WQ_IOC_NUM_REQUEUES:
	case WQ_IOC_CANCEL_AFTER: build_key((void *)s); break;
	case WQ_IOC_KEY_STATE: build_key_info((void *)s); break;
	case WQ_IOC_SHUTDOWN: build_shutdown((void *)s); break;
	case WQ_IOC_ADD_BATCH:
	case WQ_IOC_GET_BATCH:
	case WQ_IOC_DONE_BATCH: build_batch((void *)s, cmd); break;
	case WQ_IOC_METRICS: build_metrics((void *)s); break;
	case WQ_IOC_DONE_GET: build_done_get((void *)s); break;
	case WQ_IOC_DONE_GET_BATCH: build_done_get_batch((void *)s); break;
	case WQ_IOC_URING_CANCEL: build_uring_cancel((void *)s); break;
	default: break;	/* MODULE_INFO, STAT: read-only */
	}
	*clean = 1;
	/*
	 * Random bytes over a random field, now and then; not where an add
	 * then gives a priority (a pointer changed could reach a pool key,
	 * and cmds.c's sets must hold).
	 */
	if (chance(5)) {
		unsigned char x = (unsigned char)(1 + rn(255));

		i = rn(cmds[ci].size);
		s[i] ^= x;
		*clean = 0;
		if (adds_priority(cmd, s)) {
			s[i] ^= x;
			*clean = 1;
		}
	}
}

/*
 * The ioctl number for cmd index ci: a boundary size (the tail of s past
 * the struct zero, or not: *tail), now and then a random number in the
 * same magic (*random).
 */
static unsigned int pick_cmd(unsigned int ci, unsigned char *s, uint32_t *size,
			     int *random)
{
	uint32_t full = cmds[ci].size;
	int tail = 0;

	switch (rn(16)) {
	case 0: *size = 0; break;
	case 1: *size = cmds[ci].min - 1; break;
	case 2: *size = cmds[ci].min; break;
	case 3: *size = full + 8; tail = 1; break;
	case 4: *size = full + 8; tail = 2; break;
	case 5: *size = IOC_SIZE_MAX; tail = chance(50) ? 2 : 1; break;
	case 6: *size = rn(full + 16); break;
	default: *size = full; break;
	}
	if (tail == 2)
		s[full + rn(*size - full)] = (unsigned char)(1 + rn(255));
	*size = whole_priority(ci, s, *size);
	*random = chance(4);
	if (*random) {
		unsigned int nr = chance(70) ? rn(0x40) : rn(256);
		unsigned int cmd = _IOC(rn(4), chance(90) ? WQ_IOC_MAGIC :
					rn(256), nr, *size);
		const struct cmdinfo *c = cmd_of(cmd);

		/* no other struct read as an add (see build()) */
		if (!c || (c->cmd != WQ_IOC_ADD && c->cmd != WQ_IOC_ADD_BATCH) ||
		    c == &cmds[ci])
			return cmd;
		*random = 0;
	}
	return (cmds[ci].cmd & ~(_IOC_SIZEMASK << _IOC_SIZESHIFT)) |
	       (*size << _IOC_SIZESHIFT);
}

/* A GET that succeeded: its length, and a done of the key at once. */
static void check_get(int fd, const struct wq_get *g, long r, int clean,
		      uint64_t arg, uint32_t size)
{
	if (!apart(g->buf, g->buf_cap, arg, size))
		clean = 0;	/* the key overwrote the struct */
	if (r < 1 || r > WQ_KEY_MAX || (clean && (uint32_t)r != g->key_len) ||
	    (clean && g->key_len > g->buf_cap))
		fail("GET returned %ld key_len %u buf_cap %u", r,
		     g->key_len, g->buf_cap);
	else if (clean)
		check_key_prio("GET", (const void *)(uintptr_t)g->buf,
			       (uint64_t)r, g->priority);
	if (clean && chance(70)) {	/* done it at once */
		struct wq_key k = { .key_len = (uint32_t)r, .key = g->buf };

		if (ioctl(fd, WQ_IOC_DONE, &k) < 0 &&
		    !errno_ok(fd, WQ_IOC_DONE, errno))
			fail("DONE after GET: %s", ename(errno));
	}
}

static void check_list(const struct wq_list *l, uint64_t arg, uint32_t size)
{
	uint32_t i;

	if (l->entry_size < sizeof(struct wq_queue_info) || l->count > 8 ||
	    !in_arena(l->entries, (uint64_t)l->count * l->entry_size) ||
	    !apart(l->entries, (uint64_t)l->count * l->entry_size, arg, size))
		return;
	for (i = 0; i < l->count; i++) {
		struct wq_queue_info qi;

		memcpy(&qi, (char *)(uintptr_t)l->entries +
		       (size_t)i * l->entry_size, sizeof(qi));
		if (qi.handles)	/* unnamed-but-open counts 0 */
			check_info(&qi);
	}
}

/* KEY_STATE's answer (ks), for the struct sent (in) at arg */
static void check_key_state(const struct wq_key_info *ks,
			    const struct wq_key_info *in, uint64_t arg,
			    uint32_t size)
{
	check_key_info(ks, in);
	if (in_arena(in->key, in->key_len) &&
	    apart(in->key, in->key_len, arg, size))
		check_key_prio("KEY_STATE", (const void *)(uintptr_t)in->key,
			       in->key_len, ks->priority);
}

static void check_metrics_req(const struct wq_metrics_req *m, uint64_t arg,
			      uint32_t size)
{
	struct wq_metrics_info mi;

	if (m->size < sizeof(struct wq_metrics_info) ||
	    !in_arena(m->metrics, sizeof(struct wq_metrics_info)) ||
	    !apart(m->metrics, m->size, arg, size))
		return;
	memcpy(&mi, (void *)(uintptr_t)m->metrics, sizeof(mi));
	check_metrics(&mi);
}

/*
 * The calls on one key (DONE, FORGET, KEY_STATE, CANCEL_AFTER) that
 * returned r: sent the struct at bin, s what came back.
 */
static void check_key_result(unsigned int ci, const struct wq_batch *bin,
			     const unsigned char *s, long r, int clean,
			     uint64_t arg, uint32_t size)
{
	struct wq_key_info in, out;
	struct wq_key k;

	memcpy(&k, bin, sizeof(k));	/* as sent */
	switch (cmds[ci].cmd) {
	case WQ_IOC_KEY_STATE:
		memcpy(&in, bin, sizeof(in));
		memcpy(&out, s, sizeof(out));
		if (r != 0)
			fail("KEY_STATE returned %ld", r);
		else if (clean)
			check_key_state(&out, &in, arg, size);
		break;
	case WQ_IOC_CANCEL_AFTER:	/* a waiting copy dropped, or none */
		if (r != 0 && r != 1)
			fail("CANCEL_AFTER returned %ld", r);
		break;
	default:	/* with WQ_KEY_RESULT_STATE: the key's state, WQ_KEY_* */
		if (r != 0 && !(k.flags == WQ_KEY_RESULT_STATE && r > 0 &&
				r <= 0x1f))
			fail("%s returned %ld", cmds[ci].name, r);
		break;
	}
}

/*
 * What a successful call of cmd index ci wrote back (s: the struct as
 * sent; the arena's copy at arg is read here), where it is well formed.
 */
static void check_result(int fd, unsigned int ci, unsigned char *s, long r,
			 int clean, uint64_t arg, uint32_t size)
{
	unsigned int cmd = cmds[ci].cmd;
	uint32_t full = cmds[ci].size;
	struct wq_batch bin;

	memcpy(&bin, s, sizeof(bin));	/* as sent: batches are _IOW */
	if (!in_arena(arg, size)) {
		if (cmd == WQ_IOC_GET && (r < 1 || r > WQ_KEY_MAX))
			fail("GET returned %ld", r);
		return;
	}
	memcpy(s, (void *)(uintptr_t)arg, full < size ? full : size);
	switch (cmd) {
	case WQ_IOC_GET:
	case WQ_IOC_DONE_GET:	/* the GET's results, in the struct's head */
		check_get(fd, (const void *)s, r, clean, arg, size);
		break;
	case WQ_IOC_DONE_GET_BATCH:
		if (clean)
			check_batch_results(WQ_IOC_GET_BATCH, &bin, r, arg, size);
		break;
	case WQ_IOC_ADD_BATCH:
	case WQ_IOC_GET_BATCH:
	case WQ_IOC_DONE_BATCH:
		if (clean)
			check_batch_results(cmd, &bin, r, arg, size);
		break;
	case WQ_IOC_STAT:
		if (clean)
			check_info((const struct wq_queue_info *)s);
		break;
	case WQ_IOC_METRICS:
		if (clean)
			check_metrics_req((const void *)s, arg, size);
		break;
	case WQ_IOC_LIST:
		if (clean)
			check_list((const void *)s, arg, size);
		break;
	case WQ_IOC_DONE:
	case WQ_IOC_FORGET:
	case WQ_IOC_KEY_STATE:
	case WQ_IOC_CANCEL_AFTER:
		check_key_result(ci, &bin, s, r, clean, arg, size);
		break;
	case WQ_IOC_ADD:
		if (r != 0)
			fail("ADD returned %ld", r);
		else if (clean && size >= offsetof(struct wq_add, priority) &&
			 ((const struct wq_add *)s)->outcome > WQ_ADDED_KEPT)
			fail("ADD outcome %u", ((const struct wq_add *)s)->outcome);
		break;
	case WQ_IOC_URING_CANCEL:	/* how many parked commands ended */
		if (r < 0 || r > 65536)
			fail("URING_CANCEL returned %ld", r);
		break;
	default:
		if (r != 0 && cmd != WQ_IOC_SHUTDOWN)
			fail("%s returned %ld", cmds[ci].name, r);
		break;
	}
}

/*
 * uring.c's hostile commands: the struct of command index ci built in s
 * as one_ioctl() builds it, its pointers in the arena as it is now (a
 * command's own, there); *clean as build() says.
 */
void hostile_struct(unsigned int ci, unsigned char *s, uint32_t *clean)
{
	uint64_t hint;

	build(ci, s, clean, &hint);
}

void one_ioctl(void)
{
	unsigned char s[IOC_SIZE_MAX + 64];
	unsigned int ci = rn(ncmds), cmd;
	uint32_t size, clean;
	uint64_t arg, hint;
	int fd = pick_fd(), err, random;
	long r;

	memset(s, 0, sizeof(s));
	stage = 200 + (int)ci;
	build(ci, s, &clean, &hint);
	stage = 300 + (int)ci;
	cmd = pick_cmd(ci, s, &size, &random);
	if (random)
		clean = 0, hint = 1;
	arg = place(size ? size : 1, 6);
	if (in_arena(arg, size))
		memcpy((void *)(uintptr_t)arg, s, size);
	/* short, or not (wholly) in the arena: place() straddles the guard */
	if (size < cmds[ci].size || !in_arena(arg, size))
		clean = 0;

	sh->last_cmd[widx] = cmd;
	if (verbose)
		fprintf(stderr, "[%d:%llu] fd %d ioctl %s(%#x) size %u arg %#llx\n",
			widx, (unsigned long long)seq, fd, cmds[ci].name, cmd,
			size, (unsigned long long)arg);
	r = do_ioctl(fd, cmd, arg, (int)hint, &err);
	stage = 400 + (int)ci;
	if (verbose)
		fprintf(stderr, "[%d:%llu]   = %ld (%s)\n", widx,
			(unsigned long long)seq, r, r < 0 ? strerror(err) : "ok");
	seen(cmd, r < 0 ? err : 0, 0);
	if (r < 0 ? !errno_ok(fd, cmd, err) : !success_ok(fd, cmd)) {
		const struct cmdinfo *c = cmd_of(cmd);

		fail("%s (%#x) size %u fd %d: %s", c ? c->name : "no command",
		     cmd, size, fd, r < 0 ? ename(err) : "returned >= 0");
	}
	if (r >= 0 && !random)	/* not a random number that is a command */
		check_result(fd, ci, s, r, (int)clean, arg, size);
}
