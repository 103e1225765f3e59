// SPDX-License-Identifier: GPL-2.0
/*
 * jifl-decode on JIT code in the guest. This binary is its own JIT: run as
 * "decode_jit --jit N" it rewrites one RWX page N times (each version a
 * different loop at a different place), as "decode_jit --smc N" it runs
 * code that patches a jump in its own page (the store is single-stepped
 * by FlowJIT, FLOWJIT_EVF_STEP), as "decode_jit --alias N" it writes the
 * code through a read-write view of a memfd and runs it through a
 * read-execute view (the double mapping of .NET's W^X JIT), with
 * "--alias-pwrite N" by pwrite(2) into the memfd, with "--alias-fork N"
 * through the read-write view of a child process. The tests record it,
 * and LuaJIT, with
 *
 *   flowjit record -o x.fj -- jifl-swtrace -o p.data --truth t -- CMD
 *
 * decode p.data with jifl-decode --flowjit x.fj, and require the decoded
 * addresses to equal the ground truth, thread by thread, with no decode
 * error. The same p.data through "perf script --itrace=i1ie" (perf knows
 * no JIT code) is decoded too, and both error counts are printed: the
 * side-by-side that shows what FlowJIT adds. Then "flowjit jitdump" and
 * "perf inject --jit" give perf the snapshots: where no two versions of
 * a page ran between two timestamps (Documentation/jitdump.rst), perf
 * script must then decode the truth too, without error.
 */
#define _GNU_SOURCE
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "guest_harness.h"
#include "../host/swtrace_truth.h"
#include "../progs/jit_loop.h"
#include "../progs/memfd_views.h"

#define PAGE		4096
#define CMD_MAX		(3 * PATH_MAX)
/* A TSC packet only when 10^9 ticks passed: versions share TSC values. */
#define TSC_RARE	"--tsc-every 1000000000"

typedef int (*jit_fn)(int);

