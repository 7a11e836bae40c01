// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libwq: Go-style durations and rate-limiter specs (libwq(3),
 * "Rate-limiter specs"), parsed into the ABI's struct wq_limiter. The kernel
 * validates the result again; this is where users get their -EINVAL.
 *
 * Grammar:  spec := term ("," term)*
 *           term := "none" | "default" | "exponential:" D ":" D
 *                 | "bucket:" QPS ":" BURST | "fastslow:" D ":" D ":" N
 *                 | "maxwait:" D
 * D is a Go duration ("250ns", "100us", "5ms", "1.5s", "2m", "1h30m");
 * QPS a decimal number > 0 with up to 9 fractional digits, kept as events
 * per 10^9 seconds; BURST and N are integers (BURST >= 1).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "wq.h"
#include "wq_internal.h"

#define DURATION_MAX	((uint64_t)INT64_MAX)	/* as Go's time.Duration */

static const struct {
	const char *name;
	uint64_t ns;
} wq_units[] = {	/* a unit is its longest match: "ms" is not "m" */
	{ "ns", 1 }, { "us", 1000 }, { "\xc2\xb5s", 1000 }, { "ms", 1000000 },
	{ "s", WQ_NSEC_PER_SEC }, { "m", 60 * WQ_NSEC_PER_SEC },
	{ "h", 3600 * WQ_NSEC_PER_SEC },
};

/* Parses [0-9]+(.[0-9]*)? or .[0-9]+ into int and fraction/scale. */
static const char *wq_parse_decimal(const char *s, uint64_t *ip, uint64_t *fp,
				    uint64_t *scalep)
{
	uint64_t i = 0, f = 0, scale = 1;
	int digits = 0, fdigits = 0;

	for (; *s >= '0' && *s <= '9'; s++, digits++) {
		if (i > (UINT64_MAX - 9) / 10)
			return NULL;
		i = i * 10 + (uint64_t)(*s - '0');
	}
	if (*s == '.') {
		for (s++; *s >= '0' && *s <= '9'; s++, fdigits++) {
			if (scale > UINT64_MAX / 100)
				continue;	/* beyond ns precision: drop */
			f = f * 10 + (uint64_t)(*s - '0');
			scale *= 10;
		}
	}
	if (!digits && !fdigits)
		return NULL;
	*ip = i;
	*fp = f;
	*scalep = scale;
	return s;
}

/* Parses one Go duration from s (NULL passes through); returns the end. */
static const char *wq_duration(const char *s, uint64_t *ns)
{
	uint64_t total = 0;

	if (!s)
		return NULL;
	if (s[0] == '0' && (s[1] == '\0' || s[1] == ':' || s[1] == ',')) {
		*ns = 0;
		return s + 1;
	}
	do {
		uint64_t i, f, scale, unit = 0, v;
		unsigned __int128 frac;
		size_t u, ulen = 0;

		s = wq_parse_decimal(s, &i, &f, &scale);
		if (!s)
			return NULL;
		for (u = 0; u < sizeof(wq_units) / sizeof(wq_units[0]); u++) {
			size_t n = strlen(wq_units[u].name);

			if (n > ulen && !strncmp(s, wq_units[u].name, n)) {
				unit = wq_units[u].ns;
				ulen = n;
			}
		}
		if (!unit)
			return NULL;
		s += ulen;
		if (i > DURATION_MAX / unit)
			return NULL;
		frac = (unsigned __int128)f * unit / scale;
		v = i * unit + (uint64_t)frac;
		if (v > DURATION_MAX || total > DURATION_MAX - v)
			return NULL;
		total += v;
	} while ((*s >= '0' && *s <= '9') || *s == '.');
	*ns = total;
	return s;
}

int wq_parse_duration(const char *s, uint64_t *ns)
{
	uint64_t v;
	const char *end;

	if (!s || !ns)
		return -EINVAL;
	end = wq_duration(s, &v);
	if (!end || *end)
		return -EINVAL;
	*ns = v;
	return 0;
}

