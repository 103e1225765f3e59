/* SPDX-License-Identifier: GPL-2.0 */
/*
 * TSC to perf time conversion, as in perf_event_mmap_page: perf time is
 * time_zero + TSC * time_mult / 2^time_shift (computed without overflow),
 * where a TSC narrower than 64 bits (cap_user_time_short) is first made
 * time_cycles + ((TSC - time_cycles) & time_mask).
 */
#ifndef JIFL_TSC_CONV_H
#define JIFL_TSC_CONV_H

#include <stdint.h>
#include <x86intrin.h>

struct perf_event_mmap_page;

struct jifl_tsc_conv {
	uint16_t time_shift;
	uint32_t time_mult;
	uint64_t time_zero;
	uint64_t time_cycles;		/* cap_user_time_short only */
	uint64_t time_mask;
	int cap_user_time_short;
};

/*
 * Fill @tc from the kernel's perf mmap page (the same clock perf uses);
 * where the kernel does not offer it, calibrate the TSC against
 * CLOCK_MONOTONIC instead. Returns 0 or a negative jifl_error_code.
 */
int jifl_tsc_conv_init(struct jifl_tsc_conv *tc);

/*
 * Read @tc from the perf mmap page @pc as the kernel documents it
 * (include/uapi/linux/perf_event.h): under its sequence count, again
 * while the kernel is updating it, at most 10000 times, like perf.
 * Returns 0, or -jifl_err_nosupp when the page has no time_zero or was
 * never seen at rest.
 */
int jifl_tsc_conv_from_page(struct jifl_tsc_conv *tc,
			    const struct perf_event_mmap_page *pc);

uint64_t jifl_tsc_conv_to_time(const struct jifl_tsc_conv *tc, uint64_t tsc);

/*
 * Whether @tc can be a kernel's conversion, as read from a file: a
 * time_shift of at most 32 (the kernel's cyc2ns), and unless time_mult is
 * 0 (no conversion) a TSC below 65,536 GHz, so that the two functions
 * here neither shift out of range nor step for ever.
 */
int jifl_tsc_conv_valid(const struct jifl_tsc_conv *tc);

/*
 * The first TSC value whose perf time is after @time (perf's
 * perf_time_to_tsc() inverts the formula the same way); for a TSC of 64
 * bits, not a cap_user_time_short counter.
 */
uint64_t jifl_tsc_conv_after(const struct jifl_tsc_conv *tc, uint64_t time);

static inline uint64_t jifl_tsc_read(void)
{
	return __rdtsc();
}

#endif /* JIFL_TSC_CONV_H */
