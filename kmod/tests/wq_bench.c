// SPDX-License-Identifier: GPL-2.0
/*
 * Benchmark module of wq's kernel API, loaded by bench/guest (make bench)
 * and, with tiny counts, by the guest suite (selftests/bench-smoke.sh). It
 * runs at load and prints one line per measurement in the kernel log:
 *
 *   wq_bench: R <name> <value>	one repetition of a figure
 *   wq_bench: P <name> <value>	a profile counter (ns per operation)
 *   wq_bench: done		the last line
 *
 * Figures: an Add+Get+Done cycle of one key through the exported API
 * (kwq_add, kwq_try_get, kwq_done; and with kwq_get_held and
 * kwq_done_held, the worker's path by handle) against the floor the
 * issue names, a
 * spinlocked kfifo of key pointers with the copy (kmemdup + put + get +
 * kfree); the cost of an AddAfter insert and of a fire at 1,000 and at
 * 1,000,000 waiting keys. Profile counters: each call of the cycle timed
 * on its own, an add of a key already queued, a record-sized slab
 * alloc+free and a spin_lock_irqsave round trip. With nometrics_run=1,
 * only the cycle, for the metrics' cost: bench/guest loads wq with
 * metrics=N first. Benchmarks are not tests: nothing is asserted, the load fails
 * only if the API does.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/delay.h>
#include <linux/kfifo.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/random.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/spinlock.h>

#include <wq/kwq.h>

/*
 * A figure's size, set at load: the variable and parameter @name, a token
 * (checkpatch's MACRO_ARG_REUSE, about an expression's side effects, does
 * not apply).
 */
#define BENCH_PARAM(name, value, desc)					\
	static unsigned int name = value;				\
	module_param(name, uint, 0444);					\
	MODULE_PARM_DESC(name, desc)

BENCH_PARAM(iters, 200000, "Cycles per repetition (default 200000)");
BENCH_PARAM(reps, 5, "Repetitions of each figure (default 5)");
BENCH_PARAM(small, 1000, "Waiting keys of the small delay figure (default 1000)");
BENCH_PARAM(big, 1000000, "Waiting keys of the big delay figure (default 1000000)");
BENCH_PARAM(probes, 2000, "Inserts and fires timed per repetition (default 2000)");

static bool nometrics_run;
module_param(nometrics_run, bool, 0444);
MODULE_PARM_DESC(nometrics_run,
		 "Only the kwq cycle, printed as kwq_cycle_nometrics_ns (load wq with metrics=N first: the metrics' cost)");

#define BENCH_KEY_LEN	8

/* Key @i as BENCH_KEY_LEN bytes. */
static void bench_key(char *key, char tag, u32 i)
{
	snprintf(key, BENCH_KEY_LEN + 1, "%c%07u", tag, i % 10000000);
}

static struct kwq *bench_queue(u32 max_items)
{
	struct kwq_attr attr = { .max_items = max_items };

	return kwq_create(NULL, &attr);
}

/*
 * Add+Get+Done of one key, @n times: by its bytes (kwq_try_get, kwq_done)
 * or, @held, by handle (kwq_get_held, kwq_done_held); ns per cycle, or a
 * -errno.
 */
static s64 bench_kwq_cycle(struct kwq *q, unsigned int n, bool held)
{
	char key[BENCH_KEY_LEN + 1], buf[16];
	struct kwq_held h;
	unsigned int i;
	u64 t0;
	int ret;

	bench_key(key, 'c', 1);
	t0 = ktime_get_ns();
	for (i = 0; i < n; i++) {
		ret = kwq_add(q, key, BENCH_KEY_LEN, GFP_KERNEL);
		if (ret)
			return ret;
		if (held)
			ret = kwq_get_held(q, buf, sizeof(buf), 0, 0, &h);
		else
			ret = kwq_try_get(q, buf, sizeof(buf));
		if (ret != BENCH_KEY_LEN)
			return ret < 0 ? ret : -EIO;
		if (held)
			ret = kwq_done_held(q, &h);
		else
			ret = kwq_done(q, buf, BENCH_KEY_LEN);
		if (ret)
			return ret;
		if (!(i & 1023))
			cond_resched();
	}
	return div_u64(ktime_get_ns() - t0, n);
}

/* The floor: kmemdup + put + get + kfree through a spinlocked kfifo. */
static DEFINE_SPINLOCK(bench_fifo_lock);
static DEFINE_KFIFO(bench_fifo, void *, 64);

