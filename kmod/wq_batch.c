// SPDX-License-Identifier: GPL-2.0
/*
 * Batches: WQ_IOC_ADD_BATCH, WQ_IOC_GET_BATCH and WQ_IOC_DONE_BATCH, many
 * keys in one system call (the throughput path).
 *
 * The keys travel as an array of struct wq_iov, read in one copy. They are
 * then handled in chunks of at most KWQ_BATCH keys (and WQ_BATCH_BUF bytes
 * for GET and DONE): the user memory of a chunk is copied while no lock is
 * held, then the queue's lock is taken once for the whole chunk
 * (kwq_queue_add_many(), kwq_queue_take(), kwq_queue_done_many()), so no
 * hold of it grows with the batch and consumers are woken once per chunk,
 * as many as keys were queued.
 *
 * Errors: the call's own (-EINVAL for its fields, -EFAULT for the key array
 * or the results array, -ENOMEM) are found before any key is touched, and
 * change nothing; each key's own (its length, its memory, the queue full,
 * the quota) go to its entry of the results array, and the others go on.
 * The results array is written with zeros before anything changes, so it
 * is known to be writable; should it become unwritable meanwhile (another
 * thread unmapping it), the keys stay added or done and the call still
 * returns their number.
 *
 * Context of every function: process context (an ioctl); sleeps.
 */
#include <linux/minmax.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "wq_dev.h"
#include "wq_record.h"

/* Most key bytes copied in or out per chunk (a key is at most 4 KiB). */
#define WQ_BATCH_BUF	(64 * 1024)

/* The array of keys and, where asked for, the results: read and checked. */
struct wq_batch_io {
	struct wq_iov *iov;
	int *res;
};

static void wq_batch_io_free(struct wq_batch_io *io)
{
	kvfree(io->iov);
	kvfree(io->res);
}

/*
 * The fields ADD and DONE share: no flags, no GET fields; the key array
 * copied in, the results array zeroed (so it is known to be writable).
 */
static int wq_batch_io_in(const struct wq_batch *b, struct wq_batch_io *io)
{
	size_t n = b->count;

	io->iov = NULL;
	io->res = NULL;
	if (b->flags || !n || n > WQ_BATCH_MAX || b->buf || b->buf_cap ||
	    b->deadline_ns)
		return -EINVAL;
	io->iov = kvmalloc_array(n, sizeof(*io->iov), GFP_KERNEL_ACCOUNT);
	io->res = kvcalloc(n, sizeof(*io->res), GFP_KERNEL_ACCOUNT);
	if (!io->iov || !io->res)
		goto err_nomem;
	if (copy_from_user(io->iov, u64_to_user_ptr(b->keys),
			   n * sizeof(*io->iov)))
		goto err_fault;
	if (b->results &&
	    copy_to_user(u64_to_user_ptr(b->results), io->res,
			 n * sizeof(*io->res)))
		goto err_fault;
	return 0;

err_nomem:
	wq_batch_io_free(io);
	return -ENOMEM;
err_fault:
	wq_batch_io_free(io);
	return -EFAULT;
}

/* The results out (see the top of the file), and the count of successes. */
static long wq_batch_io_out(const struct wq_batch *b, struct wq_batch_io *io,
			    unsigned int ok)
{
	if (b->results)
		(void)!copy_to_user(u64_to_user_ptr(b->results), io->res,
				    b->count * sizeof(*io->res));
	wq_batch_io_free(io);
	return ok;
}

/* Is @iov's length a key length? (On the u64: no truncation.) */
static bool wq_iov_len_ok(const struct wq_iov *iov)
{
	return iov->len >= 1 && iov->len <= WQ_KEY_MAX;
}

/* Scratch space of one ADD_BATCH or DONE_BATCH chunk (off the stack). */
struct wq_keys_chunk {
	struct kwq_keyref refs[KWQ_BATCH];
	unsigned int idx[KWQ_BATCH];
	int res[KWQ_BATCH];
};

/*
 * Read the next chunk of keys from @io.iov[*@i] on into @buf: KWQ_BATCH
 * keys or WQ_BATCH_BUF bytes, hashed. A key with a bad length or memory
 * gets its result (-EINVAL, -EFAULT) and is left out. Returns how many
 * keys the chunk has (0 at the end); *@i moves past them.
 */
