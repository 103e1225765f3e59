// SPDX-License-Identifier: GPL-2.0
/*
 * libipt's two decoders list the same instructions, also where Zydis
 * (Debian's 4.0) refuses bytes that libipt 2.0.5 decodes: newer
 * instructions (FRED's ERETU and ERETS, APX's JMPABS and REX2 and EVEX
 * forms, the MSR-list ones, ...) and ones invalid in 64-bit mode that
 * libipt's length decoder does not check. jifl-decode's block decoder
 * walks a block's instructions with Zydis; where Zydis refuses one, it
 * takes libipt's size and class of it, as the instruction flow decoder
 * has them (Documentation/decode.rst, "Decoders").
 *
 * Each case is code and the trace of one run through it, rebuilt with
 * libipt's encoder: PSB+ at the start, a TNT for each conditional
 * branch, an asynchronous disable at the end. The test checks its own
 * claims first: Zydis refuses the bytes the case says it does, and
 * libipt's instruction flow decoder, run here on the same trace and
 * code, lists exactly the case's instructions. Then jifl-decode must
 * list the same with either decoder, without errors, each refused one
 * as "(bad)", the two listings byte for byte the same: in raw mode
 * (the code in one section, or split in two where a case says so) and
 * as JIT code from a FlowJIT file.
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <intel-pt.h>
#include <Zydis/Zydis.h>

#include "kselftest_harness.h"
#include "cmd.h"
#include "flowjit/fjwriter.h"
#include "perf/perf_writer.h"
#include "pt_encode.h"
#include "tools.h"
#include "tmpdir.h"

#define ORG		0x100000ull
#define JIT_PAGE	0x7f0000001000ull
#define T0		1000000000ull
#define MAX_INSNS	32
#define OUT_MAX		8192

#define NOP		0x90
#define HLT		0xf4
#define ERETU		0xf3, 0x0f, 0x01, 0xca
#define ERETS		0xf2, 0x0f, 0x01, 0xca

#define N(a)		(sizeof(a) / sizeof((a)[0]))
#define LIST(...)	{ __VA_ARGS__ }, N(((const uint8_t[]){ __VA_ARGS__ }))

struct parity_case {
	const char *name;
	uint8_t code[64];
	size_t code_size;
	/* The instructions the trace runs, by offset: the last one is where it stops. */
	uint8_t insns[MAX_INSNS];
	size_t nr_insns;
	/* Those Zydis refuses. */
	uint8_t refused[MAX_INSNS];
	size_t nr_refused;
	uint8_t taken;		/* conditional branches on the way, each taken */
	size_t split;		/* raw mode: a second section from here (0: one) */
	int no_jit;		/* not run as JIT code */
};

/*
 * The expected instruction boundaries are libipt 2.0.5's (checked by
 * libipt_agrees): e.g. it knows no REX2 prefix and reads JMPABS as
 * "d5 00" (AAD, invalid in 64-bit mode) and "a1 imm64" (mov eax, moffs).
 */
static const struct parity_case cases[] = {
	{
		.name = "fred",
		/* nop; eretu; nop; erets; nop; hlt */
		.code = LIST(NOP, ERETU, NOP, ERETS, NOP, HLT),
		.insns = LIST(0, 1, 5, 6, 10, 11),
		.refused = LIST(1, 6),
	}, {
		.name = "apx",
		/* nop; jmpabs 0x0807060504030201; nop; add r16d, eax; evex add; nop; hlt */
		.code = LIST(NOP, 0xd5, 0x00, 0xa1, 1, 2, 3, 4, 5, 6, 7, 8, NOP,
			     0xd5, 0x10, 0x01, 0xc0, 0x62, 0xf4, 0x7c, 0x18, 0x01, 0xc0, NOP,
			     HLT),
		.insns = LIST(0, 1, 3, 12, 13, 15, 17, 23, 24),
		.refused = LIST(1, 13, 17),
	}, {
		.name = "msr-list-rao-cmpccxadd",
		/*
		 * wrmsrns; rdmsrlist; wrmsrlist; lkgs ax; pbndkb;
		 * aadd [rdi], eax; cmpbexadd [rdi], eax, eax; hlt
		 */
		.code = LIST(0x0f, 0x01, 0xc6, 0xf2, 0x0f, 0x01, 0xc6, 0xf3, 0x0f, 0x01, 0xc6,
			     0xf2, 0x0f, 0x00, 0xf0, 0x0f, 0x01, 0xc7, 0x0f, 0x38, 0xfc, 0x07,
			     0xc4, 0xe2, 0x79, 0xe6, 0x07, HLT),
		.insns = LIST(0, 3, 7, 11, 15, 18, 22, 27),
		.refused = LIST(0, 3, 7, 11, 15, 18, 22),
	}, {
		.name = "invalid-in-64-bit",
		/* push es; salc; das; aam 10; hlt */
		.code = LIST(0x06, 0xd6, 0x2f, 0xd4, 0x0a, HLT),
		.insns = LIST(0, 1, 2, 3, 5),
		.refused = LIST(0, 1, 2, 3),
	}, {
		/* Refused ones before a direct jump and a conditional one. */
		.name = "branches",
		/* eretu; jmp l1; hlt; l1: erets; je l2; hlt; l2: nop; hlt */
		.code = LIST(ERETU, 0xeb, 0x01, HLT, ERETS, 0x74, 0x01, HLT, NOP, HLT),
		.insns = LIST(0, 4, 7, 11, 14, 15),
		.refused = LIST(0, 7),
		.taken = 1,
	}, {
		/* The last instruction of a block: its section ends after it. */
		.name = "section-end",
		.code = LIST(NOP, ERETU, NOP, HLT),
		.insns = LIST(0, 1, 5, 6),
		.refused = LIST(1),
		.split = 5, .no_jit = 1,
	}, {
		/* libipt gives a block's last instruction whole when it spans two sections. */
		.name = "across-sections",
		.code = LIST(NOP, ERETU, NOP, HLT),
		.insns = LIST(0, 1, 5, 6),
		.refused = LIST(1),
		.split = 3, .no_jit = 1,
	},
};

