// SPDX-License-Identifier: GPL-2.0
/*
 * jifl-swtrace in the guest: this binary records itself running fib()
 * (as "swtrace_guest --child N") and checks the ground truth against the
 * number of calls, and that a perf.data came out. perf is not in the
 * guest; the host tests compare perf's decoding with the truth.
 */
#define _GNU_SOURCE
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "guest_harness.h"
#include "../host/swtrace_truth.h"

static const char *const swtrace_paths[] = {
	"/jifl/bin/jifl-swtrace",
#ifdef JIFL_TOP
	JIFL_TOP "/build/bin/jifl-swtrace",
#endif
};

__attribute__((noinline, optimize("no-optimize-sibling-calls"))) int fib(int n)
{
	return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

static const char *swtrace_path(void)
{
	size_t i;

	for (i = 0; i < sizeof(swtrace_paths) / sizeof(swtrace_paths[0]); i++)
		if (!access(swtrace_paths[i], X_OK))
			return swtrace_paths[i];
	return NULL;
}

TEST(records_itself)
{
	const char *swtrace = swtrace_path();
	char self_exe[PATH_MAX], cmd[PATH_MAX * 2], magic[8];
	struct ipseq truth = { 0 };
	size_t i, calls = 0;
	ssize_t n;
	FILE *f;
	int st;

	ASSERT_NE(NULL, swtrace) TH_LOG("jifl-swtrace: " GUEST_NOT_IN_IMAGE);
	n = readlink("/proc/self/exe", self_exe, sizeof(self_exe) - 1);
	ASSERT_GT(n, 0);
	self_exe[n] = '\0';
	snprintf(cmd, sizeof(cmd), "%s -q -o /tmp/swtrace-guest.data --truth /tmp/swtrace-guest.truth -- %s --child 10",
		 swtrace, self_exe);
	st = system(cmd);
	ASSERT_TRUE(WIFEXITED(st));
	/* 127: the dynamic loader could not start the tool (its libraries). */
	ASSERT_NE(127, WEXITSTATUS(st))
		TH_LOG("%s cannot run (libipt, libZydis): " GUEST_NOT_IN_IMAGE, swtrace);
	ASSERT_EQ(55, WEXITSTATUS(st));	/* fib(10), the child's exit code */

	ASSERT_EQ(0, truth_read("/tmp/swtrace-guest.truth", &truth));
	for (i = 0; i < truth.n; i++)
		calls += truth.v[i].ip == (uint64_t)(uintptr_t)fib;
	EXPECT_EQ(177, calls);	/* fib(10) makes 2 * F(11) - 1 calls */
	EXPECT_GT(truth.n, 1000);

	f = fopen("/tmp/swtrace-guest.data", "r");
	ASSERT_NE(NULL, f);
	ASSERT_EQ(1, fread(magic, sizeof(magic), 1, f));
	fclose(f);
	EXPECT_EQ(0, memcmp(magic, "PERFILE2", 8));
	free(truth.v);
	unlink("/tmp/swtrace-guest.data");
	unlink("/tmp/swtrace-guest.truth");
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "--child"))
		return fib(atoi(argv[2]));
	return guest_harness_run(argc, argv);
}
