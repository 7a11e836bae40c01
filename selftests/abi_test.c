// SPDX-License-Identifier: GPL-2.0
/*
 * The raw ioctl ABI of /dev/wq (uapi/linux/wq.h), without libwq: unknown
 * commands, flags and reserved fields, names, bad user pointers, argument
 * sizes (extensible structs), and the result fields of each command.
 * Every rejected call must leave the queue as it was.
 */
#include "wq_test_util.h"
#include "wq_test_ioctl.h"

FIXTURE(abi) {
	int dev;	/* /dev/wq, not bound to a queue */
	int fd;		/* bound to self->name */
	int spare;	/* /dev/wq, unbound: the test's to bind or not */
	char name[WQ_NAME_MAX];
};

FIXTURE_SETUP(abi)
{
	self->spare = -1;
	RAW_SETUP_QUEUE();
	self->spare = raw_open_dev();
	ASSERT_LE(0, self->spare);
}

FIXTURE_TEARDOWN(abi)
{
	if (self->spare >= 0)
		close(self->spare);
	RAW_TEARDOWN_QUEUE();
}

TEST_F(abi, module_info)
{
	struct wq_module_info mi;

	memset(&mi, 0xa5, sizeof(mi));
	ASSERT_EQ(0, xioctl(self->dev, WQ_IOC_MODULE_INFO, &mi));
	EXPECT_EQ(1U, mi.abi_version);
	EXPECT_EQ(WQ_ABI_VERSION, mi.abi_version);
	EXPECT_EQ(4096U, mi.key_max);
	EXPECT_EQ((uint32_t)WQ_LIMITER_TERMS_MAX, mi.limiter_terms_max);
	EXPECT_LT(0U, mi.max_queues);
	EXPECT_LT(0U, mi.default_max_items);
	EXPECT_LE(mi.default_max_items, mi.max_items_limit);
	EXPECT_EQ((uint32_t)(WQ_ADD_RATE_LIMITED | WQ_ADD_WAIT | WQ_ADD_AFTER),
		  mi.add_flags);
	EXPECT_EQ((uint32_t)(WQ_GET_NONBLOCK | WQ_GET_DETACH), mi.get_flags);
	EXPECT_EQ((uint32_t)(WQ_SHUTDOWN_DRAIN | WQ_SHUTDOWN_DISCARD),
		  mi.shutdown_flags);
	EXPECT_LT(0U, mi.default_max_tracked);
	/* on a bound handle too */
	ASSERT_EQ(0, xioctl(self->fd, WQ_IOC_MODULE_INFO, &mi));
	EXPECT_EQ(1U, mi.abi_version);
}

TEST_F(abi, unknown_commands)
{
	struct wq_add a = { 0 };
	struct snapshot s = snap(self->fd);
	char buf[256] = { 0 };

	EXPECT_EQ(ENOTTY, xioctl(self->dev, _IO(WQ_IOC_MAGIC, 0x7f), NULL));
	EXPECT_EQ(ENOTTY, xioctl(self->fd, _IO(WQ_IOC_MAGIC, 0x7f), NULL));
	EXPECT_EQ(ENOTTY, xioctl(self->fd, _IOWR(WQ_IOC_MAGIC, 0x30, struct wq_add), &a));
	EXPECT_EQ(ENOTTY, xioctl(self->fd, _IOWR(WQ_IOC_MAGIC, 0x05, struct wq_add), &a));
	EXPECT_EQ(ENOTTY, xioctl(self->fd, _IOWR(WQ_IOC_MAGIC, 0xff, struct wq_add), &a));
	EXPECT_EQ(ENOTTY, xioctl(self->fd, _IOW('Z', 0x10, struct wq_add), &a));
	EXPECT_EQ(ENOTTY, xioctl(self->dev, _IOW('Z', 0x01, struct wq_name), buf));
	EXPECT_EQ(ENOTTY, xioctl(self->fd, TCGETS, buf));
	ASSERT_UNCHANGED(s, self->fd);
}

