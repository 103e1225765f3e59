// SPDX-License-Identifier: GPL-2.0
/*
 * A W^X JIT, as LuaJIT's: it writes code while its two pages are
 * read-write and runs it while they are read-execute, with mprotect in
 * between. Version i (of N, default 40) goes to place i % 7, one of
 * them across the boundary of the pages, with instructions split by it;
 * every version is a loop of its own length and count, so that code of
 * another version decodes to other addresses, or to errors. Prints the
 * sum of the results.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define PAGE	4096

/*
 * At PAGE - 17, the boundary splits the jnz of versions with i % 4 == 2
 * from its displacement: i = 18 loops there 4 times.
 */
static const unsigned int places[] = { 0, 64, 200, 2000, PAGE - 17, PAGE + 32, PAGE + 300 };
#define NR_PLACES	(sizeof(places) / sizeof(places[0]))

static void put32(unsigned char *p, uint32_t v)
{
	memcpy(p, &v, 4);
}

/*
 * "mov ecx, K; xor eax, eax; 1: add eax, i; nop * (i % 4); dec ecx;
 * jnz 1b; ret", K = i % 5 + 1: returns K * i.
 */
static void emit_version(unsigned char *p, unsigned int i)
{
	size_t n = 0, loop;

	p[n++] = 0xb9;
	put32(p + n, i % 5 + 1);
	n += 4;
	p[n++] = 0x31;
	p[n++] = 0xc0;
	loop = n;
	p[n++] = 0x05;
	put32(p + n, i);
	n += 4;
	memset(p + n, 0x90, i % 4);
	n += i % 4;
	p[n++] = 0xff;
	p[n++] = 0xc9;
	p[n++] = 0x75;
	p[n] = (unsigned char)(loop - (n + 1));
	n++;
	p[n] = 0xc3;
}

int main(int argc, char **argv)
{
	unsigned int i, n = argc > 1 ? atoi(argv[1]) : 40;
	unsigned char *code;
	long sum = 0;

	code = mmap(NULL, 2 * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (code == MAP_FAILED)
		return 1;
	for (i = 0; i < n; i++) {
		unsigned char *fn = code + places[i % NR_PLACES];

		if (mprotect(code, 2 * PAGE, PROT_READ | PROT_WRITE))
			return 1;
		emit_version(fn, i);
		if (mprotect(code, 2 * PAGE, PROT_READ | PROT_EXEC))
			return 1;
		sum += ((int (*)(void))fn)();
	}
	printf("%ld\n", sum);
	return 0;
}
