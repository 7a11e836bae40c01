/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The queue: client-go's workqueue Interface (queue.go) in the kernel, and
 * the one statement of the rules every layer on top of it follows.
 *
 * One record per key (struct kwq_item) in the key table; its state says
 * where it is:
 *
 *   flags                  client-go                  lists
 *   QUEUED                 in queue and dirty         q->fifo
 *   PROCESSING             in processing              holder->held, or none
 *   PROCESSING|DIRTY       processing and dirty       holder->held, or none
 *   WAITING (with any)     waitingForQueue (AddAfter) q->waiting (heap)
 *   none ("idle")          rate limiter's failures    q->idle
 *
 * A key is queued at most once and handed to at most one consumer; a key
 * added while it is processing becomes DIRTY and is queued again by done.
 * A waiting key is independent of the other states (client-go's delaying
 * queue sits in front of the queue): when its ready time passes, it is
 * added as by Add. Not on a priority queue (controller-runtime's, in
 * wq_ready.h): there a key that becomes ready drops its waiting copy, and
 * a ready key (queued, or dirty) takes no waiting copy, so it is never
 * both. A record lives while its key is held (queued,
 * processing or waiting) or has rate-limiter failures; a record kept only
 * for its failures is "idle" and sits on q->idle (least recently held
 * first), which is capped at max_tracked by evicting the oldest. A record
 * a kernel caller's handle (struct kwq_held) still names outlives its key
 * as an "orphan" on q->orphans (wq_record.h).
 *
 * The layers, each in its own file and each built on the one below, as
 * client-go builds AddRateLimited as AddAfter(item, When(item)): records
 * (wq_record.c), the queue (this header: wq_queue.c with the holders,
 * wq_get.c, wq_wait.c with the shutdowns), delays and rate limiting
 * (wq_delay.c), and Add on top (wq_add.c), the one entry of
 * every add; metrics and tracepoints observe them all. doc/layout.md maps
 * every file.
 *
 * Locking (every layer):
 * - q->lock (spinlock_t) protects every field of the queue marked "[L]" and
 *   every record of the queue, including holder->held lists. It is taken
 *   with spin_lock_irqsave(), so the queue may be fed from any context
 *   (hardirq, softirq, under other spinlocks), and is never held across
 *   anything that sleeps, allocates or touches user memory.
 * - Order: wq_registry_lock (mutex) -> wq_ipc_lock (mutex, wq_ipc.h; an
 *   open of /dev/wq takes it alone, inside misc_open()'s mutex) and
 *   wq_registry_lock -> q->lock -> the wait queue locks of
 *   q->getters, q->producers and q->drainers (taken by wake_up() under
 *   q->lock), the hrtimer base lock (taken by hrtimer_start() under
 *   q->lock) and the workqueue pool lock (schedule_work() of q->grow_work
 *   when a key-table migration ends under q->lock; queue_work() of
 *   q->move_work on kwq_delay_wq by the timer).
 * - Parked io_uring commands (wq_uring.c): h->park_lock (a handle's list
 *   of them) and wq_uring_watch_lock (before 6.7, the watch's list) ->
 *   the wait queue locks of q->getters and q->producers. A parked
 *   command's wake function runs under its wait queue's lock (so under
 *   q->lock too, from wake_up() there) and calls into io_uring only to
 *   queue task work (io_uring_cmd_complete_in_task(): on 6.1 it may take
 *   the ring's eventfd and cq_wait locks); completions are posted from
 *   that task work or io_uring's cancel, never under these locks. A
 *   shutdown's wake_up_all() walks every parked command of the queue (at
 *   most 65536 a handle) with the wait queue's lock held.
 * - wq_scratch_lock (spinlock, wq_scratch.c: the pool of the batch calls'
 *   scratch space) is a leaf outside that order: taken in process context
 *   with no other lock held, only around its free list; nothing is
 *   allocated, freed or taken under it.
 * - Metrics and tracepoints: every observation (wq_metrics.h) and every
 *   kwq:* tracepoint (wq_trace.h) is made under q->lock, O(1), allocating
 *   nothing (the trace ring buffer is lockless); the metrics snapshot and
 *   the debugfs listing (under wq_registry_lock) take q->lock once per
 *   queue.
 * - Consumers sleep on q->getters (exclusive: n new keys wake consumers
 *   for n keys, a blocking batch Get counted for as many as it asks, after
 *   q->lock is dropped; shutdown wakes all); producers
 *   waiting for room on q->producers (exclusive: n freed slots wake n,
 *   after q->lock is dropped; shutdown wakes all); drain waiters on
 *   q->drainers. Pollers wait on q->getters and q->producers (not
 *   exclusive: every wake-up reaches them).
 * - No hold of q->lock does work that grows with the queue: the timer moves
 *   due keys, a shutdown drops waiting keys, a discard drops queued keys,
 *   a closing handle puts its keys back and a batch call takes, adds or
 *   ends keys in batches of at most KWQ_BATCH (64), dropping the lock in
 *   between.
 * - Delays: q->timer is an hrtimer (CLOCK_MONOTONIC, HRTIMER_MODE_ABS_SOFT:
 *   the callback runs in softirq on PREEMPT_RT kernels too) armed at the
 *   earliest ready time of q->waiting. It is only ever (re)started under
 *   q->lock, by whoever changes the earliest ready time (an add, from any
 *   context) or by its own callback, which returns HRTIMER_NORESTART;
 *   hrtimer_cancel() is only called with no lock held (when the queue is
 *   freed). The callback allocates nothing: the waiting record is the
 *   key's. It moves one batch of due keys; when more are due it leaves
 *   them to q->move_work (process context, a batch per hold of q->lock,
 *   cond_resched() between), which arms the timer again when done.
 * - Memory: records come from a SLAB_ACCOUNT cache; keys, queues and tables
 *   are allocated with the caller's gfp, GFP_KERNEL_ACCOUNT for userspace,
 *   always outside q->lock. The key table's bucket arrays (kvmalloc, up to
 *   8 MiB) are freed outside it too: an array a migration emptied under
 *   q->lock is freed by q->grow_work.
 */
#ifndef _WQ_QUEUE_H
#define _WQ_QUEUE_H

#include <linux/bitfield.h>
#include <linux/build_bug.h>
#include <linux/hrtimer.h>
#include <linux/kref.h>
#include <linux/ktime.h>
#include <linux/list.h>
#include <linux/poll.h>
#include <linux/rbtree.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/uidgid.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>

#include <wq/kwq.h>

#include "wq_heap.h"
#include "wq_keytab.h"
#include "wq_limiter.h"

#define KWQ_ITEM_QUEUED		BIT(0)	/* on q->fifo */
#define KWQ_ITEM_PROCESSING	BIT(1)	/* handed out, not done */
#define KWQ_ITEM_DIRTY		BIT(2)	/* added while processing */
#define KWQ_ITEM_WAITING	BIT(3)	/* in q->waiting (AddAfter) */
/* processing: an add since the get set @prio (wq_ready.h) */
#define KWQ_ITEM_PRIO_SET	BIT(4)
#define KWQ_ITEM_HELD		(KWQ_ITEM_QUEUED | KWQ_ITEM_PROCESSING | \
				 KWQ_ITEM_WAITING)
