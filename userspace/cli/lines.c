// SPDX-License-Identifier: GPL-2.0
/*
 * wqctl: keys from standard input, one a line ("wqctl add NAME" without
 * KEY arguments), handed on in batches of up to WQ_BATCH_MAX. A batch goes
 * out when it is full or when no more input is ready, so the keys of a
 * slow producer ("tail -f log | wqctl add q") are not held back until a
 * thousand have come. A line is a key's bytes as they are, or C-escaped
 * with --escaped (as get prints keys); a bad line (empty, too long, a bad
 * escape) is reported with its number and the others go on.
 */
#include <errno.h>
#include <poll.h>
#include <string.h>
#include <unistd.h>

#include "wqctl.h"

/* The longest line: a key of WQ_KEY_MAX bytes, each escaped as \xNN. */
#define LINE_MAX_LEN	(4 * WQ_KEY_MAX)
#define READ_BUF_SIZE	(16 * LINE_MAX_LEN)
/* The bytes of one batch's keys; it is sent before it could overflow. */
#define ARENA_SIZE	(256 * WQ_KEY_MAX)

struct reader {
	char buf[READ_BUF_SIZE];
	size_t start, end;	/* unread input: buf[start..end) */
	bool eof;
	bool skipping;		/* in an overlong line, up to its newline */
	long line;		/* the number of the line at buf[start] */
};

struct gather {
	struct key_batch b;
	char arena[ARENA_SIZE];	/* the bytes of b's keys */
	size_t used;
	char text[LINE_MAX_LEN + 1];	/* --escaped: the line, NUL-ended */
};

/* Whether fd 0 has input now (then no batch is sent before reading it). */
static bool input_ready(void)
{
	struct pollfd p = { .fd = 0, .events = POLLIN };

	return poll(&p, 1, 0) > 0;
}

/* One line into the batch; 1 if it is no key (reported), else 0. */
static int take_line(const struct ctx *c, struct gather *g, const char *p,
		     size_t len, long line)
{
	char *dst = g->arena + g->used;
	long n = (long)len;

	if (len > (has(c, O_ESCAPED) ? LINE_MAX_LEN : WQ_KEY_MAX)) {
		line_error(c, line, "key longer than %d bytes", WQ_KEY_MAX);
		return 1;
	}
	if (has(c, O_ESCAPED)) {
		memcpy(g->text, p, len);
		g->text[len] = '\0';
		n = unescape(g->text, dst);
		if (n < 0 || memchr(p, '\0', len)) {
			line_error(c, line, "bad escape (use \\\\, \\n, \\t, \\r, \\xNN)");
			return 1;
		}
	} else {
		memcpy(dst, p, len);
	}
	if (!wq_key_len_valid((size_t)n)) {
		if (n)
			line_error(c, line, "key longer than %d bytes", WQ_KEY_MAX);
		else
			line_error(c, line, "empty key");
		return 1;
	}
	g->b.keys[g->b.n].iov_base = dst;
	g->b.keys[g->b.n].iov_len = (size_t)n;
	g->b.line[g->b.n] = line;
	g->b.n++;
	g->used += (size_t)n;
	return 0;
}

/* Sends the batch gathered: send()'s count of failures, or -1. */
static long flush(const struct ctx *c, struct gather *g,
		  int (*send)(const struct ctx *, const struct key_batch *))
{
	int ret;

	if (!g->b.n)
		return 0;
	ret = send(c, &g->b);
	g->b.n = 0;
	g->used = 0;
	return ret;
}

/* Whether the batch must go before the next line is taken. */
static bool batch_full(const struct gather *g)
{
	return g->b.n == WQ_BATCH_MAX || g->used + LINE_MAX_LEN > ARENA_SIZE;
}

/* Takes the complete lines read; the count of bad ones, or -1. */
static long take_lines(const struct ctx *c, struct reader *r,
		       struct gather *g,
		       int (*send)(const struct ctx *, const struct key_batch *))
{
	long bad = 0, ret;
	char *nl;

	while ((nl = memchr(r->buf + r->start, '\n', r->end - r->start))) {
		size_t len = (size_t)(nl - (r->buf + r->start));

		if (r->skipping)
			r->skipping = false;	/* the overlong line ends */
		else
			bad += take_line(c, g, r->buf + r->start, len, r->line);
		r->start += len + 1;
		r->line++;
		if (batch_full(g)) {
			ret = flush(c, g, send);
			if (ret < 0)
				return -1;
			bad += ret;
		}
	}
	/* What is left is part of a line: too long to be a key? */
	if (r->end - r->start > LINE_MAX_LEN && !r->skipping) {
		line_error(c, r->line, "key longer than %d bytes", WQ_KEY_MAX);
		r->skipping = true;
		bad++;
	}
	if (r->skipping)
		r->start = r->end;
	memmove(r->buf, r->buf + r->start, r->end - r->start);
	r->end -= r->start;
	r->start = 0;
	return bad;
}

long read_key_lines(const struct ctx *c,
		    int (*send)(const struct ctx *c, const struct key_batch *b))
{
	static struct reader r = { .line = 1 };
	static struct gather g;
	long bad = 0, ret;

	while (!r.eof) {
		ssize_t n;

		ret = take_lines(c, &r, &g, send);
		if (ret < 0)
			return -1;
		bad += ret;
		if (g.b.n && !input_ready()) {
			ret = flush(c, &g, send);
			if (ret < 0)
				return -1;
			bad += ret;
		}
		n = read(0, r.buf + r.end, sizeof(r.buf) - r.end);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			fprintf(stderr, "wqctl: add %s: standard input: %s\n",
				c->args[0], strerror(errno));
			return -1;
		}
		if (n == 0) {		/* a last line without its newline */
			r.eof = true;
			if (r.end > r.start && !r.skipping)
				bad += take_line(c, &g, r.buf + r.start,
						 r.end - r.start, r.line);
		}
		r.end += (size_t)n;
	}
	ret = flush(c, &g, send);
	return ret < 0 ? -1 : bad + ret;
}
