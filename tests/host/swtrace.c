// SPDX-License-Identifier: GPL-2.0
/*
 * jifl-swtrace end to end: record test programs, then check that stock
 * "perf script --itrace=i1i" (perf's own Intel PT decoder, the reference
 * reader) decodes exactly the instruction addresses of the ground truth,
 * with no decoder error. The ground truth is read here with an
 * independent reader of its documented format.
 */
#include <errno.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <intel-pt.h>
#include <linux/filter.h>
#include <linux/seccomp.h>

#include "kselftest_harness.h"
#include "cmd.h"
#include "perf/perf_reader.h"
#include "swtrace_truth.h"
#include "tools.h"
#include "tmpdir.h"

/* -DSWTRACE='"path"' tests another build (the SAN=1 one in build/bin-san). */
#ifndef SWTRACE
#define SWTRACE	JIFL_TOP "/build/bin/jifl-swtrace"
#endif
#define PROGS	JIFL_TOP "/build/tests/progs/"

/* Threads interleave differently in the two; compare thread by thread. */
static void ipseq_by_thread(struct ipseq *s)
{
	qsort(s->v, s->n, sizeof(*s->v), step_cmp);
}

/* Threads and IPs of "perf script --itrace=i1ie", and the number of errors. */
static int perf_read(const char *data, struct ipseq *s, long *errors)
{
	char cmd[512], line[512], *p, *end;
	unsigned long tid;
	uint64_t ip;
	FILE *f;

	snprintf(cmd, sizeof(cmd),
		 "perf script -i %s --itrace=i1ie -F tid,ip 2>&1", data);
	f = popen(cmd, "r");
	if (!f)
		return -1;
	*errors = 0;
	while (fgets(line, sizeof(line), f)) {
		if (strstr(line, "instruction trace error type")) {
			(*errors)++;
			continue;
		}
		/* "  TID  IP"; anything else is a warning or a summary. */
		tid = strtoul(line, &p, 10);
		if (p == line)
			continue;
		ip = strtoull(p, &end, 16);
		if (end == p || end[strspn(end, " \t\n")])
			continue;
		if (ipseq_push(s, tid, ip)) {
			pclose(f);
			return -1;
		}
	}
	return pclose(f) == 0 ? 0 : -1;
}

FIXTURE(swtrace) {
	TMPDIR_TRACE_MEMBERS;
	char out[8192];
	long errors;
};

FIXTURE_SETUP(swtrace)
{
	TMPDIR_TRACE_SETUP("swtrace");
}

FIXTURE_TEARDOWN(swtrace)
{
	TMPDIR_TRACE_TEARDOWN();
}

/* Record @cmd with @opts; returns the exit status, output in self->out. */
static int record_opts(FIXTURE_DATA(swtrace) *self, const char *opts,
		       const char *cmd)
{
	return cmd_run(self->out, sizeof(self->out), "%s %s -o %s --truth %s -- %s",
		       SWTRACE, opts, self->data, self->truth, cmd);
}

static int record(FIXTURE_DATA(swtrace) *self, const char *cmd)
{
	return record_opts(self, "", cmd);
}

/* perf decodes exactly the ground truth, with no error. */
static void check_same(struct __test_metadata *_metadata,
		       FIXTURE_DATA(swtrace) *self)
{
	size_t i;

	ASSERT_EQ(0, truth_read(self->truth, &self->want));
	ASSERT_EQ(0, perf_read(self->data, &self->got, &self->errors));
	EXPECT_EQ(0, self->errors);
	ASSERT_GT(self->want.n, 1000);
	EXPECT_EQ(self->want.n, self->got.n);
	ipseq_by_thread(&self->want);
	ipseq_by_thread(&self->got);
	for (i = 0; i < self->want.n && i < self->got.n; i++)
		if (self->want.v[i].tid != self->got.v[i].tid ||
		    self->want.v[i].ip != self->got.v[i].ip)
			break;
	if (i < self->want.n || i < self->got.n)
		TH_LOG("first difference at instruction %zu of %zu", i, self->want.n);
	ASSERT_EQ(self->want.n, i);
}

