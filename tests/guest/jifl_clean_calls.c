// SPDX-License-Identifier: GPL-2.0
/*
 * Tool code that pushes: clean calls in every hook of a block, and the
 * stack traces taken from them.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "guest_harness.h"
#include "proc_util.h"

static char out[4096];

/*
 * CONFIG_JIFL_TEST's "calls" tool makes two clean calls in every hook,
 * before each block and on both sides of its branch: the most changes of
 * the stack pointer a block holds. Every 64th call takes a stack trace,
 * which must reach do_syscall_64() with no cache address in it (and no
 * WARN on the way: the run's dmesg check).
 */
TEST(clean_calls_in_every_hook_unwind)
{
	static char buf[4096];
	long long calls = -1, traces = -1, bad = -1;
	char cmd[64];
	int fd, i;

	fd = open("/dev/zero", O_RDONLY);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, jifl_control("tool calls"))
		TH_LOG("kernel without CONFIG_JIFL_TEST's calls tool");
	snprintf(cmd, sizeof(cmd), "pid %d", (int)getpid());
	ASSERT_EQ(0, jifl_control(cmd));
	ASSERT_EQ(0, jifl_control("syscalls all"));
	ASSERT_EQ(0, jifl_control("enable"));
	for (i = 0; i < 2000; i++) {
		syscall(SYS_getppid);
		if (read(fd, buf, 1 + i % sizeof(buf)) < 0)
			break;
	}
	if (system("ls -l /bin /proc/self > /dev/null && cat /proc/self/stat > /dev/null"))
		TH_LOG("the shell's workload failed");
	ASSERT_EQ(0, jifl_control("disable"));
	close(fd);
	file_read("/proc/jifl/tool", out, sizeof(out));
	ASSERT_EQ(3, sscanf(out, "calls %lld traces %lld bad %lld", &calls, &traces, &bad))
		TH_LOG("/proc/jifl/tool: %.200s", out);
	TH_LOG("%lld clean calls, %lld stack traces, %lld bad", calls, traces, bad);
	EXPECT_LE(100, traces);
	EXPECT_EQ(0, bad);
}

/* Whatever a test left on. */
static void __attribute__((destructor)) restore(void)
{
	jifl_control("disable");
	jifl_control("pid 0");
	jifl_control("tool null");
}

TEST_HARNESS_MAIN
