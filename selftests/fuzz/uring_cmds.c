// SPDX-License-Identifier: GPL-2.0
/*
 * wq_fuzz: the io_uring commands uring.c sends, and what their
 * completions may say. Live ones are built as live.c builds its calls
 * (pool keys, a priority of the key's set, dones of keys this thread
 * holds, short deadlines; some gets wait without one, until a key comes
 * or a cancel or teardown ends them); hostile ones take hostile.c's
 * structs, built in the slot's arena, with a boundary size in the cmd_op
 * (0, short, an unknown tail zero or not, the whole 80-byte area or more),
 * now and then a random cmd_op or junk in the area past the struct, and
 * mangled SQE fields (fixed-file and buffer-select flags, an unknown flag,
 * uring_cmd_flags, __pad1, a personality) or valid ones (async, drain,
 * links). A completion is >= 0 only for the six commands on a /dev/wq
 * handle, with the ioctl's meaning (an ADD's WQ_ADDED_*, a GET's key
 * length within its buffer, a batch's count and per-key results), and
 * else an errno uapi/linux/wq.h documents for the command, -ECANCELED, or
 * io_uring's own for the fd (-EBADF, -EOPNOTSUPP) or the mangled SQE;
 * /dev/null's uring_cmd answers 0 to anything.
 */
#include "uring.h"

#define LIVE_BATCH	8
/* a live command's places in its slot's arena */
#define UAT_IOV		0
#define UAT_RESULTS	1024
#define UAT_KEYS	2048	/* LIVE_BATCH keys of 8 bytes */
#define UAT_BUF		(2 * PAGE)
#define UBUF_CAP	(2 * PAGE)

_Static_assert(UR_ROWS == URING_ROWS, "URING_ROWS");

static const unsigned int ucmds[] = {
	WQ_IOC_ADD, WQ_IOC_GET, WQ_IOC_DONE, WQ_IOC_ADD_BATCH,
	WQ_IOC_GET_BATCH, WQ_IOC_DONE_BATCH,
};

/* The row of a cmd_op: one of the six commands (by number), or UR_OTHER. */
int uring_row_of(unsigned int cmd_op)
{
	const struct cmdinfo *c = cmd_of(cmd_op);
	unsigned int i;

	for (i = 0; c && i < UR_OTHER; i++)
		if (c->cmd == ucmds[i])
			return (int)i;
	return UR_OTHER;
}

static uint64_t uat(const struct uslot *u, size_t off)
{
	return (uint64_t)(uintptr_t)(uslot_mem(u) + off);
}

/* The SQE of u's command: its struct, size bytes of it, in the area. */
static void prep(struct uslot *u, struct io_uring_sqe *sqe, uint32_t size,
		 const void *area, size_t area_len)
{
	io_uring_prep_rw(IORING_OP_URING_CMD, sqe, u->fd, NULL, 0, 0);
	u->cmd_op = (u->cmd_op & ~(_IOC_SIZEMASK << _IOC_SIZESHIFT)) |
		    size << _IOC_SIZESHIFT;
	sqe->cmd_op = u->cmd_op;
	memset(sqe->cmd, 0, area_len);
	memcpy(sqe->cmd, area, area_len);
}

/* A deadline for a live get: mostly a few ms, else none (waits). */
static uint64_t get_deadline(void)
{
	return chance(75) ? short_deadline() : WQ_DEADLINE_NONE;
}

static void live_add(struct uslot *u)
{
	struct wq_add *a = &u->s.add;
	uint32_t n = rn(NKEYS);

	u->slot = live_slot(ACC_WRITE);
	a->key_len = pool_key_n((char *)uslot_mem(u) + UAT_KEYS, n);
	a->key = uat(u, UAT_KEYS);
	live_add_kind(a, u->slot, n);
}

static void live_get(struct uslot *u)
{
	struct wq_get *g = &u->s.get;

	u->slot = live_slot(ACC_READ);
	g->flags = (chance(30) ? WQ_GET_NONBLOCK : 0) |
		   (chance(10) ? WQ_GET_DETACH : 0);
	g->buf = uat(u, UAT_BUF);
	g->buf_cap = chance(95) ? WQ_KEY_MAX : 1 + rn(4);	/* -EMSGSIZE */
	g->deadline_ns = get_deadline();
	/* no key has a byte 0xff: one got is seen written (check_success()) */
	memset(uslot_mem(u) + UAT_BUF, 0xff, 8);
}

