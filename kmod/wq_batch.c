// SPDX-License-Identifier: GPL-2.0
/*
 * Batches: WQ_IOC_ADD_BATCH, WQ_IOC_GET_BATCH and WQ_IOC_DONE_BATCH, many
 * keys in one system call (the throughput path).
 *
 * The keys travel as an array of struct wq_iov, read in one copy. They are
 * then handled in chunks of at most KWQ_BATCH keys and WQ_BATCH_BUF (8 KiB)
 * key bytes (a key is at most WQ_KEY_MAX, 4 KiB, so one always fits): the
 * user memory of a chunk is copied while no lock is held (keys next to
 * each other there in one copy), then the queue's lock is taken once for
 * the whole chunk (kwq_add_many(), kwq_queue_take(), kwq_queue_done();
 * twice for a chunk of ADD from its first new key without a spare record
 * on, see kwq_add_many()), so no hold of it grows with the batch and
 * consumers are woken once per hold, as many as keys were queued.
 *
 * Memory: a call borrows one struct wq_scratch (wq_scratch.c: a bounded
 * global pool) for its chunks, its key bytes and, for up to KWQ_BATCH
 * keys, its key array; so the common call allocates nothing but the
 * records of new keys that find no spare record (ADD, wq_record.h). Only
 * the key array of an ADD or DONE of more than KWQ_BATCH keys is allocated
 * (up to 16 KiB), once per call.
 *
 * Errors: the call's own (-EINVAL for its fields, -EFAULT for the key array
 * or the results array, -ENOMEM) are found before any key is touched, and
 * change nothing; each key's own (its length, its memory, the queue full,
 * the quota) go to its entry of the results array, and the others go on.
 * The results array is written with zeros before anything changes, so it
 * is known to be writable, and each chunk's results are written after the
 * chunk; should it become unwritable meanwhile (another thread unmapping
 * it), the keys stay added or done and the call still returns their
 * number.
 *
 * Context of every function: process context (an ioctl); sleeps.
 */
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/uaccess.h>

#include "wq_add.h"
#include "wq_dev.h"
#include "wq_record.h"
#include "wq_scratch.h"

/* A call of ADD or DONE: its scratch, its key array, its results array. */
struct wq_batch_io {
	struct wq_scratch *s;
	struct wq_iov *iov;
	int __user *ures;
};

static void wq_batch_io_free(struct wq_batch_io *io)
{
	if (io->iov != io->s->iov)
		kvfree(io->iov);
	wq_scratch_put(io->s);
}

/*
 * The fields ADD and DONE share: flags (ADD: a priority on a priority
 * queue, outcomes), no GET fields; the scratch borrowed, the key array
 * copied in, the results array zeroed (so it is known to be writable).
 */
static int wq_batch_io_in(const struct kwq *q, const struct wq_batch *b,
			  bool add, struct wq_batch_io *io)
{
	u32 known = add ? WQ_ADD_PRIORITY | WQ_ADD_OUTCOME : 0;
	size_t n = b->count;
	int ret;

	if ((b->flags & ~known) || !n || n > WQ_BATCH_MAX || b->buf ||
	    b->buf_cap || b->deadline_ns || b->reserved ||
	    ((b->flags & WQ_ADD_PRIORITY) ? !q->prio : b->priority))
		return -EINVAL;
	io->s = wq_scratch_get();
	if (!io->s)
		return -ENOMEM;
	io->iov = io->s->iov;
	io->ures = u64_to_user_ptr(b->results);
	ret = -ENOMEM;
	if (n > KWQ_BATCH) {
		io->iov = kvmalloc_array(n, sizeof(*io->iov),
					 GFP_KERNEL_ACCOUNT);
		if (!io->iov) {
			io->iov = io->s->iov;
			goto err;
		}
	}
	ret = -EFAULT;
	if (copy_from_user(io->iov, u64_to_user_ptr(b->keys),
			   n * sizeof(*io->iov)))
		goto err;
	if (io->ures && clear_user(io->ures, n * sizeof(*io->ures)))
		goto err;
	return 0;

err:
	wq_batch_io_free(io);
	return ret;
}

/*
 * The results of the chunk of @n keys from @i (io->s->res) out; should
 * the results array fault, the call goes on (see the top of the file).
 */