/* no key's record any more, kept for the kwq_held handles that name it */
#define KWQ_ITEM_ORPHAN		BIT(5)
/* bits 6..11: how many kwq_held handles name the record (saturating) */
#define KWQ_ITEM_PIN_ONE	BIT(6)
#define KWQ_ITEM_PINS		GENMASK(11, 6)
/* bits 12..31: while PROCESSING, the id of its holder in q->holders */
#define KWQ_ITEM_HOLDER_SHIFT	12
#define KWQ_ITEM_HOLDER		GENMASK(31, KWQ_ITEM_HOLDER_SHIFT)
#define KWQ_HOLDER_MAX		(KWQ_ITEM_HOLDER >> KWQ_ITEM_HOLDER_SHIFT)
/* the id kept for the creating handle: index 0, no xarray node */
#define KWQ_HOLDER_CREATOR	1
static_assert(!((KWQ_ITEM_HELD | KWQ_ITEM_DIRTY | KWQ_ITEM_PRIO_SET |
		 KWQ_ITEM_ORPHAN) & (KWQ_ITEM_PINS | KWQ_ITEM_HOLDER)));
static_assert(!(KWQ_ITEM_PINS & KWQ_ITEM_HOLDER));

#define KWQ_BATCH		64	/* most keys moved in one hold of q->lock */
#define KWQ_SPARE_MAX		KWQ_BATCH	/* most spare records a queue keeps */