/* Record @cmd with @opts: exit 0, @output (if any) printed, perf == truth. */
static void check_run(struct __test_metadata *_metadata,
		      FIXTURE_DATA(swtrace) *self, const char *opts,
		      const char *cmd, const char *output)
{
	ASSERT_EQ(0, record_opts(self, opts, cmd)) TH_LOG("%s", self->out);
	if (output)
		ASSERT_NE(NULL, strstr(self->out, output)) TH_LOG("%s", self->out);
	check_same(_metadata, self);
}

static size_t count_ip(const struct ipseq *s, uint64_t ip)
{
	size_t i, n = 0;

	for (i = 0; i < s->n; i++)
		n += s->v[i].ip == ip;
	return n;
}

static uint64_t symbol(const char *prog, const char *name)
{
	char out[64];

	if (cmd_run(out, sizeof(out), "nm %s | awk '$3 == \"%s\" { print $1 }'",
		    prog, name))
		return 0;
	return strtoull(out, NULL, 16);
}

/* fib(n) makes 2 * F(n + 1) - 1 calls. */
static size_t fib_calls(int n)
{
	size_t a = 0, b = 1, t;

	while (n-- >= 0) {
		t = a + b;
		a = b;
		b = t;
	}
	return 2 * a - 1;
}

static void check_flow(struct __test_metadata *_metadata,
		       FIXTURE_DATA(swtrace) *self, const char *prog)
{
	char cmd[256];
	uint64_t fib;

	snprintf(cmd, sizeof(cmd), PROGS "%s 12", prog);
	check_run(_metadata, self, "", cmd, NULL);
	/* The truth itself is right: fib's entry ran once per call. */
	snprintf(cmd, sizeof(cmd), PROGS "%s", prog);
	fib = symbol(cmd, "fib");
	ASSERT_NE(0, fib);
	EXPECT_EQ(fib_calls(12), count_ip(&self->want, fib));
}

TEST_F(swtrace, flow_dynamic) { check_flow(_metadata, self, "swt_flow"); }
TEST_F(swtrace, flow_static) { check_flow(_metadata, self, "swt_flow-static"); }

/*
 * A step that runs two instructions (MOV SS holds the trap): both are
 * in the truth, and the branch it ran has its real outcome.
 */
TEST_F(swtrace, two_instruction_steps)
{
	uint64_t inc = symbol(PROGS "swt_movss-static", "swt_movss_inc");

	ASSERT_NE(0, inc);
	check_run(_metadata, self, "", PROGS "swt_movss-static", NULL);
	EXPECT_EQ(100, count_ip(&self->want, inc));
}

/* A PSB+ (with FUP) every few packets, and TSC packets only now and then. */
TEST_F(swtrace, frequent_psb_rare_tsc)
{
	check_run(_metadata, self, "--psb-period 64 --tsc-every 10000000",
		  PROGS "swt_flow 8", NULL);
}

/* Returns to their call site become TNT bits; perf keeps the call stack. */
TEST_F(swtrace, ret_compression_flow)
{
	check_run(_metadata, self, "--ret-compression", PROGS "swt_flow 12", NULL);
}

TEST_F(swtrace, ret_compression_signals)
{
	check_run(_metadata, self, "--ret-compression --psb-period 256",
		  PROGS "swt_sig-static", NULL);
}

TEST_F(swtrace, ret_compression_threads)
{
	check_run(_metadata, self, "--ret-compression", PROGS "swt_thread", NULL);
}

/* The second mapping is made after start: perf needs its MMAP2 in time. */
TEST_F(swtrace, syscalls_and_new_mapping_dynamic)
{
	check_run(_metadata, self, "", PROGS "swt_sys", "42 42");
}

TEST_F(swtrace, syscalls_and_new_mapping_static)
{
	check_run(_metadata, self, "", PROGS "swt_sys-static", "42 42");
}

