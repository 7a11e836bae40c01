// SPDX-License-Identifier: GPL-2.0
/*
 * wq_fuzz: argument values, ordinary and hostile: user buffers in the
 * thread's arena (ordinary, at its guard page, straddling it) or bad
 * pointers, key lengths, deadlines, flags, names, limiters.
 */
#include "fuzz.h"


/* ---- values ------------------------------------------------------- */

/* [p, p + len) lies in the arena's accessible pages (no wrap-around) */
int in_arena(uint64_t p, uint64_t len)
{
	uint64_t a = (uint64_t)(uintptr_t)arena, e = (uint64_t)(uintptr_t)arena_end;

	return p >= a && p <= e && len <= e - p;
}

/* [a, a + al) and [b, b + bl) share no byte */
int apart(uint64_t a, uint64_t al, uint64_t b, uint64_t bl)
{
	return a + al <= b || b + bl <= a;
}

uint64_t bad_ptr(void)
{
	static const uint64_t kern[] = {
		0xffff888000000000ULL, 0xffffffff81000000ULL,
		0xffffffffffffffffULL, 0x8000000000000000ULL,
		0x00007ffffffff000ULL, 0xffffc90000000000ULL,
	};

	switch (rn(5)) {
	case 0: return 0;
	case 1: return UNMAPPED + rn(PAGE);
	case 2: return kern[rn(sizeof(kern) / sizeof(kern[0]))];
	case 3: return (uint64_t)(uintptr_t)arena_end + rn(PAGE);	/* PROT_NONE */
	default: return rnd();
	}
}

/* Half the arena's accessible bytes (uring.c's arenas are smaller). */
size_t arena_half(void)
{
	return (size_t)(arena_end - arena) / 2;
}

/* A user buffer of len bytes in the arena: ordinary, ending at the guard
 * page, or straddling into it (a few bytes). Sometimes a bad pointer. */
uint64_t place(size_t len, int hostile_pct)
{
	size_t off;

	if (chance(hostile_pct))
		return bad_ptr();
	if (len > arena_half())
		len = arena_half();
	switch (rn(4)) {
	case 0:
		return (uint64_t)(uintptr_t)(arena_end - len);
	case 1:
		off = 1 + rn(16);
		return (uint64_t)(uintptr_t)(arena_end - len + (off < len ? off : 0));
	default:
		off = rn((uint32_t)(arena_half() - len + 1));
		return (uint64_t)(uintptr_t)(arena + off);
	}
}

uint32_t key_len_val(void)
{
	static const uint32_t v[] = { 0, 1, 4096, 4097, 0x7fffffff, 0xffffffff,
				      65536 };

	return chance(70) ? 2 + rn(3) : v[rn(sizeof(v) / sizeof(v[0]))];
}

/* A key of the pool written at a user address; the pointer to use. */
uint64_t key_ptr(uint32_t len)
{
	uint64_t p, n = len;

	if (n > 8192)
		n = 8192;
	p = place(n + !n, 8);
	if (n && in_arena(p, n)) {
		memset((void *)(uintptr_t)p, 'a' + (int)rn(26), n);
		snprintf((char *)(uintptr_t)p, n, "k%u", rn(NKEYS));
	}
	return p;
}

uint64_t deadline(void)
{
	switch (rn(8)) {
	case 0: return 0;
	case 1: return now_ns() - rn(1000000);			/* past */
	case 2: return WQ_DEADLINE_NONE;
	case 3: return KTIME_MAX_NS + 1 + rn(1000);		/* > KTIME_MAX */
	case 4: return KTIME_MAX_NS;
	case 5: return rnd();
	default: return now_ns() + rn(2000000);		/* now + <2 ms */
	}
}

uint32_t flags_val(uint32_t valid)
{
	if (chance(60))
		return (uint32_t)rnd() & valid;
	if (chance(50))
		return 0;
	return chance(50) ? (uint32_t)rnd() : (1U << rn(32));
}

uint32_t reserved_val(void)
{
	return chance(85) ? 0 : (uint32_t)rnd() | 1;
}

void name_val(char *name)
{
	memset(name, 0, WQ_NAME_MAX);
	switch (rn(12)) {
	case 0: break;						/* empty */
	case 1: memset(name, 'x', WQ_NAME_MAX); break;		/* no NUL */
	case 2: strcpy(name, "kernel.fuzz"); break;
	case 3: strcpy(name, "a/b"); break;
	case 4: snprintf(name, WQ_NAME_MAX, "fuzz.%u", rn(1000)); break;
	case 5: strcpy(name, "fuzz.0"); name[10] = 'z'; break;	/* dirty tail */
	default: snprintf(name, WQ_NAME_MAX, "fuzz.%u", rn(NQUEUES)); break;
	}
}

void limiter_val(struct wq_limiter *l)
{
	static const struct wq_limiter def = WQ_LIMITER_DEFAULT_INIT;
	uint32_t i;

	switch (rn(4)) {
	case 0:
		*l = def;
		return;
	case 1:
		memset(l, 0, sizeof(*l));
		return;
	case 2:
		for (i = 0; i < sizeof(*l); i++)
			((unsigned char *)l)[i] = (unsigned char)rnd();
		l->nr_terms = rn(WQ_LIMITER_TERMS_MAX + 3);
		return;
	}
	memset(l, 0, sizeof(*l));
	l->nr_terms = 1 + rn(WQ_LIMITER_TERMS_MAX);
	l->reserved = reserved_val();
	for (i = 0; i < l->nr_terms; i++) {
		struct wq_limiter_term *t = &l->terms[i];

		t->kind = 1 + rn(chance(90) ? 4 : 8);
		t->count = t->kind == WQ_LIMITER_FASTSLOW ? rn(5) : reserved_val();
		t->exponential.base_ns = chance(80) ? rn(5000000) : rnd();
		t->exponential.max_ns = chance(80) ? rn(50000000) : rnd();
		if (t->kind == WQ_LIMITER_BUCKET && chance(80)) {
			t->bucket.rate = 1 + rn(100) * 1000000000ULL;
			t->bucket.burst = rn(200);
		}
		if (t->kind == WQ_LIMITER_MAXWAIT)
			t->maxwait.reserved = reserved_val();
	}
}