/* Exact form in the largest unit that divides the duration. */
int wq_format_duration(char *buf, size_t cap, uint64_t ns)
{
	static const struct {
		const char *name;
		uint64_t ns;
	} units[] = {
		{ "h", 3600 * WQ_NSEC_PER_SEC }, { "m", 60 * WQ_NSEC_PER_SEC },
		{ "s", WQ_NSEC_PER_SEC }, { "ms", 1000000 }, { "us", 1000 },
	};
	size_t u;
	int n;

	if (!ns)
		return snprintf(buf, cap, "0s");
	for (u = 0; u < sizeof(units) / sizeof(units[0]); u++)
		if (ns % units[u].ns == 0)
			break;
	if (u < sizeof(units) / sizeof(units[0]))
		n = snprintf(buf, cap, "%llu%s",
			     (unsigned long long)(ns / units[u].ns),
			     units[u].name);
	else
		n = snprintf(buf, cap, "%lluns", (unsigned long long)ns);
	return n < 0 ? -EINVAL : n;
}

static const char *wq_uint(const char *s, uint64_t max, uint64_t *v)
{
	uint64_t x = 0;
	const char *p = s;

	for (; *p >= '0' && *p <= '9'; p++) {
		x = x * 10 + (uint64_t)(*p - '0');
		if (x > max)
			return NULL;
	}
	if (p == s)
		return NULL;
	*v = x;
	return p;
}

/* QPS as events per 10^9 seconds (9 fractional digits, exact). */
static const char *wq_qps(const char *s, uint64_t *rate)
{
	uint64_t i, f, scale;

	s = wq_parse_decimal(s, &i, &f, &scale);
	if (!s || scale > WQ_NSEC_PER_SEC || i > UINT64_MAX / WQ_NSEC_PER_SEC / 2)
		return NULL;
	*rate = i * WQ_NSEC_PER_SEC + f * (WQ_NSEC_PER_SEC / scale);
	return *rate ? s : NULL;
}

static const char *wq_expect(const char *s, char c)
{
	return s && *s == c ? s + 1 : NULL;
}

static int wq_add_term(struct wq_limiter *lim,
		       const struct wq_limiter_term *term)
{
	if (lim->nr_terms >= WQ_LIMITER_TERMS_MAX)
		return -EINVAL;
	lim->terms[lim->nr_terms++] = *term;
	return 0;
}

/* One term starting at s; returns the end or NULL. */
static const char *wq_term(const char *s, struct wq_limiter *lim)
{
	struct wq_limiter_term t = { 0 };
	uint64_t a = 0, b = 0, n = 0;
	size_t len = strcspn(s, ":,");

#define IS(word) (len == strlen(word) && !strncmp(s, word, len))
	if (IS("none"))
		return s + len;
	if (IS("default")) {
		static const struct wq_limiter def = WQ_LIMITER_DEFAULT_INIT;
		uint32_t i;

		for (i = 0; i < def.nr_terms; i++)
			if (wq_add_term(lim, &def.terms[i]))
				return NULL;
		return s + len;
	}
	if (IS("exponential")) {
		s = wq_duration(wq_expect(s + len, ':'), &a);
		s = wq_duration(wq_expect(s, ':'), &b);
		t.kind = WQ_LIMITER_EXPONENTIAL;
		t.exponential.base_ns = a;
		t.exponential.max_ns = b;
		return s && !wq_add_term(lim, &t) ? s : NULL;
	}
	if (IS("bucket")) {
		s = wq_expect(s + len, ':');
		s = s ? wq_qps(s, &a) : NULL;
		s = s ? wq_uint(wq_expect(s, ':') ?: "", UINT32_MAX, &b) : NULL;
		t.kind = WQ_LIMITER_BUCKET;
		t.bucket.rate = a;
		t.bucket.burst = b;
		return s && b && !wq_add_term(lim, &t) ? s : NULL;
	}
	if (IS("fastslow")) {
		s = wq_duration(wq_expect(s + len, ':'), &a);
		s = wq_duration(wq_expect(s, ':'), &b);
		s = s ? wq_uint(wq_expect(s, ':') ?: "", UINT32_MAX, &n) : NULL;
		t.kind = WQ_LIMITER_FASTSLOW;
		t.count = (uint32_t)n;
		t.fastslow.fast_ns = a;
		t.fastslow.slow_ns = b;
		return s && !wq_add_term(lim, &t) ? s : NULL;
	}
	if (IS("maxwait")) {
		s = wq_duration(wq_expect(s + len, ':'), &a);
		t.kind = WQ_LIMITER_MAXWAIT;
		t.maxwait.max_ns = a;
		return s && !wq_add_term(lim, &t) ? s : NULL;
	}
#undef IS
	return NULL;
}