TEST_F(swtrace, signals_dynamic)
{
	check_run(_metadata, self, "", PROGS "swt_sig", "4\n");
}

TEST_F(swtrace, signals_static)
{
	check_run(_metadata, self, "", PROGS "swt_sig-static", "4\n");
}

TEST_F(swtrace, crash_keeps_trace)
{
	ASSERT_EQ(128 + 11, record(self, PROGS "swt_crash")) TH_LOG("%s", self->out);
	ASSERT_NE(NULL, strstr(self->out, "killed by signal 11"));
	check_same(_metadata, self);
}

static size_t count_threads(const struct ipseq *s)
{
	size_t i, n = 0;

	/* Sorted by thread. */
	for (i = 0; i < s->n; i++)
		n += !i || s->v[i].tid != s->v[i - 1].tid;
	return n;
}

static void check_threads(struct __test_metadata *_metadata,
			  FIXTURE_DATA(swtrace) *self, const char *prog)
{
	check_run(_metadata, self, "", prog, NULL);
	EXPECT_EQ(4, count_threads(&self->want));
}

TEST_F(swtrace, threads_dynamic) { check_threads(_metadata, self, PROGS "swt_thread"); }
TEST_F(swtrace, threads_static) { check_threads(_metadata, self, PROGS "swt_thread-static"); }

/*
 * SIGTERM to the recorder (and, from timeout, to the program too) ends
 * the program, by SIGKILL or by the SIGTERM itself; the trace is finished.
 */
TEST_F(swtrace, terminated_keeps_trace)
{
	int st = cmd_run(self->out, sizeof(self->out),
			 "timeout --preserve-status -s TERM 2 %s -o %s --truth %s -- %s",
			 SWTRACE, self->data, self->truth, PROGS "swt_flow-static 100");

	ASSERT_TRUE(st == 128 + SIGKILL || st == 128 + SIGTERM) TH_LOG("%d: %s", st, self->out);
	ASSERT_NE(NULL, strstr(self->out, "trace kept up to there"));
	check_same(_metadata, self);
}

/* swt_spin with @threads more threads, running for a while; its pid. */
static pid_t spin_start(const char *threads)
{
	pid_t pid = fork();

	if (!pid) {
		execl(PROGS "swt_spin", "swt_spin", threads, NULL);
		_exit(127);
	}
	usleep(300 * 1000);
	return pid;
}

/* -p: attach to a running program, detach on SIGINT; it lives on. */
static void check_attach(struct __test_metadata *_metadata,
			 FIXTURE_DATA(swtrace) *self, const char *threads)
{
	char status[4096];
	pid_t pid;
	int st;

	pid = spin_start(threads);
	ASSERT_LT(0, pid);
	st = cmd_run(self->out, sizeof(self->out),
		     "timeout --preserve-status -s INT 2 %s -o %s --truth %s -p %d",
		     SWTRACE, self->data, self->truth, pid);
	EXPECT_EQ(0, st) TH_LOG("%s", self->out);
	/* Still running, no thread traced any more. */
	usleep(100 * 1000);
	EXPECT_EQ(0, waitpid(pid, &st, WNOHANG));
	ASSERT_EQ(0, cmd_run(status, sizeof(status),
			     "grep -h TracerPid /proc/%d/task/*/status | sort -u", pid));
	EXPECT_STREQ("TracerPid:\t0\n", status);
	kill(pid, SIGKILL);
	waitpid(pid, &st, 0);
	check_same(_metadata, self);
}

TEST_F(swtrace, attach_and_detach) { check_attach(_metadata, self, "0"); }

TEST_F(swtrace, attach_and_detach_threads)
{
	check_attach(_metadata, self, "2");
	EXPECT_EQ(3, count_threads(&self->want));
}

/*
 * A window of a running program, as "perf record -p PID -- sleep 1"
 * takes one: jifl-swtrace -p PID with @window (-d SECS or -m N) ends by
 * itself and detaches, the program lives on, and both perf and
 * jifl-decode decode the window to exactly its single-step truth.
 */
