/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The key table of a queue: byte-string keys to records, O(1) per operation.
 *
 * A chained hash table keyed with hsiphash() (SipHash-1-3 on 64-bit,
 * HalfSipHash on 32-bit; a per-table random key: keys come from users, so
 * collisions cannot be forced, and no hash is ever shown to them, which is
 * what hsiphash is for; a bucket uses at
 * most KWQ_KEYTAB_MAX_SHIFT of its 32 bits). It grows by doubling, and
 * moves the old buckets over a few at a time on later operations, so no
 * single operation rehashes the whole table under the queue lock.
 *
 * Memory is neither allocated nor freed under the lock. Growing needs a
 * bucket array of up to 8 MiB (KWQ_KEYTAB_MAX_SHIFT), which the caller
 * allocates outside the lock with kwq_keytab_alloc_buckets() (kvmalloc
 * when the flags allow GFP_KERNEL, so it need not be contiguous) and hands
 * in with kwq_keytab_start_grow(). When the last old bucket has moved, the
 * old array is "retired": kept on the table until the caller takes it with
 * kwq_keytab_take_retired() and frees it with kwq_keytab_free_retired()
 * after dropping the lock (kvfree() may sleep). An allocation that fails
 * is reported with kwq_keytab_grow_failed(): growth is then not asked for
 * again for KWQ_KEYTAB_GROW_BACKOFF (the table is only denser meanwhile).
 *
 * Locking: none of its own. kwq_keytab_find(), _insert(), _remove(),
 * _start_grow() and _take_retired() need the owner's lock held;
 * kwq_keytab_init(), _drain() and _destroy() need the table to be the
 * caller's alone. kwq_keytab_hash() reads only the seed, and
 * kwq_keytab_want_grow() and _grow_failed() are lockless hints.
 * kwq_keytab_alloc_buckets() (with GFP_KERNEL), _free_retired() and
 * _destroy() may sleep: never under a spinlock.
 */
#ifndef _WQ_KEYTAB_H
#define _WQ_KEYTAB_H

#include <linux/list.h>
#include <linux/siphash.h>
#include <linux/types.h>

#define KWQ_INLINE_KEY		40	/* keys up to this long live inline */

/**
 * struct kwq_key - a key as stored in a key table (embedded in a record)
 * @node: hash chain
 * @hash: the low 32 bits of kwq_keytab_hash() of the bytes: all the table
 *	uses (see below)
 * @len: number of bytes; says where they are (kwq_key_data())
 * @ext: the bytes of a key longer than KWQ_INLINE_KEY, allocated by the
 *	owner
 * @inl: the bytes of a key of at most KWQ_INLINE_KEY
 * @tag: the owner's, while the key is in no table (the id of a spare
 *	record's memory cgroup, wq_record.h)
 *
 * Most keys are short and live in the key itself: no pointer to them is
 * stored, @len alone tells @ext from @inl.
 *
 * A bucket is chosen by at most KWQ_KEYTAB_MAX_SHIFT low bits of the hash,
 * and equal hashes only decide which keys get their bytes compared, so 32
 * bits are kept: the key is 8 bytes smaller (no padding after @len), and a
 * lookup finds the same key as with the full hash.
 */
struct kwq_key {
	struct hlist_node node;
	u32 hash;
	u32 len;
	union {
		u8 *ext;
		u8 inl[KWQ_INLINE_KEY];
		u64 tag;
	};
};

/**
 * kwq_key_data() - the bytes of a key
 * @key: the key, with @key->len set
 *
 * Return: @key->len bytes, in @key->inl or at @key->ext; writable, for the
 * owner to fill a key that is in no table yet.
 */
static inline u8 *kwq_key_data(const struct kwq_key *key)
{
	return key->len > KWQ_INLINE_KEY ? key->ext : (u8 *)key->inl;
}

/**
 * struct kwq_keytab - hash table of struct kwq_key
 * @buckets: current table, 1 << @shift chains
 * @old: table being migrated into @buckets, or NULL
 * @shift: log2 of the number of @buckets
 * @old_shift: log2 of the number of @old buckets
 * @migrate_pos: next bucket of @old to move
 * @retired: old arrays emptied by a migration, to be freed outside the
 *	lock (kwq_keytab_take_retired()); NULL if none
 * @grow_failed: jiffies of the last failed allocation of a bigger array
 *	(never 0), or 0; lockless
 * @count: number of keys
 * @seed: hsiphash key
 */
struct kwq_keytab {
	struct hlist_head *buckets;
	struct hlist_head *old;
	unsigned int shift;
	unsigned int old_shift;
	unsigned int migrate_pos;
	struct hlist_head *retired;
	unsigned long grow_failed;
	unsigned int count;
	hsiphash_key_t seed;
};

#define KWQ_KEYTAB_MIN_SHIFT	4
#define KWQ_KEYTAB_MAX_SHIFT	20	/* 8 MiB of buckets: a kvmalloc */
#define KWQ_KEYTAB_GROW_BACKOFF	HZ	/* no growth this long after a failure */

int kwq_keytab_init(struct kwq_keytab *kt, gfp_t gfp);
void kwq_keytab_destroy(struct kwq_keytab *kt);
struct kwq_key *kwq_keytab_find(struct kwq_keytab *kt, u64 hash,
				const void *data, u32 len);
bool kwq_keytab_insert(struct kwq_keytab *kt, struct kwq_key *key);
bool kwq_keytab_remove(struct kwq_keytab *kt, struct kwq_key *key);
void kwq_keytab_drain(struct kwq_keytab *kt, void (*fn)(struct kwq_key *));

/**
 * kwq_keytab_hash() - hash of a key for this table
 * @kt: the table (its seed)
 * @data: key bytes
 * @len: key length
 *
 * Inline: every add hashes its key, and a call would cost more than the
 * hash of a short one.
 *
 * Return: the hash to pass to find; struct kwq_key stores its low 32 bits.
 */
static inline u64 kwq_keytab_hash(const struct kwq_keytab *kt,
				  const void *data, u32 len)
{
	return hsiphash(data, len, &kt->seed);
}

bool kwq_keytab_want_grow(const struct kwq_keytab *kt, unsigned int *shift);
struct hlist_head *kwq_keytab_alloc_buckets(unsigned int shift, gfp_t gfp);
void kwq_keytab_grow_failed(struct kwq_keytab *kt);
bool kwq_keytab_start_grow(struct kwq_keytab *kt, struct hlist_head *buckets,
			   unsigned int shift);
struct hlist_head *kwq_keytab_take_retired(struct kwq_keytab *kt);
void kwq_keytab_free_retired(struct hlist_head *retired);

#endif /* _WQ_KEYTAB_H */
