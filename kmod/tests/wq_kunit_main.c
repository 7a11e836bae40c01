// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suites for wq's pure logic: the key table (lookups across an
 * incremental resize), the waiting heap, the rate limiters (client-go's
 * numbers, from the vectors the host unit test runs too), the bound of
 * the batch calls' scratch pool, and (wq_kunit_ready.c) the priority
 * levels of the ready keys. Built as wq_kunit.ko where the
 * kernel has CONFIG_KUNIT (the debug lane); it runs at load and reports
 * KTAP in the kernel log and /sys/kernel/debug/kunit/.
 *
 * The files under test are compiled into this module (as many in-tree KUnit
 * tests do), so it does not depend on wq.ko exporting its internals.
 */
#include <kunit/test.h>
#include <linux/module.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include "../wq_heap.c"
#include "../wq_main.h"
#include "../wq_keytab.c"
#include "../wq_limiter.c"
#include "../wq_scratch.c"
#include "wq_kunit.h"
#include "wq_limiter_vectors.h"

/* KUnit's slow cases (6.6 on); before, an ordinary case */
#ifndef KUNIT_CASE_SLOW
#define KUNIT_CASE_SLOW(test_name) KUNIT_CASE(test_name)
#endif

/* One suite: its cases (KUNIT_CASE(...), ...) and its name. */
#define WQ_KUNIT_SUITE(_var, _name, ...)				\
	static struct kunit_case _var##_cases[] = { __VA_ARGS__, {} };	\
	static struct kunit_suite _var##_suite = {			\
		.name = _name,						\
		.test_cases = _var##_cases,				\
	}

/* ---- key table ---------------------------------------------------------- */

struct kt_item {
	struct kwq_key key;
	u8 bytes[16];
	bool in;
};

static struct kt_item *kt_items(struct kunit *test, int n)
{
	struct kt_item *it = kunit_kcalloc(test, n, sizeof(*it), GFP_KERNEL);
	int i;

	KUNIT_ASSERT_NOT_NULL(test, it);
	for (i = 0; i < n; i++) {
		it[i].key.len = snprintf(it[i].bytes, sizeof(it[i].bytes),
					 "key-%d", i);
		memcpy(it[i].key.inl, it[i].bytes, it[i].key.len);
		INIT_HLIST_NODE(&it[i].key.node);
	}
	return it;
}

static struct kwq_key *kt_find(struct kwq_keytab *kt, struct kt_item *it)
{
	return kwq_keytab_find(kt, kwq_keytab_hash(kt, it->bytes, it->key.len),
			       it->bytes, it->key.len);
}

static void kt_insert(struct kwq_keytab *kt, struct kt_item *it)
{
	it->key.hash = kwq_keytab_hash(kt, it->bytes, it->key.len);
	kwq_keytab_insert(kt, &it->key);
	it->in = true;
}

/* Grow whenever asked, as the queue does before taking its lock. */
static void kt_maybe_grow(struct kunit *test, struct kwq_keytab *kt)
{
	struct hlist_head *b;
	unsigned int shift;

	if (!kwq_keytab_want_grow(kt, &shift))
		return;
	b = kwq_keytab_alloc_buckets(shift, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, b);
	KUNIT_ASSERT_TRUE(test, kwq_keytab_start_grow(kt, b, shift));
	/* A second grow before the migration ends is refused. */
	KUNIT_EXPECT_FALSE(test, kwq_keytab_want_grow(kt, &shift));
}

static void keytab_find_insert_remove(struct kunit *test)
{
	struct kt_item *it = kt_items(test, 3);
	struct kwq_keytab kt;

	KUNIT_ASSERT_EQ(test, 0, kwq_keytab_init(&kt, GFP_KERNEL));
	KUNIT_EXPECT_NULL(test, kt_find(&kt, &it[0]));
	kt_insert(&kt, &it[0]);
	kt_insert(&kt, &it[1]);
	KUNIT_EXPECT_PTR_EQ(test, &it[0].key, kt_find(&kt, &it[0]));
	KUNIT_EXPECT_PTR_EQ(test, &it[1].key, kt_find(&kt, &it[1]));
	KUNIT_EXPECT_NULL(test, kt_find(&kt, &it[2]));
	kwq_keytab_remove(&kt, &it[0].key);
	KUNIT_EXPECT_NULL(test, kt_find(&kt, &it[0]));
	KUNIT_EXPECT_EQ(test, 1U, kt.count);
	kwq_keytab_remove(&kt, &it[1].key);
	kwq_keytab_destroy(&kt);
}