/* A done of a key held (on the handle it came from, mostly), or of any. */
static void live_done(struct uslot *u)
{
	struct wq_key *k = &u->s.key;
	char *p = (char *)uslot_mem(u) + UAT_KEYS;
	int from = -1;

	k->key = uat(u, UAT_KEYS);
	k->key_len = chance(85) ? held_take(p, &from) : 0;
	if (!k->key_len)
		k->key_len = pool_key_n(p, rn(NKEYS));
	if (from >= 0 && chance(70) && fds[from] >= 0 &&
	    (slot_access[from] & ACC_READ))
		u->slot = from;
	else
		u->slot = live_slot(ACC_READ);
}

/*
 * ADD_BATCH (pool keys; with a priority, keys of one group of its set),
 * or DONE_BATCH (keys held, mostly), of up to LIVE_BATCH keys.
 */
static void live_batch_in(struct uslot *u, int add)
{
	struct wq_batch *b = &u->s.batch;
	struct wq_iov *iov = (void *)(uslot_mem(u) + UAT_IOV);
	uint32_t n = 1 + rn(LIVE_BATCH), lo = 0, span = NKEYS, i;
	int from = -1, held = !add && chance(85);

	u->slot = live_slot(add ? ACC_WRITE : ACC_READ);
	if (add && chance(70))
		b->flags |= WQ_ADD_OUTCOME;
	if (add && u->slot >= 0 && slot_prio[u->slot] && chance(60)) {
		b->flags |= WQ_ADD_PRIORITY;
		lo = chance(50) ? 8 : 12;
		span = 4;
		b->priority = prio_of(lo);
	}
	for (i = 0; i < n; i++) {
		char *p = (char *)uslot_mem(u) + UAT_KEYS + i * 8;

		iov[i].base = (uint64_t)(uintptr_t)p;
		iov[i].len = held ? held_take(p, &from) : 0;
		if (!iov[i].len)
			iov[i].len = pool_key_n(p, lo + rn(span));
	}
	b->count = n;
	b->keys = uat(u, UAT_IOV);
	b->results = uat(u, UAT_RESULTS);
}

static void live_get_batch(struct uslot *u)
{
	struct wq_batch *b = &u->s.batch;

	u->slot = live_slot(ACC_READ);
	b->flags = (chance(30) ? WQ_GET_NONBLOCK : 0) |
		   (chance(10) ? WQ_GET_DETACH : 0);
	b->count = 1 + rn(LIVE_BATCH);
	b->keys = uat(u, UAT_IOV);
	b->results = chance(60) ? uat(u, UAT_RESULTS) : 0;	/* priorities */
	b->buf = uat(u, UAT_BUF);
	b->buf_cap = UBUF_CAP;
	b->deadline_ns = get_deadline();
	memset(uslot_mem(u) + UAT_IOV, 0xff, LIVE_BATCH * sizeof(struct wq_iov));
}

void ucmd_live(struct uslot *u, struct io_uring_sqe *sqe)
{
	uint32_t op = rn(100);

	memset(&u->s, 0, sizeof(u->s));
	u->row = op < 25 ? UR_ADD : op < 50 ? UR_GET : op < 70 ? UR_DONE :
		 op < 80 ? UR_ADD_BATCH : op < 90 ? UR_GET_BATCH : UR_DONE_BATCH;
	switch (u->row) {
	case UR_ADD: live_add(u); break;
	case UR_GET: live_get(u); break;
	case UR_DONE: live_done(u); break;
	case UR_GET_BATCH: live_get_batch(u); break;
	default: live_batch_in(u, u->row == UR_ADD_BATCH); break;
	}
	if (u->slot < 0) {	/* no slot bound for it */
		ucmd_hostile(u, sqe);
		return;
	}
	u->live = 1;
	u->clean = 1;
	u->odd = 0;
	u->fk = FK_WQ;
	u->fd = fds[u->slot];
	u->cmd_op = ucmds[u->row];
	prep(u, sqe, _IOC_SIZE(u->cmd_op), &u->s, WQ_URING_CMD_MAX);
}

