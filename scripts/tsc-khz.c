// SPDX-License-Identifier: GPL-2.0
/*
 * Print the host's TSC frequency in kHz, measured against
 * CLOCK_MONOTONIC_RAW.
 *
 * Under QEMU TCG (without -icount) the guest's TSC is the host's, so
 * scripts/qemu-run.sh passes this value as tsc_early_khz= and the guest
 * kernel never calibrates its TSC against the emulated PIT, which can
 * stall or take seconds under TCG.
 *
 * Three 100 ms windows; the median is printed. Exit 1 if the TSC does
 * not advance or the three disagree by more than 1%.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <x86intrin.h>

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + ts.tv_nsec;
}

static double window_khz(void)
{
	struct timespec nap = { .tv_nsec = 100 * 1000 * 1000 };
	uint64_t t0, t1, c0, c1;

	t0 = now_ns();
	c0 = __rdtsc();
	nanosleep(&nap, NULL);
	t1 = now_ns();
	c1 = __rdtsc();
	if (c1 <= c0 || t1 <= t0)
		return 0;
	return (double)(c1 - c0) * 1e6 / (double)(t1 - t0);
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

int main(void)
{
	double khz[3];
	int i;

	for (i = 0; i < 3; i++)
		khz[i] = window_khz();
	qsort(khz, 3, sizeof(khz[0]), cmp);
	if (khz[0] <= 0 || (khz[2] - khz[0]) > khz[1] / 100) {
		fprintf(stderr, "tsc-khz: no stable TSC (%.0f..%.0f kHz)\n",
			khz[0], khz[2]);
		return 1;
	}
	printf("%.0f\n", khz[1]);
	return 0;
}
