// SPDX-License-Identifier: GPL-2.0
/*
 * flowjit jitdump: FlowJIT recordings through stock perf. A JIT runs
 * under jifl-swtrace (a perf.data and the single-step truth) with
 * FlowJIT emulated in user space (tests/progs/fj_preload.c: the host
 * kernel has no FlowJIT); flowjit jitdump writes its jitdumps and the
 * marked perf.data; "perf inject --jit" and "perf script --itrace=i1ie"
 * must then decode the JIT code: no decode error where the plain
 * perf.data has some, and exactly the truth's instructions.
 */
#include <fcntl.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "cmd.h"
#include "swtrace_truth.h"
#include "tools.h"
#include "tmpdir.h"
#include "flowjit/fjwriter.h"
#include "perf/perf_writer.h"
#include <intel-pt.h>

#define FLOWJIT		JIFL_TOP "/build/bin/flowjit"
#define PRELOAD		PROGS "fj_preload.so"
#define PERF_ERROR	"instruction trace error type"

FIXTURE(jitdump) {
	TMPDIR_TRACE_MEMBERS;
	char stream[128], fj[128], marked[128], injected[128];
	char jit_dir[128];
	char out[16384];
};

FIXTURE_SETUP(jitdump)
{
	TMPDIR_TRACE_SETUP("jitdump");
	snprintf(self->stream, sizeof(self->stream), "%s/stream", self->dir);
	snprintf(self->fj, sizeof(self->fj), "%s/x.fj", self->dir);
	snprintf(self->marked, sizeof(self->marked), "%s/marked.data", self->dir);
	snprintf(self->injected, sizeof(self->injected), "%s/injected.data", self->dir);
	snprintf(self->jit_dir, sizeof(self->jit_dir), "%s/jit", self->dir);
}

FIXTURE_TEARDOWN(jitdump)
{
	TMPDIR_TRACE_TEARDOWN();
}

/* The emulator's records (the kernel's stream format) as a FlowJIT file. */
static void stream_to_fj(struct __test_metadata *_metadata, FIXTURE_DATA(jitdump) *self)
{
	struct jifl_fj_info info = { .flags = FLOWJIT_F_INHERIT };
	static uint8_t buf[1 << 22];
	struct jifl_fjwriter *w;
	struct flowjit_event ev;
	size_t n, off;
	FILE *f;

	f = fopen(self->stream, "r");
	ASSERT_NE(NULL, f);
	n = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	ASSERT_LT(n, sizeof(buf));
	ASSERT_GE(n, sizeof(ev));
	memcpy(&ev, buf, sizeof(ev));
	info.pid = ev.pid;
	ASSERT_EQ(0, jifl_fjwriter_open(&w, self->fj, &info));
	for (off = 0; off < n; off += ev.size) {
		ASSERT_GE(n - off, sizeof(ev));
		memcpy(&ev, buf + off, sizeof(ev));
		ASSERT_GE(n - off, ev.size);
		ASSERT_EQ(0, jifl_fjwriter_add(w, (const void *)(buf + off)));
	}
	ASSERT_EQ(0, jifl_fjwriter_close(w));
}

/* Run @cmd under jifl-swtrace (@swtrace_opts) with FlowJIT emulated. */
static void record(struct __test_metadata *_metadata, FIXTURE_DATA(jitdump) *self,
		   const char *swtrace_opts, const char *cmd)
{
	ASSERT_EQ(0, cmd_run(self->out, sizeof(self->out),
			     "%s -q %s -o %s --truth %s -- env JIFL_FJ_PRELOAD=%s LD_PRELOAD=%s %s",
			     SWTRACE, swtrace_opts, self->data, self->truth, self->stream,
			     PRELOAD, cmd)) TH_LOG("%s", self->out);
	ASSERT_EQ(0, truth_read(self->truth, &self->want));
	ASSERT_GT(self->want.n, 1000);
	qsort(self->want.v, self->want.n, sizeof(*self->want.v), step_cmp);
	stream_to_fj(_metadata, self);
}

/* perf script's instructions of @data in self->got; returns its errors. */
static long perf_decode(struct __test_metadata *_metadata, FIXTURE_DATA(jitdump) *self,
			const char *data)
{
	char cmd[512];
	long errors = -1;

	self->got.n = 0;
	snprintf(cmd, sizeof(cmd), "perf script -i %s --itrace=i1ie -F tid,ip 2>&1", data);
	EXPECT_EQ(0, read_ips(cmd, 0, PERF_ERROR, &self->got, &errors));
	qsort(self->got.v, self->got.n, sizeof(*self->got.v), step_cmp);
	return errors;
}

