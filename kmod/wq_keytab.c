// SPDX-License-Identifier: GPL-2.0
/*
 * Key table: see wq_keytab.h for the design and the locking rules.
 */
#include <linux/jiffies.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "wq_keytab.h"

/* Old buckets moved per insert or remove while a migration is running. */
#define KWQ_MIGRATE_BATCH	8

static struct hlist_head *kwq_bucket(struct hlist_head *table,
				     unsigned int shift, u64 hash)
{
	return &table[hash & ((1ULL << shift) - 1)];
}

/**
 * kwq_keytab_alloc_buckets() - allocate an empty bucket array
 * @shift: log2 of the number of buckets
 * @gfp: allocation flags
 *
 * With flags that include GFP_KERNEL the array may come from vmalloc
 * (kvmalloc_array(): up to 8 MiB need not be contiguous); with any other
 * flags (atomic, GFP_NOFS, GFP_NOIO) it is a kmalloc, which is what
 * kvmalloc would fall back to. Either way the array is freed with
 * kvfree(), outside any spinlock.
 *
 * Context: any context allowed by @gfp; not under a spinlock if @gfp
 * allows sleeping.
 * Return: the array, or NULL (no warning: a table that cannot grow only
 * gets denser).
 */
struct hlist_head *kwq_keytab_alloc_buckets(unsigned int shift, gfp_t gfp)
{
	struct hlist_head *b;
	size_t i, n = 1UL << shift;

	gfp |= __GFP_NOWARN;
	if ((gfp & GFP_KERNEL) == GFP_KERNEL)
		b = kvmalloc_array(n, sizeof(*b), gfp);
	else
		b = kmalloc_array(n, sizeof(*b), gfp);
	if (!b)
		return NULL;
	for (i = 0; i < n; i++)
		INIT_HLIST_HEAD(&b[i]);
	return b;
}

/**
 * kwq_keytab_init() - set up an empty key table
 * @kt: the table
 * @gfp: allocation flags for the first buckets
 *
 * Return: 0 or -ENOMEM.
 */
int kwq_keytab_init(struct kwq_keytab *kt, gfp_t gfp)
{
	/* buckets are chosen by the bits struct kwq_key keeps of a hash */
	BUILD_BUG_ON(KWQ_KEYTAB_MAX_SHIFT > 32);
	memset(kt, 0, sizeof(*kt));
	kt->shift = KWQ_KEYTAB_MIN_SHIFT;
	kt->buckets = kwq_keytab_alloc_buckets(kt->shift, gfp);
	if (!kt->buckets)
		return -ENOMEM;
	get_random_bytes(&kt->seed, sizeof(kt->seed));
	return 0;
}

/**
 * kwq_keytab_destroy() - free the buckets of an empty table
 * @kt: the table; its keys must have been removed (kwq_keytab_drain)
 *
 * Context: process context, no lock held (kvfree() may sleep).
 */
void kwq_keytab_destroy(struct kwq_keytab *kt)
{
	WARN_ON_ONCE(kt->count);
	kwq_keytab_free_retired(kwq_keytab_take_retired(kt));
	kvfree(kt->old);
	kvfree(kt->buckets);
	kt->old = NULL;
	kt->buckets = NULL;
}

static struct kwq_key *kwq_chain_find(struct hlist_head *head, u64 hash,
				      const void *data, u32 len)
{
	struct kwq_key *k;

	hlist_for_each_entry(k, head, node)
		if (k->hash == (u32)hash && k->len == len &&
		    !memcmp(kwq_key_data(k), data, len))
			return k;
	return NULL;
}

/* Is @hash still in an old bucket that has not been moved yet? */
static bool kwq_in_old(const struct kwq_keytab *kt, u64 hash)
{
	return kt->old &&
	       (hash & ((1ULL << kt->old_shift) - 1)) >= kt->migrate_pos;
}

/**
 * kwq_keytab_find() - look a key up
 * @kt: the table
 * @hash: kwq_keytab_hash() of the key
 * @data: key bytes
 * @len: key length
 *
 * Return: the stored key, or NULL.
 */
