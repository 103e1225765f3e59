/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The code the test JITs generate (tests/progs/swt_wxjit.c, the guest's
 * decode_jit): version @i is "mov ecx, K; xor eax, eax; 1: add eax, i;
 * nop * (i % 4); dec ecx; jnz 1b; ret", K = i % 5 + 1, returning K * i.
 * Lengths and loop counts differ from version to version, so code of the
 * wrong version decodes to other addresses or to trace errors.
 */
#ifndef JIFL_TESTS_JIT_LOOP_H
#define JIFL_TESTS_JIT_LOOP_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

static inline void jit_loop_put32(unsigned char *p, uint32_t v)
{
	memcpy(p, &v, 4);
}

/* Write version @i at @p; returns its size. */
static inline size_t jit_loop_emit(unsigned char *p, unsigned int i)
{
	size_t n = 0, loop;

	p[n++] = 0xb9;
	jit_loop_put32(p + n, i % 5 + 1);
	n += 4;
	p[n++] = 0x31;
	p[n++] = 0xc0;
	loop = n;
	p[n++] = 0x05;
	jit_loop_put32(p + n, i);
	n += 4;
	memset(p + n, 0x90, i % 4);
	n += i % 4;
	p[n++] = 0xff;
	p[n++] = 0xc9;
	p[n++] = 0x75;
	p[n] = (unsigned char)(loop - (n + 1));
	n++;
	p[n++] = 0xc3;
	return n;
}

#endif /* JIFL_TESTS_JIT_LOOP_H */