#define PKT_IP(t, c, a)	{ .type = (t), .payload.ip = { .ipc = (c), .ip = (a) } }

/*
 * The trace of @c's code run at @org: from its first instruction to its
 * last, each conditional branch taken, there disabled. Returns its size.
 */
static size_t encode(const struct parity_case *c, uint64_t org, uint8_t *buf, size_t size)
{
	const struct pt_packet pkts[] = {
		{ .type = ppt_psb },
		{ .type = ppt_tsc, .payload.tsc.tsc = T0 },
		{ .type = ppt_mode, .payload.mode = { .leaf = pt_mol_exec,
						      .bits.exec = { .csl = 1 } } },
		PKT_IP(ppt_fup, pt_ipc_sext_48, org),
		{ .type = ppt_psbend },
		{ .type = ppt_tnt_8, .payload.tnt = { .bit_size = c->taken,
						      .payload = (1u << c->taken) - 1 } },
		PKT_IP(ppt_fup, pt_ipc_sext_48, org + c->insns[c->nr_insns - 1]),
		PKT_IP(ppt_tip_pgd, pt_ipc_suppressed, 0),
	};
	struct pt_packet used[N(pkts)];
	size_t i, n = 0;

	for (i = 0; i < N(pkts); i++)
		if (pkts[i].type != ppt_tnt_8 || c->taken)
			used[n++] = pkts[i];
	return pt_encode(used, n, buf, size, NULL);
}

static int write_file(const char *path, const void *data, size_t size)
{
	FILE *f = fopen(path, "we");
	int err;

	if (!f)
		return -1;
	err = fwrite(data, 1, size, f) != size;
	return fclose(f) || err ? -1 : 0;
}

/* Whether Zydis decodes the bytes at @off of @c's code. */
static int zydis_decodes(const struct parity_case *c, size_t off)
{
	ZydisDecodedInstruction z;
	ZydisDecoder zd;

	ZydisDecoderInit(&zd, ZYDIS_MACHINE_MODE_LONG_64, ZYDIS_STACK_WIDTH_64);
	return ZYAN_SUCCESS(ZydisDecoderDecodeInstruction(&zd, NULL, c->code + off,
							  c->code_size - off, &z));
}

static int is_refused(const struct parity_case *c, size_t off)
{
	size_t i;

	for (i = 0; i < c->nr_refused; i++)
		if (c->refused[i] == off)
			return 1;
	return 0;
}

FIXTURE(parity) {
	char dir[64];
	char pt[128], bin[128], data[128], fj[128];
	char out[NR_DECODERS][OUT_MAX];
};

FIXTURE_SETUP(parity)
{
	ASSERT_EQ(0, tmpdir_make(self->dir, sizeof(self->dir), "decode-parity"));
	snprintf(self->pt, sizeof(self->pt), "%s/trace.pt", self->dir);
	snprintf(self->bin, sizeof(self->bin), "%s/code.bin", self->dir);
	snprintf(self->data, sizeof(self->data), "%s/perf.data", self->dir);
	snprintf(self->fj, sizeof(self->fj), "%s/jit.fj", self->dir);
}

FIXTURE_TEARDOWN(parity)
{
	tmpdir_remove(self->dir);
}