/* Every command with flags rejects unknown bits with EINVAL, changing nothing. */
TEST_F(abi, unknown_flags)
{
	char key[] = "k";
	char buf[64];
	struct wq_info_list { struct wq_queue_info e[2]; } entries;
	struct wq_create c = { 0 };
	struct wq_name n = { 0 };
	struct wq_list l = { 0 };
	struct wq_add a = { .key_len = 1, .key = (uintptr_t)key };
	struct wq_get g = { .buf = (uintptr_t)buf, .buf_cap = sizeof(buf) };
	struct wq_key k = { .key_len = 1, .key = (uintptr_t)key };
	struct wq_shutdown sd = { 0 };
	struct snapshot s;
	char other[WQ_NAME_MAX];
	uint32_t bit;

	ASSERT_EQ(0, raw_add(self->fd, "q", 1));
	ASSERT_EQ(0, raw_add(self->fd, "p", 1));
	g.flags = WQ_GET_NONBLOCK;
	ASSERT_EQ(0, xioctl(self->fd, WQ_IOC_GET, &g));	/* "q" processing */
	ASSERT_EQ(1U, g.key_len);
	g.key_len = 0;		/* out field: back to 0 for the next calls */
	s = snap(self->fd);

	wqt_name(other, "flags");
	for (bit = 0; bit < 32; bit++) {
		uint32_t f = 1U << bit;

		set_name(c.name, other);
		c.flags = f;
		/* WQ_CREATE_PRIORITY alone is a known flag, and makes a queue */
		if (!(f & WQ_CREATE_PRIORITY))
			EXPECT_EQ(EINVAL, xioctl(self->spare, WQ_IOC_CREATE, &c)) TH_LOG("CREATE bit %u", bit);

		set_name(n.name, self->name);
		n.flags = f;
		if (!(f & (WQ_OPEN_READ_ONLY | WQ_OPEN_WRITE_ONLY)))
			EXPECT_EQ(EINVAL, xioctl(self->spare, WQ_IOC_OPEN, &n)) TH_LOG("OPEN bit %u", bit);
		EXPECT_EQ(EINVAL, xioctl(self->dev, WQ_IOC_DESTROY, &n)) TH_LOG("DESTROY bit %u", bit);

		l.flags = f;
		l.entry_size = sizeof(struct wq_queue_info);
		l.count = 2;
		l.entries = (uintptr_t)&entries;
		EXPECT_EQ(EINVAL, xioctl(self->dev, WQ_IOC_LIST, &l)) TH_LOG("LIST bit %u", bit);

		k.flags = f;
		/* WQ_KEY_RESULT_STATE: DONE and FORGET take it (private_test) */
		if (f != WQ_KEY_RESULT_STATE)
			EXPECT_EQ(EINVAL, xioctl(self->fd, WQ_IOC_FORGET, &k)) TH_LOG("FORGET bit %u", bit);
		EXPECT_EQ(EINVAL, xioctl(self->fd, WQ_IOC_NUM_REQUEUES, &k)) TH_LOG("NUM_REQUEUES bit %u", bit);
		key[0] = 'q';
		if (f != WQ_KEY_RESULT_STATE)
			EXPECT_EQ(EINVAL, xioctl(self->fd, WQ_IOC_DONE, &k)) TH_LOG("DONE bit %u", bit);

		if (!(f & (WQ_ADD_RATE_LIMITED | WQ_ADD_WAIT | WQ_ADD_AFTER))) {
			key[0] = 'z';
			a.flags = f;
			a.delay_ns = 0;
			EXPECT_EQ(EINVAL, xioctl(self->fd, WQ_IOC_ADD, &a)) TH_LOG("ADD bit %u", bit);
		}
		if (!(f & (WQ_GET_NONBLOCK | WQ_GET_DETACH))) {
			g.flags = f | WQ_GET_NONBLOCK;
			EXPECT_EQ(EINVAL, xioctl(self->fd, WQ_IOC_GET, &g)) TH_LOG("GET bit %u", bit);
		}
		if (!(f & (WQ_SHUTDOWN_DRAIN | WQ_SHUTDOWN_DISCARD))) {
			sd.flags = f;
			EXPECT_EQ(EINVAL, xioctl(self->fd, WQ_IOC_SHUTDOWN, &sd)) TH_LOG("SHUTDOWN bit %u", bit);
		}
	}
	ASSERT_UNCHANGED(s, self->fd);
	set_name(n.name, other);
	n.flags = 0;
	EXPECT_EQ(ENOENT, xioctl(self->dev, WQ_IOC_OPEN, &n)) TH_LOG("bad CREATE made a queue");
	/* DONE with bad flags did not end processing of "q" */
	key[0] = 'q';
	k.flags = 0;
	EXPECT_EQ(0, xioctl(self->fd, WQ_IOC_DONE, &k));
}