/*
 * A get that waits without a deadline on fd, a queue nothing adds to (the
 * thread's idle one): outstanding until a cancel or the ring's teardown.
 */
void ucmd_idle_get(struct uslot *u, struct io_uring_sqe *sqe, int fd)
{
	memset(&u->s, 0, sizeof(u->s));
	u->row = UR_GET;
	u->live = 1;
	u->clean = 1;
	u->odd = 0;
	u->slot = -1;
	u->fk = FK_WQ;
	u->fd = fd;
	u->cmd_op = WQ_IOC_GET;
	u->s.get.buf = uat(u, UAT_BUF);
	u->s.get.buf_cap = WQ_KEY_MAX;
	u->s.get.deadline_ns = WQ_DEADLINE_NONE;
	prep(u, sqe, sizeof(struct wq_get), &u->s, WQ_URING_CMD_MAX);
}

int uring_links = 1;	/* uring_links_probe(): links and drains are safe */

/*
 * Whether a command io_uring runs later than its submission (linked behind
 * one that waits) reads its SQE as submitted: a GET on an empty private
 * queue, the DONE of the key it will take linked behind it, the DONE's
 * SQE slot overwritten (key_len 0) once submitted, then the key added. The
 * DONE ends the key (0) if io_uring kept a copy (6.1; upstream since
 * 6.14), else it does what the slot says (6.11 to 6.13 read it when they
 * issue the command: a program may not reuse the slot meanwhile, nor may
 * the fuzzer). 1 if safe, 0 if not, -1 if unknown.
 */
int uring_links_probe(void)
{
	struct wq_create c = { .flags = WQ_CREATE_PRIVATE };
	struct __kernel_timespec ts = { 5, 0 };
	struct wq_get g = { .deadline_ns = WQ_DEADLINE_NONE };
	struct wq_key k = { .key_len = 1 };
	struct io_uring_sqe *sqe[2];
	struct io_uring_cqe *cqe;
	struct io_uring ring;
	char buf[8] = "x", key = 'x';
	int fd = open("/dev/wq", O_RDWR | O_CLOEXEC), res = -1, n;

	if (fd < 0 || ioctl(fd, WQ_IOC_CREATE, &c) ||
	    io_uring_queue_init(4, &ring, IORING_SETUP_SQE128)) {
		close(fd);
		return -1;
	}
	g.buf = (uintptr_t)buf;
	g.buf_cap = sizeof(buf);
	k.key = (uintptr_t)&key;
	sqe[0] = io_uring_get_sqe(&ring);
	sqe[1] = io_uring_get_sqe(&ring);
	io_uring_prep_rw(IORING_OP_URING_CMD, sqe[0], fd, NULL, 0, 0);
	sqe[0]->cmd_op = WQ_IOC_GET;
	memcpy(sqe[0]->cmd, &g, sizeof(g));
	sqe[0]->flags = IOSQE_IO_LINK;
	io_uring_prep_rw(IORING_OP_URING_CMD, sqe[1], fd, NULL, 0, 0);
	sqe[1]->cmd_op = WQ_IOC_DONE;
	memcpy(sqe[1]->cmd, &k, sizeof(k));
	io_uring_sqe_set_data64(sqe[1], 1);
	if (io_uring_submit(&ring) == 2) {
		k.key_len = 0;		/* what a reused slot could say */
		memcpy(sqe[1]->cmd, &k, sizeof(k));
		ioctl(fd, WQ_IOC_ADD, &(struct wq_add){ .key_len = 1,
			.key = (uintptr_t)&key });
		for (n = 0; n < 2 && !io_uring_wait_cqe_timeout(&ring, &cqe, &ts);
		     n++) {
			if (cqe->user_data == 1)
				res = cqe->res == 0;
			io_uring_cqe_seen(&ring, cqe);
		}
	}
	io_uring_queue_exit(&ring);
	close(fd);
	return res;
}

