// SPDX-License-Identifier: GPL-2.0
/*
 * The QEMU runner fails a run when it should: a failing guest test case,
 * a guest oops, a hung guest. Boots the test kernel (build/kernel) with
 * the initramfs (build/initramfs.cpio.gz), so it runs after make kernel.
 */
#include <stdio.h>
#include <string.h>

#include "kselftest_harness.h"
#include "cmd.h"

FIXTURE(guest) {
	char dir[64];
	char out[65536];
};

FIXTURE_SETUP(guest)
{
	strcpy(self->dir, "/tmp/jifl-runner-XXXXXX");
	ASSERT_NE(NULL, mkdtemp(self->dir));
}

FIXTURE_TEARDOWN(guest)
{
	cmd_run(self->out, sizeof(self->out), "rm -rf %s", self->dir);
}

/* Run the guest with a command script; returns the runner's status. */
static int boot(FIXTURE_DATA(guest) *self, const char *script,
		const char *args)
{
	char out[256];

	if (cmd_run(out, sizeof(out), "printf '%%s\\n' '%s' > %s/cmd.sh", script,
		    self->dir))
		return -1;
	return cmd_run(self->out, sizeof(self->out),
		       "%s/scripts/qemu-run.sh -s %s -l %s/guest.log -c %s/cmd.sh %s",
		       JIFL_TOP, self->dir, self->dir, self->dir, args);
}

TEST_F_TIMEOUT(guest, failing_case_is_counted, 300)
{
	char out[256];

	ASSERT_EQ(0, cmd_run(out, sizeof(out), "cp %s/build/tests/fixtures/harness_fail %s/",
			     JIFL_TOP, self->dir));
	EXPECT_EQ(1, boot(self, "true", "-T 200 -t /mnt/host/harness_fail"));
	TH_LOG("%s", self->out);
	EXPECT_NE(NULL, strstr(self->out, "harness_fail: 1 passed, 1 failed"));
	EXPECT_NE(NULL, strstr(self->out, "guest: 1 passed, 1 failed"));
}

TEST_F_TIMEOUT(guest, oops_fails_the_run, 300)
{
	EXPECT_EQ(1, boot(self, "echo c > /proc/sysrq-trigger", "-T 200 -t none"));
	TH_LOG("%s", self->out);
	EXPECT_NE(NULL, strstr(self->out, "kernel report in the log"));
	EXPECT_NE(NULL, strstr(self->out, "never reported"));
}

TEST_F_TIMEOUT(guest, hung_guest_is_killed, 300)
{
	EXPECT_EQ(1, boot(self, "sleep 100000", "-T 30 -t none"));
	TH_LOG("%s", self->out);
	EXPECT_NE(NULL, strstr(self->out, "timeout"));
	EXPECT_NE(NULL, strstr(self->out, "guest: 0 passed, 1 failed"));
}

TEST_F_TIMEOUT(guest, files_come_out_through_the_share, 300)
{
	char out[256];

	EXPECT_EQ(0, boot(self, "uname -r > /mnt/host/uname.txt", "-T 200 -t none"));
	TH_LOG("%s", self->out);
	ASSERT_EQ(0, cmd_run(out, sizeof(out), "cat %s/uname.txt", self->dir));
	EXPECT_NE(NULL, strstr(out, "-jifl"));
}

TEST_HARNESS_MAIN
