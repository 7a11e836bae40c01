// SPDX-License-Identifier: GPL-2.0
/*
 * The single-key ioctls of /dev/wq: WQ_IOC_ADD, WQ_IOC_GET, WQ_IOC_DONE,
 * WQ_IOC_FORGET, WQ_IOC_NUM_REQUEUES, WQ_IOC_CANCEL_AFTER,
 * WQ_IOC_KEY_STATE and WQ_IOC_DONE_GET (the batch ones are in wq_batch.c,
 * the dispatch in wq_dev.c). Short keys travel through the stack; a
 * record is allocated only for a new key with no spare record
 * (wq_record.h).
 *
 * Context of every function: process context (an ioctl); may sleep.
 */
#include <linux/fs.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "wq_dev.h"
#include "wq_add.h"
#include "wq_delay.h"
#include "wq_record.h"

/* Keys up to this long are copied through the stack, not an allocation. */
#define WQ_DEV_SMALL_KEY	64

long wq_ioc_add(struct wq_handle *h, struct kwq *q, void *arg,
		void __user *uarg)
{
	unsigned int flags = h->unlimited ? KWQ_ADD_UNLIMITED : 0;
	struct wq_add __user *ua = uarg;
	ktime_t deadline = KTIME_MAX;
	struct wq_add *a = arg;
	struct kwq_item *item;
	u32 af = a->flags;
	bool try = false;
	int ret;

	/*
	 * Only the kernel's copy of an io_uring command may say so; the
	 * struct stays as given (a parked command tries it again).
	 */
	if (!ua && (af & WQ_ADD_TRY)) {
		af &= ~WQ_ADD_TRY;
		try = true;
	}
	if ((af & ~(WQ_ADD_RATE_LIMITED | WQ_ADD_WAIT | WQ_ADD_AFTER |
		    WQ_ADD_PRIORITY)) ||
	    a->outcome || kwq_check_key_len(a->key_len))
		return -EINVAL;
	/* a priority only on a priority queue, and only when flagged */
	if ((af & WQ_ADD_PRIORITY) ? !q->prio : a->priority)
		return -EINVAL;
	if (af & WQ_ADD_RATE_LIMITED) {
		/* both: the shorter delay, on a priority queue only */
		if ((a->delay_ns || (af & WQ_ADD_AFTER)) &&
		    !(q->prio && (af & WQ_ADD_AFTER)))
			return -EINVAL;
		flags |= KWQ_ADD_RATE_LIMITED;
	}
	if (af & WQ_ADD_AFTER)
		flags |= KWQ_ADD_AFTER;
	if (af & WQ_ADD_WAIT) {
		if (wq_deadline(a->deadline_ns, &deadline))
			return -EINVAL;
		/* an O_NONBLOCK file never sleeps: -EAGAIN (uapi: struct wq_get) */
		if (!(h->file->f_flags & O_NONBLOCK))
			flags |= try ? KWQ_ADD_TRY : KWQ_ADD_WAIT;
	} else if (a->deadline_ns) {
		return -EINVAL;
	}
	/* its one result can be written: checked before anything changes */
	if ((flags & KWQ_ADD_RATE_LIMITED) && ua &&
	    put_user(a->delay_ns, &ua->delay_ns))
		return -EFAULT;
	/* A short key through the stack: a record only for a new key. */
	if (a->key_len <= WQ_DEV_SMALL_KEY) {
		u8 small[WQ_DEV_SMALL_KEY];

		if (copy_from_user(small, u64_to_user_ptr(a->key), a->key_len))
			return -EFAULT;
		ret = kwq_add_key(q, small, a->key_len, &a->delay_ns, flags,
				  a->priority, WQ_GFP_KEYS, deadline);
	} else {
		item = kwq_record_alloc(a->key_len, WQ_GFP_KEYS);
		if (!item)
			return -ENOMEM;
		if (copy_from_user(kwq_key_data(&item->key),
				   u64_to_user_ptr(a->key), a->key_len)) {
			kwq_record_free(item);
			return -EFAULT;
		}
		ret = kwq_add_item(q, item, &a->delay_ns, flags, a->priority,
				   WQ_GFP_KEYS, deadline);
	}
	/*
	 * The limiter's delay goes out here (it was found writable above);
	 * what the add did (ret, WQ_ADDED_*) goes to @outcome (wq_ioctl());
	 * nothing else of the struct changes. The add was made: a struct
	 * another thread unmapped meanwhile does not make the call fail.
	 */
	if (ret >= 0 && (flags & KWQ_ADD_RATE_LIMITED) && ua)
		(void)!put_user(a->delay_ns, &ua->delay_ns);
	return ret;
}

