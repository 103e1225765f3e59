// SPDX-License-Identifier: GPL-2.0
/*
 * jiflctl bbcount without the kernel: JIFL_PROC_DIR names a scratch
 * directory whose "tool" file stands for /proc/jifl/tool. Each listing
 * of tests/data/bbcount/NAME.tool comes with what jiflctl prints for it,
 * NAME.out (--top 0: every block), NAME-top3.out and NAME-default.out
 * (no --top: 20 blocks); the errors are checked word for word, and the
 * parser's line numbers one bad line at a time.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kselftest_harness.h"
#include "jifl/bbcount.h"
#include "cmd.h"
#include "proc_scratch.h"
#include "tmpdir.h"
#include "common/errcode.h"

#define JIFLCTL		JIFL_TOP "/build/bin/jiflctl"
#define DATA		JIFL_TOP "/tests/data/bbcount/"
#define HEADER		JIFL_BBCOUNT_HEADER "\n"
#define TRAILER		"# blocks 3, not counted 0 (max_blocks 16384)\n"

FIXTURE(bbcount) {
	char dir[64];
	char out[16384];
};

FIXTURE_SETUP(bbcount)
{
	ASSERT_EQ(0, tmpdir_make(self->dir, sizeof(self->dir), "bbcount"));
}

FIXTURE_TEARDOWN(bbcount)
{
	tmpdir_remove(self->dir);
}

/* "jiflctl bbcount ARGS" on the scratch directory: its status, its output in self->out. */
static int bbcount(FIXTURE_DATA(bbcount) *self, const char *args)
{
	return cmd_run(self->out, sizeof(self->out), "JIFL_PROC_DIR=%s " JIFLCTL " bbcount %s",
		       self->dir, args);
}

/* A listing, jiflctl's options, what it must print. */
static const struct {
	const char *tool, *args, *out;
} listings[] = {
	{ "getpid", "--top 0", "getpid" },
	{ "getpid", "-t 3", "getpid-top3" },
	{ "getpid", "", "getpid-default" },
};

TEST_F(bbcount, sorted_shares_and_top)
{
	static char want[16384];
	size_t i;

	for (i = 0; i < sizeof(listings) / sizeof(listings[0]); i++) {
		ASSERT_EQ(0, cmd_run(self->out, sizeof(self->out), "cp " DATA "%s.tool %s/tool",
				     listings[i].tool, self->dir)) TH_LOG("%s", self->out);
		EXPECT_EQ(0, bbcount(self, listings[i].args)) TH_LOG("%s", self->out);
		ASSERT_EQ(0, cmd_run(want, sizeof(want), "cat " DATA "%s.out", listings[i].out))
			TH_LOG("%s", want);
		EXPECT_STREQ(want, self->out) TH_LOG("%s.tool, bbcount %s", listings[i].tool,
						     listings[i].args);
	}
}

/* What the tool file holds, and jiflctl's message (%s: the scratch directory). */
static const struct {
	const char *tool, *err;
} errors[] = {
	/* no tool with output */
	{ "", "jiflctl: bbcount: the active tool is not bbcount (jiflctl tool bbcount)\n" },
	/* another tool's */
	{ "# count symbol\n5 foo\n",
	  "jiflctl: bbcount: the active tool is not bbcount (jiflctl tool bbcount)\n" },
	{ HEADER "7 0xffffffff81000000 4 1 r a+0x0/0x10\n3 0xffffffff81000010 x 1 r b+0x0/0x8\n" TRAILER,
	  "jiflctl: %s/tool: line 3: not a bbcount line: '3 0xffffffff81000010 x 1 r b+0x0/0x8'\n" },
	{ HEADER "7 0xffffffff81000000 4 1 r a+0x0/0x10\n",
	  "jiflctl: %s/tool: line 3: the listing ends before its '# blocks' line\n" },
};

TEST_F(bbcount, errors)
{
	char want[512];
	size_t i;

	for (i = 0; i < sizeof(errors) / sizeof(errors[0]); i++) {
		ASSERT_EQ(0, scratch_put(self->dir, "tool", errors[i].tool));
		EXPECT_EQ(1, bbcount(self, "")) TH_LOG("case %zu: %s", i, self->out);
		snprintf(want, sizeof(want), errors[i].err, self->dir);
		EXPECT_STREQ(want, self->out) TH_LOG("case %zu", i);
	}
}

TEST_F(bbcount, no_file)
{
	char want[256];

	EXPECT_EQ(1, bbcount(self, ""));
	snprintf(want, sizeof(want), "jiflctl: %s/tool: No such file or directory "
		 "(is the kernel built with CONFIG_JIFL?)\n", self->dir);
	EXPECT_STREQ(want, self->out);
}

TEST_F(bbcount, reset_writes_reset)
{
	ASSERT_EQ(0, scratch_put(self->dir, "tool", ""));
	EXPECT_EQ(0, bbcount(self, "--reset")) TH_LOG("%s", self->out);
	EXPECT_STREQ("", self->out);
	ASSERT_EQ(0, cmd_run(self->out, sizeof(self->out), "cat %s/tool", self->dir));
	EXPECT_STREQ("reset", self->out);
	EXPECT_EQ(2, bbcount(self, "--reset --top 3"));
}

