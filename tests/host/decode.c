// SPDX-License-Identifier: GPL-2.0
/*
 * jifl-decode end to end: record the swtrace test programs, decode them,
 * and check that the decoded instruction addresses are exactly the
 * ground truth, thread by thread, and the same as "perf script
 * --itrace=i1i" where perf decodes without error. Bad input must give a
 * clear message and a non-zero status, never a crash. The versioned JIT
 * image is checked table-driven.
 *
 * JIFL_DECODE in the environment names another build to test (the SAN=1
 * one: build/bin-san/jifl-decode).
 */
#define _GNU_SOURCE	/* memmem */
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <intel-pt.h>

#include "kselftest_harness.h"
#include "cmd.h"
#include "swtrace_truth.h"
#include "tools.h"
#include "tmpdir.h"
#include "common/errcode.h"
#include "common/disasm.h"
#include "common/symtab.h"
#include "flowjit/fjwriter.h"
#include "flowjit/jit_image.h"
#include "perf/perf_reader.h"
#include "perf/perf_writer.h"
#include "pt_encode.h"




FIXTURE(decode) {
	TMPDIR_TRACE_MEMBERS;
	char out[8192];
	struct ipseq perf;
};

FIXTURE_SETUP(decode)
{
	TMPDIR_TRACE_SETUP("decode");
}

FIXTURE_TEARDOWN(decode)
{
	TMPDIR_TRACE_TEARDOWN();
	free(self->perf.v);
}

static int record(FIXTURE_DATA(decode) *self, const char *cmd)
{
	return cmd_run(self->out, sizeof(self->out), "%s -q -o %s --truth %s -- %s",
		       SWTRACE, self->data, self->truth, cmd);
}

/* Run jifl-decode with @args; returns its status, IPs in self->got. */
static int decode_args(FIXTURE_DATA(decode) *self, const char *args, long *errors)
{
	char cmd[1024];

	snprintf(cmd, sizeof(cmd), "%s %s", decoder(), args);
	return read_ips(cmd, 1, " error: ", &self->got, errors);
}

/* Decode self->data; returns jifl-decode's status, IPs in self->got. */
static int decode(FIXTURE_DATA(decode) *self, const char *opts, long *errors)
{
	char args[512];

	snprintf(args, sizeof(args), "-i %s --insn %s", self->data, opts);
	return decode_args(self, args, errors);
}

/* Both decoders give the same output with @opts (and the same status). */
static void expect_same_output(struct __test_metadata *_metadata,
			       FIXTURE_DATA(decode) *self, const char *opts)
{
	int st[NR_DECODERS];
	size_t d;

	for (d = 0; d < NR_DECODERS; d++)
		st[d] = cmd_run(self->out, sizeof(self->out),
				"{ %s -i %s %s --decoder %s > %s/out.%s; } 2> /dev/null",
				decoder(), self->data, opts, decoders[d], self->dir, decoders[d]);
	EXPECT_EQ(st[0], st[1]) TH_LOG("%s", opts);
	EXPECT_EQ(0, cmd_run(self->out, sizeof(self->out), "cmp %s/out.%s %s/out.%s",
			     self->dir, decoders[0], self->dir, decoders[1]))
		TH_LOG("%s: %s", opts, self->out);
}

/*
 * Record @cmd; jifl-decode must give the truth with either decoder, the
 * same listings and statistics with both, and what perf gives.
 */
static void check_prog(struct __test_metadata *_metadata,
		       FIXTURE_DATA(decode) *self, const char *cmd, int status)
{
	char pcmd[512], opts[64];
	long errors, perf_errors;
	size_t i, d;

	ASSERT_EQ(status, record(self, cmd)) TH_LOG("%s", self->out);
	ASSERT_EQ(0, truth_read(self->truth, &self->want));
	ASSERT_GT(self->want.n, 1000);
	qsort(self->want.v, self->want.n, sizeof(*self->want.v), step_cmp);
	for (d = 0; d < NR_DECODERS; d++) {
		snprintf(opts, sizeof(opts), "--decoder %s", decoders[d]);
		self->got.n = 0;
		EXPECT_EQ(0, decode(self, opts, &errors));
		EXPECT_EQ(0, errors);
		qsort(self->got.v, self->got.n, sizeof(*self->got.v), step_cmp);
		i = ipseq_first_diff(&self->want, &self->got);
		EXPECT_EQ(self->want.n, self->got.n) TH_LOG("%s", opts);
		ASSERT_EQ(self->want.n, i) TH_LOG("%s: first difference from the truth at %zu of %zu",
						  opts, i, self->want.n);
	}
	expect_same_output(_metadata, self, "--insn");
	expect_same_output(_metadata, self, "--branches");
	expect_same_output(_metadata, self, "--calls --stats");
	/* No gap of lost flow (signals do restart elsewhere). */
	EXPECT_EQ(0, cmd_run(self->out, sizeof(self->out), "%s -i %s --stats", decoder(),
			     self->data));
	EXPECT_NE(NULL, strstr(self->out, "\ngap totals: 0 decode errors (0 missing code), "
			       "0 overflows, 0 trace stops, ")) TH_LOG("%s", self->out);

	snprintf(pcmd, sizeof(pcmd), "perf script -i %s --itrace=i1ie -F tid,ip 2>&1",
		 self->data);
	ASSERT_EQ(0, read_ips(pcmd, 0, "instruction trace error", &self->perf,
			      &perf_errors));
	if (perf_errors) {
		TH_LOG("perf: %ld decode errors; not compared", perf_errors);
		return;
	}
	qsort(self->perf.v, self->perf.n, sizeof(*self->perf.v), step_cmp);
	i = ipseq_first_diff(&self->perf, &self->got);
	ASSERT_EQ(self->perf.n, self->got.n);
	ASSERT_EQ(self->perf.n, i) TH_LOG("first difference from perf at %zu", i);
}

TEST_F(decode, flow_dynamic) { check_prog(_metadata, self, PROGS "swt_flow 10", 0); }
TEST_F(decode, flow_static) { check_prog(_metadata, self, PROGS "swt_flow-static 10", 0); }
TEST_F(decode, syscalls_dynamic) { check_prog(_metadata, self, PROGS "swt_sys", 0); }
TEST_F(decode, syscalls_static) { check_prog(_metadata, self, PROGS "swt_sys-static", 0); }
TEST_F(decode, signals_dynamic) { check_prog(_metadata, self, PROGS "swt_sig", 0); }
TEST_F(decode, signals_static) { check_prog(_metadata, self, PROGS "swt_sig-static", 0); }
TEST_F(decode, threads_dynamic) { check_prog(_metadata, self, PROGS "swt_thread", 0); }
TEST_F(decode, threads_static) { check_prog(_metadata, self, PROGS "swt_thread-static", 0); }
TEST_F(decode, crash) { check_prog(_metadata, self, PROGS "swt_crash", 128 + 11); }
TEST_F(decode, exec) { check_prog(_metadata, self, "env " PROGS "swt_flow-static 5", 0); }
/* Steps that run two instructions (MOV SS; a hypervisor losing a trap). */
TEST_F(decode, two_instruction_steps) { check_prog(_metadata, self, PROGS "swt_movss-static", 0); }

/* The trace of queue @idx of self->data as a raw PT file @path. */
static void dump_queue(struct __test_metadata *_metadata, FIXTURE_DATA(decode) *self,
		       size_t idx, const char *path)
{
	const struct jifl_perf_queue *q;
	struct jifl_perf_reader *r;
	uint64_t off;
	FILE *f;

	ASSERT_EQ(0, jifl_perf_reader_open(&r, self->data, &off));
	q = jifl_perf_reader_queue(r, idx);
	ASSERT_NE(NULL, q);
	f = fopen(path, "w");
	ASSERT_NE(NULL, f);
	EXPECT_EQ(q->size, fwrite(q->data, 1, q->size, f));
	EXPECT_EQ(0, fclose(f));
	jifl_perf_reader_close(r);
}

/*
 * The one executable segment of @elf_path as a flat file @path, at
 * @vaddr; @offset and @size in @elf_path.
 */
static void flat_code(struct __test_metadata *_metadata, const char *elf_path,
		      const char *path, uint64_t *vaddr, uint64_t *offset, uint64_t *size)
{
	size_t n, i, file_size, found = 0;
	const char *raw;
	GElf_Phdr ph;
	FILE *f;
	Elf *elf;
	int fd;

	elf_version(EV_CURRENT);
	fd = open(elf_path, O_RDONLY);
	ASSERT_LE(0, fd);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	ASSERT_NE(NULL, elf);
	raw = elf_rawfile(elf, &file_size);
	ASSERT_NE(NULL, raw);
	ASSERT_EQ(0, elf_getphdrnum(elf, &n));
	f = fopen(path, "w");
	ASSERT_NE(NULL, f);
	for (i = 0; i < n; i++) {
		if (!gelf_getphdr(elf, i, &ph) || ph.p_type != PT_LOAD || !(ph.p_flags & PF_X))
			continue;
		ASSERT_LE(ph.p_offset + ph.p_filesz, file_size);
		EXPECT_EQ(ph.p_filesz, fwrite(raw + ph.p_offset, 1, ph.p_filesz, f));
		*vaddr = ph.p_vaddr;
		*offset = ph.p_offset;
		*size = ph.p_filesz;
		found++;
	}
	EXPECT_EQ(0, fclose(f));
	elf_end(elf);
	close(fd);
	ASSERT_EQ(1, found);
}

/* The addresses of self->got are those of the truth, in order. */
static void expect_truth_ips(struct __test_metadata *_metadata,
			     FIXTURE_DATA(decode) *self, const char *what)
{
	size_t i;

	for (i = 0; i < self->want.n && i < self->got.n; i++)
		if (self->want.v[i].ip != self->got.v[i].ip)
			break;
	EXPECT_EQ(self->want.n, self->got.n) TH_LOG("%s", what);
	EXPECT_EQ(self->want.n, i) TH_LOG("%s: first difference at %zu", what, i);
}

/*
 * Raw mode, as libipt's ptxed: the packets of a thread without perf.data,
 * code from the ELF file, from a flat copy of its code segment (whose
 * name may have a ':', as ptxed allows) or from that segment's bytes of
 * the ELF file. ptxed's --elf FILE:BASE puts the lowest segment at BASE.
 */
