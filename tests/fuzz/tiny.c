// SPDX-License-Identifier: GPL-2.0
/*
 * A program small enough that its whole trace makes a seed for the
 * perf.data harness: no C library, two threads, a few hundred
 * instructions each with conditional, indirect and far-away branches,
 * calls and returns, system calls, then exit. Built with -nostdlib
 * -static.
 */
#include <linux/sched.h>

static volatile unsigned long sink, done;
static char stack[8192] __attribute__((aligned(16)));

static __attribute__((noinline)) unsigned long step(unsigned long x)
{
	return x & 1 ? 3 * x + 1 : x / 2;
}

static __attribute__((noinline)) unsigned long twice(unsigned long x)
{
	return 2 * x;
}

static unsigned long (*const fns[])(unsigned long) = { step, twice };

static __attribute__((noinline)) unsigned long work(unsigned long x)
{
	unsigned long i;

	for (i = 0; i < 40 && x != 1; i++)
		x = fns[i % 3 == 0](x);
	return x;
}

static long sys1(long nr, long a)
{
	long ret;

	asm volatile("syscall" : "=a"(ret) : "a"(nr), "D"(a) : "rcx", "r11", "memory");
	return ret;
}

/* The second thread: starts here on its own stack, ends with exit(2). */
void __attribute__((noreturn, used)) tiny_thread(void)
{
	sink = work(31);
	done = 1;
	sys1(60, 0);		/* exit */
	__builtin_unreachable();
}

static void start_thread(void)
{
	register long r10 asm("r10") = 0;
	register long r8 asm("r8") = 0;
	long ret = 56;		/* clone */

	asm volatile("syscall\n\t"
		     "test %%rax, %%rax\n\t"
		     "jnz 1f\n\t"
		     "call tiny_thread\n"
		     "1:"
		     : "+a"(ret)
		     : "D"((long)(CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND |
				  CLONE_THREAD)),
		       "S"(stack + sizeof(stack)), "d"(0L), "r"(r10), "r"(r8)
		     : "rcx", "r11", "memory");
}

void __attribute__((noreturn)) _start(void)
{
	start_thread();
	sink = work(27) + sys1(39, 0);	/* getpid */
	while (!done)
		sys1(24, 0);		/* sched_yield */
	sys1(231, 0);			/* exit_group */
	__builtin_unreachable();
}
