// SPDX-License-Identifier: GPL-2.0
/*
 * A W^X JIT, as LuaJIT's: it writes code while its two pages are
 * read-write and runs it while they are read-execute, with mprotect in
 * between. Version i (of N, default 40), jit_loop.h's, goes to place
 * i % 7, one of them across the boundary of the pages, with an
 * instruction split by it. Prints the sum of the results.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "jit_loop.h"

#define PAGE	4096

/*
 * At PAGE - 17, the boundary splits the jnz of versions with i % 4 == 2
 * from its displacement: i = 18 loops there 4 times.
 */
static const unsigned int places[] = { 0, 64, 200, 2000, PAGE - 17, PAGE + 32, PAGE + 300 };
#define NR_PLACES	(sizeof(places) / sizeof(places[0]))

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
		jit_loop_emit(fn, i);
		if (mprotect(code, 2 * PAGE, PROT_READ | PROT_EXEC))
			return 1;
		sum += ((int (*)(void))fn)();
	}
	printf("%ld\n", sum);
	return 0;
}