TEST_F(decode, raw_mode_matches_truth)
{
	char pt[160], flat[160], colon[160], args[512];
	uint64_t vaddr = 0, offset = 0, size = 0;
	long errors;
	size_t d;

	ASSERT_EQ(0, record(self, PROGS "swt_flow-static 10")) TH_LOG("%s", self->out);
	ASSERT_EQ(0, truth_read(self->truth, &self->want));
	ASSERT_GT(self->want.n, 1000);
	snprintf(pt, sizeof(pt), "%s/trace.pt", self->dir);
	snprintf(flat, sizeof(flat), "%s/code.bin", self->dir);
	dump_queue(_metadata, self, 0, pt);
	flat_code(_metadata, PROGS "swt_flow-static", flat, &vaddr, &offset, &size);
	snprintf(colon, sizeof(colon), "%s/co:de", self->dir);
	ASSERT_EQ(0, cmd_run(self->out, sizeof(self->out), "cp %s %s", flat, colon));
	/* The static program's lowest segment is its ELF header's, at 0x400000. */
	ASSERT_EQ(0x401000, vaddr);

	for (d = 0; d < NR_DECODERS; d++) {
		self->got.n = 0;
		snprintf(args, sizeof(args), "--pt %s --elf %s --insn --decoder %s", pt,
			 PROGS "swt_flow-static", decoders[d]);
		EXPECT_EQ(0, decode_args(self, args, &errors));
		EXPECT_EQ(0, errors);
		/* No threads in raw mode: tid 0. */
		ASSERT_GT(self->got.n, 0);
		EXPECT_EQ(0, self->got.v[0].tid);
		expect_truth_ips(_metadata, self, args);

		self->got.n = 0;
		snprintf(args, sizeof(args), "--pt %s --raw %s:0x%" PRIx64 " --insn --decoder %s",
			 pt, flat, vaddr, decoders[d]);
		EXPECT_EQ(0, decode_args(self, args, &errors));
		EXPECT_EQ(0, errors);
		expect_truth_ips(_metadata, self, args);

		self->got.n = 0;
		snprintf(args, sizeof(args), "--pt %s --elf %s:0x400000 --insn --decoder %s", pt,
			 PROGS "swt_flow-static", decoders[d]);
		EXPECT_EQ(0, decode_args(self, args, &errors));
		EXPECT_EQ(0, errors);
		expect_truth_ips(_metadata, self, args);

		self->got.n = 0;
		snprintf(args, sizeof(args), "--pt %s --raw %s:%#" PRIx64 "-%#" PRIx64 ":%#" PRIx64
			 " --insn --decoder %s", pt, PROGS "swt_flow-static", offset,
			 offset + size, vaddr, decoders[d]);
		EXPECT_EQ(0, decode_args(self, args, &errors));
		EXPECT_EQ(0, errors);
		expect_truth_ips(_metadata, self, args);

		self->got.n = 0;
		snprintf(args, sizeof(args), "--pt %s --raw %s:%#" PRIx64 " --insn --decoder %s",
			 pt, colon, vaddr, decoders[d]);
		EXPECT_EQ(0, decode_args(self, args, &errors));
		EXPECT_EQ(0, errors);
		expect_truth_ips(_metadata, self, args);
	}

	/* BASE moves the code: at the wrong address nothing decodes. */
	self->got.n = 0;
	snprintf(args, sizeof(args), "--pt %s --elf %s:0x100000 --insn", pt,
		 PROGS "swt_flow-static");
	EXPECT_EQ(1, decode_args(self, args, &errors));
	EXPECT_GT(errors, 0);
	EXPECT_EQ(0, self->got.n);
}

/* Bad raw-mode input: a clear message and a non-zero status. */
TEST_F(decode, raw_mode_bad_input)
{
	static const struct {
		const char *args;	/* %1$s: the trace, %2$s: the code, %3$s: the dir */
		int status;
		const char *message;
	} cases[] = {
		{ "--pt %3$s/none.pt --elf %2$s", 1, "--pt: cannot read '" },
		{ "--pt %1$s --elf %3$s/none", 1, "--elf: cannot open '" },
		{ "--pt %1$s --raw %3$s/none:0x1000", 1, "--raw: cannot open '" },
		{ "--pt %1$s --raw %1$s", 2, "--raw: expected FILE[:FROM[-TO]]:BASE, got '" },
		{ "--pt %1$s --raw %1$s:0x10-0x8:0x1000", 2, "TO (0x8) must be above FROM (0x10)" },
		{ "--pt %1$s --raw %1$s:0x10000000-0x10000010:0x1000", 1,
		  "bytes 0x10000000-0x10000010 are not all in the file" },
		{ "--pt %1$s --raw %1$s:0x0-0x10000000:0x1000", 1,
		  "bytes 0x0-0x10000000 are not all in the file" },
		{ "--pt %1$s --elf %2$s --cpu 6", 2, "--cpu: expected FAMILY/MODEL[/STEPPING]" },
		{ "--pt %1$s --elf %2$s --cpu 6/78/1/2", 2, "--cpu: expected FAMILY/MODEL" },
		{ "--pt %1$s --elf %2$s --cpu 6/256", 2, "got '6/256'" },
		{ "--pt %1$s --elf %2$s --cpu -6/78", 2, "got '-6/78'" },
		{ "--pt %1$s --elf %2$s --filter:addr0_cfg 16", 2,
		  "--filter:addr0_cfg: expected a number from 0 to 15, got '16'" },
		{ "--pt %1$s --elf %2$s --filter:addr3_b x", 2,
		  "--filter:addr3_b: expected an address (0x...), got 'x'" },
		{ "--pt %1$s --elf %2$s --filter:addr4_a 0", 2, "usage:" },
		{ "-i %1$s --cpu 6/78", 2, "--cpu and --filter are for --pt" },
		{ "-i %1$s --filter:addr0_cfg 1", 2, "--cpu and --filter are for --pt" },
		{ "--pt %1$s --raw %1$s:0x12q", 2, "BASE must be an address" },
		{ "--pt %1$s --raw %1$s:", 2, "BASE must be an address" },
		{ "--pt %1$s --elf %2$s:-1", 2, "BASE must be an address" },
		{ "--pt %1$s --elf %1$s", 1, "not an ELF file with loadable segments" },
		{ "--pt %1$s --raw %3$s/empty:0x1000", 1, "the file is empty" },
		{ "--pt %1$s --raw %1$s:0x1000 --raw %1$s:0x1008", 1, "overlaps --raw '" },
		{ "--pt %1$s --elf %2$s --raw %1$s:0x401100", 1, "overlaps --elf '" },
		{ "--pt %1$s --raw %1$s:0xfffffffffffffff0", 1, "past the end of the address space" },
		{ "--pt %3$s/empty --elf %2$s", 1, "the trace is empty" },
		/* Not a PT stream: no PSB in it. */
		{ "--pt %2$s --elf %2$s", 1, "no instruction could be decoded" },
		{ "--pt %1$s --elf %2$s -i %1$s", 2, "give either -i perf.data or --pt FILE" },
		{ "-i %1$s --elf %2$s", 2, "--elf and --raw are for --pt" },
	};
	char pt[160], args[1024], empty[160];
	size_t i;

	ASSERT_EQ(0, record(self, PROGS "swt_flow-static 2")) TH_LOG("%s", self->out);
	snprintf(pt, sizeof(pt), "%s/trace.pt", self->dir);
	snprintf(empty, sizeof(empty), "%s/empty", self->dir);
	dump_queue(_metadata, self, 0, pt);
	ASSERT_EQ(0, cmd_run(self->out, sizeof(self->out), ": > %s", empty));
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		snprintf(args, sizeof(args), cases[i].args, pt, PROGS "swt_flow-static",
			 self->dir);
		EXPECT_EQ(cases[i].status, cmd_run(self->out, sizeof(self->out), "%s %s --stats",
						   decoder(), args)) TH_LOG("%s", args);
		EXPECT_NE(NULL, strstr(self->out, cases[i].message))
			TH_LOG("%s: %s", args, self->out);
		EXPECT_EQ(NULL, strstr(self->out, "Sanitizer")) TH_LOG("%s", self->out);
		EXPECT_EQ(NULL, strstr(self->out, "runtime error")) TH_LOG("%s", self->out);
	}
}

/* Without FlowJIT data, JIT code is missing: errors, reported, exit 1. */
TEST_F(decode, jit_without_flowjit_reports_errors)
{
	char cmd[512];

	ASSERT_EQ(0, record(self, PROGS "swt_jit")) TH_LOG("%s", self->out);
	ASSERT_EQ(0, truth_read(self->truth, &self->want));
	snprintf(cmd, sizeof(cmd), "%s -i %s --stats", decoder(), self->data);
	ASSERT_EQ(1, cmd_run(self->out, sizeof(self->out), "%s", cmd));
	ASSERT_NE(NULL, strstr(self->out, "no memory mapped at this address"))
		TH_LOG("%s", self->out);
	ASSERT_NE(NULL, strstr(self->out, "decode errors"));
	TH_LOG("%s", self->out);
}

/* A copy of a program, deleted after the recording: named as missing. */
TEST_F(decode, missing_binary)
{
	char prog[128], cmd[256];
	long errors;

	snprintf(prog, sizeof(prog), "%s/prog", self->dir);
	ASSERT_EQ(0, cmd_run(self->out, sizeof(self->out), "cp %s %s",
			     PROGS "swt_flow-static", prog));
	snprintf(cmd, sizeof(cmd), "%s 5", prog);
	ASSERT_EQ(0, record(self, cmd)) TH_LOG("%s", self->out);
	ASSERT_EQ(0, unlink(prog));
	ASSERT_EQ(1, cmd_run(self->out, sizeof(self->out), "%s -i %s --stats",
			     decoder(), self->data));
	ASSERT_NE(NULL, strstr(self->out, "cannot read '"));
	ASSERT_NE(NULL, strstr(self->out, "/prog' (mapped at 0x"));
	ASSERT_NE(NULL, strstr(self->out, "No such file"));
	EXPECT_EQ(1, decode(self, "", &errors));
	EXPECT_GT(errors, 0);
}

/* @bytes bytes of self->data only (or all but -@bytes). */
static void truncate_data(struct __test_metadata *_metadata,
			  FIXTURE_DATA(decode) *self, long bytes)
{
	long size;
	FILE *f = fopen(self->data, "r");

	ASSERT_NE(NULL, f);
	ASSERT_EQ(0, fseek(f, 0, SEEK_END));
	size = ftell(f);
	fclose(f);
	ASSERT_EQ(0, truncate(self->data, bytes < 0 ? size + bytes : bytes));
}

static void expect_refused(struct __test_metadata *_metadata,
			   FIXTURE_DATA(decode) *self, const char *opts,
			   const char *message)
{
	int st = cmd_run(self->out, sizeof(self->out), "%s -i %s %s", decoder(),
			 self->data, opts);

	EXPECT_EQ(1, st) TH_LOG("%s", self->out);
	EXPECT_NE(NULL, strstr(self->out, message)) TH_LOG("%s", self->out);
	EXPECT_EQ(NULL, strstr(self->out, "Sanitizer")) TH_LOG("%s", self->out);
	EXPECT_EQ(NULL, strstr(self->out, "runtime error")) TH_LOG("%s", self->out);
}