/* flowjit jitdump, then perf inject --jit: self->injected. */
static void jitdump_inject(struct __test_metadata *_metadata, FIXTURE_DATA(jitdump) *self)
{
	ASSERT_EQ(0, cmd_run(self->out, sizeof(self->out), "%s jitdump -q -i %s -o %s -d %s %s",
			     FLOWJIT, self->data, self->marked, self->jit_dir, self->fj))
		TH_LOG("%s", self->out);
	ASSERT_EQ(0, cmd_run(self->out, sizeof(self->out), "perf inject --jit -i %s -o %s",
			     self->marked, self->injected)) TH_LOG("%s", self->out);
}

/*
 * @cmd's JIT code: perf errs on the plain perf.data, and decodes the
 * injected one exactly as the truth, with no error.
 */
static void check_jit(struct __test_metadata *_metadata, FIXTURE_DATA(jitdump) *self,
		      const char *name, const char *swtrace_opts, const char *cmd)
{
	long before, after;
	size_t n, first;

	record(_metadata, self, swtrace_opts, cmd);
	before = perf_decode(_metadata, self, self->data);
	n = ipseq_diffs(&self->want, &self->got, &first);
	TH_LOG("%s: plain perf.data: %ld decode errors, %zu of %zu instructions decoded, "
	       "%zu differ from the truth", name, before, self->got.n, self->want.n, n);
	EXPECT_GT(before, 0);

	jitdump_inject(_metadata, self);
	after = perf_decode(_metadata, self, self->injected);
	n = ipseq_diffs(&self->want, &self->got, &first);
	TH_LOG("%s: with flowjit jitdump: %ld decode errors, %zu of %zu instructions decoded, "
	       "%zu differ from the truth", name, after, self->got.n, self->want.n, n);
	EXPECT_EQ(0, after);
	EXPECT_EQ(0, n) {
		if (first < self->want.n && first < self->got.n)
			TH_LOG("first difference at step %zu: truth %#" PRIx64 ", perf %#" PRIx64,
			       first, self->want.v[first].ip, self->got.v[first].ip);
	}
}

/* Versions of different lengths at places that recur, one across two pages. */
TEST_F_TIMEOUT(jitdump, wx_jit, 300)
{
	check_jit(_metadata, self, "swt_wxjit", "", PROGS "swt_wxjit");
}

/* A TSC packet only where the trace enables again (after each fault). */
TEST_F_TIMEOUT(jitdump, wx_jit_rare_tsc, 300)
{
	check_jit(_metadata, self, "swt_wxjit, rare TSC", "--tsc-every 1000000000",
		  PROGS "swt_wxjit");
}

/* A trace per CPU, as perf record makes by default. */
TEST_F_TIMEOUT(jitdump, wx_jit_per_cpu, 300)
{
	check_jit(_metadata, self, "swt_wxjit, per CPU", "--per-cpu", PROGS "swt_wxjit");
}

TEST_F_TIMEOUT(jitdump, luajit, 300)
{
	char out[64];

	if (cmd_run(out, sizeof(out), "command -v luajit"))
		SKIP(return, "luajit not installed");
	check_jit(_metadata, self, "luajit", "",
		  "luajit -e 'local s=0 for i=1,3000 do s=s+i%7 end print(s)'");
}

/*
 * When perf maps a version (Documentation/jitdump.rst, "Versions in
 * time"). A synthetic run: TSC T0, TIP.PGE(JIT_ENTRY), the code runs to
 * its ret, TSC T1, TIP(JIT_ENTRY + 0x10) for the ret, TIP.PGD for the
 * "jmp rax" there; perf time is the TSC. Version 1 (from before T0)
 * jumps over two nops, version 2 (nops) ran when it started before T1.
 * Version 1 ended (WRITE) at @v1_end. perf decodes version 2 only when
 * its load came before T0: as version 1 ended before T0, however late
 * version 2 started; not when version 1 still ran after T0.
 */
#define JIT_PID		4194001		/* a process of the perf.data only */
#define JIT_ENTRY	0x7f0000001000ull
#define T0		1000000000ull
#define T1		(T0 + 1000)

static const struct interval_case {
	const char *name;
	uint64_t v1_end, v2_start;
	int ran_v2;		/* the run executed version 2 */
	int perf_v2;		/* perf script decodes version 2 */
} interval_cases[] = {
	{ "rewritten before the TSC", T0 - 50, T0 - 10, 1, 1 },
	{ "written before the TSC, run after it", T0 - 50, T0 + 500, 1, 1 },
	{ "written and run between two TSCs", T0 + 200, T0 + 500, 1, 0 },
	{ "rewritten after the next TSC", T1 + 5, T1 + 10, 0, 0 },
};

