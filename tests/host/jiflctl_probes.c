// SPDX-License-Identifier: GPL-2.0
/*
 * jiflctl probes without the kernel: JIFL_PROC_DIR names a scratch
 * directory whose "tool" file stands for /proc/jifl/tool. The probe
 * tool's listing is printed as it is; another tool's is refused.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kselftest_harness.h"
#include "cmd.h"
#include "proc_scratch.h"
#include "tmpdir.h"

#define JIFLCTL		JIFL_TOP "/build/bin/jiflctl"
#define LISTING		"# hits address symbol handler\n" \
			"1000 0xffffffff81076542 __task_pid_nr_ns+0x2/0xc0 jit_handler+0x0/0x60 [jifl_probe_test]\n" \
			"0 0xffffffff81076545 __task_pid_nr_ns+0x5/0xc0 jit_handler+0x0/0x60 [jifl_probe_test]\n" \
			"# probes 2, not emitted 0\n"
#define NOT_PROBE	"jiflctl: probes: the active tool is not probe (jiflctl tool probe)\n"

FIXTURE(probes) {
	char dir[64];
	char out[4096];
};

FIXTURE_SETUP(probes)
{
	ASSERT_EQ(0, tmpdir_make(self->dir, sizeof(self->dir), "probes"));
}

FIXTURE_TEARDOWN(probes)
{
	tmpdir_remove(self->dir);
}

/* The scratch tool file holds @text; "jiflctl probes": its status, output in self->out. */
static int probes(FIXTURE_DATA(probes) *self, const char *text)
{
	if (scratch_put(self->dir, "tool", text))
		return -1;
	return cmd_run(self->out, sizeof(self->out), "JIFL_PROC_DIR=%s " JIFLCTL " probes",
		       self->dir);
}

TEST_F(probes, listing_printed_as_the_kernel_wrote_it)
{
	EXPECT_EQ(0, probes(self, LISTING)) TH_LOG("%s", self->out);
	EXPECT_STREQ(LISTING, self->out);
}

TEST_F(probes, another_tool_is_refused)
{
	EXPECT_EQ(1, probes(self, "# count address bytes symbol\n"));
	EXPECT_STREQ(NOT_PROBE, self->out);
	EXPECT_EQ(1, probes(self, ""));
	EXPECT_STREQ(NOT_PROBE, self->out);
}

TEST_F(probes, no_tool_file)
{
	EXPECT_EQ(1, cmd_run(self->out, sizeof(self->out),
			     "JIFL_PROC_DIR=%s/none " JIFLCTL " probes", self->dir));
	EXPECT_NE(NULL, strstr(self->out, "/none/tool")) TH_LOG("%s", self->out);
}

TEST_HARNESS_MAIN