TEST_F(decode, bad_perf_data)
{
	static const struct {
		long keep;		/* bytes to keep; negative: bytes to drop */
		const char *message;
	} cases[] = {
		{ 0, "' at offset 0: file is truncated\n" },
		{ 40, ": file is truncated\n" },
		{ 2000, ": file is truncated\n" },
		{ -5000, ": file is truncated\n" },
	};
	char orig[160], what[200];
	size_t i;

	ASSERT_EQ(0, record(self, PROGS "swt_flow-static 8")) TH_LOG("%s", self->out);
	snprintf(orig, sizeof(orig), "%s.orig", self->data);
	snprintf(what, sizeof(what), "jifl-decode: reading '%s' at offset ", self->data);
	ASSERT_EQ(0, cmd_run(self->out, sizeof(self->out), "cp %s %s", self->data, orig));
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		ASSERT_EQ(0, cmd_run(self->out, sizeof(self->out), "cp %s %s", orig,
				     self->data));
		truncate_data(_metadata, self, cases[i].keep);
		expect_refused(_metadata, self, "--stats", what);
		expect_refused(_metadata, self, "--stats", cases[i].message);
	}
}

/* Overwrite @len bytes at @offset of self->data with @byte. */
static void corrupt(struct __test_metadata *_metadata, FIXTURE_DATA(decode) *self,
		    long offset, int byte, size_t len)
{
	FILE *f = fopen(self->data, "r+");

	ASSERT_NE(NULL, f);
	ASSERT_EQ(0, fseek(f, offset, SEEK_SET));
	while (len--)
		fputc(byte, f);
	fclose(f);
}

TEST_F(decode, corrupted_perf_data)
{
	uint64_t data_offset;
	FILE *f;

	ASSERT_EQ(0, record(self, PROGS "swt_flow-static 8")) TH_LOG("%s", self->out);
	/* header.data.offset; then the size of the first data record. */
	f = fopen(self->data, "r");
	ASSERT_NE(NULL, f);
	ASSERT_EQ(0, fseek(f, 40, SEEK_SET));
	ASSERT_EQ(1, fread(&data_offset, sizeof(data_offset), 1, f));
	fclose(f);
	corrupt(_metadata, self, data_offset + 6, 0xff, 2);
	expect_refused(_metadata, self, "--stats", "' at offset ");
	expect_refused(_metadata, self, "--stats", ": bad file format\n");
	corrupt(_metadata, self, 0, 'X', 8);
	expect_refused(_metadata, self, "--stats", "' at offset 0: bad file format\n");
}

/*
 * The file offset in self->data of the trace byte at @num/@den of queue
 * 0's data (the window of 64 bytes from there occurs once in the file);
 * that byte's offset in the queue in @qoff. -1 if not found.
 */
static long trace_byte(FIXTURE_DATA(decode) *self, int num, int den, size_t *qoff)
{
	const struct jifl_perf_queue *q;
	struct jifl_perf_reader *r;
	char *file = NULL, *at;
	long pos = -1;
	size_t size = 0;
	uint64_t off;
	FILE *f;
	int i;

	f = fopen(self->data, "r");
	if (f && !fseek(f, 0, SEEK_END) && (size = ftell(f)) > 0 && !fseek(f, 0, SEEK_SET) &&
	    (file = malloc(size)) && fread(file, 1, size, f) != size)
		size = 0;
	if (f)
		fclose(f);
	if (!file || !size || jifl_perf_reader_open(&r, self->data, &off)) {
		free(file);
		return -1;
	}
	q = jifl_perf_reader_queue(r, 0);
	for (i = 0; q && pos < 0 && i < 16; i++) {
		*qoff = q->size / den * num + 64 * i;
		if (*qoff + 64 > q->size)
			break;
		at = memmem(file, size, q->data + *qoff, 64);
		if (at && !memmem(at + 1, size - (at + 1 - file), q->data + *qoff, 64))
			pos = at - file;
	}
	jifl_perf_reader_close(r);
	free(file);
	return pos;
}

/*
 * Corrupted trace bytes in the middle of the AUXTRACE data: --stats
 * lists the gap (a decode error, where, after how many instructions,
 * where decoding resumed) and the decoder resynchronises: everything
 * before and after the gap is exactly the truth.
 */
TEST_F(decode, corrupted_trace_resyncs)
{
	unsigned long long ip, off, before, total, resume_ip, resume_off;
	size_t qoff = 0, j, d;
	const char *line;
	char opts[64];
	long at, errors;

	ASSERT_EQ(0, record(self, PROGS "swt_flow-static 10")) TH_LOG("%s", self->out);
	ASSERT_EQ(0, truth_read(self->truth, &self->want));
	at = trace_byte(self, 1, 3, &qoff);
	ASSERT_LT(0, at);
	corrupt(_metadata, self, at, 0x02, 8);

	for (d = 0; d < NR_DECODERS; d++) {
		snprintf(opts, sizeof(opts), "--decoder %s", decoders[d]);
		EXPECT_EQ(1, cmd_run(self->out, sizeof(self->out), "%s -i %s --stats %s",
				     decoder(), self->data, opts));
		TH_LOG("%s, corrupted at queue offset 0x%zx:\n%s", opts, qoff, self->out);
		line = strstr(self->out, "\ninstructions: ");
		ASSERT_NE(NULL, line);
		ASSERT_EQ(1, sscanf(line, "\ninstructions: %llu", &total));
		line = strstr(self->out, "decode error (");
		ASSERT_NE(NULL, line);
		ASSERT_EQ(3, sscanf(strstr(line, " at ip "), " at ip %llx after %llu instructions, "
				    "trace offset %llx", &ip, &before, &off));
		line = strstr(line, "; resumed at ip ");
		ASSERT_NE(NULL, line);
		ASSERT_EQ(2, sscanf(line, "; resumed at ip %llx, trace offset %llx",
				    &resume_ip, &resume_off)) TH_LOG("%s", line);
		EXPECT_NE(0, ip);
		EXPECT_NE(0, resume_ip);
		/* Found at or after the bad bytes, resumed at a PSB after them. */
		EXPECT_GE(off, qoff);
		EXPECT_LT(off, qoff + 8192);
		EXPECT_GT(resume_off, qoff + 8);
		EXPECT_NE(NULL, strstr(self->out, "gap totals: 1 decode errors"));
		/* It resynchronised: more was decoded after the bad bytes than before. */
		EXPECT_GT(total - before, before);
		EXPECT_LT(total, self->want.n);

		/* The listing agrees; before and after the gap, it is the truth. */
		self->got.n = 0;
		ASSERT_EQ(1, decode(self, opts, &errors));
		EXPECT_EQ(1, errors);
		ASSERT_EQ(total, self->got.n);
		ASSERT_LT(0, before);
		for (j = 0; j < before; j++)
			ASSERT_EQ(self->want.v[j].ip, self->got.v[j].ip) TH_LOG("instruction %zu", j);
		/* The gap is at the last instruction decoded before it. */
		EXPECT_EQ(ip, self->got.v[before - 1].ip);
		EXPECT_EQ(resume_ip, self->got.v[before].ip);
		for (j = 1; j <= total - before; j++)
			ASSERT_EQ(self->want.v[self->want.n - j].ip, self->got.v[total - j].ip)
				TH_LOG("instruction %zu from the end", j);
	}
}

/*
 * Rewrite self->data (one thread) as perf would have written it had it
 * lost queue offsets [@lo, @hi) of the trace: two AUXTRACE buffers, the
 * second not where the first one ends.
 */
static void lose_trace(struct __test_metadata *_metadata, FIXTURE_DATA(decode) *self,
		       size_t lo, size_t hi)
{
	struct jifl_perf_writer_config cfg = { 0 };
	const struct jifl_perf_queue *q;
	const struct jifl_perf_info *info;
	const struct jifl_perf_map *m;
	struct jifl_perf_reader *r;
	struct jifl_perf_writer *w;
	char orig[160];
	uint64_t off;
	size_t i;

	snprintf(orig, sizeof(orig), "%s.orig", self->data);
	ASSERT_EQ(0, rename(self->data, orig));
	ASSERT_EQ(0, jifl_perf_reader_open(&r, orig, &off));
	ASSERT_EQ(1, jifl_perf_reader_nr_queues(r));
	q = jifl_perf_reader_queue(r, 0);
	ASSERT_LT(hi, q->size);
	info = jifl_perf_reader_info(r);
	cfg.pt_pmu_type = info->pt_pmu_type;
	cfg.pt_config = info->pt_config;
	cfg.tc = info->tc;
	ASSERT_EQ(0, jifl_perf_writer_open(&w, self->data, &cfg));
	ASSERT_EQ(0, jifl_perf_writer_comm(w, q->pid, q->tid, "lost", 1, 1));
	for (i = 0; (m = jifl_perf_reader_map(r, i)); i++)
		ASSERT_EQ(0, jifl_perf_writer_mmap2(w, &m->m, 1));
	ASSERT_EQ(0, jifl_perf_writer_itrace_start(w, q->pid, q->tid, 1));
	ASSERT_EQ(0, jifl_perf_writer_auxtrace(w, 0, q->tid, q->data, lo));
	ASSERT_EQ(0, jifl_perf_writer_aux_lost(w, 0, hi - lo));
	ASSERT_EQ(0, jifl_perf_writer_auxtrace(w, 0, q->tid, q->data + hi, q->size - hi));
	ASSERT_EQ(0, jifl_perf_writer_exit(w, q->pid, q->pid, q->tid, q->tid, 2));
	ASSERT_EQ(0, jifl_perf_writer_close(w));
	jifl_perf_reader_close(r);
}

/*
 * Trace data perf lost between two AUXTRACE buffers: libipt would run
 * the two together and could follow a wrong flow silently; the decoder
 * decodes them apart, with a gap between. Before and after the gap, it
 * is exactly the truth.
 */
TEST_F(decode, trace_data_lost)
{
	unsigned long long ip, before, off, resume_ip, total;
	char opts[64], *line;
	size_t qoff = 0, j, d;
	long errors;

	ASSERT_EQ(0, record(self, PROGS "swt_flow-static 10")) TH_LOG("%s", self->out);
	ASSERT_EQ(0, truth_read(self->truth, &self->want));
	ASSERT_LT(0, trace_byte(self, 1, 3, &qoff));
	lose_trace(_metadata, self, qoff, qoff + qoff / 2);
	for (d = 0; d < NR_DECODERS; d++) {
		snprintf(opts, sizeof(opts), "--decoder %s", decoders[d]);
		EXPECT_EQ(1, cmd_run(self->out, sizeof(self->out), "%s -i %s --stats %s",
				     decoder(), self->data, opts));
		TH_LOG("%s, lost from queue offset 0x%zx:\n%s", opts, qoff, self->out);
		line = strstr(self->out, "\ninstructions: ");
		ASSERT_NE(NULL, line);
		ASSERT_EQ(1, sscanf(line, "\ninstructions: %llu", &total));
		EXPECT_NE(NULL, strstr(self->out, ", 1 trace data lost, 0 never-ending loops; "));
		EXPECT_NE(NULL, strstr(self->out, "  1 x trace data lost at 0x"));
		line = strstr(self->out, " trace data lost at ip ");
		ASSERT_NE(NULL, line);
		ASSERT_EQ(4, sscanf(line, " trace data lost at ip %llx after %llu instructions, "
				    "trace offset %llx; resumed at ip %llx", &ip, &before, &off,
				    &resume_ip));
		/* Where the first buffer ends, padded to 8 bytes. */
		EXPECT_EQ((qoff + 7) & ~7ull, off);

		self->got.n = 0;
		EXPECT_EQ(1, decode(self, opts, &errors));
		EXPECT_LE(1, errors);
		ASSERT_EQ(total, self->got.n);
		ASSERT_LT(0, before);
		ASSERT_LT(before, total);
		for (j = 0; j < before; j++)
			ASSERT_EQ(self->want.v[j].ip, self->got.v[j].ip) TH_LOG("instruction %zu", j);
		EXPECT_EQ(ip, self->got.v[before - 1].ip);
		EXPECT_EQ(resume_ip, self->got.v[before].ip);
		for (j = 1; j <= total - before; j++)
			ASSERT_EQ(self->want.v[self->want.n - j].ip, self->got.v[total - j].ip)
				TH_LOG("instruction %zu from the end", j);
		EXPECT_LT(total, self->want.n);
	}
}