struct fj_rec {
	struct flowjit_event ev;
	unsigned char page[FLOWJIT_PAGE_SIZE];
};

/* A version of @pid's JIT_ENTRY page from @tsc on, faulted at its entry: @code at its start. */
static void add_exec(struct __test_metadata *_metadata, struct jifl_fjwriter *w, uint32_t pid,
		     uint64_t tsc, const unsigned char *code, size_t len)
{
	static struct fj_rec r;

	memset(&r, 0, sizeof(r));
	r.ev.type = FLOWJIT_EV_EXEC;
	r.ev.flags = FLOWJIT_EVF_PAYLOAD;
	r.ev.size = sizeof(r);
	r.ev.tsc = tsc;
	r.ev.pid = r.ev.tid = pid;
	r.ev.ip = r.ev.addr = JIT_ENTRY;
	memcpy(r.page, code, len);
	ASSERT_EQ(0, jifl_fjwriter_add(w, &r.ev));
}

static void add_write(struct __test_metadata *_metadata, struct jifl_fjwriter *w,
		      uint64_t tsc)
{
	struct flowjit_event ev = {
		.type = FLOWJIT_EV_WRITE, .size = sizeof(ev), .tsc = tsc,
		.pid = JIT_PID, .tid = JIT_PID, .addr = JIT_ENTRY,
	};

	ASSERT_EQ(0, jifl_fjwriter_add(w, &ev));
}

#define PKT_IP(t, a)	{ .type = (t), .payload.ip = { .ipc = pt_ipc_sext_48, .ip = (a) } }

/* self->data: thread JIT_PID of process JIT_PID ran the synthetic trace. */
static void write_interval_run(struct __test_metadata *_metadata, FIXTURE_DATA(jitdump) *self)
{
	static const struct pt_packet pkts[] = {
		{ .type = ppt_psb }, { .type = ppt_tsc, .payload.tsc.tsc = T0 },
		{ .type = ppt_mode, .payload.mode = { .leaf = pt_mol_exec,
						      .bits.exec = { .csl = 1 } } },
		{ .type = ppt_psbend },
		PKT_IP(ppt_tip_pge, JIT_ENTRY),
		{ .type = ppt_tsc, .payload.tsc.tsc = T1 },
		PKT_IP(ppt_tip, JIT_ENTRY + 0x10),
		{ .type = ppt_tip_pgd, .payload.ip = { .ipc = pt_ipc_suppressed } },
	};
	struct jifl_perf_writer_config cfg = {
		.pt_pmu_type = 8,
		.pt_config = JIFL_INTEL_PT_CFG_PT | JIFL_INTEL_PT_CFG_TSC |
			     JIFL_INTEL_PT_CFG_BRANCH | JIFL_INTEL_PT_CFG_NORETCOMP,
		.tc = { .time_shift = 0, .time_mult = 1 },
	};
	struct jifl_perf_writer *pw;
	struct pt_encoder *enc;
	struct pt_config pt;
	uint8_t trace[256];
	uint64_t size = 0;
	size_t i;

	pt_config_init(&pt);
	pt.begin = trace;
	pt.end = trace + sizeof(trace);
	enc = pt_alloc_encoder(&pt);
	ASSERT_NE(NULL, enc);
	for (i = 0; i < sizeof(pkts) / sizeof(pkts[0]); i++)
		ASSERT_LT(0, pt_enc_next(enc, &pkts[i]));
	pt_enc_get_offset(enc, &size);
	pt_free_encoder(enc);
	ASSERT_EQ(0, jifl_perf_writer_open(&pw, self->data, &cfg));
	ASSERT_EQ(0, jifl_perf_writer_comm(pw, JIT_PID, JIT_PID, "jit", 1, T0 - 100));
	ASSERT_EQ(0, jifl_perf_writer_itrace_start(pw, JIT_PID, JIT_PID, T0 - 100));
	ASSERT_EQ(0, jifl_perf_writer_auxtrace(pw, 0, JIT_PID, trace, size));
	ASSERT_EQ(0, jifl_perf_writer_exit(pw, JIT_PID, 0, JIT_PID, 0, T1 + 100));
	ASSERT_EQ(0, jifl_perf_writer_close(pw));
}