/* Which instructions libipt's instruction flow decoder lists for @c, in *@n. */
static int libipt_insns(const struct parity_case *c, const uint8_t *trace, size_t size,
			const char *bin, uint64_t *ips, size_t *n)
{
	struct pt_insn_decoder *dec;
	struct pt_image *image;
	struct pt_config cfg;
	struct pt_event ev;
	struct pt_insn insn;
	int status;

	pt_config_init(&cfg);
	cfg.begin = (uint8_t *)trace;
	cfg.end = (uint8_t *)trace + size;
	image = pt_image_alloc(NULL);
	dec = pt_insn_alloc_decoder(&cfg);
	status = !image || !dec ? -pte_nomem :
		 pt_image_add_file(image, bin, 0, c->code_size, NULL, ORG);
	if (status >= 0)
		status = pt_insn_set_image(dec, image);
	if (status >= 0)
		status = pt_insn_sync_forward(dec);
	for (*n = 0; status >= 0 && *n < MAX_INSNS; ) {
		while (status >= 0 && (status & pts_event_pending))
			status = pt_insn_event(dec, &ev, sizeof(ev));
		if (status < 0 || (status & pts_eos))
			break;
		status = pt_insn_next(dec, &insn, sizeof(insn));
		if (insn.iclass != ptic_error)
			ips[(*n)++] = insn.ip;
	}
	pt_insn_free_decoder(dec);
	pt_image_free(image);
	/* The end of the trace is where it ends; any other error is one. */
	return status < 0 && status != -pte_eos ? status : 0;
}

/* The case's code and trace at ORG into self->bin and self->pt; its claims checked. */
static void write_raw(struct __test_metadata *_metadata, FIXTURE_DATA(parity) *self,
		      const struct parity_case *c)
{
	uint64_t ips[MAX_INSNS];
	uint8_t trace[256];
	size_t size = encode(c, ORG, trace, sizeof(trace)), i, n;

	ASSERT_NE(0, size) TH_LOG("%s: the encoder refused a packet", c->name);
	ASSERT_EQ(0, write_file(self->pt, trace, size));
	ASSERT_EQ(0, write_file(self->bin, c->code, c->code_size));
	for (i = 0; i < c->nr_insns; i++)
		EXPECT_EQ(!is_refused(c, c->insns[i]), zydis_decodes(c, c->insns[i]))
			TH_LOG("%s: Zydis at +%u", c->name, c->insns[i]);
	ASSERT_EQ(0, libipt_insns(c, trace, size, self->bin, ips, &n)) TH_LOG("%s", c->name);
	/* libipt lists all but the last, where the trace disabled tracing. */
	ASSERT_EQ(c->nr_insns - 1, n) TH_LOG("%s", c->name);
	for (i = 0; i < n; i++)
		EXPECT_EQ(ORG + c->insns[i], ips[i]) TH_LOG("%s: libipt's insn %zu", c->name, i);
}

/* The case's code as a JIT page from T0 - 100 and its trace there, in self->data and self->fj. */
static void write_jit(struct __test_metadata *_metadata, FIXTURE_DATA(parity) *self,
		      const struct parity_case *c)
{
	struct jifl_perf_writer_config cfg = {
		.pt_pmu_type = 8,
		.pt_config = JIFL_INTEL_PT_CFG_PT | JIFL_INTEL_PT_CFG_TSC |
			     JIFL_INTEL_PT_CFG_BRANCH,
		.tc = { .time_shift = 0, .time_mult = 1 },
	};
	struct jifl_fj_info info = { .pid = 1 };
	static struct {
		struct flowjit_event ev;
		uint8_t page[FLOWJIT_PAGE_SIZE];
	} r;
	struct jifl_perf_writer *pw;
	struct jifl_fjwriter *w;
	uint8_t trace[256];
	size_t size = encode(c, JIT_PAGE, trace, sizeof(trace));

	ASSERT_NE(0, size);
	ASSERT_EQ(0, jifl_perf_writer_open(&pw, self->data, &cfg));
	ASSERT_EQ(0, jifl_perf_writer_comm(pw, 1, 1, "jit", 1, T0 - 100));
	ASSERT_EQ(0, jifl_perf_writer_itrace_start(pw, 1, 1, T0 - 100));
	ASSERT_EQ(0, jifl_perf_writer_auxtrace(pw, 0, 1, trace, size));
	ASSERT_EQ(0, jifl_perf_writer_exit(pw, 1, 0, 1, 0, T0 + 100));
	ASSERT_EQ(0, jifl_perf_writer_close(pw));

	memset(&r, 0, sizeof(r));
	r.ev.type = FLOWJIT_EV_EXEC;
	r.ev.flags = FLOWJIT_EVF_PAYLOAD;
	r.ev.size = sizeof(r);
	r.ev.tsc = T0 - 100;
	r.ev.pid = r.ev.tid = 1;
	r.ev.ip = r.ev.addr = JIT_PAGE;
	memcpy(r.page, c->code, c->code_size);
	ASSERT_EQ(0, jifl_fjwriter_open(&w, self->fj, &info));
	ASSERT_EQ(0, jifl_fjwriter_add(w, &r.ev));
	ASSERT_EQ(0, jifl_fjwriter_close(w));
}