/* The fields of a Get, checked: 0 and its deadline, or -EINVAL. */
static int wq_get_check(const struct wq_get *g, ktime_t *deadline)
{
	if ((g->flags & ~(WQ_GET_NONBLOCK | WQ_GET_DETACH)) || g->priority ||
	    g->key_len || wq_deadline(g->deadline_ns, deadline))
		return -EINVAL;
	return 0;
}

/* GET of @g (checked, @deadline its), results to @ug (NULL: none). */
static long wq_get_key(struct wq_handle *h, struct kwq *q,
		       const struct wq_get *g, ktime_t deadline,
		       struct wq_get __user *ug)
{
	struct kwq_holder *holder = &h->holder;
	unsigned int flags = 0;
	u8 small[WQ_DEV_SMALL_KEY];
	u32 cap, len = 0;
	u64 gen = 0;
	s32 prio = 0;
	void *buf = small;
	long ret;

	/* an O_NONBLOCK file never sleeps: -EAGAIN (uapi: struct wq_get) */
	if ((g->flags & WQ_GET_NONBLOCK) || (h->file->f_flags & O_NONBLOCK))
		flags |= KWQ_GET_NONBLOCK;
	if (g->flags & WQ_GET_DETACH)
		holder = NULL;
	cap = min_t(u32, g->buf_cap, WQ_KEY_MAX);
	/*
	 * Most keys are short: take the key into a buffer on the stack, and
	 * only for a longer head key (nothing taken: -EMSGSIZE) allocate
	 * the caller's capacity and Get again.
	 */
	ret = kwq_queue_get(q, holder, buf, min_t(u32, cap, sizeof(small)),
			    &len, &gen, &prio, deadline,
			    flags | (cap > sizeof(small) ? KWQ_GET_PROBE : 0));
	if (ret == -EMSGSIZE && cap > sizeof(small)) {
		buf = kmalloc(cap, GFP_KERNEL);
		if (!buf) {
			wake_up(&q->getters);	/* the one the probe kept */
			return -ENOMEM;
		}
		ret = kwq_queue_get(q, holder, buf, cap, &len, &gen, &prio,
				    deadline, flags);
	}
	/*
	 * The results go out here, not in wq_ioctl(): a key taken but not
	 * delivered (either copy faults) goes back where it was. The key goes
	 * first, so a call that fails on it leaves the caller's struct as it
	 * was.
	 */
	if ((!ret || ret == -EMSGSIZE) &&
	    ((!ret && copy_to_user(u64_to_user_ptr(g->buf), buf, len)) ||
	     (ug && put_user(len, &ug->key_len)) ||
	     (ug && !ret && q->prio && put_user(prio, &ug->priority)))) {
		if (!ret)
			kwq_queue_unget(q, buf, len, gen);
		ret = -EFAULT;
	}
	if (buf != small)
		kfree(buf);
	return ret ? ret : (long)len;
}

long wq_ioc_get(struct wq_handle *h, struct kwq *q, void *arg,
		void __user *uarg)
{
	ktime_t deadline;

	return wq_get_check(arg, &deadline) ?:
	       wq_get_key(h, q, arg, deadline, uarg);
}

/*
 * The key of @k copied in: into @small (WQ_DEV_SMALL_KEY bytes) if it fits,
 * else into an allocation the caller frees with wq_free_key(). @flags: the
 * flags the call takes.
 */
static void *wq_copy_key(const struct wq_key *k, u32 flags, u8 *small)
{
	if ((k->flags & ~flags) || k->value || kwq_check_key_len(k->key_len))
		return ERR_PTR(-EINVAL);
	if (k->key_len > WQ_DEV_SMALL_KEY)
		return memdup_user(u64_to_user_ptr(k->key), k->key_len);
	if (copy_from_user(small, u64_to_user_ptr(k->key), k->key_len))
		return ERR_PTR(-EFAULT);
	return small;
}

static void wq_free_key(void *key, u8 *small)
{
	if (key != small)
		kfree(key);
}

/*
 * DONE (@done) and FORGET: the key copied in, one queue call on it; with
 * WQ_KEY_RESULT_STATE, the key's state afterwards as the result.
 */
