// SPDX-License-Identifier: GPL-2.0
/* Dies of SIGSEGV after some work: the trace must stay valid to there. */
#include <stdio.h>

int main(void)
{
	int *volatile bad = (int *)8;
	int i, acc = 0;

	for (i = 0; i < 100; i++)
		acc += i;
	printf("%d\n", acc);
	fflush(stdout);
	return *bad;
}
