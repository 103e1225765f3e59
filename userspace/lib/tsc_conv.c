// SPDX-License-Identifier: GPL-2.0
#include <linux/perf_event.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "errcode.h"
#include "tsc_conv.h"

uint64_t jifl_tsc_conv_to_time(const struct jifl_tsc_conv *tc, uint64_t tsc)
{
	uint64_t quot = tsc >> tc->time_shift;
	uint64_t rem = tsc & (((uint64_t)1 << tc->time_shift) - 1);

	return tc->time_zero + quot * tc->time_mult +
	       ((rem * tc->time_mult) >> tc->time_shift);
}

static int tsc_conv_from_kernel(struct jifl_tsc_conv *tc)
{
	struct perf_event_attr attr;
	struct perf_event_mmap_page *pc;
	long psz = sysconf(_SC_PAGESIZE);
	uint32_t seq;
	int fd, ok;

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

	/* The kernel updates the page under a sequence count. */
	do {
		seq = __atomic_load_n(&pc->lock, __ATOMIC_ACQUIRE);
		ok = pc->cap_user_time_zero && !pc->cap_user_time_short;
		tc->time_shift = pc->time_shift;
		tc->time_mult = pc->time_mult;
		tc->time_zero = pc->time_zero;
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
	} while (__atomic_load_n(&pc->lock, __ATOMIC_RELAXED) != seq);
	munmap(pc, psz);

	return ok ? 0 : -jifl_err_nosupp;
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

	tc->time_shift = 31;
	tc->time_mult = (uint32_t)(((t1 - t0) << 31) / (c1 - c0));
	tc->time_zero = 0;
	tc->time_zero = t1 - jifl_tsc_conv_to_time(tc, c1);
	return 0;
}

int jifl_tsc_conv_init(struct jifl_tsc_conv *tc)
{
	if (!tsc_conv_from_kernel(tc))
		return 0;
	return tsc_conv_calibrate(tc);
}