/* Buckets of a duration histogram: 10 ns .. 1000 s, and +Inf. */
#define KWQ_HIST_BUCKETS	31

/**
 * struct kwq_hist - a histogram of durations (wq_metrics.c)
 * @count: observations
 * @sum_ns: their sum
 * @bucket: observations per bucket (not cumulative), by kwq_hist_bound
 */
struct kwq_hist {
	u64 count;
	u64 sum_ns;
	u64 bucket[KWQ_HIST_BUCKETS];
};

/**
 * struct kwq_metrics - what only the metrics read (all under q->lock)
 * @queue_duration: from pending to get
 * @work_duration: from get to done
 * @refused: adds refused with -EAGAIN for capacity
 * @requeued_on_close: keys put back by a closing handle
 * @discarded: waiting keys a shutdown dropped, queued keys a discard
 *	dropped
 */
struct kwq_metrics {
	struct kwq_hist queue_duration;
	struct kwq_hist work_duration;
	u64 refused;
	u64 requeued_on_close;
	u64 discarded;
};

struct kwq_holder;
struct kwq_level;
struct wq_user;
struct wq_ipc;

/**
 * struct kwq_item - the record of one key
 * @key: the key (inline up to KWQ_INLINE_KEY bytes) and its hash chain
 * @link: q->fifo while QUEUED; holder->held while PROCESSING with a holder;
 *	q->idle while not held but with @failures; q->orphans while ORPHAN
 *	(unused while spare: q->spare is an array)
 * @run: q->running while PROCESSING (in get order, oldest first); its
 *	level's FIFO while QUEUED on a priority queue (wq_ready.h)
 * @wait: ready time and heap position while WAITING
 * @flags: KWQ_ITEM_*, the count of kwq_held handles (KWQ_ITEM_PINS) and
 *	the holder's id (KWQ_ITEM_HOLDER)
 * @failures: rate-limiter failures since the last Forget (NumRequeues)
 * @gen: when the key was last handed out (q->gen_seq), for
 *	kwq_queue_unget() and kwq_queue_done_held(): unique per queue, it
 *	names the take and thereby its holder or handle
 * @start_ns: when the key was handed out, while PROCESSING; when it became
 *	ready, while QUEUED on a priority queue with starve_ns
 * @dirty_ns: when the key last became pending (the add that made it dirty,
 *	or its put back by a closing handle): queue_duration runs from here
 * @prio: its priority while held, on a priority queue (wq_ready.h): queued
 *	or waiting at it; while processing, the one it is queued again with
 * @prio_out: the priority it was handed out with, while PROCESSING
 *
 * One per key held, so its size is most of the memory per key:
 * at most 152 bytes, checked by a BUILD_BUG_ON in wq_init(), and no
 * padding (64 + 16 + 16 + 16 + 4 + 4 + 8 + 8 + 8 + 4 + 4 on 64-bit).
 */