static s64 bench_kfifo_cycle(unsigned int n)
{
	char key[BENCH_KEY_LEN + 1], buf[16];
	unsigned long flags;
	unsigned int i, ok;
	void *p, *got;
	u64 t0;

	bench_key(key, 'c', 1);
	t0 = ktime_get_ns();
	for (i = 0; i < n; i++) {
		p = kmemdup(key, BENCH_KEY_LEN, GFP_KERNEL);
		if (!p)
			return -ENOMEM;
		spin_lock_irqsave(&bench_fifo_lock, flags);
		ok = kfifo_put(&bench_fifo, p);
		spin_unlock_irqrestore(&bench_fifo_lock, flags);
		spin_lock_irqsave(&bench_fifo_lock, flags);
		ok &= kfifo_get(&bench_fifo, &got);
		spin_unlock_irqrestore(&bench_fifo_lock, flags);
		if (!ok)
			return -EIO;
		memcpy(buf, got, BENCH_KEY_LEN);
		kfree(got);
		if (!(i & 1023))
			cond_resched();
	}
	return div_u64(ktime_get_ns() - t0, n);
}

/* Each call of the cycle timed on its own, less the clock's own cost. */
static int bench_profile(struct kwq *q, unsigned int n)
{
	char key[BENCH_KEY_LEN + 1], buf[16];
	u64 t0, t1, t2, t3, t4, clk = 0, add = 0, get = 0, done = 0, dup = 0;
	struct kmem_cache *cache;
	unsigned long flags;
	unsigned int i;
	void *obj;
	int ret;

	bench_key(key, 'p', 1);
	for (i = 0; i < n; i++) {
		t0 = ktime_get_ns();
		t1 = ktime_get_ns();
		clk += t1 - t0;
		t0 = ktime_get_ns();
		ret = kwq_add(q, key, BENCH_KEY_LEN, GFP_KERNEL);
		t1 = ktime_get_ns();
		ret = ret ?: kwq_add(q, key, BENCH_KEY_LEN, GFP_KERNEL);
		t2 = ktime_get_ns();
		if (ret)
			return ret;
		ret = kwq_try_get(q, buf, sizeof(buf));
		t3 = ktime_get_ns();
		if (ret != BENCH_KEY_LEN)
			return ret < 0 ? ret : -EIO;
		ret = kwq_done(q, buf, BENCH_KEY_LEN);
		t4 = ktime_get_ns();
		if (ret)
			return ret;
		add += t1 - t0;
		dup += t2 - t1;
		get += t3 - t2;
		done += t4 - t3;
		if (!(i & 1023))
			cond_resched();
	}
	clk = div_u64(clk, n);
	pr_info("P clock_pair_ns %llu\n", clk);
	pr_info("P kwq_add_new_key_ns %llu\n", div_u64(add, n) - clk);
	pr_info("P kwq_add_queued_key_ns %llu\n", div_u64(dup, n) - clk);
	pr_info("P kwq_try_get_ns %llu\n", div_u64(get, n) - clk);
	pr_info("P kwq_done_ns %llu\n", div_u64(done, n) - clk);

	get = 0;
	done = 0;
	for (i = 0; i < n; i++) {
		struct kwq_held h;

		ret = kwq_add(q, key, BENCH_KEY_LEN, GFP_KERNEL);
		t0 = ktime_get_ns();
		ret = ret ?: kwq_get_held(q, buf, sizeof(buf), 0, 0, &h);
		t1 = ktime_get_ns();
		if (ret != BENCH_KEY_LEN)
			return ret < 0 ? ret : -EIO;
		ret = kwq_done_held(q, &h);
		t2 = ktime_get_ns();
		if (ret)
			return ret;
		get += t1 - t0;
		done += t2 - t1;
		if (!(i & 1023))
			cond_resched();
	}
	pr_info("P kwq_get_held_ns %llu\n", div_u64(get, n) - clk);
	pr_info("P kwq_done_held_ns %llu\n", div_u64(done, n) - clk);

	/* What a record allocation and a lock round trip cost alone. */
	cache = kmem_cache_create("wq_bench_rec", 144, 0, 0, NULL);
	if (!cache)
		return -ENOMEM;
	t0 = ktime_get_ns();
	for (i = 0; i < n; i++) {
		obj = kmem_cache_zalloc(cache, GFP_KERNEL);
		if (!obj)
			break;
		kmem_cache_free(cache, obj);
	}
	t1 = ktime_get_ns();
	kmem_cache_destroy(cache);
	pr_info("P slab_alloc_free_144_ns %llu\n", div_u64(t1 - t0, n));
	t0 = ktime_get_ns();
	for (i = 0; i < n; i++) {
		spin_lock_irqsave(&bench_fifo_lock, flags);
		spin_unlock_irqrestore(&bench_fifo_lock, flags);
	}
	t1 = ktime_get_ns();
	pr_info("P spin_lock_irqsave_pair_ns %llu\n", div_u64(t1 - t0, n));
	return 0;
}