/* Equal hashes with different bytes are different keys. */
static void keytab_same_hash_different_bytes(struct kunit *test)
{
	struct kt_item *it = kt_items(test, 2);
	struct kwq_keytab kt;

	KUNIT_ASSERT_EQ(test, 0, kwq_keytab_init(&kt, GFP_KERNEL));
	it[0].key.hash = 42;
	it[1].key.hash = 42;
	kwq_keytab_insert(&kt, &it[0].key);
	kwq_keytab_insert(&kt, &it[1].key);
	KUNIT_EXPECT_PTR_EQ(test, &it[1].key,
			    kwq_keytab_find(&kt, 42, it[1].bytes, it[1].key.len));
	KUNIT_EXPECT_PTR_EQ(test, &it[0].key,
			    kwq_keytab_find(&kt, 42, it[0].bytes, it[0].key.len));
	KUNIT_EXPECT_NULL(test, kwq_keytab_find(&kt, 42, "key-0", 4));
	kwq_keytab_remove(&kt, &it[0].key);
	kwq_keytab_remove(&kt, &it[1].key);
	kwq_keytab_destroy(&kt);
}

/* Keys longer than KWQ_INLINE_KEY are compared at key->ext. */
static void keytab_inline_and_external_keys(struct kunit *test)
{
	u8 *bytes = kunit_kzalloc(test, KWQ_INLINE_KEY + 2, GFP_KERNEL);
	struct kwq_key *k = kunit_kcalloc(test, 3, sizeof(*k), GFP_KERNEL);
	struct kwq_keytab kt;
	int i;

	KUNIT_ASSERT_NOT_NULL(test, bytes);
	KUNIT_ASSERT_NOT_NULL(test, k);
	memset(bytes, 'k', KWQ_INLINE_KEY + 2);
	KUNIT_ASSERT_EQ(test, 0, kwq_keytab_init(&kt, GFP_KERNEL));
	for (i = 0; i < 3; i++) {
		k[i].len = KWQ_INLINE_KEY + i;	/* inline, then not */
		if (k[i].len > KWQ_INLINE_KEY) {
			k[i].ext = kunit_kmalloc(test, k[i].len, GFP_KERNEL);
			KUNIT_ASSERT_NOT_NULL(test, k[i].ext);
		}
		KUNIT_EXPECT_PTR_EQ(test, k[i].len > KWQ_INLINE_KEY ?
				    k[i].ext : k[i].inl, kwq_key_data(&k[i]));
		memcpy(kwq_key_data(&k[i]), bytes, k[i].len);
		INIT_HLIST_NODE(&k[i].node);
		k[i].hash = 7;		/* one chain: the bytes decide */
		kwq_keytab_insert(&kt, &k[i]);
	}
	for (i = 0; i < 3; i++)
		KUNIT_EXPECT_PTR_EQ(test, &k[i],
				    kwq_keytab_find(&kt, 7, bytes, k[i].len));
	bytes[KWQ_INLINE_KEY] = 'x';
	KUNIT_EXPECT_NULL(test, kwq_keytab_find(&kt, 7, bytes,
						KWQ_INLINE_KEY + 1));
	for (i = 0; i < 3; i++)
		kwq_keytab_remove(&kt, &k[i]);
	kwq_keytab_destroy(&kt);
}