/* Options of a COMMAND run without one, and --reset with one: usage errors. */
TEST_F(bbcount, command_options_need_a_command)
{
	ASSERT_EQ(0, scratch_put(self->dir, "tool", ""));
	EXPECT_EQ(2, bbcount(self, "--syscalls read"));
	EXPECT_STREQ("jiflctl: bbcount: --syscalls, --children, --no-children and --quiet go "
		     "with a COMMAND\n", self->out);
	EXPECT_EQ(2, bbcount(self, "--no-children"));
	EXPECT_EQ(2, bbcount(self, "--reset -- true"));
	EXPECT_STREQ("jiflctl: bbcount: --reset and a COMMAND do not go together (the counts "
		     "start from 0 for a COMMAND)\n", self->out);
	EXPECT_EQ(2, bbcount(self, "--syscalls nosuchcall -- true"));
	/* nothing was written */
	ASSERT_EQ(0, cmd_run(self->out, sizeof(self->out), "cat %s/tool", self->dir));
	EXPECT_STREQ("", self->out);
}

/* A listing and the line that the parser must find wrong (0: none). */
static const struct {
	const char *text;
	size_t bad_nr;
} lines[] = {
	{ HEADER TRAILER, 0 },
	{ HEADER "1 0x1 2 1 r f+0x0/0x4 [mod]\n" TRAILER, 0 },
	{ HEADER "1 0x1 2 1 - f+0x0/0x4\n" TRAILER, 0 },
	{ HEADER "1 0x1 2 1 j\n" TRAILER, 2 },		/* no symbol */
	{ HEADER "1 0x1 2 1 j \n" TRAILER, 2 },
	{ HEADER "1 0x1 2 f\n" TRAILER, 2 },		/* no instructions, no end */
	{ HEADER "1 0x1 2 1 f\n" TRAILER, 2 },		/* no end */
	{ HEADER "1 0x1 2 1 x f\n" TRAILER, 2 },		/* not an end */
	{ HEADER "1 0x1 2 1 cc f\n" TRAILER, 2 },
	{ HEADER "1 1 2 1 c f\n" TRAILER, 2 },		/* address without 0x */
	{ HEADER "-1 0x1 2 1 c f\n" TRAILER, 2 },
	{ HEADER "1  0x1 2 1 c f\n" TRAILER, 2 },
	{ HEADER "1 0x1 4294967296 1 c f\n" TRAILER, 2 },	/* bytes: 32 bits */
	{ HEADER "1 0x1 2 4294967296 c f\n" TRAILER, 2 },	/* instructions: 32 bits */
	{ HEADER "18446744073709551616 0x1 2 1 c f\n" TRAILER, 2 },
	{ HEADER "1 0x1 2 1 c f\n\n" TRAILER, 3 },
	{ HEADER "1 0x1 2 1 c f\n# other\n" TRAILER, 3 },
	{ HEADER TRAILER "1 0x1 2 1 c f\n", 3 },		/* after the last line */
	{ HEADER "# blocks 3, not counted 0 (max_blocks 16384) x\n", 2 },
	{ HEADER "# blocks 3, not counted -1 (max_blocks 16384)\n", 2 },
	{ HEADER, 2 },					/* no last line */
	{ "# count address bytes symbol\n" TRAILER, 1 },	/* the old format */
	{ "# count address symbol\n" TRAILER, 1 },
};

TEST(parser_finds_the_bad_line)
{
	struct jifl_bbcount bc;
	char text[512];
	size_t i;
	int err;

	for (i = 0; i < sizeof(lines) / sizeof(lines[0]); i++) {
		strcpy(text, lines[i].text);
		err = jifl_bbcount_parse(&bc, text);
		EXPECT_EQ(lines[i].bad_nr ? -jifl_err_format : 0, err)
			TH_LOG("case %zu: %s", i, lines[i].text);
		EXPECT_EQ(lines[i].bad_nr, bc.bad_nr) TH_LOG("case %zu: %s", i, lines[i].text);
		jifl_bbcount_free(&bc);
	}
}

TEST(parser_sums_and_sorts)
{
	char text[] = HEADER "5 0x30 1 1 c c+0x0/0x1\n9 0x20 1 3 j b+0x0/0x1\n"
		"5 0x10 1 2 - a+0x0/0x1 [m]\n" "# blocks 4, not counted 2 (max_blocks 8)\n";
	struct jifl_bbcount bc;

	ASSERT_EQ(0, jifl_bbcount_parse(&bc, text));
	jifl_bbcount_sort(&bc);
	ASSERT_EQ(3, bc.n);
	EXPECT_EQ(19, bc.total);
	EXPECT_EQ(5 + 27 + 10, bc.insns);
	EXPECT_EQ(4, bc.blocks);
	EXPECT_EQ(2, bc.not_counted);
	EXPECT_EQ(8, bc.max_blocks);
	EXPECT_EQ(0x20, bc.block[0].addr);
	EXPECT_EQ(0x10, bc.block[1].addr);
	EXPECT_EQ(2, bc.block[1].insns);
	EXPECT_EQ('-', bc.block[1].end);
	EXPECT_STREQ("a+0x0/0x1 [m]", bc.block[1].symbol);
	EXPECT_EQ(0x30, bc.block[2].addr);
	jifl_bbcount_free(&bc);
}

TEST_HARNESS_MAIN