static void check_window(struct __test_metadata *_metadata,
			 FIXTURE_DATA(swtrace) *self, const char *threads,
			 const char *window)
{
	char cmd[512];
	long errors;
	pid_t pid;
	size_t i;
	int st;

	pid = spin_start(threads);
	ASSERT_LT(0, pid);
	/* no timeout to stop it: a window that does not end fails here */
	st = cmd_run(self->out, sizeof(self->out),
		     "timeout -s KILL 60 %s -o %s --truth %s -p %d %s",
		     SWTRACE, self->data, self->truth, pid, window);
	EXPECT_EQ(0, st) TH_LOG("%s", self->out);
	usleep(100 * 1000);
	EXPECT_EQ(0, waitpid(pid, &st, WNOHANG));
	kill(pid, SIGKILL);
	waitpid(pid, &st, 0);
	check_same(_metadata, self);
	snprintf(cmd, sizeof(cmd), "%s -i %s --insn 2>&1", decoder(), self->data);
	ipseq_by_thread(&self->want);
	self->got.n = 0;
	ASSERT_EQ(0, read_ips(cmd, 1, " error: ", &self->got, &errors));
	EXPECT_EQ(0, errors);
	ipseq_by_thread(&self->got);
	i = ipseq_first_diff(&self->want, &self->got);
	EXPECT_EQ(self->want.n, i) TH_LOG("jifl-decode: first difference at %zu of %zu",
					  i, self->want.n);
	EXPECT_EQ(self->want.n, self->got.n);
}

TEST_F(swtrace, attach_for_a_duration)
{
	check_window(_metadata, self, "0", "-d 0.5");
}

TEST_F(swtrace, attach_for_a_number_of_instructions)
{
	check_window(_metadata, self, "0", "-m 20000");
	/* a single thread stops at the instruction that makes it 20000 */
	EXPECT_EQ(20000, self->want.n);
}

TEST_F(swtrace, attach_threads_for_a_number_of_instructions)
{
	check_window(_metadata, self, "2", "-m 30000");
	EXPECT_LE(30000, self->want.n);
	EXPECT_GT(40000, self->want.n);
}

TEST_F(swtrace, window_options_are_for_attach)
{
	EXPECT_EQ(2, record_opts(self, "-d 1", PROGS "swt_flow 3"));
	EXPECT_NE(NULL, strstr(self->out, "are for -p")) TH_LOG("%s", self->out);
	EXPECT_EQ(2, cmd_run(self->out, sizeof(self->out), "%s -p 1 -d 0", SWTRACE));
	EXPECT_NE(NULL, strstr(self->out, "--duration")) TH_LOG("%s", self->out);
	EXPECT_EQ(2, cmd_run(self->out, sizeof(self->out), "%s -p 1 -m 0", SWTRACE));
	EXPECT_NE(NULL, strstr(self->out, "--max-insns")) TH_LOG("%s", self->out);
}

/* env execs the program: the new image gets COMM exec and MMAP2s. */
TEST_F(swtrace, exec_followed)
{
	check_run(_metadata, self, "", "env " PROGS "swt_flow-static 5", NULL);
}

TEST_F(swtrace, missing_program)
{
	ASSERT_EQ(127, record(self, "/nonexistent/program"));
	ASSERT_NE(NULL, strstr(self->out, "cannot run '/nonexistent/program': No such file"));
	ASSERT_NE(0, access(self->data, F_OK));
}

TEST_F(swtrace, unwritable_output)
{
	char marker[128];

	snprintf(marker, sizeof(marker), "%s/ran", self->dir);
	ASSERT_EQ(1, cmd_run(self->out, sizeof(self->out),
			     "%s -o /nonexistent/dir/perf.data -- touch %s",
			     SWTRACE, marker));
	ASSERT_NE(NULL, strstr(self->out, "cannot create '/nonexistent/dir/perf.data'"));
	ASSERT_NE(0, access(marker, F_OK)) TH_LOG("the program ran anyway");
}