/* Reserved fields and fields that must be 0 in a given mode. */
TEST_F(abi, reserved_fields)
{
	char buf[64];
	struct wq_create c = { 0 };
	struct wq_name n = { 0 };
	struct wq_get g = { .flags = WQ_GET_NONBLOCK, .buf = (uintptr_t)buf,
			    .buf_cap = sizeof(buf) };
	struct wq_shutdown sd = { 0 };
	struct wq_add a = { .key_len = 1, .key = (uintptr_t)"r" };
	struct snapshot s;
	char other[WQ_NAME_MAX];

	ASSERT_EQ(0, raw_add(self->fd, "k", 1));
	s = snap(self->fd);
	wqt_name(other, "rsv");

	set_name(c.name, other);
	c.max_tracked = 0xffffffffU;	/* above max_items_limit */
	EXPECT_EQ(EINVAL, xioctl(self->spare, WQ_IOC_CREATE, &c));
	c.max_tracked = 0;
	c.limiter.reserved = 1;
	EXPECT_EQ(EINVAL, xioctl(self->spare, WQ_IOC_CREATE, &c));
	c.limiter.reserved = 0;
	/* unused limiter terms must be all zero */
	c.limiter.nr_terms = 1;
	c.limiter.terms[0].kind = WQ_LIMITER_EXPONENTIAL;
	c.limiter.terms[0].exponential.base_ns = 5000000;
	c.limiter.terms[0].exponential.max_ns = 1000000000;
	c.limiter.terms[3].bucket.burst = 1;
	EXPECT_EQ(EINVAL, xioctl(self->spare, WQ_IOC_CREATE, &c));
	c.limiter.terms[3].bucket.burst = 0;
	c.limiter.terms[1].kind = WQ_LIMITER_BUCKET;
	EXPECT_EQ(EINVAL, xioctl(self->spare, WQ_IOC_CREATE, &c));
	c.limiter.terms[1].kind = 0;
	c.limiter.nr_terms = WQ_LIMITER_TERMS_MAX + 1;
	EXPECT_EQ(EINVAL, xioctl(self->spare, WQ_IOC_CREATE, &c));
	c.limiter.nr_terms = 1;
	c.limiter.terms[0].kind = 99;
	EXPECT_EQ(EINVAL, xioctl(self->spare, WQ_IOC_CREATE, &c));
	set_name(n.name, other);
	EXPECT_EQ(ENOENT, xioctl(self->spare, WQ_IOC_OPEN, &n)) TH_LOG("a rejected CREATE made a queue");

	set_name(n.name, self->name);
	n.reserved = 1;
	EXPECT_EQ(EINVAL, xioctl(self->spare, WQ_IOC_OPEN, &n));
	EXPECT_EQ(EINVAL, xioctl(self->dev, WQ_IOC_DESTROY, &n));

	g.priority = 1;		/* out only */
	EXPECT_EQ(EINVAL, xioctl(self->fd, WQ_IOC_GET, &g));

	sd.reserved = 1;
	EXPECT_EQ(EINVAL, xioctl(self->fd, WQ_IOC_SHUTDOWN, &sd));
	sd.reserved = 0;
	sd.deadline_ns = (uint64_t)now_ns() + 1000000000ULL;	/* only with DRAIN */
	EXPECT_EQ(EINVAL, xioctl(self->fd, WQ_IOC_SHUTDOWN, &sd));

	a.flags = WQ_ADD_RATE_LIMITED;
	a.delay_ns = 1000;	/* must be 0 with RATE_LIMITED */
	EXPECT_EQ(EINVAL, xioctl(self->fd, WQ_IOC_ADD, &a));

	ASSERT_UNCHANGED(s, self->fd);
}

