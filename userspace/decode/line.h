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

static inline void jifl_line_flush(struct jifl_line *l)
{
	if (l->len)
		fwrite(l->buf, 1, l->len, l->out);
	l->len = 0;
}

static inline void jifl_line_mem(struct jifl_line *l, const char *s, size_t n)
{
	if (n > sizeof(l->buf) - l->len) {
		jifl_line_flush(l);
		if (n > sizeof(l->buf)) {
			fwrite(s, 1, n, l->out);
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
	jifl_line_mem(l, &c, 1);
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
	char tmp[24], *p = tmp + sizeof(tmp);

	do {
		*--p = "0123456789abcdef"[v % base];
		v /= base;
	} while (v);
	for (; width > tmp + sizeof(tmp) - p; width--)
		jifl_line_char(l, pad);
	jifl_line_mem(l, p, tmp + sizeof(tmp) - p);
}

#endif /* JIFL_DECODE_LINE_H */