struct kwq_item {
	struct kwq_key key;
	struct list_head link;
	struct list_head run;
	/* from here on cleared for a spare record's new key */
	struct kwq_heap_node wait;
	u32 flags;
	u32 failures;
	u64 gen;
	u64 start_ns;
	u64 dirty_ns;
	s32 prio;
	s32 prio_out;
};

/**
 * struct kwq_holder - keys in processing that belong to one handle
 * @held: records the handle got and has not done, oldest first (under
 *	q->lock)
 * @nr: how many (written under q->lock, read without it)
 * @id: names the holder in its queue's q->holders and in its records'
 *	flags (KWQ_ITEM_HOLDER), so that a done through another handle finds
 *	it (kwq_holder_attach())
 * @in_order: its last done was of its oldest key (written under q->lock;
 *	read without it as a hint: kwq_queue_done())
 *
 * When the handle goes away, kwq_holder_release() puts them back on the
 * queue: a consumer that dies loses no work.
 */
struct kwq_holder {
	struct list_head held;
	unsigned int nr;
	u32 id;
	bool in_order;
};

/**
 * struct kwq - a queue
 * @lock: protects the fields marked [L] and the queue's records
 * @keys: [L] every record, by key
 * @growing: bit 0 is set while a caller grows @keys (kwq_record_grow())
 * @grow_work: grows @keys for producers that cannot use GFP_KERNEL
 *	(GFP_ATOMIC, GFP_NOFS), and frees the bucket arrays a migration of
 *	@keys emptied
 * @drop_work: drops the waiting keys a shutdown left (wq_delay.c)
 * @move_work: moves due keys beyond the timer's first batch (wq_delay.c)
 * @fifo: [L] QUEUED records, in the order they were queued (the order
 *	they became ready, on a priority queue)
 * @prio: hands out by priority (WQ_CREATE_PRIORITY; wq_ready.h)
 * @starve_ns: with @prio: a ready key older than this goes first (0: off)
 * @levels: [L] with @prio: every level, by priority
 * @ready: [L] with @prio: the levels with queued keys, highest leftmost
 * @depth: [L] with @prio: the levels with queued or dirty keys, highest
 *	first (metrics)
 * @nr_depth: [L] levels in @depth
 * @spare_level: [L] a freed level kept for the next one
 * @nr_queued: [L] records on @fifo (Len)
 * @nr_processing: [L] PROCESSING records
 * @nr_dirty: [L] PROCESSING|DIRTY records
 * @nr_held: [L] records QUEUED, PROCESSING or WAITING (counted against
 *	@max_items)
 * @waiting: [L] WAITING records by ready time
 * @timer: fires at the earliest ready time of @waiting
 * @armed: [L] the expiry @timer was started with, KTIME_MAX if none
 * @moving: [L] @move_work is queued or running: nobody arms @timer
 * @delay_stopped: [L] the queue is being freed: neither @timer nor
 *	@move_work starts the other again
 * @idle: [L] records kept only for their failures, oldest first
 * @nr_idle: [L] records on @idle
 * @spare: [L] records of keys gone, kept for new keys (wq_record.h): a
 *	ring, the newest just before @spare_head (an array, so a key's trip
 *	through it costs no list operations)
 * @spare_head: [L] the slot of @spare the next record given up goes to
 * @nr_spare: [L] records in @spare, at most KWQ_SPARE_MAX
 * @hold_tag: [L] while @hold_tag_known, the memory cgroup a record given
 *	up or taken spare in this hold of @lock is for (wq_record.c)
 * @hold_batch: [L] this hold of @lock is a batch's: it looks @hold_tag up
 *	once for all its keys, at the first that needs it
 * @hold_tag_known: [L] @hold_tag is set, for this hold of @lock only
 * @orphans: [L] records of keys gone that kwq_held handles still name
 *	(wq_record.h), freed when the last is given back or with the queue
 * @nr_tracked: [L] records with failures (held or idle)
 * @max_tracked: most records on @idle
 * @evicted: [L] records evicted from @idle to stay within @max_tracked
 * @limiter: [L] the rate limiter
 * @max_items: most keys held at once
 * @shutting_down: [L] set once by shutdown, never cleared
 * @discarded: [L] set once by a discarding shutdown: nothing is handed out
 *	or queued again (a dirty mark, a key put back), and @nr_dirty is 0
 * @nr_discarded: [L] queued and waiting keys dropped since @discarded was
 *	set, whoever dropped them (a key both queued and waiting counts once)
 * @nr_drainers: [L] callers waiting in kwq_queue_drain()
 * @drain_cancel: [L] bumped by each plain shutdown to cut drains short
 * @gen_seq: [L] hand-outs so far; never reused, unlike a record's memory
 * @adds: [L] keys that became pending (workqueue_adds_total)
 * @retries: [L] AddAfter and AddRateLimited calls (workqueue_retries_total)
 * @running: [L] PROCESSING records by their run link, in get order: the
 *	first is the longest running (wq_metrics.h)
 * @start_sum: [L] sum of the start_ns of the PROCESSING records, modulo
 *	2^64 (unfinished work = nr_processing * now - @start_sum)
 * @metrics: [L] the counters and histograms only the metrics read
 * @getters: consumers waiting for a key, and pollers (EPOLLIN, EPOLLHUP)
 * @wake_keys: [@getters' lock] while kwq_wake_getters() wakes consumers,
 *	the keys it has found none for yet; 0 otherwise (wq_wait.c)
 * @producers: producers waiting for room (kwq_queue_wait_room()), and
 *	pollers (EPOLLOUT)
 * @drainers: drain waiters
 * @ref: references: the registry's while named, each handle's
 * @id: names the queue for the life of the module (WQ_IOC_STAT): 1, 2, ...
 *	in order of creation, never reused, unlike the memory or a name
 * @handles: open handles (for statistics)
 * @name: the name; "" for an anonymous queue
 * @name_node: entry in the registry while named (wq_registry_lock)
 * @ipc: the IPC namespace the name belongs to (wq_registry.c), while named
 * @ipc_node: entry in @ipc's list of queues (wq_registry_lock)
 * @uid: owner
 * @gid: group
 * @mode: permission bits
 * @unlinked: the name was destroyed (wq_registry_lock)
 * @owner: the budget the queue and its records are charged to (wq_quota.h)
 * @charged: [L] bytes charged to @owner: the records in @keys, the heap's
 *	chunks and the key table's growth
 * @holders: the holders of the handles bound to the queue, at their id
 *	less one (its own lock; read under q->lock by a done through another
 *	handle)
 */