/* Names: NUL-terminated, zero-padded, [A-Za-z0-9._-]{1,63}. */
TEST_F(abi, names)
{
	struct wq_name n = { 0 };
	struct wq_create c = { 0 };
	const char *bad[] = { "", "a/b", "a b", "\xc3\xa9", "a\n" };
	size_t i;

	/* garbage after the NUL */
	set_name(n.name, self->name);
	n.name[strlen(self->name) + 1] = 'x';
	EXPECT_EQ(EINVAL, xioctl(self->spare, WQ_IOC_OPEN, &n));
	EXPECT_EQ(EINVAL, xioctl(self->dev, WQ_IOC_DESTROY, &n));
	n.name[WQ_NAME_MAX - 1] = 'x';
	n.name[strlen(self->name) + 1] = '\0';
	EXPECT_EQ(EINVAL, xioctl(self->spare, WQ_IOC_OPEN, &n));
	memcpy(c.name, n.name, WQ_NAME_MAX);
	c.name[0] = 'Q';
	EXPECT_EQ(EINVAL, xioctl(self->spare, WQ_IOC_CREATE, &c));
	/* no NUL at all: 64 name characters */
	memset(c.name, 'a', WQ_NAME_MAX);
	EXPECT_EQ(EINVAL, xioctl(self->spare, WQ_IOC_CREATE, &c));
	memcpy(n.name, c.name, WQ_NAME_MAX);
	EXPECT_EQ(EINVAL, xioctl(self->spare, WQ_IOC_OPEN, &n));
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		set_name(c.name, bad[i]);
		EXPECT_EQ(EINVAL, xioctl(self->spare, WQ_IOC_CREATE, &c)) TH_LOG("bad name #%zu", i);
		set_name(n.name, bad[i]);
		EXPECT_EQ(EINVAL, xioctl(self->spare, WQ_IOC_OPEN, &n)) TH_LOG("bad name #%zu", i);
	}
	/* the queue is still there and self->spare is still unbound */
	set_name(n.name, self->name);
	EXPECT_EQ(0, xioctl(self->spare, WQ_IOC_OPEN, &n));
}

/* Bad user pointers: EFAULT, and nothing changes. */
TEST_F(abi, bad_pointers)
{
	char buf[64];
	struct wq_add a = { .key_len = 3, .key = 1 };
	struct wq_get g = { .flags = WQ_GET_NONBLOCK, .buf = 0, .buf_cap = 16 };
	struct wq_key k = { .key_len = 3, .key = 1 };
	struct wq_list l = { .entry_size = sizeof(struct wq_queue_info),
			     .count = 4, .entries = 1 };
	struct wq_queue_info qi;
	struct snapshot s = snap(self->fd);

	EXPECT_EQ(EFAULT, xioctl(self->fd, WQ_IOC_ADD, &a));
	a.flags = WQ_ADD_RATE_LIMITED;
	EXPECT_EQ(EFAULT, xioctl(self->fd, WQ_IOC_ADD, &a));
	a.flags = 0;
	a.delay_ns = 1000000000ULL;
	EXPECT_EQ(EFAULT, xioctl(self->fd, WQ_IOC_ADD, &a));
	ASSERT_UNCHANGED(s, self->fd);

	ASSERT_EQ(0, raw_add(self->fd, "key", 3));
	s = snap(self->fd);
	EXPECT_EQ(EFAULT, xioctl(self->fd, WQ_IOC_GET, &g));
	g.buf = 1;
	EXPECT_EQ(EFAULT, xioctl(self->fd, WQ_IOC_GET, &g));
	g.flags = WQ_GET_DETACH;
	g.deadline_ns = WQ_DEADLINE_NONE;
	EXPECT_EQ(EFAULT, xioctl(self->fd, WQ_IOC_GET, &g));
	ASSERT_UNCHANGED(s, self->fd);	/* the key is still queued, not processing */

	EXPECT_EQ(EFAULT, xioctl(self->fd, WQ_IOC_DONE, &k));
	EXPECT_EQ(EFAULT, xioctl(self->fd, WQ_IOC_FORGET, &k));
	EXPECT_EQ(EFAULT, xioctl(self->fd, WQ_IOC_NUM_REQUEUES, &k));
	EXPECT_EQ(EFAULT, xioctl(self->dev, WQ_IOC_LIST, &l));
	/* the argument itself */
	EXPECT_EQ(EFAULT, xioctl(self->fd, WQ_IOC_ADD, (void *)8));
	EXPECT_EQ(EFAULT, xioctl(self->fd, WQ_IOC_GET, (void *)8));
	EXPECT_EQ(EFAULT, xioctl(self->fd, WQ_IOC_STAT, (void *)8));
	EXPECT_EQ(EFAULT, xioctl(self->dev, WQ_IOC_MODULE_INFO, (void *)8));
	EXPECT_EQ(EFAULT, xioctl(self->dev, WQ_IOC_OPEN, (void *)8));
	EXPECT_EQ(EFAULT, xioctl(self->dev, WQ_IOC_CREATE, (void *)8));
	ASSERT_UNCHANGED(s, self->fd);

	/* a good GET gets the key */
	g.key_len = 0;
	g.flags = WQ_GET_NONBLOCK;
	g.buf = (uintptr_t)buf;
	g.buf_cap = sizeof(buf);
	ASSERT_EQ(0, xioctl(self->fd, WQ_IOC_GET, &g));
	ASSERT_EQ(3U, g.key_len);
	ASSERT_EQ(0, memcmp(buf, "key", 3));
	ASSERT_EQ(0, raw_stat(self->fd, &qi));
	EXPECT_EQ(1U, qi.processing);
}