/* Every key stays findable while the table doubles and migrates. */
static void keytab_grows_incrementally(struct kunit *test)
{
	const int n = 5000;
	struct kt_item *it = kt_items(test, n);
	struct kwq_keytab kt;
	bool saw_migration = false;
	int i, j;

	KUNIT_ASSERT_EQ(test, 0, kwq_keytab_init(&kt, GFP_KERNEL));
	for (i = 0; i < n; i++) {
		kt_maybe_grow(test, &kt);
		kt_insert(&kt, &it[i]);
		saw_migration |= !!kt.old;
		if (i % 251 == 0)
			for (j = 0; j <= i; j++)
				KUNIT_ASSERT_PTR_EQ(test, &it[j].key,
						    kt_find(&kt, &it[j]));
	}
	KUNIT_EXPECT_TRUE(test, saw_migration);
	KUNIT_EXPECT_GE(test, kt.shift, 10U);	/* <= 2 keys a bucket */
	/* Remove every other key; the rest are still there. */
	for (i = 0; i < n; i += 2) {
		kwq_keytab_remove(&kt, &it[i].key);
		it[i].in = false;
	}
	for (i = 0; i < n; i++)
		KUNIT_ASSERT_EQ(test, it[i].in, !!kt_find(&kt, &it[i]));
	KUNIT_EXPECT_EQ(test, (unsigned int)n / 2, kt.count);
	for (i = 1; i < n; i += 2)
		kwq_keytab_remove(&kt, &it[i].key);
	kwq_keytab_destroy(&kt);
}

/* The longest chain of @table, of 1 << @shift buckets. */
static unsigned int kt_longest_chain(struct hlist_head *table,
				     unsigned int shift)
{
	unsigned int longest = 0, n;
	struct kwq_key *k;
	u32 b;

	for (b = 0; b < (1U << shift); b++) {
		n = 0;
		hlist_for_each_entry(k, &table[b], node)
			n++;
		longest = max(longest, n);
	}
	return longest;
}

/*
 * The largest queue: max_items held keys and as many idle ones
 * (WQ_MAX_ITEMS_CEILING each) fill the table at its largest to two keys a
 * bucket, and no chain is long: a look-up under q->lock stays short.
 */
static void keytab_chains_of_the_largest_queue(struct kunit *test)
{
	const u32 n = 2 * WQ_MAX_ITEMS_CEILING;
	struct kwq_keytab kt;
	struct kwq_key *k;
	unsigned int longest;
	u32 i;

	k = vzalloc(array_size(n, sizeof(*k)));	/* about 150 MiB */
	if (!k)
		kunit_skip(test, "no memory for %u keys", n);
	if (kwq_keytab_init(&kt, GFP_KERNEL)) {
		vfree(k);
		kunit_skip(test, "no memory for the table");
	}
	for (i = 0; i < n; i++) {
		k[i].len = snprintf(k[i].inl, sizeof(k[i].inl), "k%u", i);
		k[i].hash = kwq_keytab_hash(&kt, k[i].inl, k[i].len);
		kt_maybe_grow(test, &kt);
		kwq_keytab_insert(&kt, &k[i]);
		if (!(i & 0xffff))
			cond_resched();
	}
	/* inserts move the last buckets of a migration: finish it */
	while (kt.old)
		kwq_migrate_step(&kt);
	kwq_keytab_free_retired(kwq_keytab_take_retired(&kt));
	KUNIT_EXPECT_EQ(test, kt.shift, (unsigned int)KWQ_KEYTAB_MAX_SHIFT);
	longest = kt_longest_chain(kt.buckets, kt.shift);
	kunit_info(test, "%u keys, %u buckets: the longest chain %u", n,
		   1U << kt.shift, longest);
	KUNIT_EXPECT_LE(test, longest, 16U);
	for (i = 0; i < n; i++)
		kwq_keytab_remove(&kt, &k[i]);
	kwq_keytab_destroy(&kt);
	vfree(k);
}

static int kt_drained;

static void kt_count_drained(struct kwq_key *key)
{
	kt_drained++;
}

