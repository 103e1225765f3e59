// SPDX-License-Identifier: GPL-2.0
/*
 * JIFL's copies of small leaf functions, one per call site: a call of a
 * leaf whose first block ends in its return (or in a conditional branch
 * to it) runs a copy of that block made for the call site alone, so
 * that its return predicts one target instead of sharing four among
 * every caller. The copies must compute what the originals do, and go
 * when the text of the leaf changes: a kprobe registered on a leaf
 * while copies of it exist sees every call from then on.
 *
 * The leaves are CONFIG_JIFL_TEST's (/sys/kernel/debug/jifl/leaf): a
 * write of N calls each of two of them N times, in write(); "jump N"
 * calls a leaf reached by a jump (a tail call) and one whose first
 * block branches to two short blocks that return, from six call sites
 * each. A call of native code that only returns ("native N") returns
 * straight into the cache, with no lookup. "probe ret" puts a kprobe on
 * the return address of the first leaf's call, "probe side" one on the
 * return a side of the second leaf's branch leads to.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "guest_harness.h"
#include "proc_util.h"

#define LEAF "/sys/kernel/debug/jifl/leaf"

FIXTURE(leaf) {
	char pid[32];
};

FIXTURE_SETUP(leaf)
{
	ASSERT_EQ(0, access("/proc/jifl/control", F_OK));
	ASSERT_EQ(0, access(LEAF, F_OK))
		TH_LOG("kernel without CONFIG_JIFL_TEST's leaf functions");
	ASSERT_EQ(0, jifl_test("leaf", "probe off"));
	snprintf(self->pid, sizeof(self->pid), "pid %d", (int)getpid());
	/* write() of this process runs translated, from an empty cache */
	ASSERT_EQ(0, jifl_control("syscalls 1"));
	ASSERT_EQ(0, jifl_control(self->pid));
	ASSERT_EQ(0, jifl_control("flush"));
	ASSERT_EQ(0, jifl_control("enable"));
}

FIXTURE_TEARDOWN(leaf)
{
	jifl_control("disable");
	jifl_control("pid 0");
	jifl_test("leaf", "probe off");
}

static long long leaf_hits(void)
{
	char buf[32];

	file_read(LEAF, buf, sizeof(buf));
	return buf[0] ? strtoll(buf, NULL, 10) : -1;
}

/* Writes of "@cmd", @rounds of them; returns how many failed. */
static int leaf_cmd(int rounds, const char *cmd)
{
	int i, bad = 0;

	for (i = 0; i < rounds; i++)
		bad += jifl_test("leaf", cmd) != 0;
	return bad;
}

/*
 * @rounds writes of "N": each makes N calls of each leaf, which the
 * kernel checks against what they compute natively. Returns how many
 * writes failed.
 */
static int leaf_calls(int rounds, int n)
{
	char cmd[16];

	snprintf(cmd, sizeof(cmd), "%d", n);
	return leaf_cmd(rounds, cmd);
}

TEST_F(leaf, calls_of_small_leaves_run_copies_of_their_own)
{
	long long copies = jifl_stat("leaf_copies");
	long long entries = jifl_stat("entries");
	long long linked = jifl_link_count();

	ASSERT_LE(0, copies) TH_LOG("no leaf_copies in /proc/jifl/stats");
	EXPECT_EQ(0, leaf_calls(20, 1000));
	/* the link work predicts the copies' returns after a few ticks */
	ASSERT_LINKED(linked);
	EXPECT_EQ(0, leaf_calls(20, 1000));
	EXPECT_LE(entries + 40, jifl_stat("entries"));
	/* one per call site of each leaf, at least */
	EXPECT_LE(copies + 2, jifl_stat("leaf_copies"));
	TH_LOG("%lld copies of leaf functions made by 40 write()s",
	       jifl_stat("leaf_copies") - copies);
}

