// SPDX-License-Identifier: GPL-2.0
/*
 * wqctl: JSON output (--json, -o json), as `ip -j` and `lsipc --json`
 * print it: one document on stdout, one line, then a newline. The writer
 * keeps the commas: each value or key says whether one goes before it.
 * Numbers are unsigned or signed 64-bit integers, written in full.
 */
#include <inttypes.h>
#include <string.h>

#include "wqctl.h"

/* Nesting deeper than this is a bug of wqctl's, never of its input. */
#define JSON_DEPTH	8

static struct {
	int depth;
	bool first[JSON_DEPTH];		/* no value yet at this depth */
	bool after_key;			/* a key was written: no comma */
} js;

static void sep(void)
{
	if (js.after_key) {
		js.after_key = false;
		return;
	}
	if (js.depth > 0 && !js.first[js.depth - 1])
		putchar(',');
	if (js.depth > 0)
		js.first[js.depth - 1] = false;
}

static void open_(char ch)
{
	sep();
	putchar(ch);
	if (js.depth < JSON_DEPTH)
		js.first[js.depth] = true;
	js.depth++;
}

static void close_(char ch)
{
	js.depth--;
	putchar(ch);
	if (js.depth == 0)
		putchar('\n');
}

void json_object(void) { open_('{'); }
void json_end_object(void) { close_('}'); }
void json_array(void) { open_('['); }
void json_end_array(void) { close_(']'); }

/* A string, escaped as RFC 8259 asks (bytes >= 0x80 as they are). */
void json_string(const char *s)
{
	sep();
	putchar('"');
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p == '"' || *p == '\\')
			printf("\\%c", *p);
		else if (*p == '\n')
			fputs("\\n", stdout);
		else if (*p == '\t')
			fputs("\\t", stdout);
		else if (*p < 0x20)
			printf("\\u%04x", *p);
		else
			putchar(*p);
	}
	putchar('"');
}

void json_key(const char *k)
{
	json_string(k);
	putchar(':');
	js.after_key = true;
}

void json_u64(const char *k, uint64_t v)
{
	json_key(k);
	sep();
	printf("%" PRIu64, v);
}

void json_s64(const char *k, int64_t v)
{
	json_key(k);
	sep();
	printf("%" PRId64, v);
}

void json_bool(const char *k, bool v)
{
	json_key(k);
	sep();
	fputs(v ? "true" : "false", stdout);
}

void json_str(const char *k, const char *v)
{
	json_key(k);
	json_string(v);
}

void json_null(const char *k)
{
	json_key(k);
	sep();
	fputs("null", stdout);
}