struct kwq {
	spinlock_t lock;	/* see above */
	struct kwq_keytab keys;
	unsigned long growing;
	struct work_struct grow_work;
	struct work_struct drop_work;
	struct work_struct move_work;
	struct list_head fifo;
	bool prio;
	u64 starve_ns;
	struct rb_root levels;
	struct rb_root_cached ready;
	struct rb_root depth;
	unsigned int nr_depth;
	struct kwq_level *spare_level;
	unsigned int nr_queued;
	unsigned int nr_processing;
	unsigned int nr_dirty;
	unsigned int nr_held;
	struct kwq_heap waiting;
	struct hrtimer timer;
	ktime_t armed;
	bool moving;
	bool delay_stopped;
	struct list_head idle;
	unsigned int nr_idle;
	struct kwq_item *spare[KWQ_SPARE_MAX];
	unsigned int spare_head;
	unsigned int nr_spare;
	u64 hold_tag;
	bool hold_batch;
	bool hold_tag_known;
	struct list_head orphans;
	unsigned int nr_tracked;
	unsigned int max_tracked;
	u64 evicted;
	struct kwq_limiter limiter;
	unsigned int max_items;
	bool shutting_down;
	bool discarded;
	unsigned int nr_discarded;
	unsigned int nr_drainers;
	unsigned int drain_cancel;
	u64 gen_seq;
	u64 adds;
	u64 retries;
	struct list_head running;
	u64 start_sum;
	struct kwq_metrics metrics;
	wait_queue_head_t getters;
	unsigned int wake_keys;
	wait_queue_head_t producers;
	wait_queue_head_t drainers;

