// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel-tree workflow: prepare applies a series with git am and
 * names the patch that does not apply; export regenerates patches/ byte
 * for byte. Runs on a tiny source tarball, and checks the round trip of
 * the real series on the prepared build/linux.
 */
#include <stdio.h>
#include <string.h>

#include "kselftest_harness.h"
#include "cmd.h"
#include "needs_kernel.h"
#include "tmpdir.h"

FIXTURE(tiny) {
	char dir[64];
	char env[512];
	char out[16384];
};

FIXTURE_SETUP(tiny)
{
	ASSERT_EQ(0, tmpdir_make(self->dir, sizeof(self->dir), "wf"));
	snprintf(self->env, sizeof(self->env),
		 "KSRC_TARBALL=%s/tiny.tar.xz KTREE=%s/tree PATCHES=%s/p",
		 self->dir, self->dir, self->dir);
	/* A two-file "kernel" and an empty series with a cover letter. */
	ASSERT_EQ(0, cmd_run(self->out, sizeof(self->out),
		"set -e; cd %s; mkdir -p src/linux-source-6.1 p;"
		"printf 'int a;\\nint b;\\nint c;\\n' > src/linux-source-6.1/a.c;"
		"printf 'all:\\n' > src/linux-source-6.1/Makefile;"
		"tar -C src -cJf tiny.tar.xz linux-source-6.1;"
		"printf '# base\\n' > p/series;"
		"printf 'Tiny series\\n\\nFor the workflow test.\\n' > p/cover-letter.txt",
		self->dir));
}

FIXTURE_TEARDOWN(tiny)
{
	tmpdir_remove(self->dir);
}

static int wf(struct __test_metadata *_metadata, FIXTURE_DATA(tiny) *self,
	      const char *cmd)
{
	int st = cmd_run(self->out, sizeof(self->out), "cd %s && %s %s",
			 JIFL_TOP, self->env, cmd);

	TH_LOG("%s -> %d\n%s", cmd, st, self->out);
	return st;
}

/* Commit one change in the tiny tree and export it as patch 0001. */
static void make_series(struct __test_metadata *_metadata,
			FIXTURE_DATA(tiny) *self)
{
	char cmd[512];

	ASSERT_EQ(0, wf(_metadata, self, "scripts/kernel-prepare.sh"));
	snprintf(cmd, sizeof(cmd),
		 "sed -i 's/int b;/int b2;/' %s/tree/a.c && git -C %s/tree commit -q -am "
		 "'tiny: rename b' -m 'Because.' -m 'Signed-off-by: T <t@t>'",
		 self->dir, self->dir);
	ASSERT_EQ(0, cmd_run(self->out, sizeof(self->out), "%s", cmd));
	ASSERT_EQ(0, wf(_metadata, self, "scripts/kernel-export.sh"));
}

TEST_F(tiny, export_round_trips)
{
	make_series(_metadata, self);
	ASSERT_EQ(0, cmd_run(self->out, sizeof(self->out),
			     "cp -r %s/p %s/p.orig && grep -q '^0001-tiny-rename-b.patch$' %s/p/series",
			     self->dir, self->dir, self->dir));
	ASSERT_EQ(0, wf(_metadata, self, "FORCE=1 scripts/kernel-prepare.sh"));
	EXPECT_NE(NULL, strstr(self->out, "applied 1 patches"));
	ASSERT_EQ(0, wf(_metadata, self, "scripts/kernel-export.sh"));
	EXPECT_EQ(0, cmd_run(self->out, sizeof(self->out), "diff -r %s/p.orig %s/p",
			     self->dir, self->dir));
	TH_LOG("%s", self->out);
}

TEST_F(tiny, broken_patch_is_named)
{
	make_series(_metadata, self);
	/* Break a context line of the patch. */
	ASSERT_EQ(0, cmd_run(self->out, sizeof(self->out),
			     "sed -i 's/^ int c;/ int zz;/' %s/p/0001-tiny-rename-b.patch",
			     self->dir));
	EXPECT_NE(0, wf(_metadata, self, "FORCE=1 scripts/kernel-prepare.sh"));
	EXPECT_NE(NULL, strstr(self->out, "patch 1 '0001-tiny-rename-b.patch' does not apply"));
}

TEST_F(tiny, unexported_commits_are_kept)
{
	make_series(_metadata, self);
	/* A new commit that patches/ does not hold, then a changed series. */
	ASSERT_EQ(0, cmd_run(self->out, sizeof(self->out),
			     "cd %s/tree && echo 'int d;' >> a.c && git commit -q -am 'tiny: d' &&"
			     "echo '# x' >> %s/p/series", self->dir, self->dir));
	EXPECT_NE(0, wf(_metadata, self, "scripts/kernel-prepare.sh"));
	EXPECT_NE(NULL, strstr(self->out, "differ from patches/"));
}

TEST_F(tiny, missing_tarball)
{
	EXPECT_NE(0, wf(_metadata, self, "KSRC_TARBALL=/nonexistent.tar.xz scripts/kernel-prepare.sh"));
	EXPECT_NE(NULL, strstr(self->out, "/nonexistent.tar.xz not found"));
}

/* The prepared build/linux exports to exactly the committed patches/. */
TEST(real_series_round_trips)
{
	char out[16384];
	int st;

	NEEDS_KERNEL_TREE();
	st = cmd_run(out, sizeof(out),
		     "set -e; d=$(mktemp -d); trap 'rm -rf $d' EXIT; cd %s;"
		     "cp patches/cover-letter.txt $d/;"
		     "PATCHES=$d scripts/kernel-export.sh;"
		     "diff -r patches $d", JIFL_TOP);
	TH_LOG("%s", out);
	EXPECT_EQ(0, st);
}

TEST_HARNESS_MAIN