struct kwq_key *kwq_keytab_find(struct kwq_keytab *kt, u64 hash,
				const void *data, u32 len)
{
	struct kwq_key *k;

	k = kwq_chain_find(kwq_bucket(kt->buckets, kt->shift, hash), hash,
			   data, len);
	if (!k && kwq_in_old(kt, hash))
		k = kwq_chain_find(kwq_bucket(kt->old, kt->old_shift, hash),
				   hash, data, len);
	return k;
}

/*
 * Put an emptied old array on kt->retired. A retired array holds no keys,
 * so its first bucket's pointer links it to the retired array before it:
 * the list needs no memory. It is usually one array long; more pile up only
 * when growth starts again before they are taken (the KUnit suite never
 * takes them: kwq_keytab_destroy() frees them).
 */
static void kwq_retire(struct kwq_keytab *kt, struct hlist_head *table)
{
	table[0].first = (struct hlist_node *)kt->retired;
	kt->retired = table;
}

/* kwq_migrate_step() of a migrating table (kt->old set). */
static bool kwq_migrate_more(struct kwq_keytab *kt)
{
	unsigned int n = 1U << kt->old_shift;
	int budget = KWQ_MIGRATE_BATCH;
	struct hlist_node *tmp;
	struct kwq_key *k;

	while (budget-- > 0 && kt->migrate_pos < n) {
		struct hlist_head *head = &kt->old[kt->migrate_pos];

		hlist_for_each_entry_safe(k, tmp, head, node) {
			hlist_del(&k->node);
			hlist_add_head(&k->node,
				       kwq_bucket(kt->buckets, kt->shift,
						  k->hash));
		}
		kt->migrate_pos++;
	}
	if (kt->migrate_pos < n)
		return false;
	kwq_retire(kt, kt->old);
	WRITE_ONCE(kt->old, NULL);
	return true;
}

/*
 * Move up to KWQ_MIGRATE_BATCH old buckets into the current table. True
 * if that ended the migration: the old array is on kt->retired. Inline:
 * every insert and remove asks, and the table rarely migrates.
 */
static inline bool kwq_migrate_step(struct kwq_keytab *kt)
{
	return kt->old && kwq_migrate_more(kt);
}

/**
 * kwq_keytab_insert() - add a key that is not in the table yet
 * @kt: the table
 * @key: the key, with @key->hash set
 *
 * Moves a few old buckets if the table is migrating.
 *
 * Return: true if that ended the migration: the old array is retired, and
 * the caller should have it taken and freed once the lock is dropped
 * (kwq_keytab_take_retired()).
 */
bool kwq_keytab_insert(struct kwq_keytab *kt, struct kwq_key *key)
{
	hlist_add_head(&key->node, kwq_bucket(kt->buckets, kt->shift,
					      key->hash));
	WRITE_ONCE(kt->count, kt->count + 1);
	return kwq_migrate_step(kt);
}

/**
 * kwq_keytab_remove() - take a key out of the table
 * @kt: the table
 * @key: a key stored in it
 *
 * Moves a few old buckets if the table is migrating.
 *
 * Return: as kwq_keytab_insert().
 */
bool kwq_keytab_remove(struct kwq_keytab *kt, struct kwq_key *key)
{
	hlist_del_init(&key->node);
	WRITE_ONCE(kt->count, kt->count - 1);
	return kwq_migrate_step(kt);
}

static void kwq_drain_table(struct kwq_keytab *kt, struct hlist_head *table,
			    unsigned int shift, void (*fn)(struct kwq_key *))
{
	struct hlist_node *tmp;
	struct kwq_key *k;
	size_t i;

	if (!table)
		return;
	for (i = 0; i < (1UL << shift); i++) {
		hlist_for_each_entry_safe(k, tmp, &table[i], node) {
			hlist_del_init(&k->node);
			kt->count--;
			fn(k);
		}
	}
}

/**
 * kwq_keytab_drain() - remove every key, calling @fn on each
 * @kt: the table
 * @fn: called once per key after it is removed; may free it
 */
