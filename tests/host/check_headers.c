// SPDX-License-Identifier: GPL-2.0
/*
 * scripts/check-headers.sh, the drift check of the kernel headers kept in
 * this tree: against a kernel tree made of the vendored copies it passes;
 * a header changed in that tree (as a patch of the series would change
 * it) or missing from it fails the check, with a diff or the path.
 */
#include <stdio.h>
#include <string.h>

#include "kselftest_harness.h"
#include "cmd.h"
#include "tmpdir.h"

#define CHECK	JIFL_TOP "/scripts/check-headers.sh"

/* Each vendored header, and where it lives in the kernel tree. */
static const struct {
	const char *mine;
	const char *theirs;
} headers[] = {
	{ "userspace/include/uapi/linux/flowjit.h", "include/uapi/linux/flowjit.h" },
	{ "userspace/include/uapi/linux/prctl.h", "include/uapi/linux/prctl.h" },
	{ "tests/include/kselftest.h", "tools/testing/selftests/kselftest.h" },
	{ "tests/include/kselftest_harness.h", "tools/testing/selftests/kselftest_harness.h" },
};
#define NR_HEADERS	(sizeof(headers) / sizeof(headers[0]))

FIXTURE(tree) {
	char dir[64];
	char out[65536];
};

/* A kernel tree in a scratch directory that holds exactly the copies. */
FIXTURE_SETUP(tree)
{
	size_t i;

	ASSERT_EQ(0, tmpdir_make(self->dir, sizeof(self->dir), "headers"));
	for (i = 0; i < NR_HEADERS; i++)
		ASSERT_EQ(0, cmd_run(self->out, sizeof(self->out),
				     "set -e; mkdir -p $(dirname %s/%s); cp %s/%s %s/%s",
				     self->dir, headers[i].theirs, JIFL_TOP, headers[i].mine,
				     self->dir, headers[i].theirs));
}

FIXTURE_TEARDOWN(tree)
{
	tmpdir_remove(self->dir);
}

TEST_F(tree, same_headers_pass)
{
	EXPECT_EQ(0, cmd_run(self->out, sizeof(self->out), CHECK " %s", self->dir));
	TH_LOG("%s", self->out);
	EXPECT_NE(NULL, strstr(self->out, "vendored headers match"));
}

/* The file of the kernel tree gains a line: each copy is checked. */
TEST_F(tree, changed_header_fails_with_a_diff)
{
	char want[256];
	size_t i;

	for (i = 0; i < NR_HEADERS; i++) {
		ASSERT_EQ(0, cmd_run(self->out, sizeof(self->out),
				     "cp %s/%s %s/saved && echo '#define JIFL_DRIFT %zu' >> %s/%s",
				     self->dir, headers[i].theirs, self->dir, i,
				     self->dir, headers[i].theirs));
		EXPECT_EQ(1, cmd_run(self->out, sizeof(self->out), CHECK " %s", self->dir));
		TH_LOG("%s", self->out);
		snprintf(want, sizeof(want), "\n-#define JIFL_DRIFT %zu\n", i);
		EXPECT_NE(NULL, strstr(self->out, want));
		snprintf(want, sizeof(want), "check-headers: %s differs from", headers[i].mine);
		EXPECT_NE(NULL, strstr(self->out, want));
		snprintf(want, sizeof(want), "1 of %zu vendored headers differ", NR_HEADERS);
		EXPECT_NE(NULL, strstr(self->out, want));
		ASSERT_EQ(0, cmd_run(self->out, sizeof(self->out), "mv %s/saved %s/%s",
				     self->dir, self->dir, headers[i].theirs));
	}
}

TEST_F(tree, missing_header_fails)
{
	char want[256];

	ASSERT_EQ(0, cmd_run(self->out, sizeof(self->out), "rm %s/%s", self->dir,
			     headers[0].theirs));
	EXPECT_EQ(1, cmd_run(self->out, sizeof(self->out), CHECK " %s", self->dir));
	TH_LOG("%s", self->out);
	snprintf(want, sizeof(want), "%s/%s does not exist", self->dir, headers[0].theirs);
	EXPECT_NE(NULL, strstr(self->out, want));
}

TEST(no_tree_fails)
{
	char out[1024];

	EXPECT_EQ(2, cmd_run(out, sizeof(out), CHECK " /nonexistent"));
	EXPECT_NE(NULL, strstr(out, "/nonexistent: no kernel tree"));
}

TEST_HARNESS_MAIN