/* A random delay between one and two hours: never fires during a run. */
static u64 bench_far(void)
{
	return 3600ULL * NSEC_PER_SEC + get_random_u32() * 838ULL;
}

/*
 * AddAfter costs with @nr keys waiting: the insert of @probes more keys,
 * and the fire of @probes keys sharing one ready time (ns per key from
 * that time until the last is queued). Prints R lines with @label.
 */
static int bench_delay(unsigned int nr, const char *label)
{
	char key[BENCH_KEY_LEN + 1], buf[16];
	u64 t0, t1, ready, ins_total;
	unsigned int i, r, len;
	struct kwq *q;
	int ret = 0;

	q = bench_queue(nr + (reps + 1) * probes * 2 + 16);
	if (IS_ERR(q))
		return PTR_ERR(q);
	for (i = 0; i < nr; i++) {
		bench_key(key, 'w', i);
		ret = kwq_add_after(q, key, BENCH_KEY_LEN, bench_far(), GFP_KERNEL);
		if (ret)
			goto out;
		if (!(i & 1023))
			cond_resched();
	}
	for (r = 0; r < reps; r++) {
		t0 = ktime_get_ns();
		for (i = 0; i < probes; i++) {
			bench_key(key, 'i', r * probes + i);
			ret = kwq_add_after(q, key, BENCH_KEY_LEN, bench_far(),
					    GFP_KERNEL);
			if (ret)
				goto out;
		}
		ins_total = ktime_get_ns() - t0;
		pr_info("R delay_insert_%s_ns %llu\n", label,
			div_u64(ins_total, probes));

		/* One ready time, well after the last add. */
		t0 = ktime_get_ns();
		ready = t0 + 2 * ins_total + 20 * NSEC_PER_MSEC;
		for (i = 0; i < probes; i++) {
			u64 now = ktime_get_ns();

			bench_key(key, 'f', r * probes + i);
			/* 0 (at once) if the inserts took longer than planned */
			ret = kwq_add_after(q, key, BENCH_KEY_LEN,
					    ready > now ? ready - now : 0,
					    GFP_KERNEL);
			if (ret)
				goto out;
		}
		while ((len = kwq_len(q)) < probes && ktime_get_ns() < ready + 10 * NSEC_PER_SEC)
			usleep_range(20, 40);
		t1 = ktime_get_ns();
		if (len < probes || t1 < ready) {
			ret = -ETIMEDOUT;
			goto out;
		}
		pr_info("R delay_fire_%s_ns %llu\n", label,
			div_u64(t1 - ready, probes));
		while (kwq_try_get(q, buf, sizeof(buf)) == BENCH_KEY_LEN) {
			ret = kwq_done(q, buf, BENCH_KEY_LEN);
			if (ret)
				goto out;
		}
	}
out:
	kwq_shutdown(q);
	kwq_put(q);
	return ret;
}

static int __init wq_bench_init(void)
{
	unsigned int r;
	struct kwq *q;
	s64 a, b, h;
	int ret = 0;

	if (!iters || !reps || !probes)
		return -EINVAL;
	q = bench_queue(0);
	if (IS_ERR(q))
		return PTR_ERR(q);
	for (r = 0; r < reps && !ret && nometrics_run; r++) {
		a = bench_kwq_cycle(q, iters, false);
		if (a < 0)
			ret = a;
		else
			pr_info("R kwq_cycle_nometrics_ns %lld\n", a);
	}
	for (r = 0; r < reps && !ret && !nometrics_run; r++) {
		a = bench_kwq_cycle(q, iters, false);
		h = bench_kwq_cycle(q, iters, true);
		b = bench_kfifo_cycle(iters);
		if (a < 0 || h < 0 || b < 0) {
			ret = a < 0 ? a : h < 0 ? h : b;
			break;
		}
		pr_info("R kwq_cycle_ns %lld\n", a);
		pr_info("R kwq_held_cycle_ns %lld\n", h);
		pr_info("R kfifo_cycle_ns %lld\n", b);
	}
	if (!ret && !nometrics_run)
		ret = bench_profile(q, iters / 4 ?: 1);
	kwq_shutdown(q);
	kwq_put(q);
	if (!ret && !nometrics_run)
		ret = bench_delay(small, "small");
	if (!ret && !nometrics_run)
		ret = bench_delay(big, "big");
	if (ret)
		pr_err("failed: %d\n", ret);
	else
		pr_info("done\n");
	return ret;
}

static void __exit wq_bench_exit(void)
{
}

module_init(wq_bench_init);
module_exit(wq_bench_exit);
MODULE_IMPORT_NS(WQ_NS);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Benchmark of wq's kernel API");