static long wq_key_call(struct wq_handle *h, struct kwq *q, struct wq_key *k,
			bool done)
{
	u8 small[WQ_DEV_SMALL_KEY];
	void *key = wq_copy_key(k, WQ_KEY_RESULT_STATE, small);
	struct kwq_keyref ref = {};
	long ret;
	int res;

	if (IS_ERR(key))
		return PTR_ERR(key);
	/* for the state too: hashed once (else by the done, if needed) */
	if (k->flags & WQ_KEY_RESULT_STATE)
		ref.hash = kwq_record_hash(q, key, k->key_len);
	ref.data = key;
	ref.len = k->key_len;
	if (done)
		kwq_queue_done(q, &h->holder, &ref, &res, 1);
	else
		res = kwq_ratelimit_forget(q, key, k->key_len);
	ret = res;
	if (!ret && (k->flags & WQ_KEY_RESULT_STATE))
		ret = kwq_queue_key_state_hashed(q, ref.hash, key, k->key_len,
						 NULL);
	wq_free_key(key, small);
	return ret;
}

long wq_ioc_done(struct wq_handle *h, struct kwq *q, void *arg,
		 void __user *uarg)
{
	return wq_key_call(h, q, arg, true);
}

long wq_ioc_forget(struct wq_handle *h, struct kwq *q, void *arg,
		   void __user *uarg)
{
	return wq_key_call(h, q, arg, false);
}

long wq_ioc_num_requeues(struct wq_handle *h, struct kwq *q, void *arg,
			 void __user *uarg)
{
	struct wq_key *k = arg;
	u8 small[WQ_DEV_SMALL_KEY];
	void *key = wq_copy_key(k, 0, small);

	if (IS_ERR(key))
		return PTR_ERR(key);
	k->value = kwq_ratelimit_requeues(q, key, k->key_len);
	wq_free_key(key, small);
	return 0;
}

long wq_ioc_cancel_after(struct wq_handle *h, struct kwq *q, void *arg,
			 void __user *uarg)
{
	struct wq_key *k = arg;
	u8 small[WQ_DEV_SMALL_KEY];
	void *key = wq_copy_key(k, 0, small);
	long ret;

	if (IS_ERR(key))
		return PTR_ERR(key);
	ret = kwq_delay_cancel(q, key, k->key_len);
	wq_free_key(key, small);
	return ret;
}

long wq_ioc_key_state(struct wq_handle *h, struct kwq *q, void *arg,
		      void __user *uarg)
{
	struct wq_key_info *ks = arg;
	struct wq_key k = { .key_len = ks->key_len, .key = ks->key };
	struct kwq_key_info info;
	u8 small[WQ_DEV_SMALL_KEY];
	void *key;

	if (ks->flags || ks->state || ks->priority || ks->ready_ns ||
	    ks->requeues || ks->reserved)
		return -EINVAL;
	key = wq_copy_key(&k, 0, small);	/* checks the length too */
	if (IS_ERR(key))
		return PTR_ERR(key);
	kwq_queue_key_state(q, key, ks->key_len, &info);
	wq_free_key(key, small);
	/* the struct goes back to the caller as a whole (wq_ioctl()) */
	ks->state = info.state;
	ks->priority = info.priority;
	ks->ready_ns = info.ready_ns;
	ks->requeues = info.requeues;
	return 0;
}

long wq_ioc_done_get(struct wq_handle *h, struct kwq *q, void *arg,
		     void __user *uarg)
{
	struct wq_done_get *dg = arg;
	u8 small[WQ_DEV_SMALL_KEY];
	ktime_t deadline;
	void *key;
	long ret;

	/* every field first: a bad call ends nothing */
	if (dg->reserved || (!dg->prev_len && dg->prev) ||
	    (dg->prev_len && kwq_check_key_len(dg->prev_len)) ||
	    wq_get_check(&dg->get, &deadline))
		return -EINVAL;
	if (dg->prev_len) {
		struct wq_key k = { .key_len = dg->prev_len, .key = dg->prev };
		struct kwq_keyref ref = { .len = dg->prev_len };
		int res;

		key = wq_copy_key(&k, 0, small);
		if (IS_ERR(key))
			return PTR_ERR(key);
		ref.data = key;
		kwq_queue_done(q, &h->holder, &ref, &res, 1);
		wq_free_key(key, small);
		if (res)
			return res;
		/*
		 * Made: a restarted call (a signal, a stop) only gets. The
		 * struct was found writable (wq_ioctl()); if another thread
		 * took it away since, the call ends here, not failing: 0.
		 */
		if (uarg &&
		    (put_user(0ULL, &((struct wq_done_get __user *)uarg)->prev) ||
		     put_user(0U, &((struct wq_done_get __user *)uarg)->prev_len)))
			return 0;
	}
	/*
	 * struct wq_get is the struct's head: GET's results land in it. After
	 * a Done the call does not fail for memory: a key that could not be
	 * delivered went back, and the result is 0 (Done made, nothing got).
	 */
	ret = wq_get_key(h, q, &dg->get, deadline, uarg);
	return ret == -EFAULT && dg->prev_len ? 0 : ret;
}