/* The RWX JIT: @n versions in one page, at 21 places that recur. */
static int run_jit(int n)
{
	unsigned char *page = mmap(NULL, PAGE, PROT_READ | PROT_WRITE | PROT_EXEC,
				   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	unsigned int i, off;

	if (page == MAP_FAILED)
		return -1;
	for (i = 0; i < (unsigned int)n; i++) {
		off = i * 48 % 1024;
		jit_loop_emit(page + off, i);
		if (((jit_fn)(page + off))(0) != (int)((i % 5 + 1) * i))
			return -1;
	}
	return 0;
}

/*
 * Self-modifying code: "xor eax, eax; mov [rip + 1], dil; jmp short +0;
 * mov eax, 1; ret" stores its argument into the jump's displacement: 0
 * runs "mov eax, 1", 5 jumps over it to the ret.
 */
static const unsigned char smc_code[] = {
	0x31, 0xc0,
	0x40, 0x88, 0x3d, 0x01, 0x00, 0x00, 0x00,
	0xeb, 0x00,
	0xb8, 0x01, 0x00, 0x00, 0x00,
	0xc3,
};

static int run_smc(int n)
{
	unsigned char *page = mmap(NULL, PAGE, PROT_READ | PROT_WRITE | PROT_EXEC,
				   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	int i, skip;

	if (page == MAP_FAILED)
		return -1;
	memcpy(page, smc_code, sizeof(smc_code));
	for (i = 0; i < n; i++) {
		skip = i % 3 == 1;
		if (((jit_fn)page)(skip ? 5 : 0) != !skip)
			return -1;
	}
	return 0;
}

enum alias_writer { ALIAS_VIEW, ALIAS_PWRITE, ALIAS_CHILD };

/* The child of --alias-fork: writes version i at @rw + off when asked. */
static void alias_child(unsigned char *rw, int req, int ack)
{
	unsigned int i;

	while (read(req, &i, sizeof(i)) == sizeof(i)) {
		jit_loop_emit(rw + i * 48 % 1024, i);
		if (write(ack, &i, sizeof(i)) != sizeof(i))
			break;
	}
	_exit(0);
}

/*
 * The double-mapped JIT: one memfd page, mapped shared read-write and
 * shared read-execute; @n versions written by @how at 21 places that
 * recur, each run through the read-execute view.
 */
static int run_alias(int n, enum alias_writer how)
{
	unsigned char buf[64], *rw, *rx;
	int fd, req[2], ack[2], st;
	unsigned int i, off;
	pid_t child = -1;
	size_t len;

	fd = memfd_views("jit", PAGE, &rw, &rx);
	if (fd < 0 || pipe(req) || pipe(ack))
		return -1;
	if (how == ALIAS_CHILD) {
		child = fork();
		if (child < 0)
			return -1;
		if (!child) {
			close(req[1]);
			close(ack[0]);
			alias_child(rw, req[0], ack[1]);
		}
		close(req[0]);
		close(ack[1]);
	}
	for (i = 0; i < (unsigned int)n; i++) {
		off = i * 48 % 1024;
		if (how == ALIAS_VIEW) {
			jit_loop_emit(rw + off, i);
		} else if (how == ALIAS_PWRITE) {
			len = jit_loop_emit(buf, i);
			if (pwrite(fd, buf, len, off) != (ssize_t)len)
				return -1;
		} else if (write(req[1], &i, sizeof(i)) != sizeof(i) ||
			   read(ack[0], &i, sizeof(i)) != sizeof(i)) {
			return -1;
		}
		if (((jit_fn)(rx + off))(0) != (int)((i % 5 + 1) * i))
			return -1;
	}
	if (child > 0) {
		close(req[1]);
		if (waitpid(child, &st, 0) != child || !WIFEXITED(st) || WEXITSTATUS(st))
			return -1;
	}
	return 0;
}

/* "decode_jit --jit N", "--smc N" or "--alias* N" runs the program, not the tests. */
__attribute__((constructor)) static void jit_main(int argc, char **argv)
{
	if (argc < 3)
		return;
	if (!strcmp(argv[1], "--jit"))
		_exit(run_jit(atoi(argv[2])) ? 99 : 0);
	if (!strcmp(argv[1], "--smc"))
		_exit(run_smc(atoi(argv[2])) ? 99 : 0);
	if (!strcmp(argv[1], "--alias"))
		_exit(run_alias(atoi(argv[2]), ALIAS_VIEW) ? 99 : 0);
	if (!strcmp(argv[1], "--alias-pwrite"))
		_exit(run_alias(atoi(argv[2]), ALIAS_PWRITE) ? 99 : 0);
	if (!strcmp(argv[1], "--alias-fork"))
		_exit(run_alias(atoi(argv[2]), ALIAS_CHILD) ? 99 : 0);
}

/* @path: where the tool @name is installed; 0, or -1 if nowhere. */
static int find_tool(char path[PATH_MAX], const char *name)
{
	snprintf(path, PATH_MAX, "/jifl/bin/%s", name);
#ifdef JIFL_TOP
	if (access(path, X_OK))
		snprintf(path, PATH_MAX, JIFL_TOP "/build/bin/%s", name);
#endif
	return access(path, X_OK);
}

FIXTURE(decode) {
	char dir[64], fj[128], data[128], truth[128];
	char self_exe[PATH_MAX], flowjit[PATH_MAX], swtrace[PATH_MAX], decoder[PATH_MAX];
	struct ipseq want, got, perf;
};

FIXTURE_SETUP(decode)
{
	ssize_t n;

	ASSERT_EQ(0, find_tool(self->decoder, "jifl-decode") ||
		     find_tool(self->flowjit, "flowjit") ||
		     find_tool(self->swtrace, "jifl-swtrace"))
		TH_LOG("the JIFL tools: " GUEST_NOT_IN_IMAGE);
	ASSERT_EQ(0, access("/proc/flowjit/stream", F_OK));
	n = readlink("/proc/self/exe", self->self_exe, sizeof(self->self_exe) - 1);
	ASSERT_GT(n, 0);
	self->self_exe[n] = '\0';
	strcpy(self->dir, "/tmp/decode-jit-XXXXXX");
	ASSERT_NE(NULL, mkdtemp(self->dir));
	snprintf(self->fj, sizeof(self->fj), "%s/x.fj", self->dir);
	snprintf(self->data, sizeof(self->data), "%s/p.data", self->dir);
	snprintf(self->truth, sizeof(self->truth), "%s/truth", self->dir);
	memset(&self->want, 0, sizeof(self->want));
	memset(&self->got, 0, sizeof(self->got));
	memset(&self->perf, 0, sizeof(self->perf));
}

FIXTURE_TEARDOWN(decode)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", self->dir);
	if (system(cmd))
		TH_LOG("cannot remove %s", self->dir);
	free(self->want.v);
	free(self->got.v);
	free(self->perf.v);
}

static int shell(const char *fmt, ...)
{
	char cmd[CMD_MAX];
	va_list ap;
	int st;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	st = system(cmd);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* "jit instructions: N" of jifl-decode --stats, or -1. */
static long jit_insns(FIXTURE_DATA(decode) *self)
{
	char cmd[CMD_MAX], line[256];
	long n = -1;
	FILE *f;

	snprintf(cmd, sizeof(cmd), "%s -i %s --flowjit %s --stats", self->decoder,
		 self->data, self->fj);
	f = popen(cmd, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		sscanf(line, "jit instructions: %ld", &n);
	pclose(f);
	return n;
}

/*
 * perf script on the recording with flowjit jitdump's snapshots merged
 * by perf inject --jit: prints its errors and differences from the
 * truth; with @exact, there must be none.
 */
static void check_perf_jitdump(struct __test_metadata *_metadata,
			       FIXTURE_DATA(decode) *self, const char *name, int exact)
{
	char dcmd[CMD_MAX];
	size_t first, diffs;
	long errors;

	ASSERT_EQ(0, shell("%s jitdump -q -i %s -o %s/marked.data -d %s/jit %s", self->flowjit,
			   self->data, self->dir, self->dir, self->fj));
	ASSERT_EQ(0, shell("perf inject --jit -i %s/marked.data -o %s/jit.data",
			   self->dir, self->dir));
	snprintf(dcmd, sizeof(dcmd), "perf script -i %s/jit.data --itrace=i1ie -F tid,ip 2>&1",
		 self->dir);
	self->perf.n = 0;
	ASSERT_EQ(0, read_ips(dcmd, 0, "instruction trace error type", &self->perf, &errors));
	qsort(self->perf.v, self->perf.n, sizeof(*self->perf.v), step_cmp);
	diffs = ipseq_diffs(&self->want, &self->perf, &first);
	fprintf(stderr, "# %s: perf script after flowjit jitdump: %zu instructions, %ld errors, "
		"%zu differ from the truth\n", name, self->perf.n, errors, diffs);
	if (exact) {
		EXPECT_EQ(0, errors);
		EXPECT_EQ(0, diffs);
	}
}

/*
 * Record @cmd under flowjit and jifl-swtrace (@swtrace_opts added), then
 * jifl-decode must give the truth exactly, JIT code included, with no
 * error; perf script's errors and differences are counted and printed,
 * without and with flowjit jitdump (@perf_exact: see check_perf_jitdump()).
 */
static void check(struct __test_metadata *_metadata, FIXTURE_DATA(decode) *self,
		  const char *name, const char *swtrace_opts, const char *cmd, int perf_exact)
{
	static const char *const decoders[] = { "block", "insn" };
	struct step want_at[2] = {}, got_at[2] = {};
	size_t first[2] = { SIZE_MAX, SIZE_MAX }, diffs[2], got[2], pfirst;
	long errors[2], perf_errors, jit[2];
	char dcmd[CMD_MAX];
	int st[2], d;

	ASSERT_EQ(0, shell("%s record -o %s -- %s -q %s -o %s --truth %s -- %s",
			   self->flowjit, self->fj, self->swtrace, swtrace_opts,
			   self->data, self->truth, cmd));
	ASSERT_EQ(0, truth_read(self->truth, &self->want));
	ASSERT_GT(self->want.n, 1000);

	/* Both of libipt's decoders: the block decoder (the default) first. */
	for (d = 0; d < 2; d++) {
		snprintf(dcmd, sizeof(dcmd), "%s -i %s --flowjit %s --insn --decoder %s",
			 self->decoder, self->data, self->fj, decoders[d]);
		self->got.n = 0;
		st[d] = read_ips(dcmd, 1, " error: ", &self->got, &errors[d]);
		qsort(self->got.v, self->got.n, sizeof(*self->got.v), step_cmp);
		diffs[d] = ipseq_diffs(&self->want, &self->got, &first[d]);
		got[d] = self->got.n;
		if (first[d] < self->want.n && first[d] < self->got.n) {
			want_at[d] = self->want.v[first[d]];
			got_at[d] = self->got.v[first[d]];
		}
		jit[d] = jit_insns(self);
		fprintf(stderr, "# %s: truth %zu instructions; jifl-decode --decoder %s: "
			"%zu instructions (%ld JIT), %ld errors, %zu differ from the truth\n",
			name, self->want.n, decoders[d], got[d], jit[d], errors[d], diffs[d]);
	}

	snprintf(dcmd, sizeof(dcmd), "perf script -i %s --itrace=i1ie -F tid,ip 2>&1",
		 self->data);
	if (read_ips(dcmd, 0, "instruction trace error type", &self->perf, &perf_errors) < 0 ||
	    !self->perf.n) {
		fprintf(stderr, "# %s: perf script does not run here\n", name);
	} else {
		qsort(self->perf.v, self->perf.n, sizeof(*self->perf.v), step_cmp);
		ipseq_diffs(&self->want, &self->perf, &pfirst);
		fprintf(stderr, "# %s: perf script: %zu instructions (%ld fewer than the truth), "
			"%ld errors, first difference at step %zd\n", name, self->perf.n,
			(long)self->want.n - (long)self->perf.n, perf_errors,
			pfirst == SIZE_MAX ? (ssize_t)-1 : (ssize_t)pfirst);
		check_perf_jitdump(_metadata, self, name, perf_exact);
	}

	for (d = 0; d < 2; d++) {
		EXPECT_EQ(0, st[d]) TH_LOG("--decoder %s", decoders[d]);
		EXPECT_EQ(0, errors[d]) TH_LOG("--decoder %s", decoders[d]);
		EXPECT_GT(jit[d], 0) TH_LOG("--decoder %s", decoders[d]);
		EXPECT_EQ(0, diffs[d]) {
			if (first[d] != SIZE_MAX)
				TH_LOG("--decoder %s: first difference at step %zu: "
				       "truth %u:%#lx, decoded %u:%#lx", decoders[d], first[d],
				       want_at[d].tid, (unsigned long)want_at[d].ip,
				       got_at[d].tid, (unsigned long)got_at[d].ip);
		}
	}
}

/* check() on this program run as its own JIT with @args ("--jit 200"). */
static void check_self(struct __test_metadata *_metadata, FIXTURE_DATA(decode) *self,
		       const char *name, const char *swtrace_opts, const char *args,
		       int perf_exact)
{
	char cmd[PATH_MAX + 32];

	snprintf(cmd, sizeof(cmd), "%s %s", self->self_exe, args);
	check(_metadata, self, name, swtrace_opts, cmd, perf_exact);
}

TEST_F_TIMEOUT(decode, rwx_jit, 600)
{
	check_self(_metadata, self, "rwx-jit", "", "--jit 200", 1);
}

/* The same JIT with TSC packets only where the trace re-enables. */
TEST_F_TIMEOUT(decode, rwx_jit_rare_tsc, 600)
{
	check_self(_metadata, self, "rwx-jit-rare-tsc", TSC_RARE, "--jit 200", 1);
}

TEST_F_TIMEOUT(decode, self_modifying, 600)
{
	/* perf only logged: a version changes in the middle of straight-line code. */
	check_self(_metadata, self, "self-modifying", "", "--smc 60", 0);
}

/*
 * A JIT that writes its code through a second mapping: a read-write view
 * of a memfd, pwrite(2) into it, a child's view. Each write must end the
 * version the read-execute view runs, whatever the path.
 */
TEST_F_TIMEOUT(decode, double_mapped_jit, 600)
{
	check_self(_metadata, self, "double-mapped-jit", "", "--alias 60", 1);
}

TEST_F_TIMEOUT(decode, memfd_pwrite_jit, 600)
{
	check_self(_metadata, self, "memfd-pwrite-jit", "", "--alias-pwrite 60", 1);
}

TEST_F_TIMEOUT(decode, jit_written_by_another_process, 600)
{
	check_self(_metadata, self, "jit-written-by-another-process", "", "--alias-fork 60", 1);
}

/* A hot loop (as tests/data/hot.lua) that LuaJIT compiles to machine code. */
static const char hot_lua[] =
	"local function f(n)\n"
	"  local s = 0\n"
	"  for i = 1, n do\n"
	"    if i % 3 == 0 then s = s + i else s = s - 1 end\n"
	"  end\n"
	"  return s\n"
	"end\n"
	"local t = 0\n"
	"for k = 1, 20 do t = t + f(200 + k) end\n"
	"io.write(t == 145765 and '' or 'wrong sum ' .. t .. '\\n')\n";

TEST_F_TIMEOUT(decode, luajit, 900)
{
	char script[128], cmd[PATH_MAX];
	FILE *f;

	ASSERT_PROGRAM("/usr/bin/luajit");
	snprintf(script, sizeof(script), "%s/hot.lua", self->dir);
	f = fopen(script, "w");
	ASSERT_NE(NULL, f);
	ASSERT_EQ(1, fwrite(hot_lua, sizeof(hot_lua) - 1, 1, f));
	ASSERT_EQ(0, fclose(f));
	snprintf(cmd, sizeof(cmd), "/usr/bin/luajit %s", script);
	check(_metadata, self, "luajit", "", cmd, 1);
}

TEST_HARNESS_MAIN
