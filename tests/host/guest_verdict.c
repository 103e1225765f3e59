// SPDX-License-Identifier: GPL-2.0
/*
 * scripts/guest-verdict.sh judges guest console logs: table of logs and
 * the verdict each must get.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "cmd.h"

struct verdict_case {
	const char *name;
	const char *log;
	int status;		/* expected exit status */
	const char *summary;	/* expected "guest: P passed, F failed" */
	const char *why;	/* expected substring of the output, or NULL */
};

#define BLOCK(lines) "JIFL-RESULT-BEGIN\n" lines "JIFL-RESULT-END\n"

static const struct verdict_case cases[] = {
	{ "clean pass",
	  "boot\n" BLOCK("test a pass=3 fail=0 skip=0 rc=0\n"
			 "test b pass=2 fail=0 skip=1 rc=0\ndmesg clean\n"),
	  0, "guest: 5 passed, 0 failed", "guest: 1 skipped\nguest: 5 passed, 0 failed\n" },
	{ "failed test",
	  BLOCK("test a pass=1 fail=1 skip=0 rc=1\ndmesg clean\n"),
	  1, "guest: 1 passed, 1 failed", "FAIL" },
	{ "oops in log",
	  "BUG: kernel NULL pointer dereference, address: 0\nOops: 0000 [#1]\n"
	  BLOCK("test a pass=1 fail=0 skip=0 rc=0\ndmesg clean\n"),
	  1, "guest: 1 passed, 1 failed", "kernel report" },
	{ "warning in log",
	  "WARNING: CPU: 0 PID: 1 at mm/x.c:1 f+0x1/0x2\n"
	  BLOCK("test a pass=1 fail=0 skip=0 rc=0\ndmesg clean\n"),
	  1, "guest: 1 passed, 1 failed", "WARNING" },
	{ "lockdep report",
	  "WARNING: possible circular locking dependency detected\n"
	  BLOCK("test a pass=1 fail=0 skip=0 rc=0\ndmesg clean\n"),
	  1, "guest: 1 passed, 1 failed", "circular" },
	{ "kasan report",
	  "==================\nBUG: KASAN: use-after-free in f+0x1/0x2\n"
	  BLOCK("test a pass=1 fail=0 skip=0 rc=0\ndmesg clean\n"),
	  1, "guest: 1 passed, 1 failed", "KASAN" },
	{ "never reported",
	  "booting\nKernel panic - not syncing: VFS\n",
	  1, "guest: 0 passed, 1 failed", "never reported" },
	{ "truncated block",
	  "JIFL-RESULT-BEGIN\ntest a pass=1 fail=0 skip=0 rc=0\n",
	  1, "guest: 1 passed, 1 failed", "never reported" },
	{ "dirty dmesg",
	  BLOCK("test a pass=1 fail=0 skip=0 rc=0\ndmesg dirty\n"),
	  1, "guest: 1 passed, 1 failed", "dmesg" },
	{ "timeout",
	  "booting\nqemu-run: guest killed after 5s timeout (log: x)\n",
	  1, "guest: 0 passed, 1 failed", "timeout" },
	{ "crlf console",
	  "JIFL-RESULT-BEGIN\r\ntest a pass=2 fail=0 skip=0 rc=0\r\n"
	  "dmesg clean\r\nJIFL-RESULT-END\r\n",
	  0, "guest: 2 passed, 0 failed", NULL },
};

TEST(verdict_table)
{
	char path[] = "/tmp/jifl-verdict-XXXXXX";
	char out[8192];
	size_t i;
	int fd, st;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct verdict_case *c = &cases[i];

		fd = mkstemp(path);
		ASSERT_LE(0, fd);
		ASSERT_EQ((ssize_t)strlen(c->log), write(fd, c->log, strlen(c->log)));
		close(fd);
		st = cmd_run(out, sizeof(out), "%s/scripts/guest-verdict.sh %s",
			     JIFL_TOP, path);
		unlink(path);
		strcpy(path, "/tmp/jifl-verdict-XXXXXX");
		TH_LOG("case '%s':\n%s", c->name, out);
		EXPECT_EQ(c->status, st);
		EXPECT_NE(NULL, strstr(out, c->summary));
		if (c->why)
			EXPECT_NE(NULL, strstr(out, c->why));
	}
}

/*
 * A report line early in a long result block: a "grep -q" fed by a pipe
 * stops reading at it, and under "set -o pipefail" the writer's SIGPIPE
 * made the check false, so the run passed.
 */
TEST(dirty_dmesg_before_a_long_block)
{
	char path[] = "/tmp/jifl-verdict-XXXXXX";
	char out[8192];
	FILE *f;
	int fd, i;

	fd = mkstemp(path);
	ASSERT_LE(0, fd);
	f = fdopen(fd, "w");
	ASSERT_NE(NULL, f);
	fprintf(f, "JIFL-RESULT-BEGIN\ndmesg dirty\n");
	for (i = 0; i < 20000; i++)
		fprintf(f, "note: a line of the block that no check reads\n");
	fprintf(f, "test a pass=1 fail=0 skip=0 rc=0\nJIFL-RESULT-END\n");
	ASSERT_EQ(0, fclose(f));
	EXPECT_EQ(1, cmd_run(out, sizeof(out), "%s/scripts/guest-verdict.sh %s",
			     JIFL_TOP, path));
	unlink(path);
	EXPECT_NE(NULL, strstr(out, "dmesg holds a kernel report")) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "guest: 1 passed, 1 failed"));
}

TEST(missing_log)
{
	char out[1024];

	EXPECT_EQ(2, cmd_run(out, sizeof(out), "%s/scripts/guest-verdict.sh /nonexistent/log",
			     JIFL_TOP));
	EXPECT_NE(NULL, strstr(out, "no such file"));
}

TEST_HARNESS_MAIN
