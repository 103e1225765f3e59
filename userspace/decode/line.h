/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Output lines built in memory and written with one fwrite() a buffer
 * full: the listings print millions of lines, and printf's format
 * parsing, then an fwrite() per line, cost more than decoding the
 * trace. Text longer than the room left (a long C++ symbol, a path)
 * flushes what is there and goes out directly. Whoever else writes the
 * stream flushes first.
 */
#ifndef JIFL_DECODE_LINE_H
#define JIFL_DECODE_LINE_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>

struct jifl_line {
	FILE *out;
	size_t len;
	size_t size;
	char *buf;
	unsigned long flushes;	/* buf[start, len) is intact while this is the same */
};

/* The printer's thread alone writes its stream: no stdio lock. */
static inline void jifl_line_flush(struct jifl_line *l)
{
	if (l->len)
		fwrite_unlocked(l->buf, 1, l->len, l->out);
	l->len = 0;
	l->flushes++;
}

static inline void jifl_line_mem(struct jifl_line *l, const char *s, size_t n)
{
	if (n > l->size - l->len) {
		jifl_line_flush(l);
		if (n > l->size) {
			fwrite_unlocked(s, 1, n, l->out);
			return;
		}
	}
	memcpy(l->buf + l->len, s, n);
	l->len += n;
}

static inline void jifl_line_str(struct jifl_line *l, const char *s)
{
	jifl_line_mem(l, s, strlen(s));
}

static inline void jifl_line_char(struct jifl_line *l, char c)
{
	if (l->len == l->size)
		jifl_line_flush(l);
	l->buf[l->len++] = c;
}

/* @s right-aligned in @width columns (printf's "%*s"). */
static inline void jifl_line_str_right(struct jifl_line *l, const char *s, size_t n,
				       int width)
{
	for (; width > (int)n; width--)
		jifl_line_char(l, ' ');
	jifl_line_mem(l, s, n);
}

/*
 * @v in base 10 or 16 (lower case), right-aligned in @width columns,
 * padded with @pad (printf's "%*u", "%0*u", "%*x").
 */
static inline void jifl_line_num(struct jifl_line *l, uint64_t v, unsigned int base,
				 int width, char pad)
{
	static const char pairs[] =
		"00010203040506070809101112131415161718192021222324252627282930313233343536373839"
		"40414243444546474849505152535455565758596061626364656667686970717273747576777879"
		"8081828384858687888990919293949596979899";
	int n = 1, i;
	uint64_t x;
	char *p;

	if (base == 16)
		n = v ? (67 - __builtin_clzll(v)) / 4 : 1;
	else if (base == 10)
		for (x = 10; n < 20 && v >= x; x *= 10)
			n++;
	else
		for (x = v / base; x; x /= base)
			n++;
	if (width > 64)
		width = 64;
	if (width < n)
		width = n;
	/* Written in place, no memcpy(): a line has a dozen numbers. */
	if (l->size - l->len < (size_t)width)
		jifl_line_flush(l);
	p = l->buf + l->len;
	for (i = 0; i < width - n; i++)
		p[i] = pad;
	i = width - 1;
	/* Base 10 two digits a division: half the chain of dependent ones. */
	if (base == 10) {
		for (; v >= 100; i -= 2, v /= 100)
			memcpy(p + i - 1, pairs + 2 * (v % 100), 2);
		if (v >= 10) {
			memcpy(p + i - 1, pairs + 2 * v, 2);
			i -= 2;
			v = 0;
		}
	}
	for (; i >= width - n; i--, v /= base)
		p[i] = "0123456789abcdef"[v % base];
	l->len += width;
}

#endif /* JIFL_DECODE_LINE_H */
