// SPDX-License-Identifier: GPL-2.0
/*
 * A double-mapped JIT (.NET's W^X): one memfd page mapped shared
 * read-write, where jit_loop.h's versions are written, and shared
 * read-execute, where they run; N versions (default 40) at 21 places
 * that recur. Prints the read-execute view's address, then how many
 * instructions ran there (the ground truth must count as many) and the
 * sum of the results.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "jit_loop.h"
#include "memfd_views.h"

#define PAGE	4096

int main(int argc, char **argv)
{
	unsigned int i, k, n = argc > 1 ? atoi(argv[1]) : 40;
	unsigned long insns = 0;
	unsigned char *rw, *rx;
	long sum = 0;

	if (memfd_views("dualjit", PAGE, &rw, &rx) < 0)
		return 1;
	for (i = 0; i < n; i++) {
		jit_loop_emit(rw + i * 48 % 1024, i);
		sum += ((int (*)(void))(rx + i * 48 % 1024))();
		/* mov, xor, K times (add, nops, dec, jnz), ret */
		k = i % 5 + 1;
		insns += 3 + k * (3 + i % 4);
	}
	printf("rx=%p insns=%lu sum=%ld\n", (void *)rx, insns, sum);
	return 0;
}