/*
 * self->data as a recorder killed before it finished the file leaves it:
 * the header it wrote first (data size 0, no features), then the records
 * up to @cut bytes before the end of the data section.
 */
static void unfinish(struct __test_metadata *_metadata, FIXTURE_DATA(decode) *self,
		     uint64_t cut)
{
	struct jifl_perf_file_header h;
	int fd = open(self->data, O_RDWR);

	ASSERT_LE(0, fd);
	ASSERT_EQ(sizeof(h), pread(fd, &h, sizeof(h), 0));
	ASSERT_LT(cut, h.data.size);
	ASSERT_EQ(0, ftruncate(fd, h.data.offset + h.data.size - cut));
	h.data.size = 0;
	memset(h.features, 0, sizeof(h.features));
	ASSERT_EQ(sizeof(h), pwrite(fd, &h, sizeof(h), 0));
	close(fd);
}

/* The IPs decoded (self->got) are the first ones of the truth (self->want). */
static void expect_truth_prefix(struct __test_metadata *_metadata,
				FIXTURE_DATA(decode) *self, const char *what)
{
	size_t i;

	ASSERT_LT(0, self->got.n) TH_LOG("%s", what);
	ASSERT_LE(self->got.n, self->want.n) TH_LOG("%s", what);
	for (i = 0; i < self->got.n; i++)
		ASSERT_EQ(self->want.v[i].ip, self->got.v[i].ip)
			TH_LOG("%s: instruction %zu of %zu", what, i, self->got.n);
}

/*
 * A perf.data whose header still says data size 0 (the recorder did not
 * finish it) holds its records up to the end of the file: all of them
 * decode, with a warning; a last record the end of the file cuts off
 * decodes as far as it goes.
 */
TEST_F(decode, unfinished_perf_data)
{
	static const struct {
		uint64_t cut;		/* bytes of the data section lost at its end */
		int all;		/* every instruction of the truth decodes */
		const char *warning;
	} cases[] = {
		{ 0, 1, "(data size 0 in its header: was the recorder killed?); "
			"read to the end of the file\n" },
		{ 5000, 0, "; read to the end of the file, whose last record is cut off at "
			   "offset " },
	};
	char orig[160], opts[64];
	size_t c, d;
	long errors;

	ASSERT_EQ(0, record(self, PROGS "swt_flow-static 10")) TH_LOG("%s", self->out);
	ASSERT_EQ(0, truth_read(self->truth, &self->want));
	snprintf(orig, sizeof(orig), "%s.orig", self->data);
	ASSERT_EQ(0, rename(self->data, orig));
	for (c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		ASSERT_EQ(0, cmd_run(self->out, sizeof(self->out), "cp %s %s", orig, self->data));
		unfinish(_metadata, self, cases[c].cut);
		EXPECT_EQ(1, cmd_run(self->out, sizeof(self->out), "%s -i %s --stats", decoder(),
				     self->data));
		EXPECT_NE(NULL, strstr(self->out, "jifl-decode: warning: '")) TH_LOG("%s", self->out);
		EXPECT_NE(NULL, strstr(self->out, cases[c].warning)) TH_LOG("%s", self->out);
		for (d = 0; d < NR_DECODERS; d++) {
			snprintf(opts, sizeof(opts), "--decoder %s", decoders[d]);
			self->got.n = 0;
			EXPECT_EQ(1, decode(self, opts, &errors)) TH_LOG("%s", opts);
			expect_truth_prefix(_metadata, self, opts);
			if (cases[c].all) {
				EXPECT_EQ(0, errors);
				EXPECT_EQ(self->want.n, self->got.n);
			}
		}
	}
}

/*
 * jifl-swtrace killed (SIGKILL) while it records: what it had written
 * decodes, and is what ran. The recorder single-steps, so on a loaded
 * machine its first MiB can take long: the test waits up to 2 minutes
 * for it, within its own time limit (the harness's default is 30 s).
 */
TEST_F_TIMEOUT(decode, killed_recorder, 240)
{
	char opts[64];
	struct stat st;
	pid_t pid;
	size_t d;
	long errors;
	int i, status;

	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		execl(SWTRACE, SWTRACE, "-q", "-o", self->data, "--truth", self->truth, "--",
		      PROGS "swt_flow-static", "40", NULL);
		_exit(127);
	}
	/* Until its first MiB of records is in the file (its buffer's size). */
	for (i = 0; i < 1200; i++) {
		if (!stat(self->data, &st) && st.st_size > 4096)
			break;
		usleep(100 * 1000);
	}
	kill(pid, SIGKILL);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFSIGNALED(status)) TH_LOG("jifl-swtrace ended before it was killed");
	ASSERT_LT(4096, st.st_size) TH_LOG("no records written in 2 minutes");
	truth_read(self->truth, &self->want);	/* its last group may be cut off */
	for (d = 0; d < NR_DECODERS; d++) {
		snprintf(opts, sizeof(opts), "--decoder %s", decoders[d]);
		self->got.n = 0;
		EXPECT_EQ(1, decode(self, opts, &errors)) TH_LOG("%s", opts);
		expect_truth_prefix(_metadata, self, opts);
		EXPECT_LT(1000, self->got.n) TH_LOG("%s", opts);
	}
	EXPECT_EQ(1, cmd_run(self->out, sizeof(self->out), "%s -i %s --stats", decoder(),
			     self->data));
	EXPECT_NE(NULL, strstr(self->out, "(data size 0 in its header: was the recorder "
			       "killed?)")) TH_LOG("%s", self->out);
}

/* A perf.data with the Intel PT event but no trace data. */
TEST_F(decode, empty_trace)
{
	struct jifl_perf_writer_config cfg = { .pt_pmu_type = 8 };
	struct jifl_perf_writer *w;

	cfg.tc.time_mult = 1;
	ASSERT_EQ(0, jifl_perf_writer_open(&w, self->data, &cfg));
	ASSERT_EQ(0, jifl_perf_writer_comm(w, 1, 1, "empty", 1, 100));
	ASSERT_EQ(0, jifl_perf_writer_close(w));
	expect_refused(_metadata, self, "", "the trace is empty");
}

struct fj_rec {
	struct flowjit_event ev;
	unsigned char page[FLOWJIT_PAGE_SIZE];
};

/* A FlowJIT file of one EXEC record of @pid at @tsc. */
static void write_fj(struct __test_metadata *_metadata, const char *path,
		     uint32_t pid, uint64_t tsc)
{
	struct jifl_fj_info info = { .pid = pid };
	static struct fj_rec r;
	struct jifl_fjwriter *w;

	memset(&r, 0, sizeof(r));
	r.ev.type = FLOWJIT_EV_EXEC;
	r.ev.flags = FLOWJIT_EVF_PAYLOAD;
	r.ev.size = sizeof(r);
	r.ev.tsc = tsc;
	r.ev.pid = r.ev.tid = pid;
	r.ev.addr = 0x7f0000000000;
	memset(r.page, 0xc3, sizeof(r.page));
	ASSERT_EQ(0, jifl_fjwriter_open(&w, path, &info));
	ASSERT_EQ(0, jifl_fjwriter_add(w, &r.ev));
	ASSERT_EQ(0, jifl_fjwriter_close(w));
}

TEST_F(decode, flowjit_from_another_run)
{
	char fj[160], opts[200];

	ASSERT_EQ(0, record(self, PROGS "swt_jit")) TH_LOG("%s", self->out);
	snprintf(fj, sizeof(fj), "%s/other.fj", self->dir);
	snprintf(opts, sizeof(opts), "--flowjit %s", fj);
	write_fj(_metadata, fj, 1, 12345);
	expect_refused(_metadata, self, opts, "is not from the run of the trace");
	/* Not a FlowJIT file at all. */
	snprintf(opts, sizeof(opts), "--flowjit %s", self->truth);
	expect_refused(_metadata, self, opts, "bad file format");
	expect_refused(_metadata, self, "--flowjit /nonexistent.fj",
		       "cannot read '/nonexistent.fj': No such file");
}

/*
 * Which JIT page version an instruction reads when a version starts
 * between two TSC packets (Documentation/decode.rst, "Which code
 * version"). A synthetic run: TSC T0, TIP.PGE(JIT_ENTRY), the code runs
 * to a ret, TSC T1, TIP(JIT_ENTRY + 0x10) for the ret, TIP.PGD for the
 * "jmp rax" there. (libipt reads a TSC packet that precedes an event
 * packet before the instructions before the event: keep it before a TIP.) Version 1 (from before T0) jumps over two
 * nops; version 2 (nops) starts at @v2_start, its fetch fault at
 * @v2_ip. Version 2 is right only when it started before T1 at the
 * entry the trace reaches first.
 */
#define JIT_ENTRY	0x7f0000001000ull
#define T0		1000000000ull
#define T1		(T0 + 1000)

static const struct window_case {
	const char *name;
	uint64_t v2_start, v2_ip;
	int want_v2;
} window_cases[] = {
	{ "before the TSC", T0 - 10, JIT_ENTRY, 1 },
	{ "in the TSC interval, faulted at the entry", T0 + 500, JIT_ENTRY, 1 },
	{ "in the TSC interval, faulted elsewhere", T0 + 500, JIT_ENTRY + 2, 0 },
	{ "after the next TSC", T1 + 10, JIT_ENTRY, 0 },
};

/* A version of @ip's page from @tsc on, which faulted at @ip: @code at its start. */
static void add_exec(struct __test_metadata *_metadata, struct jifl_fjwriter *w,
		     uint64_t tsc, uint64_t ip, const unsigned char *code, size_t len)
{
	static struct fj_rec r;

	memset(&r, 0, sizeof(r));
	r.ev.type = FLOWJIT_EV_EXEC;
	r.ev.flags = FLOWJIT_EVF_PAYLOAD;
	r.ev.size = sizeof(r);
	r.ev.tsc = tsc;
	r.ev.pid = r.ev.tid = 1;
	r.ev.ip = ip;
	r.ev.addr = ip & ~0xfffull;
	memcpy(r.page, code, len);
	ASSERT_EQ(0, jifl_fjwriter_add(w, &r.ev));
}

