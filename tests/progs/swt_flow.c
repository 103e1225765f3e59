// SPDX-License-Identifier: GPL-2.0
/*
 * Control flow for jifl-swtrace tests: loops, direct and indirect calls,
 * recursion (also deeper than 64 calls) and a switch compiled to a jump
 * table. "swt_flow N" runs fib(N) among the rest; tests count fib's
 * entries in the ground truth.
 */
#include <stdio.h>
#include <stdlib.h>

static volatile int sink;

/* No sibling-call optimisation: gcc would turn one of the calls into a loop. */
__attribute__((noinline, optimize("no-optimize-sibling-calls"))) int fib(int n)
{
	return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

/* Deeper than the 64 return addresses PT's return compression keeps. */
__attribute__((noinline, optimize("no-optimize-sibling-calls"))) int deep(int n)
{
	return n ? deep(n - 1) + 1 : 0;
}

__attribute__((noinline)) static int op_add(int a, int b) { return a + b; }
__attribute__((noinline)) static int op_sub(int a, int b) { return a - b; }
__attribute__((noinline)) static int op_mul(int a, int b) { return a * b; }
__attribute__((noinline)) static int op_xor(int a, int b) { return a ^ b; }

static int (*const ops[])(int, int) = { op_add, op_sub, op_mul, op_xor };

/* Dense cases with distinct work: gcc emits an indirect jump table. */
__attribute__((noinline)) static int dispatch(int k, int v)
{
	switch (k) {
	case 0: return v + 3;
	case 1: return v * 7;
	case 2: return v ^ 0x55;
	case 3: return v - 11;
	case 4: return v << 2;
	case 5: return v >> 1;
	case 6: return ~v;
	case 7: return v * v;
	case 8: return v | 0x100;
	case 9: return v & 0xff;
	default: return 0;
	}
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 12;
	int i, acc = 0;

	for (i = 0; i < 200; i++)
		acc += i & 3 ? i : -i;
	for (i = 0; i < 100; i++)
		acc = ops[i % 4](acc, i);
	for (i = 0; i < 100; i++)
		acc += dispatch(i % 11, i);
	sink = acc + fib(n) + deep(100);
	printf("%d\n", sink);
	return 0;
}
