// SPDX-License-Identifier: GPL-2.0
/*
 * One error style: a library call's negative code carries the system's
 * errno inside it (no errno to read afterwards), jifl_strerror() turns
 * any code into its text, and a tool prints a failure once, as
 * "TOOL: what: why", through jifl_perror().
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "cmd.h"
#include "common/command.h"
#include "common/errcode.h"
#include "flowjit/fjreader.h"
#include "flowjit/fjwriter.h"
#include "tmpdir.h"

#define BIN	JIFL_TOP "/build/bin/"

TEST(a_system_error_carries_its_errno)
{
	int code = jifl_err_errno(EACCES);

	ASSERT_GT(0, code);
	EXPECT_TRUE(jifl_err_is_errno(code));
	EXPECT_EQ(EACCES, jifl_err_to_errno(code));
	EXPECT_STREQ(strerror(EACCES), jifl_strerror(code));
	EXPECT_STREQ(strerror(ENOENT), jifl_strerror(jifl_err_errno(ENOENT)));
	/* a failure that left no errno is still a system error */
	EXPECT_TRUE(jifl_err_is_errno(jifl_err_errno(0)));
	EXPECT_EQ(EIO, jifl_err_to_errno(jifl_err_errno(0)));
}

TEST(library_codes_are_not_system_errors)
{
	EXPECT_FALSE(jifl_err_is_errno(-jifl_err_format));
	EXPECT_FALSE(jifl_err_is_errno(-jifl_err_nomem));
	EXPECT_FALSE(jifl_err_is_errno(0));
	EXPECT_STREQ("bad file format", jifl_strerror(-jifl_err_format));
	EXPECT_STREQ("out of memory", jifl_strerror(-jifl_err_nomem));
}

/* The reason comes back in the code, whatever errno holds afterwards. */
TEST(a_library_call_returns_the_reason_of_its_failure)
{
	struct jifl_fjreader *r;

	EXPECT_EQ(jifl_err_errno(ENOENT), jifl_fjreader_open(&r, "/nonexistent/jifl.fj"));
	/* fopen() takes a directory; the first read fails */
	EXPECT_EQ(jifl_err_errno(EISDIR), jifl_fjreader_open(&r, "/"));
	EXPECT_EQ(jifl_err_errno(ENOENT), jifl_command_write("/nonexistent/jifl", "x"));
}

TEST(jifl_perror_prints_tool_what_why)
{
	char path[] = "/tmp/jifl-perror-XXXXXX", buf[256];
	int fd, saved;
	ssize_t n;

	fd = mkstemp(path);
	ASSERT_LE(0, fd);
	unlink(path);
	fflush(stderr);
	saved = dup(STDERR_FILENO);
	ASSERT_LE(0, saved);
	ASSERT_EQ(STDERR_FILENO, dup2(fd, STDERR_FILENO));
	jifl_perror("jifl-tool", jifl_err_errno(ENOENT), "reading '%s'", "x.data");
	jifl_perror("jifl-tool", -jifl_err_format, "decoding '%s'", "y.data");
	jifl_perror_hint("jifl-tool", jifl_err_errno(EEXIST), "--force replaces it",
			 "cannot create '%s'", "z.fj");
	jifl_warn("jifl-tool", "%d records lost", 3);
	fflush(stderr);
	dup2(saved, STDERR_FILENO);
	close(saved);
	n = pread(fd, buf, sizeof(buf) - 1, 0);
	close(fd);
	ASSERT_LT(0, n);
	buf[n] = '\0';
	EXPECT_STREQ("jifl-tool: reading 'x.data': No such file or directory\n"
		     "jifl-tool: decoding 'y.data': bad file format\n"
		     "jifl-tool: cannot create 'z.fj': File exists (--force replaces it)\n"
		     "jifl-tool: warning: 3 records lost\n", buf);
}

/* A command, and all it says on stderr. */
struct tool_msg {
	const char *cmd;
	const char *msg;
};

/* Each tool's message of a system failure, the whole of it. */
static const struct tool_msg tools[] = {
	{ BIN "flowjit report /nonexistent/x.fj",
	  "flowjit: report: cannot read '/nonexistent/x.fj': No such file or directory\n" },
	{ BIN "flowjit report /",
	  "flowjit: report: cannot read '/': Is a directory\n" },
	{ BIN "jifl-decode -i /nonexistent/perf.data",
	  "jifl-decode: cannot read '/nonexistent/perf.data': No such file or directory\n" },
	/* not "No such device", mmap()'s word for a directory */
	{ BIN "jifl-decode -i /",
	  "jifl-decode: cannot read '/': Is a directory\n" },
	{ BIN "jifl-decode -j 2 -i /",
	  "jifl-decode: cannot read '/': Is a directory\n" },
	{ BIN "jifl-decode --pt /nonexistent/trace.pt",
	  "jifl-decode: --pt: cannot read '/nonexistent/trace.pt': No such file or directory\n" },
	{ BIN "jifl-swtrace -q -o /nonexistent/perf.data -- /bin/true",
	  "jifl-swtrace: cannot create '/nonexistent/perf.data': No such file or directory\n" },
	{ BIN "flowjit jitdump -q -i /nonexistent/perf.data /nonexistent/x.fj",
	  "flowjit: jitdump: cannot read '/nonexistent/x.fj': No such file or directory\n" },
};