	struct kref ref;
	u64 id;
	atomic_t handles;
	char name[WQ_NAME_MAX];
	struct hlist_node name_node;
	struct wq_ipc *ipc;
	struct list_head ipc_node;
	kuid_t uid;
	kgid_t gid;
	umode_t mode;
	bool unlinked;
	struct wq_user *owner;
	long charged;
	struct xarray holders;
};

/**
 * kwq_check_key_len() - is @len a valid key length?
 * @len: 1..WQ_KEY_MAX
 *
 * Return: 0 or -EINVAL.
 */
static inline int kwq_check_key_len(size_t len)
{
	return (len < 1 || len > WQ_KEY_MAX) ? -EINVAL : 0;
}

/**
 * kwq_time_after() - @t plus @ns, saturating at KTIME_MAX
 * @t: a CLOCK_MONOTONIC time, >= 0
 * @ns: a duration; U64_MAX (KWQ_TIMEOUT_NONE) gives KTIME_MAX
 *
 * Return: the time, never before @t, never wrapped.
 */
static inline ktime_t kwq_time_after(ktime_t t, u64 ns)
{
	return ns > (u64)(KTIME_MAX - t) ? KTIME_MAX : t + (ktime_t)ns;
}

/* Flags of kwq_queue_get(). */
#define KWQ_GET_NONBLOCK	BIT(0)	/* -EAGAIN instead of waiting */
/* KWQ_GET_KILLABLE (BIT(1)): see <wq/kwq.h> */
/*
 * A first try into a small buffer: an -EMSGSIZE passes on only wake-ups
 * beyond the one key the caller's second try, at once with room for it,
 * takes (or the caller passes that one on).
 */
#define KWQ_GET_PROBE		BIT(2)

int kwq_queue_cache_init(void);
void kwq_queue_cache_exit(void);
struct kwq *kwq_queue_alloc(u32 max_items, u32 max_tracked,
			    const struct wq_limiter *limiter,
			    struct wq_user *owner, gfp_t gfp);

/**
 * struct kwq_take - a Get of up to @n keys, packed into one buffer
 * @holder: the handle that will own the keys, or NULL
 * @buf: receives the keys, one after the other
 * @cap: size of @buf
 * @n: most keys to take, 1..KWQ_BATCH
 * @lens: out: their lengths (@lens[0] also with -EMSGSIZE: the length
 *	needed); @n entries
 * @gens: out: their hand-out generations (kwq_queue_unget()); @n entries
 * @prios: out, if not NULL: their priorities (0 on a plain queue); @n
 *	entries
 * @recs: out, if not NULL: their records, each pinned for a kwq_held
 *	handle (kwq_queue_done_held()); @n entries
 * @taken: out: how many were taken
 * @hup: out: the last key of a queue shutting down was taken (pollers
 *	must see EPOLLHUP)
 */
struct kwq_take {
	struct kwq_holder *holder;
	void *buf;
	u32 cap;
	u32 n;
	u32 *lens;
	u64 *gens;
	s32 *prios;
	struct kwq_item **recs;
	u32 taken;
	bool hup;
};

/**
 * struct kwq_keyref - a key the caller owns, for a call on many keys
 * @data: the bytes
 * @len: their length
 * @hash: kwq_record_hash() of them, computed while no lock is held: by
 *	the caller, or for a done left 0 for kwq_queue_done() to
 *	compute where needed
 */
struct kwq_keyref {
	const void *data;
	u32 len;
	u64 hash;
};

int kwq_mark_pending_locked(struct kwq *q, struct kwq_item *item, u64 now);
u32 kwq_queue_key_state(struct kwq *q, const void *key, u32 len,
			struct kwq_key_info *info);