static void keytab_drain_visits_all(struct kunit *test)
{
	const int n = 300;
	struct kt_item *it = kt_items(test, n);
	struct kwq_keytab kt;
	int i;

	KUNIT_ASSERT_EQ(test, 0, kwq_keytab_init(&kt, GFP_KERNEL));
	for (i = 0; i < n; i++) {
		kt_maybe_grow(test, &kt);
		kt_insert(&kt, &it[i]);
	}
	kt_drained = 0;
	kwq_keytab_drain(&kt, kt_count_drained);	/* also mid-migration */
	KUNIT_EXPECT_EQ(test, n, kt_drained);
	KUNIT_EXPECT_EQ(test, 0U, kt.count);
	kwq_keytab_destroy(&kt);
}

WQ_KUNIT_SUITE(wq_keytab, "wq-keytab",
	       KUNIT_CASE(keytab_find_insert_remove),
	       KUNIT_CASE(keytab_same_hash_different_bytes),
	       KUNIT_CASE(keytab_inline_and_external_keys),
	       KUNIT_CASE(keytab_grows_incrementally),
	       KUNIT_CASE_SLOW(keytab_chains_of_the_largest_queue),
	       KUNIT_CASE(keytab_drain_visits_all));

/* ---- waiting heap --------------------------------------------------------- */

static struct kwq_heap *heap_new(struct kunit *test, u32 max)
{
	struct kwq_heap *h = kunit_kzalloc(test, sizeof(*h), GFP_KERNEL);
	u32 i;

	KUNIT_ASSERT_NOT_NULL(test, h);
	h->nr_chunks = kwq_heap_chunks_for(max);
	h->chunks = kunit_kcalloc(test, h->nr_chunks, sizeof(*h->chunks),
				  GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, h->chunks);
	for (i = 0; i < h->nr_chunks; i++) {
		h->chunks[i] = kunit_kcalloc(test, KWQ_HEAP_CHUNK,
					     sizeof(**h->chunks), GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, h->chunks[i]);
	}
	return h;
}

static void heap_orders_by_time_then_schedule(struct kunit *test)
{
	static const s64 when[] = { 1000, 500, 250, 750, 250 };
	static const int order[] = { 2, 4, 1, 3, 0 };
	struct kwq_heap *h = heap_new(test, ARRAY_SIZE(when));
	struct kwq_heap_node n[ARRAY_SIZE(when)];
	int i;

	for (i = 0; i < ARRAY_SIZE(when); i++)
		kwq_heap_push(h, &n[i], when[i]);
	for (i = 0; i < ARRAY_SIZE(order); i++)
		KUNIT_EXPECT_PTR_EQ(test, &n[order[i]], kwq_heap_pop(h));
	KUNIT_EXPECT_NULL(test, kwq_heap_pop(h));
}

static void heap_earliest_wins(struct kunit *test)
{
	struct kwq_heap *h = heap_new(test, 2);
	struct kwq_heap_node a, b;

	kwq_heap_push(h, &a, 50);
	kwq_heap_push(h, &b, 70);
	kwq_heap_move_earlier(h, &a, 60);		/* later: no change */
	KUNIT_EXPECT_EQ(test, 50LL, a.when);
	kwq_heap_move_earlier(h, &b, 30);
	KUNIT_EXPECT_PTR_EQ(test, &b, kwq_heap_peek(h));
	kwq_heap_remove(h, &b);
	KUNIT_EXPECT_PTR_EQ(test, &a, kwq_heap_pop(h));
	KUNIT_EXPECT_EQ(test, 0U, kwq_heap_len(h));
}

static void heap_random_removals(struct kunit *test)
{
	const int n = 2000;
	struct kwq_heap *h = heap_new(test, n);
	struct kwq_heap_node *nodes;
	s64 last = S64_MIN;
	int i;

	nodes = kunit_kcalloc(test, n, sizeof(*nodes), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, nodes);
	for (i = 0; i < n; i++)
		kwq_heap_push(h, &nodes[i], get_random_u32_below(100000));
	for (i = 0; i < n; i += 3)
		kwq_heap_remove(h, &nodes[i]);
	for (i = 1; i < n; i += 3)
		kwq_heap_move_earlier(h, &nodes[i], nodes[i].when / 2);
	while (kwq_heap_len(h)) {
		struct kwq_heap_node *x = kwq_heap_pop(h);

		KUNIT_ASSERT_GE(test, x->when, last);
		last = x->when;
	}
}

