/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One output line built in memory and written with one fwrite(): the
 * listings print millions of lines, and printf's format parsing cost
 * more than decoding the trace. Text longer than the room left (a long
 * C++ symbol, a path) flushes what is there and goes out directly.
 */
#ifndef JIFL_DECODE_LINE_H
#define JIFL_DECODE_LINE_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define JIFL_LINE_SIZE	512

struct jifl_line {
	FILE *out;
	size_t len;
	char buf[JIFL_LINE_SIZE];
};

/* The printer's thread alone writes its stream: no stdio lock. */
static inline void jifl_line_flush(struct jifl_line *l)
{
	if (l->len)
		fwrite_unlocked(l->buf, 1, l->len, l->out);
	l->len = 0;
}

static inline void jifl_line_mem(struct jifl_line *l, const char *s, size_t n)
{
	if (n > sizeof(l->buf) - l->len) {
		jifl_line_flush(l);
		if (n > sizeof(l->buf)) {
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
	if (l->len == sizeof(l->buf))
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
	int n = 1, i;
	uint64_t x;
	char *p;

	for (x = v / base; x; x /= base)
		n++;
	if (width > 64)
		width = 64;
	if (width < n)
		width = n;
	/* Written in place, no memcpy(): a line has a dozen numbers. */
	if (sizeof(l->buf) - l->len < (size_t)width)
		jifl_line_flush(l);
	p = l->buf + l->len;
	for (i = 0; i < width - n; i++)
		p[i] = pad;
	for (i = width - 1; i >= width - n; i--, v /= base)
		p[i] = "0123456789abcdef"[v % base];
	l->len += width;
}

#endif /* JIFL_DECODE_LINE_H */