static unsigned int wq_keys_chunk_read(struct kwq *q, const struct wq_batch *b,
				       struct wq_batch_io *io,
				       unsigned int *i, struct wq_keys_chunk *c,
				       u8 *buf)
{
	unsigned int n = 0;
	size_t off = 0;

	for (; *i < b->count && n < KWQ_BATCH; (*i)++) {
		const struct wq_iov *v = &io->iov[*i];

		if (!wq_iov_len_ok(v)) {
			io->res[*i] = -EINVAL;
			continue;
		}
		if (off + v->len > WQ_BATCH_BUF)
			break;
		if (copy_from_user(buf + off, u64_to_user_ptr(v->base),
				   v->len)) {
			io->res[*i] = -EFAULT;
			continue;
		}
		c->refs[n].data = buf + off;
		c->refs[n].len = v->len;
		c->refs[n].hash = kwq_record_hash(q, buf + off, v->len);
		c->idx[n++] = *i;
		off += v->len;
	}
	return n;
}

/* ADD_BATCH and DONE_BATCH: each chunk of keys read, then added or done. */
static long wq_batch_keys(struct wq_handle *h, struct kwq *q,
			  const struct wq_batch *b, bool add)
{
	unsigned int i = 0, j, n, ok = 0;
	struct wq_keys_chunk *c;
	struct wq_batch_io io;
	long ret;
	u8 *buf;

	/* everything allocated before the results array is touched */
	c = kmalloc(sizeof(*c), GFP_KERNEL);
	buf = kvmalloc(WQ_BATCH_BUF, GFP_KERNEL_ACCOUNT);
	ret = -ENOMEM;
	if (!c || !buf)
		goto out;
	ret = wq_batch_io_in(b, &io);
	if (ret)
		goto out;
	/* a chunk has no key only at the end: a bad key takes no room */
	while ((n = wq_keys_chunk_read(q, b, &io, &i, c, buf))) {
		if (add)
			ok += kwq_queue_add_many(q, c->refs, c->res, n,
						 h->unlimited, WQ_GFP_KEYS);
		else
			ok += kwq_queue_done_many(q, c->refs, c->res, n);
		for (j = 0; j < n; j++)
			io.res[c->idx[j]] = c->res[j];
	}
	ret = wq_batch_io_out(b, &io, ok);
out:
	kvfree(buf);
	kfree(c);
	return ret;
}

/**
 * wq_ioc_add_batch() - WQ_IOC_ADD_BATCH: Add of each key, in order
 * @h: the handle
 * @q: its queue
 * @arg: the struct wq_batch
 * @uarg: unused
 *
 * Return: how many keys were added, or a call-level error.
 */
long wq_ioc_add_batch(struct wq_handle *h, struct kwq *q, void *arg,
		      void __user *uarg)
{
	return wq_batch_keys(h, q, arg, true);
}

/**
 * wq_ioc_done_batch() - WQ_IOC_DONE_BATCH: Done of each key, in order
 * @h: the handle
 * @q: its queue
 * @arg: the struct wq_batch
 * @uarg: unused
 *
 * Return: how many keys were processing and are done, or a call-level
 * error.
 */
long wq_ioc_done_batch(struct wq_handle *h, struct kwq *q, void *arg,
		       void __user *uarg)
{
	return wq_batch_keys(h, q, arg, false);
}

/* Scratch space of one GET_BATCH chunk. */
struct wq_take_chunk {
	u32 lens[KWQ_BATCH];
	u64 gens[KWQ_BATCH];
	struct wq_iov iov[KWQ_BATCH];
	struct kwq_keyref refs[KWQ_BATCH];
};

/* The bytes of the keys a chunk took. */
static size_t wq_take_bytes(const struct kwq_take *t)
{
	size_t off = 0;
	u32 i;

	for (i = 0; i < t->taken; i++)
		off += t->lens[i];
	return off;
}

/*
 * Deliver a chunk: its keys to @ubuf, their places to @ukeys. If either
 * copy faults, the chunk's keys go back to the head of the queue, in their
 * order and in one hold of its lock, and the call stops there.
 */
static int wq_take_deliver(struct kwq *q, struct kwq_take *t,
			   struct wq_take_chunk *c, u8 __user *ubuf,
			   struct wq_iov __user *ukeys)
{
	size_t off = 0;
	u32 i;

