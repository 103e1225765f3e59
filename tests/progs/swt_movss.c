// SPDX-License-Identifier: GPL-2.0
/*
 * Steps that run two instructions: "mov %eax, %ss" holds off the debug
 * trap until after the next instruction (the MOV SS interrupt shadow),
 * so one single-step runs it and the conditional branch after it. A
 * tracer that records one instruction per step records the branch with
 * the wrong outcome and loses the instruction after it. Hypervisors
 * that lose a trap now and then do the same at random; this does it
 * every time. swt_movss_inc runs once for each odd @i: 100 times.
 */
__attribute__((noipa)) static unsigned int shadowed_branch(unsigned int i, unsigned int n)
{
	asm volatile("test $1, %1\n\t"
		     "mov %%ss, %%eax\n\t"
		     "mov %%eax, %%ss\n\t"
		     "jz 1f\n\t"
		     ".globl swt_movss_inc\n"
		     "swt_movss_inc:\n\t"
		     "inc %0\n"
		     "1:\tnop"
		     : "+r" (n) : "r" (i) : "eax", "cc");
	return n;
}

int main(void)
{
	unsigned int i, n = 0;

	for (i = 0; i < 200; i++)
		n = shadowed_branch(i, n);
	return n == 100 ? 0 : 1;
}