TEST(tools_say_tool_what_why)
{
	char out[1024];
	size_t i;

	for (i = 0; i < sizeof(tools) / sizeof(tools[0]); i++) {
		EXPECT_EQ(1, cmd_run(out, sizeof(out), "%s", tools[i].cmd)) TH_LOG("%s", tools[i].cmd);
		EXPECT_STREQ(tools[i].msg, out) TH_LOG("%s", tools[i].cmd);
	}
}

/*
 * A file that is bad at some position: the position is part of the
 * "what", before the reason. DIR/good.fj holds one code snapshot;
 * DIR/cut.fj is it with 8 bytes of no record after it; DIR/perf.data is
 * jifl-swtrace's recording of /bin/true; DIR/bad.data is not a perf.data
 * at all. %1$s: DIR; %2$s: where the reader stops in cut.fj, and why.
 */
static const struct tool_msg at_offset[] = {
	{ BIN "jifl-decode -i %1$s/bad.data",
	  "jifl-decode: reading '%1$s/bad.data' at offset 0: bad file format\n" },
	{ BIN "jifl-decode -i %1$s/perf.data --flowjit %1$s/cut.fj",
	  "jifl-decode: --flowjit: reading '%1$s/cut.fj' at offset %2$s\n" },
	{ BIN "flowjit report %1$s/cut.fj",
	  "flowjit: report: reading '%1$s/cut.fj' at byte %2$s\n" },
	{ BIN "flowjit jitdump -q -i %1$s/perf.data -d %1$s/jit %1$s/cut.fj",
	  "flowjit: jitdump: reading '%1$s/cut.fj' at byte %2$s\n" },
	{ BIN "flowjit jitdump -q -i %1$s/bad.data -d %1$s/jit %1$s/good.fj",
	  "flowjit: jitdump: cannot read '%1$s/bad.data' at byte 0: bad file format\n" },
};

/* @path: one code snapshot of process 1. */
static void write_fj(struct __test_metadata *_metadata, const char *path)
{
	static struct {
		struct flowjit_event ev;
		unsigned char page[FLOWJIT_PAGE_SIZE];
	} r = {
		.ev = { .type = FLOWJIT_EV_EXEC, .flags = FLOWJIT_EVF_PAYLOAD,
			.size = sizeof(r), .pid = 1, .tid = 1, .ip = 0x1000, .addr = 0x1000 },
	};
	struct jifl_fj_info info = { .pid = 1 };
	struct jifl_fjwriter *w;

	ASSERT_EQ(0, jifl_fjwriter_open(&w, path, &info));
	ASSERT_EQ(0, jifl_fjwriter_add(w, &r.ev));
	ASSERT_EQ(0, jifl_fjwriter_close(w));
}

/* "OFFSET: WHY" of the reader's stop in @path, in @buf. */
static void bad_record(struct __test_metadata *_metadata, const char *path, char *buf,
		       size_t size)
{
	struct jifl_fjreader *r;
	struct flowjit_event ev;
	const void *page;
	int ret;

	ASSERT_EQ(0, jifl_fjreader_open(&r, path));
	while ((ret = jifl_fjreader_next(r, &ev, &page)) > 0)
		;
	EXPECT_GT(0, ret);
	snprintf(buf, size, "%llu: %s", (unsigned long long)jifl_fjreader_offset(r),
		 jifl_strerror(ret));
	jifl_fjreader_close(r);
}

TEST(a_position_comes_before_the_reason)
{
	char dir[64], path[128], cmd[512], want[512], stop[128], out[1024];
	size_t i;

	ASSERT_EQ(0, tmpdir_make(dir, sizeof(dir), "errcode"));
	snprintf(path, sizeof(path), "%s/good.fj", dir);
	write_fj(_metadata, path);
	EXPECT_EQ(0, cmd_run(out, sizeof(out), "cd %s && cp good.fj cut.fj && "
			     "printf 12345678 >> cut.fj && printf XXXXXXXX > bad.data && "
			     BIN "jifl-swtrace -q -o perf.data -- /bin/true", dir)) TH_LOG("%s", out);
	snprintf(path, sizeof(path), "%s/cut.fj", dir);
	bad_record(_metadata, path, stop, sizeof(stop));
	for (i = 0; i < sizeof(at_offset) / sizeof(at_offset[0]); i++) {
		snprintf(cmd, sizeof(cmd), at_offset[i].cmd, dir);
		snprintf(want, sizeof(want), at_offset[i].msg, dir, stop);
		EXPECT_EQ(1, cmd_run(out, sizeof(out), "%s", cmd)) TH_LOG("%s", cmd);
		EXPECT_STREQ(want, out) TH_LOG("%s", cmd);
	}
	tmpdir_remove(dir);
}

TEST_HARNESS_MAIN