	for (i = 0; i < t->taken; i++) {
		c->iov[i].base = (u64)(uintptr_t)(ubuf + off);
		c->iov[i].len = c->lens[i];
		off += c->lens[i];
	}
	if (!copy_to_user(ubuf, t->buf, off) &&
	    !copy_to_user(ukeys, c->iov, t->taken * sizeof(c->iov[0])))
		return 0;
	for (i = 0, off = 0; i < t->taken; off += c->lens[i++]) {
		c->refs[i].data = t->buf + off;
		c->refs[i].len = c->lens[i];
		c->refs[i].hash = kwq_record_hash(q, t->buf + off, c->lens[i]);
	}
	kwq_queue_unget_many(q, c->refs, c->gens, t->taken);
	return -EFAULT;
}

/**
 * wq_ioc_get_batch() - WQ_IOC_GET_BATCH: Get of up to count keys
 * @h: the handle
 * @q: its queue
 * @arg: the struct wq_batch
 * @uarg: unused
 *
 * Waits as WQ_IOC_GET for the first key only; then takes, chunk by chunk
 * and without waiting, the keys queued that fit the rest of the buffer.
 * Keys delivered stay delivered: a later chunk that faults ends the call
 * with the count so far.
 *
 * Return: how many keys were taken (>= 1), or the error of the first
 * chunk (as WQ_IOC_GET: -EAGAIN, -ETIMEDOUT, -ERESTARTSYS, -ESHUTDOWN,
 * -EMSGSIZE if the first key does not fit; a buffer of WQ_KEY_MAX bytes
 * always fits one), or a call-level error.
 */
long wq_ioc_get_batch(struct wq_handle *h, struct kwq *q, void *arg,
		      void __user *uarg)
{
	struct wq_batch *b = arg;
	struct kwq_holder *holder = &h->holder;
	u8 __user *ubuf = u64_to_user_ptr(b->buf);
	struct wq_iov __user *ukeys = u64_to_user_ptr(b->keys);
	unsigned int flags = 0;
	struct wq_take_chunk *c;
	u64 off = 0, cap;
	ktime_t deadline;
	u32 total = 0;
	void *kbuf;
	long ret;

	if ((b->flags & ~(WQ_GET_NONBLOCK | WQ_GET_DETACH)) || !b->count ||
	    b->count > WQ_BATCH_MAX || b->results ||
	    wq_deadline(b->deadline_ns, &deadline))
		return -EINVAL;
	if (!access_ok(ukeys, (size_t)b->count * sizeof(*ukeys)))
		return -EFAULT;
	/* an O_NONBLOCK file never sleeps: -EAGAIN (libwq.md) */
	if ((b->flags & WQ_GET_NONBLOCK) || (h->file->f_flags & O_NONBLOCK))
		flags |= KWQ_GET_NONBLOCK;
	if (b->flags & WQ_GET_DETACH)
		holder = NULL;
	cap = min_t(u64, b->buf_cap, WQ_BATCH_BUF);
	c = kmalloc(sizeof(*c), GFP_KERNEL);
	kbuf = kvmalloc(max_t(u64, cap, 1), GFP_KERNEL);
	ret = -ENOMEM;
	if (!c || !kbuf)
		goto out;
	/*
	 * The first chunk's part of @keys, out-only, is zeroed before the
	 * wait: an unwritable one fails now, not after its keys were taken
	 * (they would go back, but a get would have been observed). A bad
	 * entry past the first chunk, a bad @buf, or @keys unmapped meanwhile
	 * by another thread are still found at delivery, as documented.
	 */
	ret = -EFAULT;
	if (clear_user(ukeys, min_t(u32, b->count, KWQ_BATCH) * sizeof(*ukeys)))
		goto out;

	while (total < b->count) {
		struct kwq_take t = {
			.holder = holder, .buf = kbuf,
			.cap = min_t(u64, cap, b->buf_cap - off),
			.n = min_t(u32, b->count - total, KWQ_BATCH),
			.lens = c->lens, .gens = c->gens,
		};

		ret = kwq_queue_take(q, &t, deadline, flags);
		if (ret)
			break;
		ret = wq_take_deliver(q, &t, c, ubuf + off, ukeys + total);
		if (ret)
			break;
		off += wq_take_bytes(&t);
		total += t.taken;
		flags |= KWQ_GET_NONBLOCK;	/* only the first key waits */
	}
	if (total)
		ret = total;
out:
	kvfree(kbuf);
	kfree(c);
	return ret;
}