TEST_F(leaf, kprobe_on_a_copied_leaf_sees_every_call)
{
	long long copies = jifl_stat("leaf_copies");
	long long inval = jifl_stat("invalidations");
	long long linked = jifl_link_count();
	long long hits;

	EXPECT_EQ(0, leaf_calls(5, 1000));
	ASSERT_LINKED(linked);
	EXPECT_EQ(0, leaf_calls(5, 1000));
	ASSERT_LE(copies + 2, jifl_stat("leaf_copies"));

	/* a kprobe on each leaf while their copies exist */
	hits = leaf_hits();
	ASSERT_EQ(0, jifl_test("leaf", "probe on"));
	EXPECT_LT(inval, jifl_stat("invalidations"));
	EXPECT_EQ(0, leaf_calls(1, 1000));
	EXPECT_EQ(hits + 2000, leaf_hits())
		TH_LOG("the kprobes saw %lld of 2000 calls", leaf_hits() - hits);

	/* gone again: the leaves run translated, without hits */
	ASSERT_EQ(0, jifl_test("leaf", "probe off"));
	hits = leaf_hits();
	EXPECT_EQ(0, leaf_calls(5, 1000));
	EXPECT_EQ(hits, leaf_hits());

	/* and once more, with copies made after the first kprobe went */
	ASSERT_LINKED(-1);
	EXPECT_EQ(0, leaf_calls(5, 1000));
	ASSERT_EQ(0, jifl_test("leaf", "probe on"));
	EXPECT_EQ(0, leaf_calls(2, 1000));
	EXPECT_EQ(hits + 4000, leaf_hits())
		TH_LOG("the kprobes saw %lld of 4000 calls", leaf_hits() - hits);
}

/*
 * The block of a call of a leaf runs on into the leaf's copy, and goes
 * stale with it when the leaf's text changes. Switched back before the
 * call runs again, the text is what both were made from: the block is
 * taken again, falling into the same copy, which a later change of the
 * leaf's text must find again.
 */
TEST_F(leaf, kprobe_on_a_leaf_sees_every_call_after_its_callers_came_back)
{
	long long revived, hits, linked = jifl_link_count();

	EXPECT_EQ(0, leaf_calls(5, 1000));
	ASSERT_LINKED(linked);
	EXPECT_EQ(0, leaf_calls(5, 1000));

	/* on and off again, no call in between */
	ASSERT_EQ(0, jifl_test("leaf", "probe on"));
	ASSERT_EQ(0, jifl_test("leaf", "probe off"));
	revived = jifl_stat("revived_blocks");
	ASSERT_LE(0, revived);
	hits = leaf_hits();
	EXPECT_EQ(0, leaf_calls(5, 1000));
	EXPECT_EQ(hits, leaf_hits());
	/* the blocks of the calls came back, with their copies */
	EXPECT_LT(revived, jifl_stat("revived_blocks"));

	ASSERT_EQ(0, jifl_test("leaf", "probe on"));
	EXPECT_EQ(0, leaf_calls(2, 1000));
	EXPECT_EQ(hits + 4000, leaf_hits())
		TH_LOG("the kprobes saw %lld of 4000 calls", leaf_hits() - hits);
}

/*
 * Lookups that five writes of "@cmd" made, once the calls it makes ran
 * a while (and the link work predicted their returns); -1 on failure,
 * or if the link work did not finish in time.
 */
static long long warm_lookups(const char *cmd)
{
	long long before, linked = jifl_link_count();

	if (leaf_cmd(10, cmd) || jifl_link_wait(linked, JIFL_LINK_DEADLINE_MS) < 0)
		return -1;
	if (leaf_cmd(10, cmd) || jifl_link_wait(-1, JIFL_LINK_DEADLINE_MS) < 0)
		return -1;
	before = jifl_stat("lookups");
	if (leaf_cmd(5, cmd) || before < 0)
		return -1;
	return jifl_stat("lookups") - before;
}

/*
 * Five writes of "@cmd", once warm, make @calls calls of leaves, and
 * fewer than @most lookups.
 */
static void expect_few_lookups(struct __test_metadata *_metadata,
			       const char *cmd, long long calls, long long most)
{
	long long lookups = warm_lookups(cmd);

	ASSERT_LE(0, lookups) TH_LOG("\"%s\" failed, or the link work never finished", cmd);
	EXPECT_GT(most, lookups)
		TH_LOG("%lld lookups for %lld calls (\"%s\")", lookups, calls, cmd);
	TH_LOG("%lld lookups in 5 writes of \"%s\", %lld calls", lookups, cmd, calls);
}

TEST_F(leaf, calls_of_native_leaves_return_straight_into_the_cache)
{
	long long entries = jifl_stat("entries");

	/* through jifl_return_to_cache, each call would look up */
	expect_few_lookups(_metadata, "native 1000", 5000, 500);
	EXPECT_LE(entries + 25, jifl_stat("entries"));
}

