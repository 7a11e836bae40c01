// SPDX-License-Identifier: GPL-2.0
/*
 * wqctl: keys as one line of text. A key is any bytes; get prints it as is
 * when it is printable ASCII, else C-escaped (\\, \n, \t, \r, \xNN), and
 * "--escaped" reads that form back. The two directions sit side by side
 * so that they stay each other's inverse.
 */
#include <stdbool.h>

#include "wqctl.h"

static bool byte_printable(unsigned char b)
{
	return b >= 0x20 && b < 0x7f;
}

static bool key_printable(const char *k, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (!byte_printable((unsigned char)k[i]))
			return false;
	return true;
}

/* The one-letter escapes: { byte, letter }, read both ways. */
static const char escapes[][2] = {
	{ '\\', '\\' }, { '\n', 'n' }, { '\t', 't' }, { '\r', 'r' },
};

#define NR_ESCAPES	(sizeof(escapes) / sizeof(escapes[0]))

/* The letter that escapes byte b, or 0 if it has none. */
static char escape_letter(unsigned char b)
{
	for (size_t i = 0; i < NR_ESCAPES; i++)
		if ((unsigned char)escapes[i][0] == b)
			return escapes[i][1];
	return 0;
}

/* The byte that letter escapes, or -1 if it is no escape. */
static int escaped_byte(char letter)
{
	for (size_t i = 0; i < NR_ESCAPES; i++)
		if (escapes[i][1] == letter)
			return (unsigned char)escapes[i][0];
	return -1;
}

/* A key on one line's worth of text, as the top of this file says. */
void put_key(FILE *f, const char *k, size_t len)
{
	if (key_printable(k, len)) {
		fwrite(k, 1, len, f);
		return;
	}
	for (size_t i = 0; i < len; i++) {
		unsigned char b = (unsigned char)k[i];
		char letter = escape_letter(b);

		if (letter) {
			fputc('\\', f);
			fputc(letter, f);
		} else if (byte_printable(b)) {
			fputc(b, f);
		} else {
			fprintf(f, "\\x%02x", b);
		}
	}
}

static int hex_digit(char ch)
{
	if (ch >= '0' && ch <= '9')
		return ch - '0';
	if (ch >= 'a' && ch <= 'f')
		return ch - 'a' + 10;
	if (ch >= 'A' && ch <= 'F')
		return ch - 'A' + 10;
	return -1;
}

/* Undoes put_key's escapes, in into out; the length, or -1 if malformed. */
long unescape(const char *in, char *out)
{
	const char *start = out;

	while (*in) {
		int b = (unsigned char)*in++;

		if (b == '\\' && *in == 'x') {
			int hi = hex_digit(in[1]);
			int lo = hi < 0 ? -1 : hex_digit(in[2]);

			if (lo < 0)
				return -1;
			b = hi << 4 | lo;
			in += 3;
		} else if (b == '\\') {
			b = escaped_byte(*in++);
			if (b < 0)
				return -1;
		}
		*out++ = (char)b;
	}
	return out - start;
}
