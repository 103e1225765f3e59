// SPDX-License-Identifier: GPL-2.0
/*
 * The vDSO for jifl-swtrace tests: clock_gettime() and gettimeofday() in
 * a loop. The C library calls them in the vDSO, whose code the kernel
 * maps into every process ("[vdso]" in /proc/self/maps); tests check
 * that the trace runs through it. "swt_vdso N" makes N rounds (default
 * 20).
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/time.h>
#include <time.h>

int main(int argc, char *argv[])
{
	int i, n = argc > 1 ? atoi(argv[1]) : 20;
	struct timespec ts, mono;
	struct timeval tv;
	long sum = 0;

	for (i = 0; i < n; i++) {
		if (clock_gettime(CLOCK_MONOTONIC, &mono) ||
		    clock_gettime(CLOCK_REALTIME, &ts) || gettimeofday(&tv, NULL))
			return 1;
		sum += (mono.tv_nsec & 1) + (ts.tv_nsec & 1) + (tv.tv_usec & 1);
	}
	printf("%d rounds, %ld odd\n", n, sum);
	return 0;
}