static void wq_batch_io_out(struct wq_batch_io *io, unsigned int i,
			    unsigned int n)
{
	if (io->ures)
		(void)!copy_to_user(io->ures + i, io->s->res,
				    n * sizeof(*io->ures));
}

/* Is @iov's length a key length? (On the u64: no truncation.) */
static bool wq_iov_len_ok(const struct wq_iov *iov)
{
	return iov->len >= 1 && iov->len <= WQ_KEY_MAX;
}

/*
 * Read the keys of run [@run, @n) of chunk @c (next to each other in the
 * caller's memory, and so in @buf, its buffer) in one copy; if that
 * faults, key by key, dropping each that faults (-EFAULT in @res).
 * Return: the chunk's keys read: @run and the run's that were.
 */
static unsigned int wq_run_read(const struct wq_iov *iov,
				struct wq_keys_chunk *c, int *res, u8 *buf,
				unsigned int run, unsigned int n)
{
	const struct kwq_keyref *last = &c->refs[n - 1];
	size_t from = (const u8 *)c->refs[run].data - buf;
	size_t to = (const u8 *)last->data + last->len - buf;
	unsigned int k, w = run;

	if (!copy_from_user(buf + from, u64_to_user_ptr(iov[c->idx[run]].base),
			    to - from))
		return n;
	for (k = run; k < n; k++) {
		from = (const u8 *)c->refs[k].data - buf;
		if (copy_from_user(buf + from,
				   u64_to_user_ptr(iov[c->idx[k]].base),
				   c->refs[k].len)) {
			res[c->idx[k]] = -EFAULT;
			continue;
		}
		c->refs[w] = c->refs[k];
		c->idx[w++] = c->idx[k];
	}
	return w;
}

/*
 * Read the keys of the chunk that starts at entry *@pi of @iov (of
 * @count) into @buf: KWQ_BATCH entries at most, up to the first key that
 * does not fit in @buf (the first always does); *@pi is moved past it. A
 * bad entry gets its result in @res and is skipped. Keys next to each
 * other in the caller's memory (as GET_BATCH leaves them) are read in one
 * copy: a copy's checks cost more than a short key's bytes.
 * Return: the keys read, in @c's refs (hash 0) and idx.
 */
static unsigned int wq_chunk_read(const struct wq_iov *iov, unsigned int count,
				  unsigned int *pi, struct wq_keys_chunk *c,
				  int *res, u8 *buf)
{
	unsigned int i = *pi, n = 0, run = 0;
	const struct wq_iov *chunk = iov + i;
	size_t off = 0;
	u64 end = 0;	/* where the run's last key ends in user memory */

	for (; i < count && i - *pi < KWQ_BATCH; i++) {
		const struct wq_iov *v = &iov[i];

		if (!wq_iov_len_ok(v)) {
			res[i - *pi] = -EINVAL;
			continue;
		}
		if (off + v->len > WQ_BATCH_BUF)
			break;
		if (n > run && v->base != end) {
			n = wq_run_read(chunk, c, res, buf, run, n);
			run = n;
		}
		c->refs[n].data = buf + off;
		c->refs[n].len = v->len;
		c->refs[n].hash = 0;
		c->idx[n++] = i - *pi;
		off += v->len;
		end = v->base + v->len;
	}
	if (n > run)
		n = wq_run_read(chunk, c, res, buf, run, n);
	*pi = i;
	return n;
}

/*
 * ADD_BATCH and DONE_BATCH: each chunk of keys read into the scratch, then
 * added or done in order (kwq_add_many(), kwq_queue_done()).
 */
