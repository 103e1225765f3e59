// SPDX-License-Identifier: GPL-2.0
/*
 * A WARN raised from code that runs in the JIFL code cache is reported
 * with the original function names (CONFIG_JIFL_TEST's debugfs "warn"
 * trigger is written while every system call, write() included, runs
 * from the cache). Boots the guest; the WARN makes that run's verdict
 * fail, which is expected here.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kselftest_harness.h"
#include "cmd.h"
#include "needs_kernel.h"
#include "tmpdir.h"

static char out[65536], log_text[262144];

FIXTURE(guest) {
	int unused;
};

FIXTURE_SETUP(guest)
{
}

FIXTURE_TEARDOWN(guest)
{
}

TEST_F_TIMEOUT(guest, warn_in_cache_names_original_functions, 300)
{
	char dir[64];
	char *trace, *end, *line;
	FILE *f;
	size_t n;
	int st;

	NEEDS_GUEST();
	ASSERT_EQ(0, tmpdir_make(dir, sizeof(dir), "warn"));
	ASSERT_EQ(0, cmd_run(out, sizeof(out),
		"printf '%%s\\n' 'echo \"syscalls all\" > /proc/jifl/control'"
		" 'echo enable > /proc/jifl/control'"
		" 'echo 1 > /sys/kernel/debug/jifl/warn'"
		" 'echo disable > /proc/jifl/control'"
		" 'grep entries /proc/jifl/stats' > %s/cmd.sh", dir));
	st = cmd_run(out, sizeof(out),
		     "%s/scripts/qemu-run.sh -s %s -l %s/guest.log -c %s/cmd.sh -t none -T 200",
		     JIFL_TOP, dir, dir, dir);
	TH_LOG("%s", out);
	/* The runner must fail the run: the log has a WARNING. */
	EXPECT_EQ(1, st);
	snprintf(out, sizeof(out), "%s/guest.log", dir);
	f = fopen(out, "r");
	ASSERT_NE(NULL, f);
	n = fread(log_text, 1, sizeof(log_text) - 1, f);
	log_text[n] = '\0';
	fclose(f);
	tmpdir_remove(dir);

	ASSERT_NE(NULL, strstr(log_text, "jifl: test warning from translated code"));
	EXPECT_NE(NULL, strstr(log_text, "WARNING: CPU:"));
	EXPECT_NE(NULL, strstr(log_text, "RIP: 0010:jifl_test_warn+"));
	trace = strstr(log_text, "Call Trace:");
	ASSERT_NE(NULL, trace);
	end = strstr(trace, "</TASK>");
	ASSERT_NE(NULL, end);
	*end = '\0';
	/* Reliable frames are original functions, never cache addresses. */
	EXPECT_NE(NULL, strstr(trace, " warn_write+"));
	EXPECT_NE(NULL, strstr(trace, " vfs_write+"));
	EXPECT_NE(NULL, strstr(trace, " ksys_write+"));
	/* the handler returns where it returns natively */
	EXPECT_NE(NULL, strstr(trace, " do_syscall_64+"));
	EXPECT_EQ(NULL, strstr(trace, " jifl_sys_call+"));
	for (line = strtok(trace, "\n"); line; line = strtok(NULL, "\n"))
		EXPECT_EQ(NULL, strstr(line, "0xffffffffc"));
}

TEST_HARNESS_MAIN