/* @path holds exactly @text. */
static void expect_content(struct __test_metadata *_metadata, const char *path,
			   const char *text)
{
	char buf[64] = "";
	FILE *f = fopen(path, "r");

	ASSERT_NE(NULL, f) TH_LOG("'%s' is gone", path);
	fgets(buf, sizeof(buf), f);
	fclose(f);
	EXPECT_STREQ(text, buf) TH_LOG("'%s' was changed", path);
}

static void write_text(struct __test_metadata *_metadata, const char *path,
		       const char *text)
{
	FILE *f = fopen(path, "w");

	ASSERT_NE(NULL, f);
	fputs(text, f);
	fclose(f);
}

/* A program that cannot run leaves the files that were there as they were. */
TEST_F(swtrace, missing_program_keeps_files)
{
	write_text(_metadata, self->data, "an earlier perf.data\n");
	write_text(_metadata, self->truth, "an earlier truth\n");
	ASSERT_EQ(127, record(self, "/nonexistent/program"));
	ASSERT_NE(NULL, strstr(self->out, "cannot run '/nonexistent/program': No such file"));
	expect_content(_metadata, self->data, "an earlier perf.data\n");
	expect_content(_metadata, self->truth, "an earlier truth\n");
}

/*
 * One output file that cannot be created: nothing runs, the other file
 * is left as it was, or not made at all.
 */
TEST_F(swtrace, unwritable_truth_keeps_output)
{
	ASSERT_EQ(1, cmd_run(self->out, sizeof(self->out),
			     "%s -o %s --truth /nonexistent/dir/truth -- true", SWTRACE,
			     self->data));
	ASSERT_NE(NULL, strstr(self->out, "cannot create '/nonexistent/dir/truth': No such file"))
		TH_LOG("%s", self->out);
	EXPECT_NE(0, access(self->data, F_OK)) TH_LOG("a perf.data of nothing was left");

	write_text(_metadata, self->data, "an earlier perf.data\n");
	ASSERT_EQ(1, cmd_run(self->out, sizeof(self->out),
			     "%s -o %s --truth /nonexistent/dir/truth -- true", SWTRACE,
			     self->data));
	expect_content(_metadata, self->data, "an earlier perf.data\n");
}

/*
 * An error writing the trace (here: the file size limit, SIGXFSZ
 * ignored) is reported as such, with its own errno; the program is
 * killed. It produces more than the recorder buffers (1 MiB).
 */
TEST_F(swtrace, write_error_named)
{
	int st = cmd_run(self->out, sizeof(self->out),
			 "trap '' XFSZ; ulimit -f 512; exec %s -o %s -- %s",
			 SWTRACE, self->data, PROGS "swt_flow-static 40");

	EXPECT_EQ(1, st) TH_LOG("%s", self->out);
	EXPECT_NE(NULL, strstr(self->out, "jifl-swtrace: recording '" PROGS "swt_flow-static': "
			       "File too large\n")) TH_LOG("%s", self->out);
	EXPECT_EQ(NULL, strstr(self->out, "No child processes")) TH_LOG("%s", self->out);
}

/*
 * Run jifl-swtrace @args (up to 8) under a seccomp filter that fails its
 * PTRACE_GETREGS requests with EIO; returns the exit status, output in
 * self->out.
 */
static int record_getregs_failing(FIXTURE_DATA(swtrace) *self, char *const args[])
{
	struct sock_filter filter[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_ptrace, 0, 3),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[0])),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, PTRACE_GETREGS, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EIO),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { sizeof(filter) / sizeof(filter[0]), filter };
	char *argv[10] = { SWTRACE };
	int fds[2], st;
	size_t n = 0;
	ssize_t r;
	pid_t pid;

	memcpy(argv + 1, args, 8 * sizeof(*args));
	if (pipe(fds))
		return -1;
	pid = fork();
	if (!pid) {
		dup2(fds[1], 1);
		dup2(fds[1], 2);
		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
		    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog))
			_exit(126);
		execv(SWTRACE, argv);
		_exit(127);
	}
	close(fds[1]);
	while (n + 1 < sizeof(self->out) &&
	       (r = read(fds[0], self->out + n, sizeof(self->out) - 1 - n)) > 0)
		n += r;
	self->out[n] = '\0';
	close(fds[0]);
	if (pid < 0 || waitpid(pid, &st, 0) != pid)
		return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* A ptrace request that fails is reported with its own errno. */