TEST_F(jitdump, versions_in_time)
{
	/* v1: jmp +2; nop; nop; ret. v2: nop * 4; ret. Both: jmp rax at 0x10. */
	static const unsigned char v1[] = { 0xeb, 0x02, 0x90, 0x90, 0xc3, [0x10] = 0xff, 0xe0 };
	static const unsigned char v2[] = { 0x90, 0x90, 0x90, 0x90, 0xc3, [0x10] = 0xff, 0xe0 };
	static const uint64_t ips_v1[] = { 0, 4, 0x10 }, ips_v2[] = { 0, 1, 2, 3, 4, 0x10 };
	struct jifl_fj_info info = { .pid = JIT_PID };
	struct jifl_fjwriter *w;
	const uint64_t *want;
	size_t c, i, n;

	write_interval_run(_metadata, self);
	for (c = 0; c < sizeof(interval_cases) / sizeof(interval_cases[0]); c++) {
		const struct interval_case *ic = &interval_cases[c];

		ASSERT_EQ(0, jifl_fjwriter_open(&w, self->fj, &info));
		add_exec(_metadata, w, JIT_PID, T0 - 90, v1, sizeof(v1));
		add_write(_metadata, w, ic->v1_end);
		add_exec(_metadata, w, JIT_PID, ic->v2_start, v2, sizeof(v2));
		ASSERT_EQ(0, jifl_fjwriter_close(w));
		jitdump_inject(_metadata, self);
		EXPECT_EQ(0, perf_decode(_metadata, self, self->injected)) TH_LOG("%s", ic->name);
		want = ic->perf_v2 ? ips_v2 : ips_v1;
		n = ic->perf_v2 ? 6 : 3;
		ASSERT_EQ(n, self->got.n) TH_LOG("%s", ic->name);
		for (i = 0; i < n; i++)
			ASSERT_EQ(JIT_ENTRY + want[i], self->got.v[i].ip) TH_LOG("%s", ic->name);
		TH_LOG("%s: the run executed version %d, perf decoded version %d", ic->name,
		       1 + ic->ran_v2, 1 + ic->perf_v2);
	}
}

/* Bad input: a clear message and a non-zero status, never a crash. */
TEST_F(jitdump, bad_input)
{
	static const unsigned char ret[] = { 0xc3 };
	static const struct {
		const char *args;	/* %1$s: perf.data, %2$s: FlowJIT file, %3$s: the dir */
		uint32_t pid;		/* of the FlowJIT file's snapshot; 0: none */
		int status;
		const char *message;
	} cases[] = {
		{ "-i %1$s -o %3$s/m %2$s", JIT_PID, 0, "1 code loads of 1 versions in " },
		{ "-i %1$s -o %3$s/m %2$s", 1234, 1,
		  "is not from the run of '%1$s': none of its 1 processes with code snapshots" },
		{ "-i %1$s -o %3$s/m %2$s", 0, 1, "has no code snapshots" },
		{ "-i %3$s/none -o %3$s/m %2$s", JIT_PID, 1,
		  "cannot read '%3$s/none': No such file or directory" },
		{ "-i %2$s -o %3$s/m %2$s", JIT_PID, 1, "cannot read '%2$s' at byte 0: bad file format\n" },
		{ "-i %1$s -o %3$s/m %3$s/none", JIT_PID, 1,
		  "cannot read '%3$s/none': No such file" },
		{ "-i %1$s -o %1$s %2$s", JIT_PID, 1, "to '%1$s': the same file" },
		{ "-i %1$s -o %3$s/m -d %3$s/no/dir %2$s", JIT_PID, 1,
		  "cannot create '%3$s/no/dir'" },
		{ "-i %1$s %2$s %2$s", JIT_PID, 2, "jitdump: one file at a time" },
		{ "--nope", JIT_PID, 2, "usage:" },
	};
	struct jifl_fj_info info = { .pid = JIT_PID };
	char args[512], want[512];
	struct jifl_fjwriter *w;
	size_t i;

	write_interval_run(_metadata, self);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		ASSERT_EQ(0, jifl_fjwriter_open(&w, self->fj, &info));
		if (cases[i].pid)
			add_exec(_metadata, w, cases[i].pid, T0 - 90, ret, sizeof(ret));
		else
			add_write(_metadata, w, T0 - 90);
		ASSERT_EQ(0, jifl_fjwriter_close(w));
		snprintf(args, sizeof(args), cases[i].args, self->data, self->fj, self->dir);
		snprintf(want, sizeof(want), cases[i].message, self->data, self->fj, self->dir);
		EXPECT_EQ(cases[i].status, cmd_run(self->out, sizeof(self->out),
						   "cd %s && %s jitdump %s", self->dir, FLOWJIT,
						   args)) TH_LOG("%s", args);
		EXPECT_NE(NULL, strstr(self->out, want)) TH_LOG("%s: %s", args, self->out);
	}
}

TEST_HARNESS_MAIN
