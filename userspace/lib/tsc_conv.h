/* SPDX-License-Identifier: GPL-2.0 */
/*
 * TSC to perf time conversion, as in perf_event_mmap_page: perf time is
 * time_zero + TSC * time_mult / 2^time_shift (computed without overflow).
 */
#ifndef JIFL_TSC_CONV_H
#define JIFL_TSC_CONV_H

#include <stdint.h>
#include <x86intrin.h>

struct jifl_tsc_conv {
	uint16_t time_shift;
	uint32_t time_mult;
	uint64_t time_zero;
};

/*
 * Fill @tc from the kernel's perf mmap page (the same clock perf uses);
 * where the kernel does not offer it, calibrate the TSC against
 * CLOCK_MONOTONIC instead. Returns 0 or a negative jifl_error_code.
 */
int jifl_tsc_conv_init(struct jifl_tsc_conv *tc);

uint64_t jifl_tsc_conv_to_time(const struct jifl_tsc_conv *tc, uint64_t tsc);

static inline uint64_t jifl_tsc_read(void)
{
	return __rdtsc();
}

#endif /* JIFL_TSC_CONV_H */