TEST_F(swtrace, tracing_error_named)
{
	char *args[8] = { "-o", self->data, "--", PROGS "swt_flow-static", "1" };

	EXPECT_EQ(1, record_getregs_failing(self, args)) TH_LOG("%s", self->out);
	EXPECT_STREQ("jifl-swtrace: tracing '" PROGS "swt_flow-static': Input/output error\n",
		     self->out);
}

TEST_F(swtrace, no_command)
{
	ASSERT_EQ(2, cmd_run(self->out, sizeof(self->out), "%s -o %s", SWTRACE,
			     self->data));
	ASSERT_NE(NULL, strstr(self->out, "no command given"));
}

/* Group start indices and TSCs of a truth file. */
static int truth_groups(const char *path, struct ipseq *g)
{
	unsigned char hdr[16];
	uint32_t count, n = 0;
	uint64_t tsc;
	FILE *f = fopen(path, "r");
	int c;

	if (!f || fseek(f, 8, SEEK_SET))
		return -1;
	while (fread(hdr, sizeof(hdr), 1, f) == 1) {
		memcpy(&count, hdr + 4, 4);
		memcpy(&tsc, hdr + 8, 8);
		if (ipseq_push(g, n, tsc))
			break;
		n += count;
		/* Skip the addresses: count ULEB128 numbers. */
		while (count && (c = fgetc(f)) != EOF)
			count -= !(c & 0x80);
	}
	fclose(f);
	return 0;
}

/*
 * perf's time for an instruction comes from TSC packets: it must never be
 * later than the time the recorder saw that instruction run (the truth's
 * TSC, converted as the file's TIME_CONV says), and not far earlier.
 */
TEST_F(swtrace, times_bounded_by_truth)
{
	unsigned long long shift, mult, zero, sec, nsec, tsc, t, *times = NULL;
	struct ipseq groups = { 0 };
	char cmd[256], line[128];
	size_t n = 0, i;
	FILE *f;

	ASSERT_EQ(0, record(self, PROGS "swt_flow-static 10")) TH_LOG("%s", self->out);
	ASSERT_EQ(0, truth_read(self->truth, &self->want));
	ASSERT_EQ(0, truth_groups(self->truth, &groups));
	ASSERT_EQ(0, cmd_run(self->out, sizeof(self->out),
			     "perf report -D -i %s | grep -m3 -E 'Time (Shift|Muliplier|Zero)'",
			     self->data));
	ASSERT_EQ(3, sscanf(self->out, " ... Time Shift %llu ... Time Muliplier %llu ... Time Zero %llu",
			    &shift, &mult, &zero)) TH_LOG("%s", self->out);

	times = calloc(self->want.n, sizeof(*times));
	ASSERT_NE(NULL, times);
	snprintf(cmd, sizeof(cmd), "perf script -i %s --itrace=i1i -F time --ns", self->data);
	f = popen(cmd, "r");
	ASSERT_NE(NULL, f);
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, " %llu.%llu:", &sec, &nsec) == 2 && n < self->want.n)
			times[n++] = sec * 1000000000ULL + nsec;
	pclose(f);
	ASSERT_EQ(self->want.n, n);

	for (i = 0; i < groups.n; i++) {
		tsc = groups.v[i].ip;
		t = zero + (tsc >> shift) * mult +
		    (((tsc & ((1ULL << shift) - 1)) * mult) >> shift);
		n = groups.v[i].tid;	/* index of the group's first instruction */
		ASSERT_LE(times[n], t) TH_LOG("instruction %zu: perf time after the truth", n);
		/* A second is far more than any step or system call here takes. */
		ASSERT_GT(times[n] + 1000000000ULL, t);
	}
	free(times);
	free(groups.v);
}