u32 kwq_queue_key_state_hashed(struct kwq *q, u64 hash, const void *key,
			       u32 len, struct kwq_key_info *info);

int kwq_queue_get(struct kwq *q, struct kwq_holder *holder, void *buf,
		  u32 cap, u32 *len, u64 *gen, s32 *prio, ktime_t deadline,
		  unsigned int flags);
int kwq_queue_take(struct kwq *q, struct kwq_take *t, ktime_t deadline,
		   unsigned int flags);
void kwq_queue_unget(struct kwq *q, const void *key, u32 len, u64 gen);
void kwq_queue_unget_many(struct kwq *q, const struct kwq_keyref *keys,
			  const u64 *gens, unsigned int n);
int kwq_queue_done_held(struct kwq *q, struct kwq_item *item, u64 gen);
unsigned int kwq_queue_done(struct kwq *q, struct kwq_holder *holder,
			    struct kwq_keyref *keys, int *res, unsigned int n);
__poll_t kwq_queue_poll(struct kwq *q);
int kwq_queue_wait_room(struct kwq *q, ktime_t deadline);

int kwq_queue_drain(struct kwq *q, ktime_t deadline);
unsigned int kwq_queue_discard(struct kwq *q);

/* A wait condition: -EAGAIN to keep waiting, anything else to stop. */
typedef int (*kwq_cond_fn)(struct kwq *q, void *arg);
int kwq_wait(struct kwq *q, struct wait_queue_head *wqh, bool exclusive,
	     unsigned int *counted, ktime_t deadline, unsigned int state,
	     kwq_cond_fn cond, void *arg);

void __kwq_wake_getters(struct kwq *q, unsigned int n);

/**
 * kwq_wake_getters() - wake consumers for @n keys just queued, if any wait
 * @q: the queue
 * @n: keys queued since q->lock was taken
 *
 * See __kwq_wake_getters(). Context: any context; not under q->lock.
 */
static inline void kwq_wake_getters(struct kwq *q, unsigned int n)
{
	if (n && wq_has_sleeper(&q->getters))
		__kwq_wake_getters(q, n);
}

int kwq_getter_woken(struct kwq *q, unsigned int want, unsigned int *counted);
void kwq_getter_pass_on(struct kwq *q, unsigned int counted,
			unsigned int taken);
void kwq_wake_producers(struct kwq *q, unsigned int n);

/**
 * kwq_wake_drainers_locked() - drain waiters look again once nothing is
 * queued or processing
 * @q: the queue (q->lock held)
 *
 * Inline: every done asks, and there is seldom a drainer to wake.
 */
static inline void kwq_wake_drainers_locked(struct kwq *q)
{
	lockdep_assert_held(&q->lock);
	if (q->nr_drainers && !q->nr_queued && !q->nr_processing)
		wake_up_all(&q->drainers);
}

void kwq_requeue_locked(struct kwq *q, struct kwq_item *item, bool head);

void kwq_holder_init(struct kwq_holder *holder);
int kwq_holder_attach(struct kwq *q, struct kwq_holder *holder, bool creator);
void kwq_holder_detach(struct kwq *q, struct kwq_holder *holder);

/**
 * kwq_holder_held_locked() - @holder has @item in processing now
 * @holder: the holder
 * @item: a record just handed out (q->lock held)
 *
 * Inline: a take's step for each key.
 */
static inline void kwq_holder_held_locked(struct kwq_holder *holder,
					  struct kwq_item *item)
{
	list_add_tail(&item->link, &holder->held);
	item->flags |= FIELD_PREP(KWQ_ITEM_HOLDER, holder->id);
	WRITE_ONCE(holder->nr, holder->nr + 1);
}

void kwq_holder_unheld_locked(struct kwq *q, struct kwq_item *item,
			      struct kwq_holder *hint);
void kwq_holder_release(struct kwq *q, struct kwq_holder *holder);

#endif /* _WQ_QUEUE_H */
