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

/*
 * Writes a key on one line's worth of text: as is when every byte is
 * printable ASCII, else C-escaped (\\, \n, \t, \r, \xNN), which
 * "--escaped" reads back.
 */
void put_key(FILE *f, const char *k, size_t len)
{
	if (key_printable(k, len)) {
		fwrite(k, 1, len, f);
		return;
	}
	for (size_t i = 0; i < len; i++) {
		unsigned char b = (unsigned char)k[i];

		if (b == '\\')
			fputs("\\\\", f);
		else if (b == '\n')
			fputs("\\n", f);
		else if (b == '\t')
			fputs("\\t", f);
		else if (b == '\r')
			fputs("\\r", f);
		else if (byte_printable(b))
			fputc(b, f);
		else
			fprintf(f, "\\x%02x", b);
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

/* The byte of a one-letter escape (\\ \n \t \r), or -1. */
static int escaped_byte(char ch)
{
	switch (ch) {
	case '\\':
		return '\\';
	case 'n':
		return '\n';
	case 't':
		return '\t';
	case 'r':
		return '\r';
	}
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