/* The full IP of an IP packet, given the last IP (Intel SDM, 33.4.2.2). */
static uint64_t packet_ip(const struct pt_packet_ip *p, uint64_t last)
{
	switch (p->ipc) {
	case pt_ipc_update_16:
		return (last & ~0xffffULL) | (p->ip & 0xffff);
	case pt_ipc_update_32:
		return (last & ~0xffffffffULL) | (p->ip & 0xffffffff);
	case pt_ipc_update_48:
		return (last & ~0xffffffffffffULL) | (p->ip & 0xffffffffffffULL);
	case pt_ipc_sext_48:
		return (uint64_t)((int64_t)(p->ip << 16) >> 16);
	default:
		return p->ip;
	}
}

/* The IP of each FUP followed by TIP.PGD (an asynchronous exit) in @q. */
static int queue_async_exits(const struct jifl_perf_queue *q, struct ipseq *s)
{
	struct pt_config config;
	struct pt_packet_decoder *dec;
	struct pt_packet pkt, prev = { .type = ppt_invalid };
	uint64_t last_ip = 0, fup_ip = 0;
	bool in_psb = false;
	int err;

	pt_config_init(&config);
	config.begin = (uint8_t *)q->data;
	config.end = (uint8_t *)q->data + q->size;
	dec = pt_pkt_alloc_decoder(&config);
	if (!dec)
		return -1;
	err = pt_pkt_sync_forward(dec);
	while (err >= 0 && (err = pt_pkt_next(dec, &pkt, sizeof(pkt))) >= 0) {
		switch (pkt.type) {
		case ppt_psb:
			last_ip = 0;
			in_psb = true;
			break;
		case ppt_psbend:
			in_psb = false;
			break;
		case ppt_fup:
			fup_ip = last_ip = packet_ip(&pkt.payload.ip, last_ip);
			break;
		case ppt_tip_pgd:
			if (prev.type == ppt_fup && !in_psb && ipseq_push(s, q->tid, fup_ip))
				err = -pte_nomem;
			/* fall through */
		case ppt_tip:
		case ppt_tip_pge:
			if (pkt.payload.ip.ipc != pt_ipc_suppressed)
				last_ip = packet_ip(&pkt.payload.ip, last_ip);
			break;
		default:
			break;
		}
		if (pkt.type != ppt_pad)
			prev = pkt;
	}
	pt_pkt_free_decoder(dec);
	return err == -pte_eos ? 0 : -1;
}

/* The asynchronous exits of every thread of the recording @data. */
static int async_exits(const char *data, struct ipseq *s)
{
	struct jifl_perf_reader *r;
	size_t i;
	int err = 0;

	if (jifl_perf_reader_open(&r, data, NULL))
		return -1;
	for (i = 0; !err && i < jifl_perf_reader_nr_queues(r); i++)
		err = queue_async_exits(jifl_perf_reader_queue(r, i), s);
	jifl_perf_reader_close(r);
	return err;
}

/*
 * A page fault is FUP(ip of the faulting instruction), TIP.PGD: never at
 * the instruction before, even when the fault sleeps (the file part of
 * swt_fault waits for the disk) and the thread is scheduled in again
 * inside the step. In swt_fault's loops only the accesses fault; each
 * anonymous page faults once.
 */