/*
 * Each decoder's "--insn -F ip,insn" listing of @input (the rest of the
 * command line) in self->out: the case's instructions at @org, the
 * refused ones "(bad)", no error, the same from both.
 */
static void expect_parity(struct __test_metadata *_metadata, FIXTURE_DATA(parity) *self,
			  const struct parity_case *c, uint64_t org, const char *input)
{
	char line[128], stats[64];
	const char *at;
	size_t d, i;

	for (d = 0; d < NR_DECODERS; d++) {
		EXPECT_EQ(0, cmd_run(self->out[d], sizeof(self->out[d]),
				     "%s %s --insn -F ip,insn --decoder %s", decoder(), input,
				     decoders[d]))
			TH_LOG("%s, %s decoder: %s", c->name, decoders[d], self->out[d]);
		at = self->out[d];
		for (i = 0; i + 1 < c->nr_insns; i++) {
			snprintf(line, sizeof(line), "%16" PRIx64 "\t", org + c->insns[i]);
			EXPECT_EQ(0, strncmp(at, line, strlen(line)))
				TH_LOG("%s, %s decoder: want %s at %zu of:\n%s", c->name,
				       decoders[d], line, i, self->out[d]);
			at += strlen(line);
			if (is_refused(c, c->insns[i]))
				EXPECT_EQ(0, strncmp(at, "(bad)\n", 6))
					TH_LOG("%s, %s decoder: %s", c->name, decoders[d], at);
			at = strchr(at, '\n');
			if (!at)
				break;
			at++;
		}
		EXPECT_NE(NULL, at) TH_LOG("%s, %s decoder: stops early", c->name, decoders[d]);
		if (at)
			EXPECT_STREQ("", at) TH_LOG("%s, %s decoder: more than the case's",
						    c->name, decoders[d]);
		/* Counted, not listed: the block decoder walks no block. */
		EXPECT_EQ(0, cmd_run(self->out[d], sizeof(self->out[d]), "%s %s --stats "
				     "--decoder %s", decoder(), input, decoders[d]));
		snprintf(stats, sizeof(stats), "instructions: %zu\njit ", c->nr_insns - 1);
		EXPECT_NE(NULL, strstr(self->out[d], stats))
			TH_LOG("%s, %s decoder: %s", c->name, decoders[d], self->out[d]);
		EXPECT_NE(NULL, strstr(self->out[d], "\nerrors: 0\n"))
			TH_LOG("%s, %s decoder: %s", c->name, decoders[d], self->out[d]);
		cmd_run(self->out[d], sizeof(self->out[d]), "%s %s --insn --decoder %s",
			decoder(), input, decoders[d]);
	}
	/* The default columns too: the decoders print the same. */
	EXPECT_STREQ(self->out[0], self->out[1]) TH_LOG("%s", c->name);
}

TEST_F(parity, raw_mode)
{
	char input[512];
	const struct parity_case *c;
	size_t i;

	for (i = 0; i < N(cases); i++) {
		c = &cases[i];
		write_raw(_metadata, self, c);
		if (c->split)
			snprintf(input, sizeof(input), "--pt %s --raw %s:0-%#zx:%#llx "
				 "--raw %s:%#zx:%#llx", self->pt, self->bin, c->split, ORG,
				 self->bin, c->split, ORG + c->split);
		else
			snprintf(input, sizeof(input), "--pt %s --raw %s:%#llx", self->pt,
				 self->bin, ORG);
		expect_parity(_metadata, self, c, ORG, input);
	}
}

TEST_F(parity, jit_code)
{
	char input[512];
	const struct parity_case *c;
	size_t i;

	snprintf(input, sizeof(input), "-i %s --flowjit %s", self->data, self->fj);
	for (i = 0; i < N(cases); i++) {
		c = &cases[i];
		if (c->no_jit)
			continue;
		write_raw(_metadata, self, c);
		write_jit(_metadata, self, c);
		expect_parity(_metadata, self, c, JIT_PAGE, input);
	}
}

TEST_HARNESS_MAIN