/* A larger struct is accepted with a zero tail, E2BIG with a non-zero one. */
TEST_F(abi, larger_struct)
{
	struct { struct wq_add a; uint64_t tail[2]; } add = { 0 };
	struct { struct wq_get g; uint64_t tail[2]; } get = { 0 };
	struct { struct wq_create c; uint64_t tail; } cr = { 0 };
	struct { struct wq_name n; uint32_t tail[4]; } nm = { 0 };
	char buf[64], other[WQ_NAME_MAX];
	struct snapshot s = snap(self->fd);

	add.a.key_len = 1;
	add.a.key = (uintptr_t)"a";
	add.tail[1] = 1;
	EXPECT_EQ(E2BIG, xioctl(self->fd, IOC_SIZED(WQ_IOC_ADD, sizeof(add)), &add));
	ASSERT_UNCHANGED(s, self->fd);
	add.tail[1] = 0;
	EXPECT_EQ(0, xioctl(self->fd, IOC_SIZED(WQ_IOC_ADD, sizeof(add)), &add));
	EXPECT_EQ(1U, snap(self->fd).queued);

	s = snap(self->fd);
	get.g.flags = WQ_GET_NONBLOCK;
	get.g.buf = (uintptr_t)buf;
	get.g.buf_cap = sizeof(buf);
	get.tail[0] = 1ULL << 63;
	EXPECT_EQ(E2BIG, xioctl(self->fd, IOC_SIZED(WQ_IOC_GET, sizeof(get)), &get));
	ASSERT_UNCHANGED(s, self->fd);
	get.tail[0] = 0;
	EXPECT_EQ(0, xioctl(self->fd, IOC_SIZED(WQ_IOC_GET, sizeof(get)), &get));
	EXPECT_EQ(1U, get.g.key_len);

	wqt_name(other, "big");
	set_name(cr.c.name, other);
	cr.tail = 1;
	EXPECT_EQ(E2BIG, xioctl(self->spare, IOC_SIZED(WQ_IOC_CREATE, sizeof(cr)), &cr));
	set_name(nm.n.name, other);
	EXPECT_EQ(ENOENT, xioctl(self->dev, WQ_IOC_OPEN, &nm.n));
	nm.tail[3] = 1;
	EXPECT_EQ(E2BIG, xioctl(self->dev, IOC_SIZED(WQ_IOC_DESTROY, sizeof(nm)), &nm));
	cr.tail = 0;
	EXPECT_EQ(0, xioctl(self->spare, IOC_SIZED(WQ_IOC_CREATE, sizeof(cr)), &cr));
	nm.tail[3] = 0;
	EXPECT_EQ(0, xioctl(self->dev, IOC_SIZED(WQ_IOC_DESTROY, sizeof(nm)), &nm));
}