/*
 * SQE fields of a command other than its own, mangled: *odd if the
 * kernel may refuse the SQE for them (io_uring's -EINVAL, -EBADF,
 * -EOPNOTSUPP, -EFAULT); valid flags change only when it runs (links:
 * -ECANCELED; not where uring_links_probe() says a kernel reads a linked
 * command's SQE late). Never IOSQE_CQE_SKIP_SUCCESS: all complete.
 */
static void mangle_sqe(struct io_uring_sqe *sqe, int *odd)
{
	*odd = 1;
	switch (rn(8)) {
	case 0:
	case 1:
		sqe->flags = (uint8_t)(rnd() & (IOSQE_ASYNC | (uring_links ?
				IOSQE_IO_DRAIN | IOSQE_IO_LINK |
				IOSQE_IO_HARDLINK : 0)));
		*odd = 0;
		break;
	case 2: sqe->flags |= IOSQE_FIXED_FILE; break;
	case 3: sqe->flags |= IOSQE_BUFFER_SELECT; break;
	case 4: sqe->flags |= 0x80; break;	/* no such flag */
	case 5: sqe->uring_cmd_flags = (uint32_t)rnd() | (1U << rn(32)); break;
	case 6: sqe->__pad1 = (uint32_t)rnd() | 1; break;
	default: sqe->personality = (uint16_t)(1 + rn(1000)); break;
	}
}

/* A size for a hostile cmd_op of command index ci; a tail in s past it. */
static uint32_t hostile_size(unsigned int ci, unsigned char *s)
{
	uint32_t full = cmds[ci].size, size;

	switch (rn(20)) {
	case 0: size = 0; break;
	case 1: size = cmds[ci].min - 1; break;
	case 2: size = cmds[ci].min; break;
	case 3: size = full + 8; break;
	case 4: size = full + 8; s[full + rn(8)] = (unsigned char)(1 + rn(255)); break;
	case 5: size = WQ_URING_CMD_MAX; break;
	case 6: size = WQ_URING_CMD_MAX + 1 + rn(64); break;	/* no fit */
	case 7: size = IOC_SIZE_MAX; break;
	case 8: size = rn(full + 16); break;
	default: size = full; break;
	}
	if (size > full && size <= WQ_URING_CMD_MAX && chance(20))
		s[full + rn(size - full)] = (unsigned char)(1 + rn(255));
	return whole_priority(ci, s, size);
}

/*
 * A random cmd_op in the magic (as hostile.c's pick_cmd()), but never one
 * that reads another command's struct as an add (cmds.c's sets).
 */
static int random_cmd_op(unsigned int ci, uint32_t size, unsigned int *cmd_op)
{
	unsigned int nr = chance(70) ? rn(0x40) : rn(256);
	unsigned int c = _IOC(rn(4), chance(90) ? WQ_IOC_MAGIC : rn(256), nr,
			      size);
	const struct cmdinfo *ci2 = cmd_of(c);

	if (ci2 && (ci2->cmd == WQ_IOC_ADD || ci2->cmd == WQ_IOC_ADD_BATCH) &&
	    ci2 != &cmds[ci])
		return 0;
	*cmd_op = c;
	return 1;
}

void ucmd_hostile(struct uslot *u, struct io_uring_sqe *sqe)
{
	unsigned char s[IOC_SIZE_MAX + 64];
	const struct cmdinfo *c = cmd_of(ucmds[rn(UR_OTHER)]);
	unsigned int ci = chance(80) ? (unsigned int)(c - cmds) : rn(ncmds);
	uint32_t clean, size;
	int random = 0, k;

	memset(s, 0, sizeof(s));
	uarena_enter(u);
	hostile_struct(ci, s, &clean);
	uarena_leave();
	size = hostile_size(ci, s);
	u->cmd_op = cmds[ci].cmd;
	if (chance(4))
		random = random_cmd_op(ci, size, &u->cmd_op);
	u->row = (unsigned int)uring_row_of(u->cmd_op);
	u->live = 0;
	u->clean = clean && !random && size >= cmds[ci].size &&
		   size <= WQ_URING_CMD_MAX;
	u->slot = -1;
	u->fd = uring_fd_of(&u->fk);
	if (u->fd == -2) {
		k = (int)rn(NFDS);
		u->fd = fds[k];
		u->fk = u->fd >= 0 ? FK_WQ : FK_BAD;
		u->slot = u->fd >= 0 ? k : -1;
	}
	if (chance(10))		/* junk past the struct: not read */
		for (k = (int)(size < WQ_URING_CMD_MAX ? size : WQ_URING_CMD_MAX);
		     k < WQ_URING_CMD_MAX; k++)
			s[k] = (unsigned char)rnd();
	memcpy(u->s.raw, s, WQ_URING_CMD_MAX);
	prep(u, sqe, size, s, WQ_URING_CMD_MAX);
	if (random)
		sqe->cmd_op = u->cmd_op;
	u->odd = 0;
	if (chance(12))
		mangle_sqe(sqe, &u->odd);
}

