// SPDX-License-Identifier: GPL-2.0
/*
 * The TSC to perf time conversion: read from a perf mmap page as the
 * kernel documents it (include/uapi/linux/perf_event.h: a sequence
 * count, and time_cycles/time_mask for a TSC narrower than 64 bits),
 * applied as perf applies it, and kept through a perf.data file.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/perf_event.h>

#include "kselftest_harness.h"
#include "common/errcode.h"
#include "perf/perf_reader.h"
#include "perf/perf_writer.h"
#include "perf/tsc_conv.h"

#define TIME_ZERO	5000000000ull
#define TIME_SHIFT	10
#define TIME_MULT	1000
#define TIME_CYCLES	0xfffff000ull	/* a 32-bit counter, about to wrap */
#define TIME_MASK	0xffffffffull

/*
 * TSC values as a 32-bit counter gives them, and their perf times (by
 * the kernel's formulas, computed apart): after the wrap, time goes on.
 */
static const struct {
	uint64_t tsc, time;
} wrapped[] = {
	{ 0xfffff000, 9194300000ull },
	{ 0xffffffff, 9194303999ull },
	{ 0x0, 9194304000ull },
	{ 0x1000, 9194308000ull },
	{ 0x7ffff000, 11291452000ull },
};

/* A page of the kernel, at rest (an even count), of a 32-bit counter. */
static void page_init(struct perf_event_mmap_page *pc)
{
	memset(pc, 0, sizeof(*pc));
	pc->lock = 6;
	pc->cap_user_time = 1;
	pc->cap_user_time_zero = 1;
	pc->cap_user_time_short = 1;
	pc->time_shift = TIME_SHIFT;
	pc->time_mult = TIME_MULT;
	pc->time_zero = TIME_ZERO;
	pc->time_cycles = TIME_CYCLES;
	pc->time_mask = TIME_MASK;
}

TEST(short_counter)
{
	struct perf_event_mmap_page pc;
	struct jifl_tsc_conv tc;
	size_t i;

	page_init(&pc);
	ASSERT_EQ(0, jifl_tsc_conv_from_page(&tc, &pc));
	for (i = 0; i < sizeof(wrapped) / sizeof(wrapped[0]); i++)
		EXPECT_EQ(wrapped[i].time, jifl_tsc_conv_to_time(&tc, wrapped[i].tsc))
			TH_LOG("TSC 0x%llx", (unsigned long long)wrapped[i].tsc);
}

/* An odd count: the kernel is updating the page; its fields may be torn. */
TEST(page_being_updated)
{
	struct perf_event_mmap_page pc;
	struct jifl_tsc_conv tc;

	page_init(&pc);
	pc.cap_user_time_short = 0;
	pc.lock = 7;
	EXPECT_EQ(-jifl_err_nosupp, jifl_tsc_conv_from_page(&tc, &pc));
	pc.lock = 8;
	ASSERT_EQ(0, jifl_tsc_conv_from_page(&tc, &pc));
	EXPECT_EQ(TIME_ZERO + 1000, jifl_tsc_conv_to_time(&tc, 1024));
}

/* No time_zero: nothing to convert with. */
TEST(page_without_time_zero)
{
	struct perf_event_mmap_page pc;
	struct jifl_tsc_conv tc;

	page_init(&pc);
	pc.cap_user_time_zero = 0;
	EXPECT_EQ(-jifl_err_nosupp, jifl_tsc_conv_from_page(&tc, &pc));
}

/* The TIME_CONV record carries time_cycles and time_mask to the reader. */
TEST(short_counter_in_perf_data)
{
	struct jifl_perf_writer_config cfg = { .pt_pmu_type = 8 };
	char path[] = "/tmp/jifl-tsc-conv-XXXXXX";
	const struct jifl_perf_info *info;
	struct perf_event_mmap_page pc;
	struct jifl_perf_reader *r;
	struct jifl_perf_writer *w;
	uint8_t pad[8] = { 0 };
	uint64_t off;
	size_t i;
	int fd;

	fd = mkstemp(path);
	ASSERT_LE(0, fd);
	close(fd);
	page_init(&pc);
	ASSERT_EQ(0, jifl_tsc_conv_from_page(&cfg.tc, &pc));
	ASSERT_EQ(0, jifl_perf_writer_open(&w, path, &cfg));
	ASSERT_EQ(0, jifl_perf_writer_auxtrace(w, 0, 1, pad, sizeof(pad)));
	ASSERT_EQ(0, jifl_perf_writer_close(w));
	ASSERT_EQ(0, jifl_perf_reader_open(&r, path, &off));
	unlink(path);
	info = jifl_perf_reader_info(r);
	ASSERT_TRUE(info->have_time_conv);
	for (i = 0; i < sizeof(wrapped) / sizeof(wrapped[0]); i++)
		EXPECT_EQ(wrapped[i].time, jifl_tsc_conv_to_time(&info->tc, wrapped[i].tsc))
			TH_LOG("TSC 0x%llx", (unsigned long long)wrapped[i].tsc);
	jifl_perf_reader_close(r);
}

/*
 * jifl_tsc_conv_after(): the first TSC value whose time is after a given
 * perf time, for a TSC faster than 1 GHz (as on x86: several values per
 * nanosecond), slower, and before time_zero, which may be negative.
 */
TEST(first_tsc_after_a_time)
{
	static const struct jifl_tsc_conv convs[] = {
		{ .time_shift = 31, .time_mult = 715827882, .time_zero = 123456789 },	/* 3 GHz */
		{ .time_shift = TIME_SHIFT, .time_mult = TIME_MULT, .time_zero = TIME_ZERO },
		{ .time_shift = 0, .time_mult = 7, .time_zero = 1000 },
		/* A kernel's, whose clock started 75 ms after the TSC: time_zero < 0. */
		{ .time_shift = 31, .time_mult = 933688728, .time_zero = -75035166ull },
	};
	static const uint64_t times[] = {
		0, 999, 1000, 1001, 123456789, 123456790, TIME_ZERO, TIME_ZERO + 1,
		TIME_ZERO + 999, 9194303999ull, 1000000000000000ull, 1000000000000001ull,
	};
	uint64_t tsc;
	size_t c, i;

	for (c = 0; c < sizeof(convs) / sizeof(convs[0]); c++) {
		for (i = 0; i < sizeof(times) / sizeof(times[0]); i++) {
			tsc = jifl_tsc_conv_after(&convs[c], times[i]);
			/* Times wrap as the kernel's do: compare their difference. */
			EXPECT_LT(0, (int64_t)(jifl_tsc_conv_to_time(&convs[c], tsc) - times[i]))
				TH_LOG("conversion %zu, time %llu", c, (unsigned long long)times[i]);
			if (tsc)
				EXPECT_GE(times[i], jifl_tsc_conv_to_time(&convs[c], tsc - 1))
					TH_LOG("conversion %zu, time %llu: TSC %llu is not the first",
					       c, (unsigned long long)times[i],
					       (unsigned long long)tsc);
		}
	}
}

TEST_HARNESS_MAIN