#define PKT_IP(t, a)	{ .type = (t), .payload.ip = { .ipc = pt_ipc_sext_48, .ip = (a) } }
#define PKT_PGD		{ .type = ppt_tip_pgd, .payload.ip = { .ipc = pt_ipc_suppressed } }
#define PKT_MODE_64	{ .type = ppt_mode, .payload.mode = { .leaf = pt_mol_exec,	\
							      .bits.exec = { .csl = 1 } } }
/* PSB+ with a TSC packet of @t, in 64-bit mode. */
#define PKTS_PSB(t)	{ .type = ppt_psb }, { .type = ppt_tsc, .payload.tsc.tsc = (t) },	\
			PKT_MODE_64, { .type = ppt_psbend }

/* The packets of the synthetic run. */
static const struct pt_packet window_pkts[] = {
	PKTS_PSB(T0),
	PKT_IP(ppt_tip_pge, JIT_ENTRY),
	{ .type = ppt_tsc, .payload.tsc.tsc = T1 },
	{ .type = ppt_tip, .payload.ip = { .ipc = pt_ipc_update_16,
					   .ip = (JIT_ENTRY + 0x10) & 0xffff } },
	PKT_PGD,
};

/*
 * self->data: thread 1 of process 1 ran the synthetic trace of @n @pkts,
 * from T0 - 100 to T1 + 100.
 */
static void write_jit_run(struct __test_metadata *_metadata, FIXTURE_DATA(decode) *self,
			  const struct pt_packet *pkts, size_t n)
{
	struct jifl_perf_writer_config cfg = {
		.pt_pmu_type = 8,
		.pt_config = JIFL_INTEL_PT_CFG_PT | JIFL_INTEL_PT_CFG_TSC |
			     JIFL_INTEL_PT_CFG_BRANCH | JIFL_INTEL_PT_CFG_NORETCOMP,
		.tc = { .time_shift = 0, .time_mult = 1 },
	};
	struct jifl_perf_writer *pw;
	uint8_t trace[256];
	size_t size = pt_encode(pkts, n, trace, sizeof(trace), NULL);

	ASSERT_GT(size, 0);
	ASSERT_EQ(0, jifl_perf_writer_open(&pw, self->data, &cfg));
	ASSERT_EQ(0, jifl_perf_writer_comm(pw, 1, 1, "jit", 1, T0 - 100));
	ASSERT_EQ(0, jifl_perf_writer_itrace_start(pw, 1, 1, T0 - 100));
	ASSERT_EQ(0, jifl_perf_writer_auxtrace(pw, 0, 1, trace, size));
	ASSERT_EQ(0, jifl_perf_writer_exit(pw, 1, 0, 1, 0, T1 + 100));
	ASSERT_EQ(0, jifl_perf_writer_close(pw));
}

TEST_F(decode, jit_version_within_tsc_interval)
{
	/* v1: jmp +2; nop; nop; ret. v2: nop * 4; ret. Both: jmp rax at 0x10. */
	static const unsigned char v1[] = { 0xeb, 0x02, 0x90, 0x90, 0xc3, [0x10] = 0xff, 0xe0 };
	static const unsigned char v2[] = { 0x90, 0x90, 0x90, 0x90, 0xc3, [0x10] = 0xff, 0xe0 };
	static const uint64_t ips_v1[] = { 0, 4, 0x10 }, ips_v2[] = { 0, 1, 2, 3, 4, 0x10 };
	struct jifl_fj_info info = { .pid = 1 };
	char fj[160], opts[200], dopts[256], line[64];
	struct jifl_fjwriter *w;
	size_t c, i, n, d;
	long errors;

	write_jit_run(_metadata, self, window_pkts, sizeof(window_pkts) / sizeof(window_pkts[0]));
	snprintf(fj, sizeof(fj), "%s/w.fj", self->dir);
	snprintf(opts, sizeof(opts), "--flowjit %s", fj);
	for (c = 0; c < sizeof(window_cases) / sizeof(window_cases[0]); c++) {
		const struct window_case *wc = &window_cases[c];
		const uint64_t *want = wc->want_v2 ? ips_v2 : ips_v1;

		n = wc->want_v2 ? 6 : 3;
		ASSERT_EQ(0, jifl_fjwriter_open(&w, fj, &info));
		add_exec(_metadata, w, T0 - 100, JIT_ENTRY, v1, sizeof(v1));
		add_exec(_metadata, w, wc->v2_start, wc->v2_ip, v2, sizeof(v2));
		ASSERT_EQ(0, jifl_fjwriter_close(w));
		for (d = 0; d < NR_DECODERS; d++) {
			snprintf(dopts, sizeof(dopts), "%s --decoder %s", opts, decoders[d]);
			self->got.n = 0;
			EXPECT_EQ(0, decode(self, dopts, &errors)) TH_LOG("%s", wc->name);
			EXPECT_EQ(0, errors);
			ASSERT_EQ(n, self->got.n) TH_LOG("%s: %s", wc->name, dopts);
			for (i = 0; i < n; i++)
				EXPECT_EQ(JIT_ENTRY + want[i], self->got.v[i].ip)
					TH_LOG("%s: %s", wc->name, dopts);
			EXPECT_EQ(0, cmd_run(self->out, sizeof(self->out), "%s -i %s --stats %s",
					     decoder(), self->data, dopts));
			snprintf(line, sizeof(line), "\njit instructions: %zu\n", n);
			EXPECT_NE(NULL, strstr(self->out, line)) TH_LOG("%s: %s", dopts, self->out);
		}
		/* The same versions ([jit vN]) and times with both decoders. */
		snprintf(dopts, sizeof(dopts), "%s --insn", opts);
		expect_same_output(_metadata, self, dopts);
		snprintf(dopts, sizeof(dopts), "%s --branches", opts);
		expect_same_output(_metadata, self, dopts);
		EXPECT_EQ(0, cmd_run(self->out, sizeof(self->out), "%s -i %s --insn %s",
				     decoder(), self->data, opts));
		/* The entry's version names the bytes it ran. */
		snprintf(line, sizeof(line), "%16llx [jit v%d]\t", JIT_ENTRY, 1 + wc->want_v2);
		EXPECT_NE(NULL, strstr(self->out, line)) TH_LOG("%s", self->out);
	}
}

/*
 * A version chosen ahead of time stays chosen for its page, however many
 * other pages get one (Documentation/decode.rst, "Which code version").
 * NR_CHAIN JIT pages, all a multiple of 64 pages apart, each rewritten
 * within one TSC interval (version 2, faulted at its start): the run
 * enters each page at its start (jmp to the next page's start), then
 * each page again at 0x20, where version 2 has a nop that version 1
 * lacks (nop; jmp to the next page's 0x20; the last: nop; ret). The ret
 * returns to JIT_ENTRY + 0x30: jmp rax out of the trace.
 */
#define NR_CHAIN	100
#define CHAIN_PAGE(i)	(JIT_ENTRY + (uint64_t)(i) * 64 * 0x1000)

/* jmp rel32 at @from to @to. */
static void put_jmp(unsigned char *code, uint64_t from, uint64_t to)
{
	int32_t rel = (int32_t)(to - (from + 5));

	code[0] = 0xe9;
	memcpy(code + 1, &rel, sizeof(rel));
}

/* Page @i of the chain, version 2 (@v2) or 1. */
static void chain_code(unsigned char *code, size_t i, int v2)
{
	uint64_t page = CHAIN_PAGE(i);
	unsigned char *at = code + 0x20;

	memset(code, 0xcc, 0x40);
	put_jmp(code, page, i + 1 < NR_CHAIN ? CHAIN_PAGE(i + 1) : JIT_ENTRY + 0x20);
	if (v2)
		*at++ = 0x90;
	if (i + 1 < NR_CHAIN)
		put_jmp(at, page + (at - code), CHAIN_PAGE(i + 1) + 0x20);
	else
		*at = 0xc3;
	code[0x30] = 0xff;	/* jmp rax */
	code[0x31] = 0xe0;
}

TEST_F(decode, jit_versions_chosen_on_many_pages)
{
	static const struct pt_packet pkts[] = {
		PKTS_PSB(T0),
		PKT_IP(ppt_tip_pge, JIT_ENTRY),
		{ .type = ppt_tsc, .payload.tsc.tsc = T1 },
		{ .type = ppt_tip, .payload.ip = { .ipc = pt_ipc_update_16,
						   .ip = (JIT_ENTRY + 0x30) & 0xffff } },
		PKT_PGD,
	};
	struct jifl_fj_info info = { .pid = 1 };
	char fj[160], opts[200], dopts[256];
	unsigned char code[0x40];
	struct jifl_fjwriter *w;
	size_t i, d, n;
	long errors;

	write_jit_run(_metadata, self, pkts, sizeof(pkts) / sizeof(pkts[0]));
	snprintf(fj, sizeof(fj), "%s/chain.fj", self->dir);
	snprintf(opts, sizeof(opts), "--flowjit %s", fj);
	ASSERT_EQ(0, jifl_fjwriter_open(&w, fj, &info));
	for (i = 0; i < NR_CHAIN; i++) {
		chain_code(code, i, 0);
		add_exec(_metadata, w, T0 - 100, CHAIN_PAGE(i), code, sizeof(code));
	}
	for (i = 0; i < NR_CHAIN; i++) {
		chain_code(code, i, 1);
		add_exec(_metadata, w, T0 + 1 + i, CHAIN_PAGE(i), code, sizeof(code));
	}
	ASSERT_EQ(0, jifl_fjwriter_close(w));

	for (d = 0; d < NR_DECODERS; d++) {
		snprintf(dopts, sizeof(dopts), "%s --decoder %s", opts, decoders[d]);
		self->got.n = 0;
		EXPECT_EQ(0, decode(self, dopts, &errors)) TH_LOG("%s", dopts);
		EXPECT_EQ(0, errors);
		ASSERT_EQ(3 * NR_CHAIN + 1, self->got.n) TH_LOG("%s", dopts);
		for (i = 0, n = 0; i < NR_CHAIN; i++)
			EXPECT_EQ(CHAIN_PAGE(i), self->got.v[n++].ip) TH_LOG("%s", dopts);
		for (i = 0; i < NR_CHAIN; i++) {
			ASSERT_EQ(CHAIN_PAGE(i) + 0x20, self->got.v[n++].ip)
				TH_LOG("%s: page %zu forgot its version 2", dopts, i);
			ASSERT_EQ(CHAIN_PAGE(i) + 0x21, self->got.v[n++].ip) TH_LOG("%s", dopts);
		}
		EXPECT_EQ(JIT_ENTRY + 0x30, self->got.v[n].ip) TH_LOG("%s", dopts);
	}
	snprintf(dopts, sizeof(dopts), "%s --insn", opts);
	expect_same_output(_metadata, self, dopts);
}