WQ_KUNIT_SUITE(wq_heap, "wq-heap",
	       KUNIT_CASE(heap_orders_by_time_then_schedule),
	       KUNIT_CASE(heap_earliest_wins),
	       KUNIT_CASE(heap_random_removals));

/* ---- rate limiters -------------------------------------------------------- */

static void limiter_vectors(struct kunit *test)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(v_cases); i++) {
		struct kwq_limiter lim;
		u32 requeues = 0;
		s64 got = 0;
		int step = v_run(&v_cases[i], &lim, &got, &requeues);

		KUNIT_EXPECT_EQ_MSG(test, 0, step, "%s: step %d: got %lld ns, %u requeues",
				    v_cases[i].name, step, got, requeues);
	}
}

static void limiter_rejects_bad_descriptions(struct kunit *test)
{
	struct wq_limiter d = { .nr_terms = 1 };
	struct kwq_limiter lim;

	d.terms[0].kind = 42;
	KUNIT_EXPECT_EQ(test, -EINVAL, kwq_limiter_init(&lim, &d));
	d.terms[0].kind = WQ_LIMITER_BUCKET;
	d.terms[0].bucket.rate = 10;
	KUNIT_EXPECT_EQ(test, -EINVAL, kwq_limiter_init(&lim, &d)); /* burst 0 */
	d.terms[0].bucket.burst = 1;
	KUNIT_EXPECT_EQ(test, 0, kwq_limiter_init(&lim, &d));
	d.nr_terms = WQ_LIMITER_TERMS_MAX + 1;
	KUNIT_EXPECT_EQ(test, -EINVAL, kwq_limiter_init(&lim, &d));
}

WQ_KUNIT_SUITE(wq_limiter, "wq-limiter",
	       KUNIT_CASE(limiter_vectors),
	       KUNIT_CASE(limiter_rejects_bad_descriptions));

/* ---- batch scratch pool ------------------------------------------------ */

/*
 * More scratches out at once than the pool keeps: each its own; given
 * back, the pool keeps wq_scratch_keep() and frees the rest; the last one
 * kept comes back first; wq_scratch_exit() empties it. This module has its
 * own copy of the pool (wq_scratch.c is compiled in), not wq.ko's.
 */
static void scratch_pool_bound(struct kunit *test)
{
	unsigned int keep = wq_scratch_keep(), n = keep + 2, i;
	struct wq_scratch **s, *again;

	KUNIT_ASSERT_GE(test, keep, 2U);
	KUNIT_ASSERT_LE(test, keep, WQ_SCRATCH_KEEP_MAX);
	s = kunit_kcalloc(test, n, sizeof(*s), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, s);
	for (i = 0; i < n; i++) {
		s[i] = wq_scratch_get();
		KUNIT_EXPECT_NOT_NULL(test, s[i]);
		KUNIT_EXPECT_TRUE(test, !i || s[i] != s[i - 1]);
	}
	KUNIT_EXPECT_EQ(test, 0U, wq_scratch_nr);
	for (i = 0; i < n; i++)
		if (s[i])
			wq_scratch_put(s[i]);
	KUNIT_EXPECT_EQ(test, keep, wq_scratch_nr);
	again = wq_scratch_get();
	KUNIT_EXPECT_PTR_EQ(test, s[keep - 1], again);
	KUNIT_EXPECT_EQ(test, keep - 1, wq_scratch_nr);
	if (again)
		wq_scratch_put(again);
	wq_scratch_exit();
	KUNIT_EXPECT_EQ(test, 0U, wq_scratch_nr);
	KUNIT_EXPECT_TRUE(test, list_empty(&wq_scratch_free));
}

WQ_KUNIT_SUITE(wq_scratch, "wq-scratch", KUNIT_CASE(scratch_pool_bound));

kunit_test_suites(&wq_keytab_suite, &wq_heap_suite, &wq_limiter_suite,
		  &wq_scratch_suite, &wq_ready_suite);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("KUnit tests of wq's key table, waiting heap, rate limiters, scratch pool and priority levels");