void kwq_keytab_drain(struct kwq_keytab *kt, void (*fn)(struct kwq_key *))
{
	kwq_drain_table(kt, kt->old, kt->old_shift, fn);
	kwq_drain_table(kt, kt->buckets, kt->shift, fn);
}

/**
 * kwq_keytab_want_grow() - should the caller allocate a bigger table?
 * @kt: the table
 * @shift: set to the shift of the table to allocate
 *
 * Lockless hint (the answer may be stale): the table holds more than two
 * keys a bucket, is not migrating, is below its largest size, and no
 * allocation for it failed in the last KWQ_KEYTAB_GROW_BACKOFF.
 *
 * Return: true if kwq_keytab_alloc_buckets(*shift) is worth calling.
 */
bool kwq_keytab_want_grow(const struct kwq_keytab *kt, unsigned int *shift)
{
	unsigned int s = READ_ONCE(kt->shift);
	unsigned long failed;

	if (READ_ONCE(kt->old) || s >= KWQ_KEYTAB_MAX_SHIFT)
		return false;
	if (READ_ONCE(kt->count) <= (2U << s))
		return false;
	failed = READ_ONCE(kt->grow_failed);
	if (failed && time_before(jiffies, failed + KWQ_KEYTAB_GROW_BACKOFF))
		return false;
	*shift = s + 1;
	return true;
}

/**
 * kwq_keytab_grow_failed() - a bigger array could not be allocated
 * @kt: the table
 *
 * kwq_keytab_want_grow() says no for KWQ_KEYTAB_GROW_BACKOFF, so a table
 * that cannot grow does not cost every add a failing allocation (with
 * direct reclaim). Not an error: lookups only get slower meanwhile.
 *
 * Context: any context; lockless.
 */
void kwq_keytab_grow_failed(struct kwq_keytab *kt)
{
	unsigned long now = jiffies;

	WRITE_ONCE(kt->grow_failed, now ?: 1);	/* 0 means no failure */
}

/**
 * kwq_keytab_start_grow() - switch to a bigger bucket array
 * @kt: the table
 * @buckets: from kwq_keytab_alloc_buckets(@shift)
 * @shift: its size
 *
 * The old buckets are moved a few at a time by later inserts and removes;
 * the last move retires the old array (see kwq_keytab_take_retired()).
 *
 * Return: true if the table took @buckets; false if growing is no longer
 * needed (another caller did it), and the caller must kvfree(@buckets)
 * once the lock is dropped.
 */
bool kwq_keytab_start_grow(struct kwq_keytab *kt, struct hlist_head *buckets,
			   unsigned int shift)
{
	if (kt->old || shift != kt->shift + 1 || kt->count <= (2U << kt->shift))
		return false;
	WRITE_ONCE(kt->old, kt->buckets);
	kt->old_shift = kt->shift;
	kt->migrate_pos = 0;
	WRITE_ONCE(kt->buckets, buckets);
	WRITE_ONCE(kt->shift, shift);
	WRITE_ONCE(kt->grow_failed, 0);
	kwq_migrate_step(kt);
	return true;
}

/**
 * kwq_keytab_take_retired() - take the old arrays a finished migration left
 * @kt: the table
 *
 * Return: the list of retired arrays, or NULL; free it with
 * kwq_keytab_free_retired() once the lock is dropped.
 */
struct hlist_head *kwq_keytab_take_retired(struct kwq_keytab *kt)
{
	struct hlist_head *retired = kt->retired;

	kt->retired = NULL;
	return retired;
}

/**
 * kwq_keytab_free_retired() - free what kwq_keytab_take_retired() returned
 * @retired: the list; may be NULL
 *
 * Context: process context, no lock held (kvfree() may sleep).
 */
void kwq_keytab_free_retired(struct hlist_head *retired)
{
	while (retired) {
		struct hlist_head *next = (struct hlist_head *)retired[0].first;

		kvfree(retired);
		retired = next;
	}
}
