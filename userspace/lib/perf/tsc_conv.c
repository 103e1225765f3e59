// SPDX-License-Identifier: GPL-2.0
#include <linux/perf_event.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/errcode.h"
#include "tsc_conv.h"

#define SEQ_TRIES	10000	/* as perf's perf_read_tsc_conversion() */

uint64_t jifl_tsc_conv_to_time(const struct jifl_tsc_conv *tc, uint64_t tsc)
{
	uint64_t quot, rem;

	if (tc->cap_user_time_short)
		tsc = tc->time_cycles + ((tsc - tc->time_cycles) & tc->time_mask);
	quot = tsc >> tc->time_shift;
	rem = tsc & (((uint64_t)1 << tc->time_shift) - 1);
	return tc->time_zero + quot * tc->time_mult +
	       ((rem * tc->time_mult) >> tc->time_shift);
}

int jifl_tsc_conv_valid(const struct jifl_tsc_conv *tc)
{
	return tc->time_shift <= 32 &&
	       (!tc->time_mult || ((uint64_t)1 << tc->time_shift) / tc->time_mult < 65536);
}

uint64_t jifl_tsc_conv_after(const struct jifl_tsc_conv *tc, uint64_t time)
{
	uint64_t t, tsc;

	/* time_zero is often "negative": the kernel's clock started after the TSC. */
	if (!tc->time_mult || (int64_t)(time - tc->time_zero) < 0)
		return 0;
	t = time - tc->time_zero;
	tsc = (t / tc->time_mult << tc->time_shift) +
	      ((t % tc->time_mult << tc->time_shift) / tc->time_mult);
	/* The division rounds down: a few steps to the exact boundary. */
	while ((int64_t)(jifl_tsc_conv_to_time(tc, tsc) - time) <= 0)
		tsc++;
	while (tsc && (int64_t)(jifl_tsc_conv_to_time(tc, tsc - 1) - time) > 0)
		tsc--;
	return tsc;
}

int jifl_tsc_conv_from_page(struct jifl_tsc_conv *tc,
			    const struct perf_event_mmap_page *pc)
{
	struct jifl_tsc_conv c;
	uint32_t seq;
	int tries, zero;

	/*
	 * The kernel makes the count odd, updates the page, makes it even
	 * again: the fields belong together when the count was even and is
	 * unchanged after reading them. The acquire load and fence keep
	 * the field reads between the two reads of the count.
	 */
	for (tries = 0; tries < SEQ_TRIES; tries++) {
		seq = __atomic_load_n(&pc->lock, __ATOMIC_ACQUIRE);
		c.time_shift = pc->time_shift;
		c.time_mult = pc->time_mult;
		c.time_zero = pc->time_zero;
		c.time_cycles = pc->time_cycles;
		c.time_mask = pc->time_mask;
		c.cap_user_time_short = pc->cap_user_time_short;
		zero = pc->cap_user_time_zero;
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (!(seq & 1) && __atomic_load_n(&pc->lock, __ATOMIC_RELAXED) == seq)
			break;
	}
	if (tries == SEQ_TRIES || !zero)
		return -jifl_err_nosupp;
	*tc = c;
	return 0;
}

static int tsc_conv_from_kernel(struct jifl_tsc_conv *tc)
{
	struct perf_event_attr attr;
	struct perf_event_mmap_page *pc;
	long psz = sysconf(_SC_PAGESIZE);
	int fd, err;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_SOFTWARE;
	attr.config = PERF_COUNT_SW_DUMMY;
	attr.exclude_kernel = 1;
	fd = syscall(SYS_perf_event_open, &attr, 0, -1, -1, 0);
	if (fd < 0)
		return -jifl_err_nosupp;
	pc = mmap(NULL, psz, PROT_READ, MAP_SHARED, fd, 0);
	close(fd);
	if (pc == MAP_FAILED)
		return -jifl_err_nosupp;

	err = jifl_tsc_conv_from_page(tc, pc);
	munmap(pc, psz);
	return err;
}

static uint64_t monotonic_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Measure TSC ticks per nanosecond over 20 ms; map the TSC onto CLOCK_MONOTONIC. */
static int tsc_conv_calibrate(struct jifl_tsc_conv *tc)
{
	const struct timespec nap = { 0, 20 * 1000 * 1000 };
	uint64_t t0, c0, t1, c1;

	t0 = monotonic_ns();
	c0 = jifl_tsc_read();
	nanosleep(&nap, NULL);
	t1 = monotonic_ns();
	c1 = jifl_tsc_read();
	if (c1 <= c0 || t1 <= t0)
		return -jifl_err_nosupp;

	memset(tc, 0, sizeof(*tc));
	tc->time_shift = 31;
	tc->time_mult = (uint32_t)(((t1 - t0) << 31) / (c1 - c0));
	tc->time_zero = t1 - jifl_tsc_conv_to_time(tc, c1);
	return 0;
}

int jifl_tsc_conv_init(struct jifl_tsc_conv *tc)
{
	if (!tsc_conv_from_kernel(tc))
		return 0;
	return tsc_conv_calibrate(tc);
}