/*
 * A version that ended (WRITE, MUNMAP, ...) before the decoder's time is
 * not read. The run: JIT_ENTRY at T0 (version 1: jmp rax) jumps to
 * JIT_OTHER (always there: jmp rax), which jumps back at T1. Version 1
 * ends at T0 + 10. Version 2 (nop; jmp rax, out of the trace), where
 * there is one, is right when it started before the TSC after T1 (T2)
 * and faulted at JIT_ENTRY; without it no code is there at T1. (One that
 * started before T1 would be taken at T0 already: rule 2 of "Which code
 * version".)
 */
#define T2		(T1 + 1000)
#define JIT_OTHER	(JIT_ENTRY + 0x10000)

static const struct end_case {
	const char *name;
	uint16_t end_type;
	uint64_t v2_start, v2_ip;	/* v2_start 0: no version 2 */
	int want_v2;			/* else missing code at T1 */
} end_cases[] = {
	{ "unmapped", FLOWJIT_EV_MUNMAP, 0, 0, 0 },
	{ "written, not executed again", FLOWJIT_EV_WRITE, 0, 0, 0 },
	{ "written, rewritten after T1", FLOWJIT_EV_WRITE, T1 + 10, JIT_ENTRY, 1 },
	{ "written, rewritten after T1, faulted elsewhere", FLOWJIT_EV_WRITE, T1 + 10,
	  JIT_ENTRY + 1, 0 },
	{ "written, rewritten after T2", FLOWJIT_EV_WRITE, T2 + 10, JIT_ENTRY, 0 },
};

/* A record without payload: @type at @tsc for JIT_ENTRY's page. */
static void add_end(struct __test_metadata *_metadata, struct jifl_fjwriter *w,
		    uint16_t type, uint64_t tsc)
{
	struct flowjit_event ev;

	memset(&ev, 0, sizeof(ev));
	ev.type = type;
	ev.size = sizeof(ev);
	ev.tsc = tsc;
	ev.pid = ev.tid = 1;
	ev.addr = JIT_ENTRY;
	ev.len = 0x1000;
	ASSERT_EQ(0, jifl_fjwriter_add(w, &ev));
}

TEST_F(decode, jit_version_ended)
{
	static const struct pt_packet pkts[] = {
		PKTS_PSB(T0),
		PKT_IP(ppt_tip_pge, JIT_ENTRY),
		PKT_IP(ppt_tip, JIT_OTHER),
		{ .type = ppt_tsc, .payload.tsc.tsc = T1 },
		PKT_IP(ppt_tip, JIT_ENTRY),
		PKT_PGD,
		{ .type = ppt_tsc, .payload.tsc.tsc = T2 },
	};
	static const unsigned char v1[] = { 0xff, 0xe0 }, v2[] = { 0x90, 0xff, 0xe0 };
	struct jifl_fj_info info = { .pid = 1 };
	char fj[160], opts[200], dopts[256], want[128];
	struct jifl_fjwriter *w;
	size_t c, d;
	long errors;

	write_jit_run(_metadata, self, pkts, sizeof(pkts) / sizeof(pkts[0]));
	snprintf(fj, sizeof(fj), "%s/ended.fj", self->dir);
	snprintf(opts, sizeof(opts), "--flowjit %s", fj);
	snprintf(want, sizeof(want), " error: no memory mapped at this address at ip 0x%llx,",
		 JIT_ENTRY);
	for (c = 0; c < sizeof(end_cases) / sizeof(end_cases[0]); c++) {
		const struct end_case *ec = &end_cases[c];

		ASSERT_EQ(0, jifl_fjwriter_open(&w, fj, &info));
		add_exec(_metadata, w, T0 - 100, JIT_ENTRY, v1, sizeof(v1));
		add_exec(_metadata, w, T0 - 100, JIT_OTHER, v1, sizeof(v1));
		add_end(_metadata, w, ec->end_type, T0 + 10);
		if (ec->v2_start)
			add_exec(_metadata, w, ec->v2_start, ec->v2_ip, v2, sizeof(v2));
		ASSERT_EQ(0, jifl_fjwriter_close(w));
		for (d = 0; d < NR_DECODERS; d++) {
			snprintf(dopts, sizeof(dopts), "%s --decoder %s", opts, decoders[d]);
			self->got.n = 0;
			EXPECT_EQ(!ec->want_v2, decode(self, dopts, &errors))
				TH_LOG("%s: %s", ec->name, dopts);
			EXPECT_EQ(!ec->want_v2, errors) TH_LOG("%s: %s", ec->name, dopts);
			ASSERT_EQ(ec->want_v2 ? 4 : 2, self->got.n) TH_LOG("%s: %s", ec->name, dopts);
			EXPECT_EQ(JIT_ENTRY, self->got.v[0].ip);
			EXPECT_EQ(JIT_OTHER, self->got.v[1].ip);
			if (ec->want_v2) {
				EXPECT_EQ(JIT_ENTRY, self->got.v[2].ip);
				EXPECT_EQ(JIT_ENTRY + 1, self->got.v[3].ip);
			}
			cmd_run(self->out, sizeof(self->out), "%s -i %s --insn %s", decoder(),
				self->data, dopts);
			EXPECT_EQ(!ec->want_v2, !!strstr(self->out, want))
				TH_LOG("%s: %s:\n%s", ec->name, dopts, self->out);
		}
	}
}

/*
 * Every kind of gap in a synthetic raw trace through two blocks of code,
 * A (nop; nop; jmp rax) and B (nop; nop; syscall; jmp rax): where the
 * flow was lost, after how many instructions, where it resumed; listed
 * by --stats in order, one line each in the listing.
 */
#define CODE_A		0x10000ull
#define CODE_B		0x10010ull
#define NO_CODE		0x20000ull

TEST_F(decode, gaps_of_every_kind)
{
	static const struct pt_packet pkts[] = {
		{ .type = ppt_psb }, PKT_MODE_64, { .type = ppt_psbend },
		PKT_IP(ppt_tip_pge, CODE_A), PKT_IP(ppt_tip, CODE_B),
		/* The system call: disabled, enabled where it left off. */
		PKT_PGD, PKT_IP(ppt_tip_pge, CODE_B + 4),
		/* libipt takes the overflow right after the jmp. */
		PKT_IP(ppt_tip, CODE_A), { .type = ppt_ovf }, PKT_IP(ppt_fup, CODE_B),
		PKT_PGD, { .type = ppt_stop },
		{ .type = ppt_psb }, PKT_MODE_64, { .type = ppt_psbend },
		PKT_IP(ppt_tip_pge, CODE_A), PKT_IP(ppt_tip, CODE_B),
		/* A system call that returns elsewhere (a signal). */
		PKT_PGD, PKT_IP(ppt_tip_pge, CODE_A),
		PKT_IP(ppt_tip, NO_CODE),
		{ .type = ppt_tnt_8, .payload.tnt = { .bit_size = 1, .payload = 1 } },
		{ .type = ppt_psb }, PKT_MODE_64, PKT_IP(ppt_fup, CODE_B), { .type = ppt_psbend },
		PKT_PGD,
	};
	enum { LAST_PSB = 21 };		/* index in pkts */
	static const unsigned char code[] = {
		0x90, 0x90, 0xff, 0xe0, [0x10] = 0x90, 0x90, 0x0f, 0x05, 0xff, 0xe0,
	};
	static const uint16_t ips[] = {
		0, 1, 2, 0x10, 0x11, 0x12, 0x14,	/* overflow */
		0x10, 0x11, 0x12,			/* stopped */
		0, 1, 2, 0x10, 0x11, 0x12,		/* restarted elsewhere */
		0, 1, 2,				/* missing code */
		0x10, 0x11, 0x12,
	};
	struct {
		const char *line, *rest;
	} want[] = {
		{ "overflow at ip 0x10014 after 7 instructions, ", "; resumed at ip 0x10010, at 0." },
		{ "trace stopped at ip 0x10012 after 10 instructions, ",
		  "; resumed at ip 0x10000, at 0." },
		{ "restarted elsewhere at ip 0x10012 after 16 instructions, ",
		  "; resumed at ip 0x10000, at 0." },
		{ "missing code at ip 0x20000 after 19 instructions, ", NULL /* below */ },
	};
	const size_t nr_ips = sizeof(ips) / sizeof(ips[0]);
	char pt[160], bin[160], args[512], rest[128];
	uint64_t offs[sizeof(pkts) / sizeof(pkts[0])];
	const char *at, *prev;
	uint8_t trace[512];
	size_t size, i, d;
	long errors;
	FILE *f;

	ASSERT_EQ(ppt_psb, pkts[LAST_PSB].type);
	size = pt_encode(pkts, sizeof(pkts) / sizeof(pkts[0]), trace, sizeof(trace), offs);
	ASSERT_GT(size, 0);
	snprintf(pt, sizeof(pt), "%s/gaps.pt", self->dir);
	snprintf(bin, sizeof(bin), "%s/code.bin", self->dir);
	f = fopen(pt, "w");
	ASSERT_NE(NULL, f);
	ASSERT_EQ(size, fwrite(trace, 1, size, f));
	fclose(f);
	f = fopen(bin, "w");
	ASSERT_NE(NULL, f);
	ASSERT_EQ(sizeof(code), fwrite(code, 1, sizeof(code), f));
	fclose(f);
	snprintf(rest, sizeof(rest), "; resumed at ip 0x10010, trace offset 0x%" PRIx64
		 ", at 0.000000000; ", offs[LAST_PSB]);
	want[3].rest = rest;

	for (d = 0; d < NR_DECODERS; d++) {
		/* Overflow and missing code are errors: status 1. */
		EXPECT_EQ(1, cmd_run(self->out, sizeof(self->out), "%s --pt %s --raw %s:0x%llx --stats "
				     "--decoder %s", decoder(), pt, bin, CODE_A, decoders[d]));
		TH_LOG("%s:\n%s", decoders[d], self->out);
		EXPECT_NE(NULL, strstr(self->out, "\ninstructions: 22\n"));
		EXPECT_NE(NULL, strstr(self->out, "\ngaps: 4\n"));
		EXPECT_NE(NULL, strstr(self->out, "\ngap totals: 1 decode errors (1 missing code), "
				       "1 overflows, 1 trace stops, 1 restarts elsewhere, 0 trace data lost, "
				       "0 never-ending loops; "));
		for (i = 0, prev = self->out; i < sizeof(want) / sizeof(want[0]); i++) {
			at = strstr(self->out, want[i].line);
			ASSERT_NE(NULL, at) TH_LOG("%s", want[i].line);
			EXPECT_LT(prev, at) TH_LOG("out of order: %s", want[i].line);
			EXPECT_EQ(at + strcspn(at, ";"), strstr(at, want[i].rest))
				TH_LOG("%s...%s", want[i].line, want[i].rest);
			prev = at;
		}

		/* The listing: every instruction (blocks A, B, A, ...), a line per gap. */
		snprintf(args, sizeof(args), "--pt %s --raw %s:0x%llx --insn --decoder %s", pt, bin,
			 CODE_A, decoders[d]);
		self->got.n = 0;
		EXPECT_EQ(1, decode_args(self, args, &errors));
		EXPECT_EQ(2, errors);
		ASSERT_EQ(nr_ips, self->got.n);
		for (i = 0; i < nr_ips; i++)
			EXPECT_EQ(CODE_A + ips[i], self->got.v[i].ip) TH_LOG("instruction %zu", i);
		EXPECT_EQ(1, cmd_run(self->out, sizeof(self->out), "%s %s", decoder(), args));
		EXPECT_NE(NULL, strstr(self->out, " error: overflow at ip 0x10014, trace offset 0x"));
		EXPECT_NE(NULL, strstr(self->out,
				       " gap: trace stopped at ip 0x10012, trace offset 0x"));
		EXPECT_NE(NULL, strstr(self->out, " gap: restarted elsewhere at ip 0x10012, "));
		EXPECT_NE(NULL, strstr(self->out,
				       " error: no memory mapped at this address at ip 0x20000, "));
	}
}

