// SPDX-License-Identifier: GPL-2.0
/*
 * The QEMU runner fails a run when it should: a failing guest test case,
 * a guest oops, a hung guest. Boots the test kernel (build/kernel) with
 * the initramfs (build/initramfs.cpio.gz), so it runs after make kernel;
 * without them, its tests skip.
 */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "kselftest_harness.h"
#include "cmd.h"
#include "needs_kernel.h"
#include "tmpdir.h"

FIXTURE(guest) {
	char dir[64];
	char out[65536];
};

FIXTURE_SETUP(guest)
{
	ASSERT_EQ(0, tmpdir_make(self->dir, sizeof(self->dir), "runner"));
}

FIXTURE_TEARDOWN(guest)
{
	tmpdir_remove(self->dir);
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

	NEEDS_GUEST();

	ASSERT_EQ(0, cmd_run(out, sizeof(out), "cp %s/build/tests/fixtures/harness_fail %s/",
			     JIFL_TOP, self->dir));
	EXPECT_EQ(1, boot(self, "true", "-T 200 -t /mnt/host/harness_fail"));
	TH_LOG("%s", self->out);
	EXPECT_NE(NULL, strstr(self->out, "harness_fail: 1 passed, 1 failed"));
	EXPECT_NE(NULL, strstr(self->out, "guest: 1 passed, 1 failed"));
}

TEST_F_TIMEOUT(guest, oops_fails_the_run, 300)
{
	NEEDS_GUEST();

	EXPECT_EQ(1, boot(self, "echo c > /proc/sysrq-trigger", "-T 200 -t none"));
	TH_LOG("%s", self->out);
	EXPECT_NE(NULL, strstr(self->out, "kernel report in the log"));
	EXPECT_NE(NULL, strstr(self->out, "never reported"));
}

TEST_F_TIMEOUT(guest, hung_guest_is_killed, 300)
{
	NEEDS_GUEST();

	EXPECT_EQ(1, boot(self, "sleep 100000", "-T 30 -t none"));
	TH_LOG("%s", self->out);
	EXPECT_NE(NULL, strstr(self->out, "timeout"));
	EXPECT_NE(NULL, strstr(self->out, "guest: 0 passed, 1 failed"));
}

TEST_F_TIMEOUT(guest, files_come_out_through_the_share, 300)
{
	char out[256];

	NEEDS_GUEST();

	EXPECT_EQ(0, boot(self, "uname -r > /mnt/host/uname.txt", "-T 200 -t none"));
	TH_LOG("%s", self->out);
	ASSERT_EQ(0, cmd_run(out, sizeof(out), "cat %s/uname.txt", self->dir));
	EXPECT_NE(NULL, strstr(out, "-jifl"));
}

/* A guest test binary on the share: a shell script. */
static int put_script(FIXTURE_DATA(guest) *self, const char *name,
		      const char *body)
{
	char out[256];

	return cmd_run(out, sizeof(out),
		       "printf '#!/bin/sh\\n%%s\\n' '%s' > %s/%s && chmod +x %s/%s",
		       body, self->dir, name, self->dir, name);
}

/*
 * A boot that goes silent (here: an init that only sleeps) is killed by
 * the boot no-progress check long before the hard timeout, booted again
 * once (-R 1), and the run fails naming the phase; the stalled log is
 * kept.
 */
TEST_F_TIMEOUT(guest, silent_boot_is_retried_then_caught, 300)
{
	time_t t0 = time(NULL);
	char out[256];

	NEEDS_GUEST();

	EXPECT_EQ(1, boot(self, "true",
			  "-T 250 -P 100 -B 10 -R 1 -t none -a 'rdinit=/bin/busybox -- sleep 100000'"));
	TH_LOG("%s", self->out);
	EXPECT_NE(NULL, strstr(self->out, "qemu-run: boot stalled (attempt 1"));
	EXPECT_NE(NULL, strstr(self->out, "no progress: no console output for 10s during boot"));
	EXPECT_NE(NULL, strstr(self->out, "guest: 0 passed, 1 failed"));
	EXPECT_EQ(NULL, strstr(self->out, "after 250s timeout"));
	EXPECT_EQ(NULL, strstr(self->out, "attempt 2"));
	EXPECT_EQ(0, cmd_run(out, sizeof(out), "grep -q 'no progress' %s/guest.log.stall1",
			     self->dir));
	EXPECT_LT(time(NULL) - t0, 150);
}

/*
 * A guest that stops making progress while a test runs (every process
 * but init stopped, the heartbeat too) is caught, and the test named.
 */
TEST_F_TIMEOUT(guest, silent_test_is_caught, 300)
{
	time_t t0 = time(NULL);

	NEEDS_GUEST();

	ASSERT_EQ(0, put_script(self, "freeze", "kill -STOP -1; sleep 100000"));
	EXPECT_EQ(1, boot(self, "true", "-T 250 -P 15 -R 0 -t /mnt/host/freeze"));
	TH_LOG("%s", self->out);
	EXPECT_NE(NULL, strstr(self->out, "no progress: no console output for 15s during test freeze"));
	EXPECT_NE(NULL, strstr(self->out, "guest: 0 passed, 1 failed"));
	EXPECT_LT(time(NULL) - t0, 150);
}

/* A test that runs longer than the no-progress limit, silently, is not. */
TEST_F_TIMEOUT(guest, long_silent_test_is_not_caught, 300)
{
	NEEDS_GUEST();

	ASSERT_EQ(0, put_script(self, "slow", "sleep 45"));
	EXPECT_EQ(0, boot(self, "true", "-T 250 -P 30 -t /mnt/host/slow"));
	TH_LOG("%s", self->out);
	EXPECT_EQ(NULL, strstr(self->out, "no progress"));
	EXPECT_NE(NULL, strstr(self->out, "guest: slow: 0 passed, 0 failed"));
}

TEST_HARNESS_MAIN