/* A struct smaller than its first version is EINVAL. */
TEST_F(abi, smaller_struct)
{
	struct wq_add a = { .key_len = 1, .key = (uintptr_t)"a" };
	struct wq_get g = { .flags = WQ_GET_NONBLOCK };
	struct wq_create c = { 0 };
	struct wq_name n = { 0 };
	struct wq_queue_info qi;
	struct snapshot s;
	char other[WQ_NAME_MAX];

	ASSERT_EQ(0, raw_add(self->fd, "k", 1));
	s = snap(self->fd);
	/* shorter than the first version (which ends at delay_ns) */
	EXPECT_EQ(EINVAL, xioctl(self->fd, IOC_SIZED(WQ_IOC_ADD,
						     offsetof(struct wq_add, delay_ns)), &a));
	EXPECT_EQ(EINVAL, xioctl(self->fd, IOC_SIZED(WQ_IOC_ADD, 4), &a));
	EXPECT_EQ(EINVAL, xioctl(self->fd, IOC_SIZED(WQ_IOC_ADD, 0), &a));
	EXPECT_EQ(EINVAL, xioctl(self->fd, IOC_SIZED(WQ_IOC_GET, sizeof(g) - 8), &g));
	EXPECT_EQ(EINVAL, xioctl(self->fd, IOC_SIZED(WQ_IOC_STAT, 8), &qi));
	wqt_name(other, "small");
	set_name(c.name, other);
	EXPECT_EQ(EINVAL, xioctl(self->spare, IOC_SIZED(WQ_IOC_CREATE,
						     offsetof(struct wq_create, starve_ns) - 8), &c));
	EXPECT_EQ(EINVAL, xioctl(self->spare, IOC_SIZED(WQ_IOC_CREATE, 16), &c));
	set_name(n.name, other);
	EXPECT_EQ(ENOENT, xioctl(self->spare, WQ_IOC_OPEN, &n));
	set_name(n.name, self->name);
	EXPECT_EQ(EINVAL, xioctl(self->dev, IOC_SIZED(WQ_IOC_DESTROY, 8), &n));
	ASSERT_UNCHANGED(s, self->fd);
}

/* GET: key_len out, EMSGSIZE with the length needed, deadlines, NONBLOCK. */
TEST_F(abi, get_results)
{
	char buf[64];
	struct wq_get g = { .flags = WQ_GET_NONBLOCK, .buf = (uintptr_t)buf,
			    .buf_cap = 4 };
	struct wq_queue_info qi;
	uint64_t t0;

	EXPECT_EQ(EAGAIN, xioctl(self->fd, WQ_IOC_GET, &g));
	g.flags = 0;
	g.deadline_ns = 1;	/* long past */
	EXPECT_EQ(ETIMEDOUT, xioctl(self->fd, WQ_IOC_GET, &g));
	t0 = (uint64_t)now_ns();
	g.deadline_ns = t0 + 200000000ULL;
	EXPECT_EQ(ETIMEDOUT, xioctl(self->fd, WQ_IOC_GET, &g));
	EXPECT_LE(t0 + 200000000ULL, (uint64_t)now_ns());

	ASSERT_EQ(0, raw_add(self->fd, "0123456789", 10));
	g.flags = WQ_GET_NONBLOCK;
	g.deadline_ns = 0;
	EXPECT_EQ(EMSGSIZE, xioctl(self->fd, WQ_IOC_GET, &g));
	EXPECT_EQ(10U, g.key_len);
	ASSERT_EQ(0, raw_stat(self->fd, &qi));
	EXPECT_EQ(1U, qi.queued);
	EXPECT_EQ(0U, qi.processing);
	g.key_len = 0;
	g.buf_cap = 10;
	g.flags = 0;
	g.deadline_ns = WQ_DEADLINE_NONE;
	ASSERT_EQ(0, xioctl(self->fd, WQ_IOC_GET, &g));
	EXPECT_EQ(10U, g.key_len);
	EXPECT_EQ(0, memcmp(buf, "0123456789", 10));
}

/* ADD and DONE key lengths; ADD reports the delay used. */
TEST_F(abi, add_and_done)
{
	static char big[WQ_KEY_MAX + 1];
	struct wq_add a = { .key = (uintptr_t)big };
	struct wq_key k = { .key = (uintptr_t)big };
	struct wq_queue_info qi;
	struct snapshot s = snap(self->fd);

	a.key_len = 0;
	EXPECT_EQ(EINVAL, xioctl(self->fd, WQ_IOC_ADD, &a));
	a.key_len = WQ_KEY_MAX + 1;
	EXPECT_EQ(EINVAL, xioctl(self->fd, WQ_IOC_ADD, &a));
	k.key_len = 0;
	EXPECT_EQ(EINVAL, xioctl(self->fd, WQ_IOC_DONE, &k));
	k.key_len = WQ_KEY_MAX + 1;
	EXPECT_EQ(EINVAL, xioctl(self->fd, WQ_IOC_DONE, &k));
	ASSERT_UNCHANGED(s, self->fd);

	a.key_len = WQ_KEY_MAX;
	a.delay_ns = 0;
	ASSERT_EQ(0, xioctl(self->fd, WQ_IOC_ADD, &a));
	EXPECT_EQ(0U, a.delay_ns);
	k.key_len = WQ_KEY_MAX;
	EXPECT_EQ(ENOENT, xioctl(self->fd, WQ_IOC_DONE, &k));	/* queued, not processing */
	a.key_len = 2;
	a.delay_ns = 60ULL * 1000000000ULL;
	ASSERT_EQ(0, xioctl(self->fd, WQ_IOC_ADD, &a));
	EXPECT_EQ(60ULL * 1000000000ULL, a.delay_ns);
	ASSERT_EQ(0, raw_stat(self->fd, &qi));
	EXPECT_EQ(1U, qi.queued);
	EXPECT_EQ(1U, qi.waiting);
	EXPECT_EQ(2U, qi.keys);
}