/* Run "jifl-decode -i self->data @opts"; its stdout and stderr apart. */
static int decode_apart(FIXTURE_DATA(decode) *self, const char *opts, char *out,
			char *err, size_t len)
{
	char cmd[512];
	FILE *f;
	size_t n;
	int st;

	st = cmd_run(self->out, sizeof(self->out), "{ %s -i %s %s > %s/stdout 2> %s/stderr; }",
		     decoder(), self->data, opts, self->dir, self->dir);
	snprintf(cmd, sizeof(cmd), "%s/stdout", self->dir);
	f = fopen(cmd, "r");
	n = f ? fread(out, 1, len - 1, f) : 0;
	out[n] = '\0';
	if (f)
		fclose(f);
	snprintf(cmd, sizeof(cmd), "%s/stderr", self->dir);
	f = fopen(cmd, "r");
	n = f ? fread(err, 1, len - 1, f) : 0;
	err[n] = '\0';
	if (f)
		fclose(f);
	return st;
}

/*
 * The progress line: on stderr, forced or on a terminal (a pty from
 * script(1)) that the listing does not go to; never changes stdout.
 */
TEST_F(decode, progress)
{
	static char out[8192], err[1024], want[8192];
	static const char line[] = "\r\033[Kjifl-decode: 100% of ";

	ASSERT_EQ(0, record(self, PROGS "swt_flow-static 10")) TH_LOG("%s", self->out);
	ASSERT_EQ(0, decode_apart(self, "--stats", want, err, sizeof(want)));
	/* stderr is no terminal here: no progress. */
	EXPECT_EQ(0, err[0]) TH_LOG("%s", err);

	ASSERT_EQ(0, decode_apart(self, "--stats --progress", out, err, sizeof(out)));
	EXPECT_EQ(0, strcmp(want, out)) TH_LOG("%s", out);
	EXPECT_EQ(0, strncmp(err, line, strlen(line))) TH_LOG("%s", err);
	EXPECT_NE(NULL, strstr(err, " KiB of trace decoded\r\033[K"));
	ASSERT_EQ(0, decode_apart(self, "--insn --progress --no-progress", out, err,
				  sizeof(out)));
	EXPECT_EQ(0, err[0]) TH_LOG("%s", err);

	/* On a terminal, by default. */
	EXPECT_EQ(0, cmd_run(self->out, sizeof(self->out),
			     "script -qec '%s -i %s --stats' /dev/null < /dev/null",
			     decoder(), self->data));
	EXPECT_NE(NULL, strstr(self->out, line)) TH_LOG("%s", self->out);
	EXPECT_NE(NULL, strstr(self->out, "instructions: "));
	EXPECT_EQ(0, cmd_run(self->out, sizeof(self->out),
			     "script -qec '%s -i %s --insn > %s/listing' /dev/null < /dev/null",
			     decoder(), self->data, self->dir));
	EXPECT_NE(NULL, strstr(self->out, line)) TH_LOG("%s", self->out);
	EXPECT_EQ(0, cmd_run(self->out, sizeof(self->out),
			     "script -qec '%s -i %s --stats --no-progress' /dev/null < /dev/null",
			     decoder(), self->data));
	EXPECT_EQ(NULL, strstr(self->out, "% of")) TH_LOG("%s", self->out);
	/* Not when the listing goes to the terminal too. */
	EXPECT_EQ(0, cmd_run(self->out, sizeof(self->out),
			     "script -qec '%s -i %s --calls' /dev/null < /dev/null | tail -c 200",
			     decoder(), self->data));
	EXPECT_EQ(NULL, strstr(self->out, "% of")) TH_LOG("%s", self->out);
}

TEST_F(decode, usage)
{
	EXPECT_EQ(2, cmd_run(self->out, sizeof(self->out), "%s", decoder()));
	EXPECT_NE(NULL, strstr(self->out, "give either -i perf.data or --pt FILE"));
	EXPECT_EQ(1, cmd_run(self->out, sizeof(self->out), "%s -i /nonexistent",
			     decoder()));
	EXPECT_NE(NULL, strstr(self->out, "cannot read '/nonexistent': No such file"));
	EXPECT_EQ(2, cmd_run(self->out, sizeof(self->out), "%s -i /nonexistent --decoder blk",
			     decoder()));
	EXPECT_NE(NULL, strstr(self->out, "--decoder: expected insn or block, got 'blk'"));
}

/* A FlowJIT record of process 7 for the JIT image tests. */
struct image_event {
	uint16_t type;
	uint64_t tsc, addr, len, aux;
	uint8_t fill;		/* EXEC: the page's bytes */
	uint16_t flags;		/* FLOWJIT_EVF_NOPAGE: an EXEC without them */
};

/* The JIT image of @n @events. */
static struct jifl_jit_image *image_of(struct __test_metadata *_metadata,
				       const struct image_event *events, size_t n)
{
	static unsigned char page[FLOWJIT_PAGE_SIZE];
	struct jifl_jit_image *img;
	struct flowjit_event ev;
	size_t i;

	ASSERT_EQ(0, jifl_jit_image_new(&img));
	for (i = 0; i < n; i++) {
		memset(&ev, 0, sizeof(ev));
		ev.type = events[i].type;
		ev.pid = 7;
		ev.tsc = events[i].tsc;
		ev.addr = events[i].addr;
		ev.len = events[i].len;
		ev.aux = events[i].aux;
		ev.flags = events[i].flags;
		memset(page, events[i].fill, sizeof(page));
		ASSERT_EQ(0, jifl_jit_image_add_event(img, &ev,
						      ev.type == FLOWJIT_EV_EXEC &&
						      !(ev.flags & FLOWJIT_EVF_NOPAGE) ? page : NULL));
	}
	return img;
}

/* Where a JIT image test looks, and what it finds there. */
struct image_lookup {
	uint64_t addr, tsc;
	int number;		/* the version; 0: nothing live */
	uint8_t byte;		/* its first byte */
};

/* find() and read() in process 7 give each of @n @lookups. */
static void check_lookups(struct __test_metadata *_metadata, const struct jifl_jit_image *img,
			  const struct image_lookup *lookups, size_t n)
{
	const struct jifl_jit_version *v, *read_v;
	uint8_t buf[16];
	size_t i;
	int got;

	for (i = 0; i < n; i++) {
		v = jifl_jit_image_find(img, 7, lookups[i].addr, lookups[i].tsc);
		got = jifl_jit_image_read(img, 7, lookups[i].addr, lookups[i].tsc, buf,
					  sizeof(buf), &read_v);
		if (!lookups[i].number) {
			EXPECT_EQ(NULL, v) TH_LOG("lookup %zu: version %u, ended at %" PRIu64,
						  i, v->number, v->end);
			EXPECT_EQ(-jifl_err_nomap, got) TH_LOG("lookup %zu", i);
			continue;
		}
		ASSERT_NE(NULL, v) TH_LOG("lookup %zu", i);
		EXPECT_EQ(lookups[i].number, v->number) TH_LOG("lookup %zu", i);
		ASSERT_GT(got, 0) TH_LOG("lookup %zu", i);
		EXPECT_EQ(v, read_v) TH_LOG("lookup %zu", i);
		EXPECT_EQ(lookups[i].byte, buf[0]) TH_LOG("lookup %zu", i);
	}
}

/* Versioned JIT image: which bytes are live at which TSC. */
TEST(jit_image_versions)
{
	static const struct image_event events[] = {
		{ FLOWJIT_EV_EXEC, 100, 0x10000, 0, 0, 0x11 },
		{ FLOWJIT_EV_WRITE, 200, 0x10000, 0, 0, 0 },
		{ FLOWJIT_EV_EXEC, 201, 0x10000, 0, 0, 0x22 },
		{ FLOWJIT_EV_EXEC, 150, 0x11000, 0, 0, 0x33 },
		{ FLOWJIT_EV_MPROTECT, 300, 0x10000, 0x2000, PROT_READ, 0 },
		{ FLOWJIT_EV_EXEC, 400, 0x11000, 0, 0, 0x44 },
		{ FLOWJIT_EV_MREMAP, 500, 0x20000, 0x1000, 0x11000, 0 },
	};
	static const struct image_lookup lookups[] = {
		{ 0x10010, 99, 0, 0 },
		{ 0x10010, 100, 1, 0x11 },
		{ 0x10fff, 200, 1, 0x11 },
		{ 0x10000, 201, 2, 0x22 },
		{ 0x11000, 300, 1, 0x33 },
		{ 0x11000, 399, 0, 0 },		/* mprotect without exec */
		{ 0x11000, 400, 2, 0x44 },
		{ 0x20000, 499, 0, 0 },
		{ 0x20abc, 500, 1, 0x44 },
		{ 0x30000, 500, 0, 0 },
	};
	const struct jifl_jit_version *v;
	struct jifl_jit_image_stats st;
	struct jifl_jit_image *img;
	uint8_t buf[16];

	img = image_of(_metadata, events, sizeof(events) / sizeof(events[0]));
	check_lookups(_metadata, img, lookups, sizeof(lookups) / sizeof(lookups[0]));
	/* Another process sees none of it. */
	EXPECT_EQ(NULL, jifl_jit_image_find(img, 8, 0x10000, 1000));
	/* A read across the end of a page continues into the next page. */
	ASSERT_EQ(16, jifl_jit_image_read(img, 7, 0x10ff8, 250, buf, 16, &v));
	EXPECT_EQ(0x22, buf[7]);
	EXPECT_EQ(0x33, buf[8]);
	/* The mprotect without exec ended the version of 0x10000 at 300. */
	v = jifl_jit_image_find(img, 7, 0x10000, 300);
	ASSERT_NE(NULL, v);
	EXPECT_EQ(300, v->end);
	jifl_jit_image_stats(img, &st);
	EXPECT_EQ(3, st.pages);
	EXPECT_EQ(5, st.versions);
	jifl_jit_image_free(img);
}