/*
 * A command for a ring without SQE128: one of the six, well formed, its
 * struct's first 16 bytes all the area holds; on any fd.
 */
void ucmd_plain(struct uslot *u, struct io_uring_sqe *sqe)
{
	int k;

	u->row = UR_PLAIN;
	u->live = 0;
	u->clean = 0;
	u->odd = 0;
	u->slot = -1;
	memset(&u->s, 0, sizeof(u->s));
	u->cmd_op = ucmds[rn(UR_OTHER)];
	if (u->cmd_op == WQ_IOC_GET) {
		u->s.get.buf = uat(u, UAT_BUF);
		u->s.get.buf_cap = WQ_KEY_MAX;
	} else if (u->cmd_op == WQ_IOC_ADD || u->cmd_op == WQ_IOC_DONE) {
		u->s.key.key_len = pool_key_n((char *)uslot_mem(u) + UAT_KEYS, 1);
		u->s.key.key = uat(u, UAT_KEYS);
	} else {
		u->s.batch.count = 1;
		u->s.batch.keys = uat(u, UAT_IOV);
	}
	u->fd = uring_fd_of(&u->fk);
	if (u->fd == -2) {
		k = (int)rn(NFDS);
		u->fd = fds[k];
		u->fk = u->fd >= 0 ? FK_WQ : FK_BAD;
	}
	prep(u, sqe, _IOC_SIZE(u->cmd_op), &u->s, 16);
}

/* Commands the ring takes beyond the six: no row of their own. */
static int ring_other(const struct cmdinfo *c)
{
	return c && (c->cmd == WQ_IOC_DONE_GET ||
		     c->cmd == WQ_IOC_DONE_GET_BATCH ||
		     c->cmd == WQ_IOC_URING_CANCEL);
}

/* May u's command complete with -e? */
static int errno_ok_uring(const struct uslot *u, int e)
{
	const struct cmdinfo *c = cmd_of(u->cmd_op);

	if (e == ECANCELED)	/* a cancel, a teardown, a link broken */
		return u->row != UR_PLAIN;
	if (u->odd && (e == EINVAL || e == EBADF || e == EOPNOTSUPP ||
		       e == EFAULT))
		return 1;
	if (u->fk == FK_BAD)
		return e == EBADF;
	if (u->fk == FK_OTHER)
		return e == EOPNOTSUPP;
	if (u->fk == FK_NULL)	/* /dev/null's uring_cmd: 0, whatever it is */
		return 0;
	/* a live get or done is well formed, and its memory all there */
	if (u->live && u->row != UR_ADD && u->row != UR_ADD_BATCH &&
	    (e == EINVAL || e == E2BIG || e == EFAULT))
		return 0;
	if (u->row == UR_PLAIN)		/* EBADF: unbound, or the access */
		return e == EINVAL || e == EBADF;
	if (u->row == UR_OTHER && !ring_other(c))
		return e == ENOTTY || e == EBADF || e == EINVAL || e == E2BIG;
	switch (e) {
	case EINVAL: case EFAULT: case EBADF: case E2BIG:
	case EINTR:	/* io_uring's: a wait cut by a stop or a freeze */
		return 1;
	}
	return in_list(c->errs, e);
}

