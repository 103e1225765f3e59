// SPDX-License-Identifier: GPL-2.0
/*
 * jiflctl profile without the kernel: JIFL_PROC_DIR names a scratch
 * directory whose "profile" file stands for /proc/jifl/profile. jiflctl
 * prints the kernel's listing as it is, its '#' lines and the first
 * --top rows; writes "reset"; says what is wrong with a file that is
 * not a profile; and takes the options of a COMMAND only with one.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kselftest_harness.h"
#include "cmd.h"
#include "proc_scratch.h"
#include "tmpdir.h"

#define JIFLCTL		JIFL_TOP "/build/bin/jiflctl"

#define HEAD	"# profile: off; 3 targets, 0 transfers dropped (table full)\n" \
		"# totals: direct 0 ind_jmp 0 ind_call 5 return 4 native_ret 0 exit 0 learn 0\n" \
		"#    total     direct    ind_jmp   ind_call     return native_ret       exit" \
		"      learn  target\n"
#define ROW1	"         5          0          0          5          0          0          0" \
		"          0  read_null+0x0/0x10\n"
#define ROW2	"         3          0          0          0          3          0          0" \
		"          0  vfs_read+0x9e/0x1a0 (after call __fsnotify_parent)\n"
#define ROW3	"         1          0          0          0          1          0          0" \
		"          0  ksys_read+0x5d/0xd0 (after call vfs_read)"

FIXTURE(profile) {
	char dir[64];
	char out[16384];
};

FIXTURE_SETUP(profile)
{
	ASSERT_EQ(0, tmpdir_make(self->dir, sizeof(self->dir), "profile"));
}

FIXTURE_TEARDOWN(profile)
{
	tmpdir_remove(self->dir);
}

/* "jiflctl profile ARGS" on the scratch directory: its status, its output in self->out. */
static int profile(FIXTURE_DATA(profile) *self, const char *args)
{
	return cmd_run(self->out, sizeof(self->out), "JIFL_PROC_DIR=%s " JIFLCTL " profile %s",
		       self->dir, args);
}

TEST_F(profile, listing_and_top)
{
	ASSERT_EQ(0, scratch_put(self->dir, "profile", HEAD ROW1 ROW2 ROW3));
	EXPECT_EQ(0, profile(self, "--top 0"));
	EXPECT_STREQ(HEAD ROW1 ROW2 ROW3, self->out);
	EXPECT_EQ(0, profile(self, ""));	/* 20 rows by default */
	EXPECT_STREQ(HEAD ROW1 ROW2 ROW3, self->out);
	EXPECT_EQ(0, profile(self, "-t 2"));
	EXPECT_STREQ(HEAD ROW1 ROW2, self->out);
	EXPECT_EQ(0, profile(self, "--top 1"));
	EXPECT_STREQ(HEAD ROW1, self->out);
}

TEST_F(profile, not_a_profile)
{
	char want[256];

	ASSERT_EQ(0, scratch_put(self->dir, "profile", "# count address bytes symbol\n"));
	EXPECT_EQ(1, profile(self, ""));
	snprintf(want, sizeof(want), "jiflctl: %s/profile: not a JIFL lookup profile "
		 "(no '# profile: ' line)\n", self->dir);
	EXPECT_STREQ(want, self->out);
	ASSERT_EQ(0, scratch_put(self->dir, "profile", ""));
	EXPECT_EQ(1, profile(self, ""));
	EXPECT_STREQ(want, self->out);
}

TEST_F(profile, no_file)
{
	char want[256];

	EXPECT_EQ(1, profile(self, ""));
	snprintf(want, sizeof(want), "jiflctl: %s/profile: No such file or directory "
		 "(is the kernel built with CONFIG_JIFL?)\n", self->dir);
	EXPECT_STREQ(want, self->out);
}

TEST_F(profile, reset_writes_reset)
{
	ASSERT_EQ(0, scratch_put(self->dir, "profile", ""));
	EXPECT_EQ(0, profile(self, "--reset")) TH_LOG("%s", self->out);
	EXPECT_STREQ("", self->out);
	ASSERT_EQ(0, cmd_run(self->out, sizeof(self->out), "cat %s/profile", self->dir));
	EXPECT_STREQ("reset", self->out);
	EXPECT_EQ(2, profile(self, "--reset --top 3"));
	EXPECT_STREQ("jiflctl: profile: --reset and --top do not go together\n", self->out);
}

/* Options of a COMMAND run without one, and --reset with one: usage errors, nothing written. */
TEST_F(profile, command_options_need_a_command)
{
	ASSERT_EQ(0, scratch_put(self->dir, "profile", ""));
	EXPECT_EQ(2, profile(self, "--syscalls read"));
	EXPECT_STREQ("jiflctl: profile: --syscalls, --children, --no-children and --quiet go "
		     "with a COMMAND\n", self->out);
	EXPECT_EQ(2, profile(self, "--quiet"));
	EXPECT_EQ(2, profile(self, "--reset -- true"));
	EXPECT_STREQ("jiflctl: profile: --reset and a COMMAND do not go together (the counts "
		     "start from 0 for a COMMAND)\n", self->out);
	EXPECT_EQ(2, profile(self, "--json"));
	ASSERT_EQ(0, cmd_run(self->out, sizeof(self->out), "cat %s/profile", self->dir));
	EXPECT_STREQ("", self->out);
}

TEST_HARNESS_MAIN