TEST_F(leaf, leaves_reached_by_a_jump_or_by_short_blocks_are_copied)
{
	long long copies = jifl_stat("leaf_copies");

	/*
	 * Two leaves, from six call sites each: with one shared return
	 * each, predicted for four of its six callers, a third of the
	 * calls would look up.
	 */
	expect_few_lookups(_metadata, "jump 1000", 60000, 1000);
	EXPECT_LE(copies + 12, jifl_stat("leaf_copies"));
}

TEST_F(leaf, kprobe_on_a_leaf_copied_through_a_jump_sees_every_call)
{
	long long hits;

	ASSERT_LE(0, warm_lookups("jump 1000"));
	hits = leaf_hits();
	ASSERT_EQ(0, jifl_test("leaf", "probe on"));
	EXPECT_EQ(0, leaf_cmd(1, "jump 1000"));
	/* jifl_test_leaf_to() through the jump, and jifl_test_leaf_sides(), 6000 each */
	EXPECT_EQ(hits + 12000, leaf_hits())
		TH_LOG("the kprobes saw %lld of 12000 calls", leaf_hits() - hits);
	ASSERT_EQ(0, jifl_test("leaf", "probe off"));
}

/*
 * The return of a leaf's copy goes to its call site's return address
 * through an entry written right before that address's translation
 * ("leaq 8(%rsp), %rsp", falling into it), made with the copy. A kprobe
 * registered on that return address while the entry exists must see
 * every return from then on: the text change makes the translation
 * stale, and the entry with it, and the copy's return goes to the new
 * translation, which traps into the kprobe.
 */
TEST_F(leaf, kprobe_on_a_return_address_sees_every_return)
{
	long long hits, linked = jifl_link_count();

	EXPECT_EQ(0, leaf_calls(5, 1000));
	ASSERT_LINKED(linked);
	EXPECT_EQ(0, leaf_calls(5, 1000));
	hits = leaf_hits();
	ASSERT_EQ(0, jifl_test("leaf", "probe ret"));
	EXPECT_EQ(0, leaf_calls(1, 1000));
	EXPECT_EQ(hits + 1000, leaf_hits())
		TH_LOG("the kprobe saw %lld of 1000 returns", leaf_hits() - hits);
	ASSERT_LINKED(-1);
	EXPECT_EQ(0, leaf_calls(1, 1000));
	EXPECT_EQ(hits + 2000, leaf_hits())
		TH_LOG("the kprobe saw %lld of 2000 returns", leaf_hits() - hits);
	ASSERT_EQ(0, jifl_test("leaf", "probe off"));
	hits = leaf_hits();
	EXPECT_EQ(0, leaf_calls(2, 1000));
	EXPECT_EQ(hits, leaf_hits());
}

/*
 * A side of a copied leaf's branch that is a return gets its own return
 * in the copy, though the return lies outside the block the copy was
 * made from: a kprobe registered on that return while copies exist
 * must make them stale all the same, and see every return that it sees
 * natively (the second leaf's branch goes to its slow path once every
 * 64 calls: N a multiple of 64 makes the same calls either way).
 */
TEST_F(leaf, kprobe_on_the_return_of_a_copied_branch_sees_every_return)
{
	long long hits, jifl, native, linked = jifl_link_count();

	EXPECT_EQ(0, leaf_calls(5, 1024));
	ASSERT_LINKED(linked);
	EXPECT_EQ(0, leaf_calls(5, 1024));
	ASSERT_EQ(0, jifl_test("leaf", "probe side"))
		TH_LOG("no return on a side of jifl_test_leaf_branch()'s branch");
	hits = leaf_hits();
	EXPECT_EQ(0, leaf_calls(1, 1024));
	jifl = leaf_hits() - hits;
	ASSERT_EQ(0, jifl_control("disable"));
	hits = leaf_hits();
	EXPECT_EQ(0, leaf_calls(1, 1024));
	native = leaf_hits() - hits;
	ASSERT_EQ(0, jifl_control("enable"));
	ASSERT_LT(0, native) TH_LOG("the kprobe saw no return natively");
	EXPECT_EQ(native, jifl)
		TH_LOG("the kprobe saw %lld returns translated, %lld natively",
		       jifl, native);
	ASSERT_EQ(0, jifl_test("leaf", "probe off"));
}

TEST_HARNESS_MAIN