int wq_limiter_parse(const char *spec, struct wq_limiter *lim)
{
	const char *s = spec;

	if (!spec || !lim)
		return -EINVAL;
	memset(lim, 0, sizeof(*lim));
	for (;;) {
		s = wq_term(s, lim);
		if (!s)
			return -EINVAL;
		if (*s == '\0')
			return 0;
		if (*s++ != ',')
			return -EINVAL;
	}
}

int wq_limiter_check(const char *spec)
{
	struct wq_limiter lim;

	return wq_limiter_parse(spec, &lim);
}

static int wq_format_qps(char *buf, size_t cap, uint64_t rate)
{
	uint64_t i = rate / WQ_NSEC_PER_SEC, f = rate % WQ_NSEC_PER_SEC;
	int digits = 9;

	if (!f)
		return snprintf(buf, cap, "%llu", (unsigned long long)i);
	while (f % 10 == 0) {
		f /= 10;
		digits--;
	}
	return snprintf(buf, cap, "%llu.%0*llu", (unsigned long long)i, digits,
			(unsigned long long)f);
}

int wq_limiter_format(const struct wq_limiter *lim, char *buf, size_t cap)
{
	char a[32], b[32];
	size_t used = 0;
	uint32_t i;

	if (!cap)
		return -EINVAL;
	buf[0] = '\0';
	if (!lim->nr_terms)
		return snprintf(buf, cap, "none");
	for (i = 0; i < lim->nr_terms && i < WQ_LIMITER_TERMS_MAX; i++) {
		const struct wq_limiter_term *t = &lim->terms[i];
		const char *sep = i ? "," : "";
		int n;

		switch (t->kind) {
		case WQ_LIMITER_EXPONENTIAL:
			wq_format_duration(a, sizeof(a), t->exponential.base_ns);
			wq_format_duration(b, sizeof(b), t->exponential.max_ns);
			n = snprintf(buf + used, cap - used,
				     "%sexponential:%s:%s", sep, a, b);
			break;
		case WQ_LIMITER_BUCKET:
			wq_format_qps(a, sizeof(a), t->bucket.rate);
			n = snprintf(buf + used, cap - used, "%sbucket:%s:%llu",
				     sep, a, (unsigned long long)t->bucket.burst);
			break;
		case WQ_LIMITER_FASTSLOW:
			wq_format_duration(a, sizeof(a), t->fastslow.fast_ns);
			wq_format_duration(b, sizeof(b), t->fastslow.slow_ns);
			n = snprintf(buf + used, cap - used,
				     "%sfastslow:%s:%s:%u", sep, a, b, t->count);
			break;
		case WQ_LIMITER_MAXWAIT:
			wq_format_duration(a, sizeof(a), t->maxwait.max_ns);
			n = snprintf(buf + used, cap - used, "%smaxwait:%s",
				     sep, a);
			break;
		default:
			n = snprintf(buf + used, cap - used, "%s?", sep);
			break;
		}
		if (n < 0 || (size_t)n >= cap - used)
			return -ENOSPC;
		used += (size_t)n;
	}
	return (int)used;
}