/*
 * The listing's disassembly cache gives the text of the bytes at hand:
 * JIT code puts other instructions at the same address.
 */
TEST(disasm_cache_follows_the_bytes)
{
	struct pt_insn a = { .ip = 0x1000, .size = 1, .raw = { 0x90 } };
	struct pt_insn b = { .ip = 0x1000, .size = 1, .raw = { 0xc3 } };
	struct pt_insn c = { .ip = 0x1000, .size = 2, .raw = { 0xeb, 0xfe } };
	struct pt_insn bad = { .ip = 0x2000, .size = 1, .raw = { 0x0f } };
	struct jifl_disasm *d;
	size_t len;

	ASSERT_EQ(0, jifl_disasm_new(&d));
	EXPECT_STREQ("nop", jifl_disasm(d, &a, NULL, &len));
	EXPECT_EQ(3, len);
	EXPECT_STREQ("ret", jifl_disasm(d, &b, NULL, &len));
	EXPECT_STREQ("jmp 0x0000000000001000", jifl_disasm(d, &c, NULL, &len));
	EXPECT_STREQ("nop", jifl_disasm(d, &a, NULL, &len));
	EXPECT_STREQ("(bad)", jifl_disasm(d, &bad, NULL, &len));
	jifl_disasm_free(d);
}

/*
 * A branch target is followed by its function, as objdump prints it:
 * "<name>" at its start, "<name+0x3>" inside; no name where no symbol
 * is, or without symbols. The same bytes at the same address are
 * formatted again for another symbol table.
 */
TEST(disasm_names_branch_targets)
{
	struct pt_insn call = { .size = 5, .raw = { 0xe8, 0xfb, 0x00, 0x00, 0x00 } };
	struct pt_insn jz = { .size = 2, .raw = { 0x74, 0x01 } };
	struct pt_insn jmp = { .ip = 0x1000, .size = 2, .raw = { 0xeb, 0xfe } };
	uint64_t vaddr, offset, size, target, off;
	struct jifl_symtab *syms;
	struct jifl_disasm *d;
	const char *name = NULL;
	char want[256];
	size_t len;

	flat_code(_metadata, PROGS "swt_flow-static", "/dev/null", &vaddr, &offset, &size);
	ASSERT_EQ(0, jifl_symtab_new(&syms));
	ASSERT_LT(0, jifl_symtab_add_elf(syms, PROGS "swt_flow-static", vaddr, size, offset));
	/* A function's first byte, a page or more into the code. */
	for (target = vaddr + 0x1000; target < vaddr + size; target++) {
		name = jifl_symtab_lookup(syms, target, &off);
		if (name && !off)
			break;
	}
	ASSERT_NE(NULL, name);
	ASSERT_EQ(0, jifl_disasm_new(&d));
	call.ip = target - 0x100;
	snprintf(want, sizeof(want), "call 0x%016" PRIX64 " <%s>", target, name);
	EXPECT_STREQ(want, jifl_disasm(d, &call, syms, &len));
	EXPECT_EQ(strlen(want), len);
	jz.ip = target;
	snprintf(want, sizeof(want), "jz 0x%016" PRIX64 " <%s+0x3>", target + 3, name);
	EXPECT_STREQ(want, jifl_disasm(d, &jz, syms, &len));
	EXPECT_STREQ("jmp 0x0000000000001000", jifl_disasm(d, &jmp, syms, &len));
	snprintf(want, sizeof(want), "call 0x%016" PRIX64, target);
	EXPECT_STREQ(want, jifl_disasm(d, &call, NULL, &len));
	jifl_disasm_free(d);
	jifl_symtab_free(syms);
}

/*
 * mremap() of a JIT's reserved region: one that spans terabytes, and
 * moves its pages by one page up (the ranges overlap). Every page moves
 * once, with the bytes it had; code on page 0 (vm.mmap_min_addr=0) is
 * code like any other.
 */
TEST(jit_image_moves)
{
	static const struct image_event events[] = {
		{ FLOWJIT_EV_EXEC, 100, 0x0, 0, 0, 0x66 },
		{ FLOWJIT_EV_EXEC, 100, 0x10000, 0, 0, 0x11 },
		{ FLOWJIT_EV_EXEC, 100, 0x11000, 0, 0, 0x22 },
		{ FLOWJIT_EV_MREMAP, 200, 0x11000, 1ull << 46, 0x10000, 0 },
	};
	static const struct image_lookup lookups[] = {
		{ 0x10, 150, 1, 0x66 },
		{ 0x10, 250, 1, 0x66 },
		{ 0x10000, 199, 1, 0x11 },
		{ 0x10000, 201, 0, 0 },		/* moved away */
		{ 0x11000, 199, 1, 0x22 },
		{ 0x11000, 201, 2, 0x11 },
		{ 0x12000, 201, 1, 0x22 },
		{ 0x13000, 201, 0, 0 },
	};
	struct jifl_jit_image *img;

	img = image_of(_metadata, events, sizeof(events) / sizeof(events[0]));
	check_lookups(_metadata, img, lookups, sizeof(lookups) / sizeof(lookups[0]));
	jifl_jit_image_free(img);
}

/*
 * A tracked child (FLOWJIT_F_INHERIT) runs the code its parent had at
 * the fork, which faults in neither: the FORK record gives the child the
 * parent's live versions, and later writes of either process end only
 * its own.
 */
TEST(jit_image_fork_copies_the_parents_code)
{
	static unsigned char page[FLOWJIT_PAGE_SIZE];
	static const struct {
		uint16_t type;
		uint32_t pid;
		uint64_t tsc, addr, aux;
		uint8_t fill;
	} events[] = {
		{ FLOWJIT_EV_EXEC, 7, 100, 0x10000, 0, 0x11 },
		{ FLOWJIT_EV_EXEC, 7, 110, 0x11000, 0, 0x22 },
		{ FLOWJIT_EV_WRITE, 7, 120, 0x11000, 0, 0 },	/* not code at the fork */
		{ FLOWJIT_EV_FORK, 9, 200, 0, 7, 0 },
		{ FLOWJIT_EV_WRITE, 7, 300, 0x10000, 0, 0 },
		{ FLOWJIT_EV_EXEC, 7, 301, 0x10000, 0, 0x33 },
	};
	const struct jifl_jit_version *v;
	struct jifl_jit_image *img;
	struct flowjit_event ev;
	size_t i;

	ASSERT_EQ(0, jifl_jit_image_new(&img));
	for (i = 0; i < sizeof(events) / sizeof(events[0]); i++) {
		memset(&ev, 0, sizeof(ev));
		ev.type = events[i].type;
		ev.pid = events[i].pid;
		ev.tsc = events[i].tsc;
		ev.addr = events[i].addr;
		ev.aux = events[i].aux;
		memset(page, events[i].fill, sizeof(page));
		ASSERT_EQ(0, jifl_jit_image_add_event(img, &ev,
						      ev.type == FLOWJIT_EV_EXEC ? page : NULL));
	}
	EXPECT_EQ(NULL, jifl_jit_image_find(img, 9, 0x10000, 199));
	v = jifl_jit_image_find(img, 9, 0x10000, 200);
	ASSERT_NE(NULL, v);
	EXPECT_EQ(0x11, v->bytes[0]);
	/* the parent's rewrite is not the child's */
	v = jifl_jit_image_find(img, 9, 0x10000, 400);
	ASSERT_NE(NULL, v);
	EXPECT_EQ(0x11, v->bytes[0]);
	v = jifl_jit_image_find(img, 7, 0x10000, 400);
	ASSERT_NE(NULL, v);
	EXPECT_EQ(0x33, v->bytes[0]);
	EXPECT_EQ(NULL, jifl_jit_image_find(img, 9, 0x11000, 250));
	jifl_jit_image_free(img);
}

/*
 * A version is live from its EXEC record to the record that ended it
 * (WRITE, MUNMAP, EXECVE, ...), both included; after that, no code is
 * there until the page's next version starts. An EXEC without a
 * snapshot (FLOWJIT_EVF_NOPAGE: no struct page, a DAX file's) ends the
 * version before it: what runs from then on is not known.
 */
TEST(jit_image_ended_versions)
{
	static const struct image_event events[] = {
		{ FLOWJIT_EV_EXEC, 100, 0xf000, 0, 0, 0x55 },
		{ FLOWJIT_EV_EXEC, 100, 0x10000, 0, 0, 0x11 },
		{ FLOWJIT_EV_WRITE, 200, 0x10010, 0, 0, 0 },
		{ FLOWJIT_EV_EXEC, 150, 0x11000, 0, 0, 0x22 },
		{ FLOWJIT_EV_EXEC, 120, 0x12000, 0, 0, 0x33 },
		{ FLOWJIT_EV_MUNMAP, 300, 0x11000, 0x1000, 0, 0 },
		{ FLOWJIT_EV_EXECVE, 400, 0, 0, 0, 0 },
		{ FLOWJIT_EV_EXEC, 500, 0x12000, 0, 0, 0x44 },
		{ FLOWJIT_EV_EXEC, 100, 0x13000, 0, 0, 0x66 },
		{ FLOWJIT_EV_EXEC, 200, 0x13000, 0, 0, 0, FLOWJIT_EVF_NOPAGE },
		{ FLOWJIT_EV_EXEC, 200, 0x14000, 0, 0, 0, FLOWJIT_EVF_NOPAGE },
	};
	static const struct image_lookup lookups[] = {
		{ 0x10000, 200, 1, 0x11 },
		{ 0x10000, 201, 0, 0 },		/* written */
		{ 0x11abc, 300, 1, 0x22 },
		{ 0x11abc, 301, 0, 0 },		/* unmapped */
		{ 0x12000, 400, 1, 0x33 },
		{ 0x12000, 401, 0, 0 },		/* another program */
		{ 0x12000, 499, 0, 0 },
		{ 0x12000, 500, 2, 0x44 },
		{ 0x13000, 199, 1, 0x66 },
		{ 0x13000, 200, 0, 0 },		/* unknown bytes run */
		{ 0x14000, 300, 0, 0 },
	};
	const struct jifl_jit_version *v;
	struct jifl_jit_image *img;
	uint8_t buf[16];

	img = image_of(_metadata, events, sizeof(events) / sizeof(events[0]));
	check_lookups(_metadata, img, lookups, sizeof(lookups) / sizeof(lookups[0]));
	/* A read across a page end stops where the next page's version ended. */
	ASSERT_EQ(16, jifl_jit_image_read(img, 7, 0xfff8, 200, buf, 16, &v));
	EXPECT_EQ(0x55, buf[7]);
	EXPECT_EQ(0x11, buf[8]);
	EXPECT_EQ(8, jifl_jit_image_read(img, 7, 0xfff8, 201, buf, 16, &v));
	jifl_jit_image_free(img);
}

TEST_HARNESS_MAIN
