// SPDX-License-Identifier: GPL-2.0
/*
 * JIFL and kernel text that changes or gets translated later: a kprobe
 * registered on a function whose translation already runs fires from
 * then on (text_poke invalidates the translations); exit stubs of
 * blocks get linked to successors translated after them, and returns
 * get predictions (text_poke on the code cache), with unchanged results.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "guest_harness.h"
#include "proc_util.h"

FIXTURE(consistency) {
	char pid[32];
};

FIXTURE_SETUP(consistency)
{
	ASSERT_EQ(0, access("/proc/jifl/control", F_OK));
	snprintf(self->pid, sizeof(self->pid), "pid %d", (int)getpid());
}

FIXTURE_TEARDOWN(consistency)
{
	jifl_test("kprobe", "off");
	jifl_control("disable");
	jifl_control("pid 0");
}

TEST_F(consistency, kprobe_registered_later_fires_in_translated_code)
{
	long long hits, inval, entries;

	ASSERT_EQ(0, jifl_control("syscalls 39"));
	ASSERT_EQ(0, jifl_control(self->pid));
	ASSERT_EQ(0, jifl_control("enable"));
	/* getpid's path, __task_pid_nr_ns() included, runs translated */
	entries = jifl_stat("entries");
	ASSERT_EQ(0, jifl_getpids(1000));
	/* each entered the cache */
	EXPECT_LE(entries + 2000, jifl_stat("entries"));
	hits = jifl_test_kprobe_hits();
	ASSERT_LE(0, hits) TH_LOG("kernel without CONFIG_JIFL_TEST and CONFIG_KPROBES");
	inval = jifl_stat("invalidations");
	ASSERT_EQ(0, jifl_test("kprobe", "on"));
	EXPECT_LT(inval, jifl_stat("invalidations"));
	ASSERT_EQ(0, jifl_getpids(1000));
	TH_LOG("kprobe hits for 1000 getpid from the cache: %lld",
	       jifl_test_kprobe_hits() - hits);
	EXPECT_LE(hits + 1000, jifl_test_kprobe_hits());
	/* and it is gone once unregistered */
	ASSERT_EQ(0, jifl_test("kprobe", "off"));
	hits = jifl_test_kprobe_hits();
	ASSERT_EQ(0, jifl_getpids(1000));
	EXPECT_EQ(hits, jifl_test_kprobe_hits());
	EXPECT_EQ(-EINVAL, jifl_test("kprobe", "maybe"));
}

TEST_F(consistency, exit_stubs_linked_and_returns_predicted_later)
{
	long long late, predicted;
	int round;

	ASSERT_EQ(0, jifl_control("syscalls all"));
	ASSERT_EQ(0, jifl_control("pid 0"));
	ASSERT_EQ(0, jifl_control("flush"));
	late = jifl_stat("late_links");
	predicted = jifl_stat("predicted_returns");
	ASSERT_LE(0, late);
	ASSERT_LE(0, predicted);
	ASSERT_EQ(0, jifl_control("enable"));
	for (round = 0; round < 3; round++) {
		ASSERT_EQ(0, system("ls -la /bin /proc/self/ > /dev/null && "
				    "cat /proc/version > /dev/null"));
		usleep(200000);		/* the linking work runs */
	}
	ASSERT_EQ(0, jifl_control("disable"));
	TH_LOG("late links: %lld, links: %lld, predicted returns: %lld",
	       jifl_stat("late_links") - late, jifl_stat("links"),
	       jifl_stat("predicted_returns") - predicted);
	EXPECT_LT(late, jifl_stat("late_links"));
	EXPECT_LT(predicted, jifl_stat("predicted_returns"));
}

TEST_HARNESS_MAIN