/* SHUTDOWN: plain, then DRAIN with a deadline; STAT state bits. */
TEST_F(abi, shutdown_and_state)
{
	char buf[16];
	struct wq_shutdown sd = { .flags = WQ_SHUTDOWN_DRAIN };
	struct wq_get g = { .flags = WQ_GET_NONBLOCK, .buf = (uintptr_t)buf,
			    .buf_cap = sizeof(buf) };
	struct wq_queue_info qi;
	struct wq_name n = { 0 };

	ASSERT_EQ(0, raw_stat(self->fd, &qi));
	EXPECT_STREQ(self->name, qi.name);
	EXPECT_EQ(0U, qi.state);
	EXPECT_EQ(0600U, qi.mode & 07777);
	EXPECT_EQ(1U, qi.handles);
	EXPECT_EQ(0U, qi.limiter.nr_terms);	/* created with an empty limiter: none */

	ASSERT_EQ(0, raw_add(self->fd, "k", 1));
	ASSERT_EQ(0, xioctl(self->fd, WQ_IOC_GET, &g));
	g.key_len = 0;
	sd.deadline_ns = (uint64_t)now_ns() + 100000000ULL;
	EXPECT_EQ(ETIMEDOUT, xioctl(self->fd, WQ_IOC_SHUTDOWN, &sd));
	ASSERT_EQ(0, raw_stat(self->fd, &qi));
	EXPECT_EQ((uint32_t)WQ_STATE_SHUTTING_DOWN, qi.state);
	EXPECT_EQ(ESHUTDOWN, raw_add(self->fd, "x", 1));
	EXPECT_EQ(ESHUTDOWN, xioctl(self->fd, WQ_IOC_GET, &g));

	sd.flags = 0;
	sd.deadline_ns = 0;
	EXPECT_EQ(0, xioctl(self->fd, WQ_IOC_SHUTDOWN, &sd));

	set_name(n.name, self->name);
	ASSERT_EQ(0, xioctl(self->dev, WQ_IOC_DESTROY, &n));
	ASSERT_EQ(0, raw_stat(self->fd, &qi));
	EXPECT_EQ((uint32_t)(WQ_STATE_SHUTTING_DOWN | WQ_STATE_UNLINKED), qi.state);
}

/* LIST: total, count in and out, entry_size. */
TEST_F(abi, list)
{
	struct wq_queue_info *e;
	struct wq_list l = { .entry_size = sizeof(struct wq_queue_info) };
	uint32_t i, found = 0;

	ASSERT_EQ(0, xioctl(self->dev, WQ_IOC_LIST, &l));
	EXPECT_EQ(0U, l.count);
	ASSERT_LE(1U, l.total);
	e = calloc(l.total + 4, sizeof(*e));
	ASSERT_NE(NULL, e);
	l.count = l.total + 4;
	l.total = 0;		/* out field: back to 0 */
	l.entries = (uintptr_t)e;
	ASSERT_EQ(0, xioctl(self->dev, WQ_IOC_LIST, &l));
	ASSERT_LE(l.count, l.total);
	for (i = 0; i < l.count; i++)
		if (!strcmp(e[i].name, self->name))
			found++;
	EXPECT_EQ(1U, found);
	free(e);
}

/* A handle is bound once: OPEN binds a second fd to the same queue. */
TEST_F(abi, open_binds)
{
	struct wq_name n = { 0 };
	struct wq_queue_info qi;

	set_name(n.name, self->name);
	ASSERT_EQ(0, xioctl(self->spare, WQ_IOC_OPEN, &n));
	ASSERT_EQ(0, raw_add(self->spare, "shared", 6));
	ASSERT_EQ(0, raw_stat(self->fd, &qi));
	EXPECT_EQ(1U, qi.queued);
	EXPECT_EQ(2U, qi.handles);
}

TEST_HARNESS_MAIN