static void check_faults(struct __test_metadata *_metadata,
			 FIXTURE_DATA(swtrace) *self, const char *prog)
{
	size_t i, stores = 0, loads = 0, misplaced = 0;
	uint64_t start, end, store, load, ip;
	struct ipseq exits = { 0 };
	const long pages = 256;
	char cmd[256], sum[32];

	/* It prints the sum of the bytes loaded, a 1 per page. */
	snprintf(cmd, sizeof(cmd), PROGS "%s %ld %s", prog, pages, self->dir);
	snprintf(sum, sizeof(sum), "%ld\n", pages);
	check_run(_metadata, self, "", cmd, sum);
	snprintf(cmd, sizeof(cmd), PROGS "%s", prog);
	start = symbol(cmd, "store_pages");
	end = symbol(cmd, "swt_fault_end");
	store = symbol(cmd, "swt_store");
	load = symbol(cmd, "swt_load");
	ASSERT_TRUE(start && end && store && load);
	EXPECT_EQ(pages, count_ip(&self->want, store));
	EXPECT_EQ(pages, count_ip(&self->want, load));

	ASSERT_EQ(0, async_exits(self->data, &exits));
	for (i = 0; i < exits.n; i++) {
		ip = exits.v[i].ip;
		if (ip < start || ip >= end)
			continue;
		if (ip == store)
			stores++;
		else if (ip == load)
			loads++;
		else if (misplaced++ < 5)
			TH_LOG("a fault at %#llx, not at swt_store (%#llx) or swt_load (%#llx)",
			       (unsigned long long)ip, (unsigned long long)store,
			       (unsigned long long)load);
	}
	free(exits.v);
	TH_LOG("%s: %zu FUP, TIP.PGD in the trace; in the loops %zu at swt_store, %zu at swt_load, %zu elsewhere",
	       prog, exits.n, stores, loads, misplaced);
	EXPECT_EQ(0, misplaced);
	EXPECT_EQ(pages, stores);
	/* Pages the kernel kept in the page cache (tmpfs) map several a fault. */
	EXPECT_LT(0, loads);
}

TEST_F(swtrace, faults_dynamic) { check_faults(_metadata, self, "swt_fault"); }
TEST_F(swtrace, faults_static) { check_faults(_metadata, self, "swt_fault-static"); }

/*
 * Anonymous code is invisible to perf: recording works, decoding fails
 * there, as it must (the problem FlowJIT solves). Logs the error count.
 */
static void check_jit(struct __test_metadata *_metadata,
		      FIXTURE_DATA(swtrace) *self, const char *cmd,
		      const char *output)
{
	ASSERT_EQ(0, record(self, cmd)) TH_LOG("%s", self->out);
	ASSERT_NE(NULL, strstr(self->out, output));
	ASSERT_EQ(0, truth_read(self->truth, &self->want));
	ASSERT_EQ(0, perf_read(self->data, &self->got, &self->errors));
	TH_LOG("%s: %ld perf decode errors, %zu of %zu instructions decoded",
	       cmd, self->errors, self->got.n, self->want.n);
	EXPECT_GT(self->errors, 0);
	EXPECT_LT(self->got.n, self->want.n);
}

TEST_F(swtrace, jit_code_breaks_perf)
{
	check_jit(_metadata, self, PROGS "swt_jit", "6");
}

/*
 * Code that changes behind a read-only mapping: the read-execute view of
 * a memfd whose read-write view the program writes. Its bytes must be
 * read again on every execution, as for anonymous code: the truth must
 * hold as many instructions in that page as the program ran there.
 */
TEST_F(swtrace, double_mapped_jit_truth)
{
	unsigned long rx, insns, n = 0;
	const char *line;
	size_t i;

	ASSERT_EQ(0, record(self, PROGS "swt_dualjit")) TH_LOG("%s", self->out);
	line = strstr(self->out, "rx=");
	ASSERT_NE(NULL, line) TH_LOG("%s", self->out);
	ASSERT_EQ(2, sscanf(line, "rx=%lx insns=%lu", &rx, &insns)) TH_LOG("%s", self->out);
	ASSERT_EQ(0, truth_read(self->truth, &self->want));
	for (i = 0; i < self->want.n; i++)
		n += self->want.v[i].ip - rx < 4096;
	EXPECT_EQ(insns, n);
}

TEST_F(swtrace, luajit_records)
{
	char out[64];

	if (cmd_run(out, sizeof(out), "command -v luajit"))
		SKIP(return, "luajit not installed");
	check_jit(_metadata, self,
		  "luajit -e 'local s=0 for i=1,3000 do s=s+i%7 end print(s)'",
		  "8998");
}

TEST_HARNESS_MAIN