static long wq_batch_keys(struct wq_handle *h, struct kwq *q,
			  const struct wq_batch *b, bool add)
{
	const struct kwq_add_batch ab = {
		.unlimited = h->unlimited,
		.outcomes = b->flags & WQ_ADD_OUTCOME,
		.prio = b->priority,
		.gfp = WQ_GFP_KEYS,
	};
	unsigned int i = 0, ok = 0;
	struct wq_keys_chunk *c;
	struct wq_batch_io io;
	int *res;
	long ret;
	u8 *buf;

	ret = wq_batch_io_in(q, b, add, &io);
	if (ret)
		return ret;
	c = &io.s->keys;
	res = io.s->res;
	buf = io.s->buf;
	while (i < b->count) {
		unsigned int j, first = i, n;
		int *out;

		n = wq_chunk_read(io.iov, b->count, &i, c, res, buf);
		/* none dropped: each key's result goes straight to its place */
		out = n == i - first ? res : c->res;
		/* DONE's hashes: by kwq_queue_done(), if needed */
		for (j = 0; add && j < n; j++)
			c->refs[j].hash = kwq_record_hash(q, c->refs[j].data,
							  c->refs[j].len);
		if (n && add)
			ok += kwq_add_many(q, c->refs, out, c->items, n, &ab);
		else if (n)
			ok += kwq_queue_done(q, &h->holder, c->refs, out, n);
		for (j = 0; out != res && j < n; j++)
			res[c->idx[j]] = c->res[j];
		wq_batch_io_out(&io, first, i - first);
	}
	wq_batch_io_free(&io);
	return ok;
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

/*
 * Deliver a chunk: its keys to @ubuf, their places to @ukeys, their
 * priorities to @uprios (if not NULL). If a copy faults, the chunk's keys
 * go back to the head of the queue, in their order and in one hold of its
 * lock, and the call stops there.
 * Return: the bytes of the keys delivered, or -EFAULT.
 */
static long wq_take_deliver(struct kwq *q, struct kwq_take *t,
			    struct wq_take_chunk *c, u8 __user *ubuf,
			    struct wq_iov __user *ukeys, s32 __user *uprios)
{
	size_t off = 0;
	u32 i;

	for (i = 0; i < t->taken; i++) {
		c->iov[i].base = (u64)(uintptr_t)(ubuf + off);
		c->iov[i].len = c->lens[i];
		off += c->lens[i];
	}
	if (!copy_to_user(ubuf, t->buf, off) &&
	    !copy_to_user(ukeys, c->iov, t->taken * sizeof(c->iov[0])) &&
	    (!uprios ||
	     !copy_to_user(uprios, c->prios, t->taken * sizeof(c->prios[0]))))
		return off;
	for (i = 0, off = 0; i < t->taken; off += c->lens[i++]) {
		c->refs[i].data = t->buf + off;
		c->refs[i].len = c->lens[i];
		c->refs[i].hash = kwq_record_hash(q, t->buf + off, c->lens[i]);
	}
	kwq_queue_unget_many(q, c->refs, c->gens, t->taken);
	return -EFAULT;
}

/*
 * Is the array of @n entries of @size bytes at @base writable? Each page
 * of it is written by zeroing one whole entry: the first, then the one
 * holding the page's first byte (GET may zero entries it does not fill,
 * but not change them otherwise). 0 or -EFAULT.
 */
static int wq_probe_entries(void __user *base, size_t n, size_t size)
{
	unsigned long start = (unsigned long)base, end = start + n * size;
	unsigned long p;

	if (!access_ok(base, n * size))
		return -EFAULT;
	for (p = start; p < end; p = PAGE_ALIGN(p + 1)) {
		unsigned long e = start + (p - start) / size * size;

		if (clear_user((void __user *)e, size))
			return -EFAULT;
	}
	return 0;
}

/* The fields of a GET_BATCH, checked: 0 and its deadline, or -errno. */
static int wq_get_batch_check(const struct wq_batch *b, ktime_t *deadline)
{
	if ((b->flags & ~(WQ_GET_NONBLOCK | WQ_GET_DETACH)) || !b->count ||
	    b->count > WQ_BATCH_MAX || b->priority || b->reserved ||
	    wq_deadline(b->deadline_ns, deadline))
		return -EINVAL;
	if (!access_ok(u64_to_user_ptr(b->keys),
		       (size_t)b->count * sizeof(struct wq_iov)) ||
	    (b->results && !access_ok(u64_to_user_ptr(b->results),
				      (size_t)b->count * sizeof(s32))))
		return -EFAULT;
	return 0;
}

/* GET_BATCH of @b, checked (wq_get_batch_check(), @deadline its). */
static long wq_get_batch(struct wq_handle *h, struct kwq *q,
			 const struct wq_batch *b, ktime_t deadline)
{
	struct kwq_holder *holder = &h->holder;
	u8 __user *ubuf = u64_to_user_ptr(b->buf);
	struct wq_iov __user *ukeys = u64_to_user_ptr(b->keys);
	s32 __user *uprios = u64_to_user_ptr(b->results);
	unsigned int flags = 0;
	struct wq_take_chunk *c;
	struct wq_scratch *s;
	u64 off = 0, cap;
	u32 total = 0, n;
	long ret;

	/* an O_NONBLOCK file never sleeps: -EAGAIN (uapi: struct wq_get) */
	if ((b->flags & WQ_GET_NONBLOCK) || (h->file->f_flags & O_NONBLOCK))
		flags |= KWQ_GET_NONBLOCK;
	if (b->flags & WQ_GET_DETACH)
		holder = NULL;
	cap = min_t(u64, b->buf_cap, WQ_BATCH_BUF);
	s = wq_scratch_get();
	if (!s)
		return -ENOMEM;
	c = &s->take;
	/*
	 * The first chunk's part of @keys (and @results), out-only, is
	 * probed before the wait: an unwritable one fails now, not after its
	 * keys were taken (they would go back, but a get would have been
	 * observed); an entry across a writable and an unwritable page may
	 * be left partly cleared, as the uapi allows. A bad entry past the
	 * first chunk, a bad @buf, or @keys unmapped meanwhile by another
	 * thread are still found at delivery, as documented.
	 */
	n = min_t(u32, b->count, KWQ_BATCH);
	ret = -EFAULT;
	if (wq_probe_entries(ukeys, n, sizeof(*ukeys)) ||
	    (uprios && wq_probe_entries(uprios, n, sizeof(*uprios))))
		goto out;

	while (total < b->count) {
		struct kwq_take t = {
			.holder = holder, .buf = s->buf,
			.cap = min_t(u64, cap, b->buf_cap - off),
			.n = min_t(u32, b->count - total, KWQ_BATCH),
			.lens = c->lens, .gens = c->gens, .prios = c->prios,
		};

		ret = kwq_queue_take(q, &t, deadline, flags);
		if (ret)
			break;
		ret = wq_take_deliver(q, &t, c, ubuf + off, ukeys + total,
				      uprios ? uprios + total : NULL);
		if (ret < 0)
			break;
		off += ret;
		total += t.taken;
		flags |= KWQ_GET_NONBLOCK;	/* only the first key waits */
	}
	if (total)
		ret = total;
out:
	wq_scratch_put(s);
	return ret;
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
	ktime_t deadline;

	return wq_get_batch_check(arg, &deadline) ?:
	       wq_get_batch(h, q, arg, deadline);
}

/**
 * wq_ioc_done_get_batch() - WQ_IOC_DONE_GET_BATCH: Done of each key, then
 * Get of up to count keys
 * @h: the handle
 * @q: its queue
 * @arg: the struct wq_done_get_batch
 * @uarg: the caller's struct: the Done's fields are zeroed once it is made
 *
 * Return: as wq_ioc_get_batch(), or an error of the Done call itself.
 */
long wq_ioc_done_get_batch(struct wq_handle *h, struct kwq *q, void *arg,
			   void __user *uarg)
{
	struct wq_done_get_batch *d = arg;
	struct wq_batch done = {
		.count = d->n_done,
		.keys = d->done_keys,
		.results = d->done_results,
	};
	ktime_t deadline;
	long ret;

	/* every field first: a bad call ends nothing */
	if (d->reserved || d->n_done > WQ_BATCH_MAX ||
	    (!d->n_done && (d->done_keys || d->done_results)))
		return -EINVAL;
	ret = wq_get_batch_check(&d->get, &deadline);
	if (ret)
		return ret;
	if (d->n_done) {
		struct wq_done_get_batch __user *ud = uarg;

		ret = wq_batch_keys(h, q, &done, false);
		if (ret < 0)
			return ret;
		/*
		 * Made: a restarted call (a signal, a stop) only gets; a
		 * struct another thread took away since ends the call, not
		 * failing: 0 (see wq_ioc_done_get()).
		 */
		if (ud && (put_user(0ULL, &ud->done_keys) ||
			   put_user(0U, &ud->n_done) ||
			   put_user(0ULL, &ud->done_results)))
			return 0;
	}
	/* after the Dones, keys that could not be delivered: 0, as DONE_GET */
	ret = wq_get_batch(h, q, &d->get, deadline);
	return ret == -EFAULT && d->n_done ? 0 : ret;
}
