/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The key table of a queue: byte-string keys to records, O(1) per operation.
 *
 * A chained hash table keyed with SipHash (per-table random key: keys come
 * from users, so collisions cannot be forced). It grows by doubling, and
 * moves the old buckets over a few at a time on later operations, so no
 * single operation rehashes the whole table under the queue lock. Growing
 * needs memory, which is allocated by the caller outside the lock
 * (kwq_keytab_alloc_buckets) and handed in with kwq_keytab_start_grow.
 *
 * Locking: none of its own. Every function except kwq_keytab_alloc_buckets
 * and kwq_keytab_want_grow must be called with the owner's lock held.
 * kwq_keytab_want_grow is a lockless hint.
 */
#ifndef _WQ_KEYTAB_H
#define _WQ_KEYTAB_H

#include <linux/list.h>
#include <linux/siphash.h>
#include <linux/types.h>

/**
 * struct kwq_key - a key as stored in a key table (embedded in a record)
 * @node: hash chain
 * @hash: kwq_keytab_hash() of the bytes
 * @len: length of @data
 * @data: the key bytes
 */
struct kwq_key {
	struct hlist_node node;
	u64 hash;
	u32 len;
	u8 *data;
};

/**
 * struct kwq_keytab - hash table of struct kwq_key
 * @buckets: current table, 1 << @shift chains
 * @old: table being migrated into @buckets, or NULL
 * @shift: log2 of the number of @buckets
 * @old_shift: log2 of the number of @old buckets
 * @migrate_pos: next bucket of @old to move
 * @count: number of keys
 * @seed: SipHash key
 */
struct kwq_keytab {
	struct hlist_head *buckets;
	struct hlist_head *old;
	unsigned int shift;
	unsigned int old_shift;
	unsigned int migrate_pos;
	unsigned int count;
	siphash_key_t seed;
};

#define KWQ_KEYTAB_MIN_SHIFT	4
#define KWQ_KEYTAB_MAX_SHIFT	19	/* 4 MiB of buckets: a kmalloc */

int kwq_keytab_init(struct kwq_keytab *kt, gfp_t gfp);
void kwq_keytab_destroy(struct kwq_keytab *kt);
u64 kwq_keytab_hash(const struct kwq_keytab *kt, const void *data, u32 len);
struct kwq_key *kwq_keytab_find(struct kwq_keytab *kt, u64 hash,
				const void *data, u32 len);
void kwq_keytab_insert(struct kwq_keytab *kt, struct kwq_key *key);
void kwq_keytab_remove(struct kwq_keytab *kt, struct kwq_key *key);
void kwq_keytab_drain(struct kwq_keytab *kt, void (*fn)(struct kwq_key *));

bool kwq_keytab_want_grow(const struct kwq_keytab *kt, unsigned int *shift);
struct hlist_head *kwq_keytab_alloc_buckets(unsigned int shift, gfp_t gfp);
bool kwq_keytab_start_grow(struct kwq_keytab *kt, struct hlist_head *buckets,
			   unsigned int shift);

#endif /* _WQ_KEYTAB_H */
