// SPDX-License-Identifier: GPL-2.0
/*
 * wq_json: checks that standard input is exactly one JSON document
 * (RFC 8259, then only whitespace), for wqctl's --json tests in a busybox
 * guest that has no JSON tool. With PATH arguments it prints the value
 * each names, one a line: keys and array indexes separated by '.'
 * ("queues.0.name"), "#" for an array's length or an object's member
 * count ("queues.#"); a string is printed unquoted (escapes decoded, but
 * \u as is), anything else as its JSON text.
 *
 *	wqctl list --json | wq_json queues.# queues.0.name
 *
 * Exit 0, 1 when the input is not one JSON document (said on stderr), 2
 * when a PATH names nothing.
 */
#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *in;	/* the document */
static size_t pos;
static char *found;		/* the value's text, once found */

static __attribute__((noreturn)) void die(const char *what)
{
	fprintf(stderr, "wq_json: %s at byte %zu\n", what, pos);
	exit(1);
}

static void ws(void)
{
	while (in[pos] == ' ' || in[pos] == '\t' || in[pos] == '\n' || in[pos] == '\r')
		pos++;
}

static void value(const char *path);

/* A string; its decoded text into out (may be NULL). */
static void string(char *out)
{
	size_t o = 0;

	if (in[pos++] != '"')
		die("expected a string");
	for (;;) {
		unsigned char ch = (unsigned char)in[pos++];

		if (ch == '"')
			break;
		if (ch < 0x20)
			die("control character in a string");
		if (ch == '\\') {
			ch = (unsigned char)in[pos++];
			if (ch == 'u') {
				for (int i = 0; i < 4; i++)
					if (!isxdigit((unsigned char)in[pos + i]))
						die("bad \\u escape");
				if (out)
					memcpy(out + o, in + pos - 2, 6);
				o += 6;
				pos += 4;
				continue;
			}
			if (!strchr("\"\\/bfnrt", ch))
				die("bad escape");
			ch = ch == 'n' ? '\n' : ch == 't' ? '\t' : ch == 'r' ? '\r' :
			     ch == 'b' ? '\b' : ch == 'f' ? '\f' : ch;
		}
		if (out)
			out[o] = (char)ch;
		o++;
	}
	if (out)
		out[o] = '\0';
}

static void number(void)
{
	if (in[pos] == '-')
		pos++;
	if (in[pos] == '0')
		pos++;
	else if (isdigit((unsigned char)in[pos]))
		while (isdigit((unsigned char)in[pos]))
			pos++;
	else
		die("bad number");
	if (in[pos] == '.') {
		pos++;
		if (!isdigit((unsigned char)in[pos]))
			die("bad fraction");
		while (isdigit((unsigned char)in[pos]))
			pos++;
	}
	if (in[pos] == 'e' || in[pos] == 'E') {
		pos++;
		if (in[pos] == '+' || in[pos] == '-')
			pos++;
		if (!isdigit((unsigned char)in[pos]))
			die("bad exponent");
		while (isdigit((unsigned char)in[pos]))
			pos++;
	}
}

/* Does path's next component equal name? Then the rest of it, else NULL. */
static const char *step(const char *path, const char *name)
{
	size_t len = strcspn(path ? path : "", ".");

	if (!path || strlen(name) != len || strncmp(path, name, len))
		return NULL;
	return path[len] ? path + len + 1 : "";
}

static void count(const char *path, long n)
{
	char buf[32];

	if (path && !strcmp(path, "#")) {
		snprintf(buf, sizeof(buf), "%ld", n);
		found = strdup(buf);
	}
}

static void members(const char *path, bool object)
{
	char close = object ? '}' : ']';
	long n = 0;

	pos++;
	ws();
	if (in[pos] == close) {
		pos++;
		count(path, 0);
		return;
	}
	for (;;) {
		char idx[32], *name = idx;

		ws();
		if (object) {
			size_t s0 = pos;

			if (in[pos] != '"')
				die("expected a member name");
			string(NULL);	/* decoded, a name is never longer */
			name = malloc(pos - s0 + 1);
			if (!name)
				die("out of memory");
			pos = s0;
			string(name);
			ws();
			if (in[pos++] != ':')
				die("expected ':'");
		} else {
			snprintf(idx, sizeof(idx), "%ld", n);
		}
		ws();
		value(step(path, name));
		if (name != idx)
			free(name);
		n++;
		ws();
		if (in[pos] == ',') {
			pos++;
			continue;
		}
		if (in[pos++] != close)
			die(object ? "expected ',' or '}'" : "expected ',' or ']'");
		break;
	}
	count(path, n);
}

static void value(const char *path)
{
	size_t start;

	ws();
	start = pos;
	switch (in[pos]) {
	case '{': members(path, true); break;
	case '[': members(path, false); break;
	case '"': string(NULL); break;
	case 't': if (strncmp(in + pos, "true", 4)) die("bad literal"); pos += 4; break;
	case 'f': if (strncmp(in + pos, "false", 5)) die("bad literal"); pos += 5; break;
	case 'n': if (strncmp(in + pos, "null", 4)) die("bad literal"); pos += 4; break;
	case '\0': die("unexpected end");
	default: number();
	}
	if (path && !*path && !found) {
		size_t len = pos - start;

		found = malloc(len + 1);
		if (!found)
			die("out of memory");
		if (in[start] == '"') {
			size_t save = pos;

			pos = start;
			string(found);
			pos = save;
		} else {
			memcpy(found, in + start, len);
			found[len] = '\0';
		}
	}
}

int main(int argc, char **argv)
{
	size_t cap = 1 << 16, len = 0, n;

	in = malloc(cap);
	while (in && (n = fread(in + len, 1, cap - len - 1, stdin)) > 0) {
		len += n;
		if (len + 1 == cap)
			in = realloc(in, cap *= 2);
	}
	if (!in)
		die("out of memory");
	in[len] = '\0';
	if (strlen(in) != len)
		die("a NUL byte");
	for (int i = argc > 1 ? 1 : 0; i < argc; i++) {
		pos = 0;
		found = NULL;
		value(i ? argv[i] : NULL);
		ws();
		if (in[pos])
			die("more than one document");
		if (i && !found) {
			fprintf(stderr, "wq_json: nothing at %s\n", argv[i]);
			return 2;
		}
		if (found)
			printf("%s\n", found);
		free(found);
	}
	return 0;
}