/* What a get took (into u's arena): keys this thread now holds. */
static void took_keys(const struct uslot *u, int res)
{
	const struct wq_iov *iov;
	int i;

	if (u->slot < 0 || !u->clean)
		return;
	if (u->row == UR_GET) {
		if (in_arena(u->s.get.buf, (uint64_t)res))
			remember((const char *)(uintptr_t)u->s.get.buf,
				 (uint32_t)res, u->slot);
		return;
	}
	if (!in_arena(u->s.batch.keys, (uint64_t)res * sizeof(*iov)))
		return;
	iov = (const void *)(uintptr_t)u->s.batch.keys;
	for (i = 0; i < res; i++)
		if (in_arena(iov[i].base, iov[i].len))
			remember((const char *)(uintptr_t)iov[i].base,
				 (uint32_t)iov[i].len, u->slot);
}

/* A live GET_BATCH's keys: each in its buffer, of a key's length. */
static void check_got(const struct uslot *u, int res)
{
	const struct wq_iov *iov = (const void *)(uslot_mem(u) + UAT_IOV);
	uint64_t buf = u->s.batch.buf;
	int i;

	for (i = 0; i < res && i < LIVE_BATCH; i++)
		if (iov[i].base < buf || iov[i].len < 1 ||
		    iov[i].len > WQ_KEY_MAX ||
		    iov[i].base + iov[i].len > buf + UBUF_CAP) {
			fail("io_uring live GET_BATCH of %d: key %d at %#llx, %llu bytes, not in its buffer",
			     res, i, (unsigned long long)iov[i].base,
			     (unsigned long long)iov[i].len);
			return;
		}
}

/*
 * A command of the six that succeeded with res, on a /dev/wq handle (the
 * arena in_arena() knows: u's).
 */
static void check_success(struct uslot *u, int res)
{
	switch (u->row) {
	case UR_ADD:	/* what the add did */
		if (res > WQ_ADDED_KEPT)
			fail("io_uring ADD completed with %d", res);
		break;
	case UR_GET:	/* the key's length, within the buffer, written */
		if (res < 1 || res > WQ_KEY_MAX ||
		    (u->clean && (uint32_t)res > u->s.get.buf_cap))
			fail("io_uring GET completed with %d, buf_cap %u", res,
			     u->s.get.buf_cap);
		else if (u->live && uslot_mem(u)[UAT_BUF] == 0xff)
			fail("io_uring live GET completed with %d, no key in its buffer",
			     res);
		else
			took_keys(u, res);
		break;
	case UR_DONE:	/* 0, or with WQ_KEY_RESULT_STATE the key's state */
		if (res != 0 && !((u->s.key.flags & WQ_KEY_RESULT_STATE) &&
				  res <= 0x1f))
			fail("io_uring DONE completed with %d", res);
		break;
	default:	/* the batches: the count, each key's result */
		if (u->clean)
			check_batch_results(ucmds[u->row], &u->s.batch, res, 0, 0);
		else if ((uint64_t)res > WQ_BATCH_MAX)
			fail("io_uring %s completed with %d",
			     cmd_of(ucmds[u->row])->name, res);
		if (u->row == UR_GET_BATCH && u->live)
			check_got(u, res);
		if (u->row == UR_GET_BATCH && res <= (int)u->s.batch.count)
			took_keys(u, res);
		break;
	}
}

void ucmd_done(struct uslot *u, int res)
{
	const struct cmdinfo *c = cmd_of(u->cmd_op);
	int e = res < 0 ? -res : 0;

	seen_uring(u->row, e, u->live);
	if (res < 0 ? errno_ok_uring(u, e) :
	    (u->fk == FK_WQ && (u->row < UR_OTHER || ring_other(c))) ||
	    (u->fk == FK_NULL && res == 0)) {
		if (res >= 0 && u->fk == FK_WQ && u->row < UR_OTHER) {
			uarena_enter(u);
			check_success(u, res);
			uarena_leave();
		}
		return;
	}
	fail("io_uring %s %s (cmd_op %#x, size %u)%s on fd %d (%s): %s",
	     u->live ? "live" : "hostile", c ? c->name : "(no command)",
	     u->cmd_op, _IOC_SIZE(u->cmd_op), u->odd ? " with SQE fields mangled" : "",
	     u->fd, u->fk == FK_WQ ? "/dev/wq" : u->fk == FK_NULL ? "/dev/null" :
	     u->fk == FK_OTHER ? "a ring" : "no file",
	     res < 0 ? ename(e) : "completed >= 0");
}
