// SPDX-License-Identifier: GPL-2.0
/*
 * libipt's own conformance traces through jifl-decode. Each case is one
 * of intel/libipt's test/src/NAME.ptt at v2.0.5, the version Debian ships:
 * its "@pt" packets rebuilt with libipt's encoder, its code at its org,
 * the options ptxed runs it with (--cpu for each of its "cpu" lines,
 * its "opt:ptxed") and ptxed's expected listing, its ".exp(ptxed)" with
 * the labels resolved and the "# insn" comments dropped, as ptxed
 * prints it with --no-inst.
 *
 * jifl-decode prints instructions and gaps where ptxed prints
 * instructions and events: both listings are reduced to the instruction
 * addresses, the overflows and the decode errors, which must be the
 * same with either of libipt's decoders. Where a case exists for an
 * erratum or the address filter, decoding it without those options
 * must give another listing: the options must have done it.
 *
 * The timing cases rebuild ptdump's expectations (TSC estimated from MTC,
 * from CYC with CBR) at instruction level, and check that perf.data's
 * AUXTRACE_INFO reaches libipt; the errata case checks its CPUID header.
 */
#define _GNU_SOURCE	/* strchrnul */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <intel-pt.h>

#include "kselftest_harness.h"
#include "cmd.h"
#include "perf/perf_writer.h"
#include "tools.h"
#include "tmpdir.h"

#define OUT_MAX	16384

/* A packet of a .ptt; @raw: instead, that byte as it is (raw-8()). */
struct ptt_pkt {
	struct pt_packet p;
	int raw;
};

#define IP(t, c, a)	{ .p = { .type = (t), .payload.ip = { .ipc = (c), .ip = (a) } } }
#define PSB		{ .p = { .type = ppt_psb } }
#define PSBEND		{ .p = { .type = ppt_psbend } }
#define OVF		{ .p = { .type = ppt_ovf } }
#define PAD		{ .p = { .type = ppt_pad } }
#define MODE_EXEC_64	{ .p = { .type = ppt_mode, .payload.mode = {		\
				.leaf = pt_mol_exec, .bits.exec = { .csl = 1 } } } }
#define MODE_TSX(in, ab) { .p = { .type = ppt_mode, .payload.mode = { .leaf = pt_mol_tsx,	\
						.bits.tsx = { .intx = (in), .abrt = (ab) } } } }
/* ".ptt: fup(3: %l0)": IP compression 3 (sign-extended 48 bits), 1 (16 bits), 0 (none). */
#define FUP(c, a)	IP(ppt_fup, (c), (a))
#define TIP(c, a)	IP(ppt_tip, (c), (a))
#define TIP_PGE(c, a)	IP(ppt_tip_pge, (c), (a))
#define TIP_PGD(c, a)	IP(ppt_tip_pgd, (c), (a))
#define TNT_N		{ .p = { .type = ppt_tnt_8, .payload.tnt = { .bit_size = 1 } } }
#define VMCS(b)		{ .p = { .type = ppt_vmcs, .payload.vmcs.base = (b) } }
#define PIP(c)		{ .p = { .type = ppt_pip, .payload.pip.cr3 = (c) } }
#define CYC(v)		{ .p = { .type = ppt_cyc, .payload.cyc.value = (v) } }
#define TSC(t)		{ .p = { .type = ppt_tsc, .payload.tsc.tsc = (t) } }
#define TMA(c, f)	{ .p = { .type = ppt_tma, .payload.tma = { .ctc = (c), .fc = (f) } } }
#define MTC(c)		{ .p = { .type = ppt_mtc, .payload.mtc.ctc = (c) } }
#define CBR(r)		{ .p = { .type = ppt_cbr, .payload.cbr.ratio = (r) } }
#define RAW8(b)		{ .raw = 0x100 | (b) }

#define S3		pt_ipc_sext_48
#define U16		pt_ipc_update_16
#define NONE		pt_ipc_suppressed

#define NOP	0x90
#define HLT	0xf4

struct ptt_case {
	const char *name;		/* test/src/NAME.ptt */
	const char *const *cpus;	/* its "cpu" lines; NULL: none */
	const char *opts;		/* its "opt:ptxed" line, or "" */
	uint64_t org;
	const uint8_t *code;
	size_t code_size;
	const struct ptt_pkt *pkts;
	size_t nr_pkts;
	const char *exp;		/* .exp(ptxed) */
	int needs_opts;			/* without --cpu and opts, another listing */
};

#define N(a)	(sizeof(a) / sizeof((a)[0]))
#define CODE(...)	.code = (const uint8_t[]){ __VA_ARGS__ },		\
			.code_size = sizeof((const uint8_t[]){ __VA_ARGS__ })
#define PKTS(...)	.pkts = (const struct ptt_pkt[]){ __VA_ARGS__ },		\
			.nr_pkts = N(((const struct ptt_pkt[]){ __VA_ARGS__ }))
#define CPUS(...)	.cpus = (const char *const[]){ __VA_ARGS__, NULL }

/* The "cpu" lines of the .ptt files that have the same list. */
#define CPUS_APL11	CPUS("6/92", "6/95", "6/122", "6/134", "6/150", "6/156", "6/151",	\
			     "6/154", "6/191")
#define CPUS_APL12	CPUS("6/92", "6/95")
#define CPUS_BDM64	CPUS("6/61", "6/71", "6/79", "6/86")
#define CPUS_BDM70	CPUS("6/61", "6/71", "6/79", "6/85", "6/86", "6/78", "6/94",	\
			     "6/142", "6/158", "6/102", "6/125", "6/126", "6/165",	\
			     "6/166", "6/106", "6/108", "6/143", "6/140", "6/141",	\
			     "6/167", "6/168", "6/151", "6/154", "6/191")
#define CPUS_SKD	CPUS("6/78", "6/94", "6/142", "6/158", "6/165", "6/166")
/* skl014 and skd022 */
#define CPUS_SKL014	CPUS("6/78", "6/85", "6/94", "6/142", "6/158", "6/102", "6/125",	\
			     "6/126", "6/165", "6/166", "6/106", "6/108", "6/143", "6/140",	\
			     "6/141", "6/167", "6/168", "6/151", "6/154", "6/191")
#define CPUS_SKZ84	CPUS("6/85", "6/106", "6/108", "6/143")
#define FILTER_0x1000	"--filter:addr0_cfg 1 --filter:addr0_a 0x1000 --filter:addr0_b 0x10ff"

/* l0..: the labels' addresses, in the order of the .ptt. */
static const struct ptt_case cases[] = {
	{
		.name = "apl11", CPUS_APL11, .opts = "", .org = 0x1000, .needs_opts = 1,
		/* l0: hlt; l1: hlt; l2: nop; l3: hlt */
		CODE(HLT, HLT, NOP, HLT),
		PKTS(PSB, MODE_EXEC_64, FUP(S3, 0x1000), PSBEND, OVF, TIP_PGD(S3, 0x1001),
		     MODE_EXEC_64, TIP_PGE(S3, 0x1002), FUP(U16, 0x1003), TIP_PGD(NONE, 0x1003)),
		.exp = "[overflow]\n[enabled]\n[exec mode: 64-bit]\n0000000000001002\n[disabled]\n",
	}, {
		.name = "apl12-psb", CPUS_APL12, .opts = "", .org = 0x1000, .needs_opts = 1,
		CODE(HLT, HLT, NOP, HLT),
		PKTS(PSB, MODE_EXEC_64, FUP(S3, 0x1000), PSBEND, OVF, FUP(S3, 0x1001),
		     PSB, MODE_EXEC_64, PSBEND, TIP_PGE(S3, 0x1002), FUP(U16, 0x1003),
		     TIP_PGD(NONE, 0x1003)),
		.exp = "[overflow]\n[enabled]\n0000000000001002\n[disabled]\n",
	}, {
		.name = "apl12-tip_pge", CPUS_APL12, .opts = "", .org = 0x1000, .needs_opts = 1,
		CODE(HLT, HLT, NOP, HLT),
		PKTS(PSB, MODE_EXEC_64, FUP(S3, 0x1000), PSBEND, OVF, FUP(S3, 0x1001),
		     VMCS(0xa000), PIP(0xa000), MODE_EXEC_64, TIP_PGE(S3, 0x1002),
		     FUP(U16, 0x1003), TIP_PGD(NONE, 0x1003)),
		.exp = "[overflow]\n[vmcs, base: 000000000000a000]\n"
		       "[paging, cr3: 000000000000a000]\n[enabled]\n[exec mode: 64-bit]\n"
		       "0000000000001002\n[disabled]\n",
	}, {
		/* A processor libipt does not know: said, and decoded without errata. */
		.name = "bad_cpu", CPUS("0/0"), .opts = "", .org = 0x100000,
		/* l0: nop; l1: hlt */
		CODE(NOP, HLT),
		PKTS(PSB, FUP(S3, 0x100000), MODE_EXEC_64, PSBEND, FUP(U16, 0x100001),
		     TIP_PGD(NONE, 0x100001)),
		.exp = "[0, 0: config error: unknown cpu]\n0000000000100000\n[disabled]\n",
	}, {
		/* Without the erratum, libipt reaches the same instructions here. */
		.name = "bdm64-tip-xabort", CPUS_BDM64, .opts = "", .org = 0x100000,
		/* l1: jmp [rax]; l2: hlt; l3: hlt; l4: hlt; l5: nop; l6: nop; l7: hlt */
		CODE(0xff, 0x20, HLT, HLT, HLT, NOP, NOP, HLT),
		PKTS(PSB, MODE_EXEC_64, MODE_TSX(1, 0), FUP(S3, 0x100000), PSBEND,
		     TIP(U16, 0x100003), MODE_TSX(0, 1), FUP(U16, 0x100003), TIP(U16, 0x100005),
		     FUP(U16, 0x100006), TIP_PGD(NONE, 0x100007)),
		.exp = "? 0000000000100000\n[aborted]\n[interrupt]\n0000000000100005\n[disabled]\n",
	}, {
		.name = "bdm64-tnt-cond-xabort", CPUS_BDM64, .opts = "", .org = 0x100000,
		.needs_opts = 1,
		/*
		 * l1: test [rax], rbx; l2: je l5; l3: nop; l4: je l9;
		 * l5: hlt; l6: hlt; l7: nop; l8: nop; l9: hlt
		 */
		CODE(0x48, 0x85, 0x18, 0x74, 0x03, NOP, 0x74, 0x04, HLT, HLT, NOP, NOP, HLT),
		PKTS(PSB, MODE_EXEC_64, MODE_TSX(1, 0), FUP(S3, 0x100000), PSBEND, TNT_N,
		     MODE_TSX(0, 1), FUP(U16, 0x100008), TIP(U16, 0x10000a),
		     FUP(U16, 0x10000b), TIP_PGD(NONE, 0x10000c)),
		.exp = "? 0000000000100000\n? 0000000000100003\n[aborted]\n[interrupt]\n"
		       "000000000010000a\n[disabled]\n",
	}, {
		.name = "bdm64-tnt-ind_call-xabort", CPUS_BDM64, .opts = "", .org = 0x100000,
		.needs_opts = 1,
		/*
		 * l1: test [rax], rbx; l2: je l5; l3: nop; l4: call rax;
		 * l5: hlt; l6: hlt; l7: nop; l8: nop; l9: hlt
		 */
		CODE(0x48, 0x85, 0x18, 0x74, 0x03, NOP, 0xff, 0xd0, HLT, HLT, NOP, NOP, HLT),
		PKTS(PSB, MODE_EXEC_64, MODE_TSX(1, 0), FUP(S3, 0x100000), PSBEND, TNT_N,
		     MODE_TSX(0, 1), FUP(U16, 0x100008), TIP(U16, 0x10000a),
		     FUP(U16, 0x10000b), TIP_PGD(NONE, 0x10000c)),
		.exp = "? 0000000000100000\n? 0000000000100003\n[aborted]\n[interrupt]\n"
		       "000000000010000a\n[disabled]\n",
	}, {
		.name = "bdm70-psb_fup-tip_pge", CPUS_BDM70, .opts = "", .org = 0x100000,
		.needs_opts = 1,
		/* l1: nop; l2: nop; l3: hlt */
		CODE(NOP, NOP, HLT),
		PKTS(PSB, MODE_EXEC_64, FUP(S3, 0x100000), MODE_TSX(1, 0), PSBEND,
		     TIP_PGE(S3, 0x100000), FUP(U16, 0x100001), TIP_PGD(NONE, 0x100002)),
		.exp = "[enabled]\n? 0000000000100000\n[disabled]\n",
	}, {
		.name = "bdm70-tip_pgd-psb_fup-tip_pge", CPUS_BDM70, .opts = "", .org = 0x100000,
		.needs_opts = 1,
		/* l1: jle l4; l2: nop; l3: nop; l4: nop; l5: hlt */
		CODE(0x7e, 0x02, NOP, NOP, NOP, HLT),
		PKTS(PSB, MODE_EXEC_64, MODE_TSX(1, 0), FUP(S3, 0x100000), PSBEND,
		     TIP_PGD(U16, 0x100002), PSB, MODE_EXEC_64, FUP(S3, 0x100003),
		     MODE_TSX(1, 0), PSBEND, TIP_PGE(S3, 0x100003), FUP(U16, 0x100004),
		     TIP_PGD(NONE, 0x100005)),
		.exp = "? 0000000000100000\n[disabled]\n[enabled]\n? 0000000000100003\n"
		       "[disabled]\n",
	}, {
		/* CYC(0x3e) is f7 02; its 02 with CYC(0x1e)'s f3 reads as OVF. */
		.name = "skd007", CPUS_SKD, .opts = "", .org = 0x1000, .needs_opts = 1,
		/* l0: nop; l1: nop; l2: nop; l3: hlt */
		CODE(NOP, NOP, NOP, HLT),
		PKTS(PSB, MODE_EXEC_64, FUP(S3, 0x1000), CYC(0x3e), CYC(0x1e), PAD,
		     FUP(S3, 0x1001), FUP(U16, 0x1002), TIP_PGD(NONE, 0x1003)),
		.exp = "[overflow]\n0000000000001001\n[disabled]\n",
	}, {
		.name = "skd010-mode_tsx-fup", CPUS_SKD, .opts = "", .org = 0x1000,
		.needs_opts = 1,
		/* l0: nop; l1: nop; l2: hlt */
		CODE(NOP, NOP, HLT),
		PKTS(PSB, MODE_EXEC_64, PSBEND, OVF, MODE_TSX(1, 0), FUP(S3, 0x1000),
		     FUP(U16, 0x1001), TIP_PGD(NONE, 0x1002)),
		.exp = "[overflow]\n[begin transaction]\n? 0000000000001000\n[disabled]\n",
	}, {
		.name = "skd010-psb", CPUS_SKD, .opts = "", .org = 0x1000, .needs_opts = 1,
		CODE(NOP, NOP, HLT),
		PKTS(PSB, MODE_EXEC_64, PSBEND, OVF, PSB, MODE_EXEC_64, FUP(S3, 0x1000), PSBEND,
		     FUP(U16, 0x1001), TIP_PGD(NONE, 0x1002)),
		.exp = "[overflow]\n0000000000001000\n[disabled]\n",
	}, {
		.name = "skd010-tip", CPUS_SKD, .opts = "", .org = 0x1000, .needs_opts = 1,
		CODE(NOP, NOP, HLT),
		PKTS(PSB, MODE_EXEC_64, PSBEND, OVF, TIP(S3, 0x1000), FUP(U16, 0x1001),
		     TIP_PGD(NONE, 0x1002)),
		.exp = "[overflow]\n0000000000001000\n[disabled]\n",
	}, {
		.name = "skd010-tip_pgd", CPUS_SKD, .opts = "", .org = 0x1000, .needs_opts = 1,
		/* l0: hlt; l1: hlt; l2: nop; l3: nop; l4: hlt */
		CODE(HLT, HLT, NOP, NOP, HLT),
		PKTS(PSB, MODE_EXEC_64, FUP(S3, 0x1000), PSBEND, OVF, TIP_PGD(NONE, 0x1001),
		     TIP_PGE(S3, 0x1002), FUP(U16, 0x1003), TIP_PGD(NONE, 0x1004)),
		.exp = "[overflow]\n[enabled]\n0000000000001002\n[disabled]\n",
	}, {
		.name = "skd022", CPUS_SKL014, .opts = "", .org = 0x1000, .needs_opts = 1,
		/* l0: vmlaunch; l1: hlt; l2: nop; l3: vmresume; l4: hlt */
		CODE(0x0f, 0x01, 0xc2, HLT, NOP, 0x0f, 0x01, 0xc3, HLT),
		PKTS(PSB, MODE_EXEC_64, FUP(S3, 0x1000), PSBEND, FUP(U16, 0x1000),
		     TIP_PGD(NONE, 0x1003), TIP_PGE(S3, 0x1004), FUP(U16, 0x1005),
		     TIP_PGD(NONE, 0x1008)),
		.exp = "0000000000001000\n[disabled]\n[enabled]\n0000000000001004\n"
		       "0000000000001005\n[disabled]\n",
	}, {
		.name = "skl014-call", CPUS_SKL014, .opts = FILTER_0x1000, .org = 0x1000,
		.needs_opts = 1,
		/* l0: call l2; l1: hlt; ALIGN 0x100 (nop); l2: hlt */
		CODE(0xe8, 0xfb, 0x00, 0x00, 0x00, HLT, [6 ... 0xff] = NOP, [0x100] = HLT),
		PKTS(PSB, MODE_EXEC_64, FUP(S3, 0x1000), PSBEND, TIP_PGD(NONE, 0x1100)),
		.exp = "0000000000001000\n[disabled]\n",
	}, {
		.name = "skl014-jmp", CPUS_SKL014, .opts = FILTER_0x1000, .org = 0x1000,
		.needs_opts = 1,
		/* l0: jmp l2; l1: hlt; ALIGN 0x100; l2: hlt */
		CODE(0xe9, 0xfb, 0x00, 0x00, 0x00, HLT, [6 ... 0xff] = NOP, [0x100] = HLT),
		PKTS(PSB, MODE_EXEC_64, FUP(S3, 0x1000), PSBEND, TIP_PGD(NONE, 0x1100)),
		.exp = "0000000000001000\n[disabled]\n",
	}, {
		.name = "skl014-jmp-jmp", CPUS_SKL014, .opts = FILTER_0x1000, .org = 0x1000,
		.needs_opts = 1,
		/* l0: jmp l2; l1: hlt; l2: jmp l4; l3: hlt; ALIGN 0x100; l4: hlt */
		CODE(0xeb, 0x01, HLT, 0xe9, 0xf8, 0x00, 0x00, 0x00, HLT, [9 ... 0xff] = NOP,
		     [0x100] = HLT),
		PKTS(PSB, MODE_EXEC_64, FUP(S3, 0x1000), PSBEND, TIP_PGD(NONE, 0x1100)),
		.exp = "0000000000001000\n0000000000001003\n[disabled]\n",
	}, {
		/* The erratum does not apply without a filter: the same either way. */
		.name = "skl014-no_filter", CPUS_SKL014, .opts = "", .org = 0x100000,
		/* l0: jmp l2; l1: hlt; l2: jmp far [rax]; l3: hlt; l4: hlt */
		CODE(0xeb, 0x01, HLT, 0xff, 0x28, HLT, HLT),
		PKTS(PSB, FUP(S3, 0x100000), MODE_EXEC_64, PSBEND, TIP_PGD(NONE, 0x100006)),
		.exp = "0000000000100000\n0000000000100003\n[disabled]\n",
	}, {
		/* A TMA with a bogus byte after it. */
		.name = "skz84", CPUS_SKZ84, .opts = "", .org = 0x100000, .needs_opts = 1,
		/* l0: nop; l1: hlt */
		CODE(NOP, HLT),
		PKTS(PSB, FUP(S3, 0x100000), MODE_EXEC_64, PSBEND, RAW8(0x02), RAW8(0x73),
		     RAW8(0x01), RAW8(0x01), RAW8(0x01), RAW8(0x01), RAW8(0x00), RAW8(0x00),
		     FUP(U16, 0x100001), TIP_PGD(NONE, 0x100001)),
		.exp = "0000000000100000\n[disabled]\n",
	},
};

/* Encode @n packets into @buf; returns the trace's size, 0 if it fails. */
static size_t encode(const struct ptt_pkt *pkts, size_t n, uint8_t *buf, size_t size)
{
	struct pt_encoder *enc;
	struct pt_config cfg;
	uint64_t off = 0;
	size_t i;

	pt_config_init(&cfg);
	cfg.begin = buf;
	cfg.end = buf + size;
	enc = pt_alloc_encoder(&cfg);
	for (i = 0; enc && i < n; i++) {
		if (pkts[i].raw) {
			if (pt_enc_get_offset(enc, &off) < 0 || off >= size ||
			    pt_enc_sync_set(enc, off + 1) < 0)
				break;
			buf[off] = pkts[i].raw & 0xff;
		} else if (pt_enc_next(enc, &pkts[i].p) < 0) {
			break;
		}
	}
	if (enc && pt_enc_get_offset(enc, &off) < 0)
		off = 0;
	pt_free_encoder(enc);
	return i == n ? off : 0;
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

/*
 * ptxed's listing reduced: instruction addresses ("? " of speculative
 * ones dropped), "[overflow]" and "[error: MSG]"; other events go.
 */
static void reduce_ptxed(const char *listing, char *out, size_t len)
{
	const char *line, *end;
	char *o = out;
	uint64_t ip;

	*o = '\0';
	for (line = listing; *line; line = *end ? end + 1 : end) {
		end = strchrnul(line, '\n');
		if (!strncmp(line, "? ", 2))
			line += 2;
		if (sscanf(line, "%16" SCNx64, &ip) == 1 && line[0] != '[')
			o += snprintf(o, len - (o - out), "%" PRIx64 "\n", ip);
		else if (!strncmp(line, "[overflow]", 10))
			o += snprintf(o, len - (o - out), "[overflow]\n");
		else if (strstr(line, ": error: ") && line < end)
			o += snprintf(o, len - (o - out), "[error: %.*s\n",
				      (int)(end - strstr(line, ": error: ") - 9),
				      strstr(line, ": error: ") + 9);
	}
}

/*
 * jifl-decode's "--insn -F ip" listing reduced the same way: an address
 * per line, "TIME TID error: MSG at ..." for errors (libipt's message of
 * pte_overflow for overflows); "gap:" lines (restarts, stops) are events.
 */
static void reduce_jifl(const char *listing, char *out, size_t len)
{
	const char *line, *end, *err, *at, *ovf = pt_errstr(pte_overflow);
	char *o = out;
	uint64_t ip;
	int n;

	*o = '\0';
	for (line = listing; *line; line = *end ? end + 1 : end) {
		end = strchrnul(line, '\n');
		err = strstr(line, " error: ");
		if (err && err < end) {
			err += 8;
			at = strstr(err, " at ip ");
			n = (at && at < end ? at : end) - err;
			if (!strncmp(err, ovf, n) && !ovf[n])
				o += snprintf(o, len - (o - out), "[overflow]\n");
			else
				o += snprintf(o, len - (o - out), "[error: %.*s]\n", n, err);
		} else if (sscanf(line, " %" SCNx64 "%n", &ip, &n) == 1 && line + n == end) {
			o += snprintf(o, len - (o - out), "%" PRIx64 "\n", ip);
		}
	}
}

FIXTURE(ptt) {
	char dir[64];
	char pt[128], bin[128], data[128];
	char out[OUT_MAX];
};

FIXTURE_SETUP(ptt)
{
	ASSERT_EQ(0, tmpdir_make(self->dir, sizeof(self->dir), "decode-ptt"));
	snprintf(self->pt, sizeof(self->pt), "%s/trace.pt", self->dir);
	snprintf(self->bin, sizeof(self->bin), "%s/code.bin", self->dir);
	snprintf(self->data, sizeof(self->data), "%s/perf.data", self->dir);
}

FIXTURE_TEARDOWN(ptt)
{
	tmpdir_remove(self->dir);
}

/* The case's trace and code into self->pt and self->bin; the trace's size. */
static size_t write_case(struct __test_metadata *_metadata, FIXTURE_DATA(ptt) *self,
			 const struct ptt_case *c)
{
	uint8_t trace[512];
	size_t size = encode(c->pkts, c->nr_pkts, trace, sizeof(trace));

	EXPECT_NE(0, size) TH_LOG("%s: the encoder refused a packet", c->name);
	EXPECT_EQ(0, write_file(self->pt, trace, size));
	EXPECT_EQ(0, write_file(self->bin, c->code, c->code_size));
	return size;
}

/*
 * Decode with libipt's decoder @kind and @opts; the reduced listing into
 * @got, the exit status returned.
 */
static int decode_raw(FIXTURE_DATA(ptt) *self, const struct ptt_case *c, const char *opts,
		      const char *kind, char *got, size_t len)
{
	int status;

	status = cmd_run(self->out, sizeof(self->out),
			 "%s --pt %s --raw %s:0x%" PRIx64 " --insn -F ip --decoder %s %s",
			 decoder(), self->pt, self->bin, c->org, kind, opts);
	reduce_jifl(self->out, got, len);
	return status;
}

/*
 * Every case, with each of its processors and both decoders: a few
 * hundred decodes, slow under ASan on a loaded machine (the harness's
 * 30 s ran out once beside other work).
 */
TEST_F_TIMEOUT(ptt, raw_mode_decodes_as_ptxed, 300)
{
	char want[1024], got[1024], opts[256];
	const struct ptt_case *c;
	size_t i, j, d;
	int status;

	for (i = 0; i < N(cases); i++) {
		c = &cases[i];
		write_case(_metadata, self, c);
		reduce_ptxed(c->exp, want, sizeof(want));
		for (j = 0; c->cpus[j]; j++) {
			snprintf(opts, sizeof(opts), "--cpu %s %s", c->cpus[j], c->opts);
			for (d = 0; d < NR_DECODERS; d++) {
				status = decode_raw(self, c, opts, decoders[d], got, sizeof(got));
				EXPECT_STREQ(want, got)
					TH_LOG("%s with %s, %s decoder:\n%s", c->name, opts,
					       decoders[d], self->out);
				/* Overflows and errors make the status 1. */
				EXPECT_EQ(!!strchr(want, '['), status)
					TH_LOG("%s with %s, %s decoder", c->name, opts,
					       decoders[d]);
			}
		}
		for (d = 0; c->needs_opts && d < NR_DECODERS; d++) {
			decode_raw(self, c, "", decoders[d], got, sizeof(got));
			EXPECT_STRNE(want, got)
				TH_LOG("%s decodes as ptxed without its options (%s decoder):\n%s",
				       c->name, decoders[d], self->out);
		}
	}
}

/* ptxed says "config error: unknown cpu" and goes on: so does jifl-decode. */
TEST_F(ptt, unknown_cpu_is_said)
{
	const struct ptt_case *c = NULL;
	size_t i;

	for (i = 0; i < N(cases); i++)
		if (!strcmp(cases[i].name, "bad_cpu"))
			c = &cases[i];
	ASSERT_NE(NULL, c);
	write_case(_metadata, self, c);
	EXPECT_EQ(0, cmd_run(self->out, sizeof(self->out), "%s --pt %s --raw %s:0x%" PRIx64
			     " --insn -F ip --cpu 0/0", decoder(), self->pt, self->bin, c->org));
	EXPECT_NE(NULL, strstr(self->out, "jifl-decode: warning: --cpu 0/0: libipt knows no errata of "
			       "processor 0/0/0; decoding without\n")) TH_LOG("%s", self->out);
}

/*
 * Code that loops by a direct jump reads no trace: libipt's decoders
 * follow it for ever (ptxed too), here waiting for an event at l1. jifl-decode
 * reports a never-ending loop and resumes at a later PSB (libipt has read
 * into the next one already), as perf's decoder does.
 */
TEST_F(ptt, never_ending_loop_ends)
{
	const struct ptt_case c = {
		.name = "loop", .org = 0x1000,
		/* l0: jmp l0; l1: nop; l2: hlt */
		CODE(0xeb, 0xfe, NOP, HLT),
		PKTS(PSB, MODE_EXEC_64, PSBEND, TIP_PGE(S3, 0x1000), FUP(S3, 0x1002),
		     TIP_PGD(NONE, 0x1002), PSB, MODE_EXEC_64, PSBEND, PSB, MODE_EXEC_64,
		     FUP(S3, 0x1002), PSBEND, FUP(U16, 0x1003), TIP_PGD(NONE, 0x1003)),
	};
	size_t d;

	write_case(_metadata, self, &c);
	for (d = 0; d < NR_DECODERS; d++) {
		EXPECT_EQ(1, cmd_run(self->out, sizeof(self->out),
				     "%s --pt %s --raw %s:0x1000 --stats --decoder %s", decoder(),
				     self->pt, self->bin, decoders[d]));
		EXPECT_NE(NULL, strstr(self->out, "\n  1 x never-ending loop at 0x1000\n"))
			TH_LOG("%s decoder:\n%s", decoders[d], self->out);
		EXPECT_NE(NULL, strstr(self->out, " never-ending loop at ip 0x1000 after "))
			TH_LOG("%s decoder:\n%s", decoders[d], self->out);
		EXPECT_NE(NULL, strstr(self->out, "; resumed at ip 0x1002, trace offset 0x"))
			TH_LOG("%s decoder:\n%s", decoders[d], self->out);
		EXPECT_NE(NULL, strstr(self->out, "0 trace data lost, 1 never-ending loops; "))
			TH_LOG("%s decoder:\n%s", decoders[d], self->out);
	}
}

/* perf.data of one thread that ran @c's code and trace, recorded on @cpuid. */
static void write_perf(struct __test_metadata *_metadata, FIXTURE_DATA(ptt) *self,
		       const struct ptt_case *c, struct jifl_perf_writer_config *cfg)
{
	struct jifl_perf_mmap2 m = {
		.pid = 1, .tid = 1, .addr = c->org, .len = c->code_size,
		.prot = PROT_READ | PROT_EXEC, .flags = MAP_PRIVATE, .filename = self->bin,
	};
	struct jifl_perf_writer *pw;
	uint8_t trace[512];
	size_t size = encode(c->pkts, c->nr_pkts, trace, sizeof(trace));

	ASSERT_NE(0, size);
	ASSERT_EQ(0, write_file(self->bin, c->code, c->code_size));
	cfg->pt_pmu_type = 8;
	cfg->pt_config |= JIFL_INTEL_PT_CFG_PT | JIFL_INTEL_PT_CFG_TSC | JIFL_INTEL_PT_CFG_BRANCH;
	/* Perf time is the TSC: times print as TSC values in nanoseconds. */
	cfg->tc.time_mult = 1;
	ASSERT_EQ(0, jifl_perf_writer_open(&pw, self->data, cfg));
	ASSERT_EQ(0, jifl_perf_writer_comm(pw, 1, 1, "ptt", 1, 0));
	ASSERT_EQ(0, jifl_perf_writer_mmap2(pw, &m, 0));
	ASSERT_EQ(0, jifl_perf_writer_itrace_start(pw, 1, 1, 0));
	ASSERT_EQ(0, jifl_perf_writer_auxtrace(pw, 0, 1, trace, size));
	ASSERT_EQ(0, jifl_perf_writer_exit(pw, 1, 0, 1, 0, 0));
	ASSERT_EQ(0, jifl_perf_writer_close(pw));
}

static const struct ptt_case *find_case(const char *name)
{
	size_t i;

	for (i = 0; i < N(cases); i++)
		if (!strcmp(cases[i].name, name))
			return &cases[i];
	return NULL;
}

/*
 * The processor of perf.data's CPUID header: libipt applies its errata
 * as with --cpu; a processor libipt does not know (newer than it) or not
 * Intel's has none, and decodes without.
 */
TEST_F(ptt, perf_data_cpuid_gives_errata)
{
	static const struct {
		const char *cpuid;
		int errata;
	} cpus[] = {
		{ "GenuineIntel,6,78,3", 1 },		/* Skylake: SKD010 */
		{ "GenuineIntel,6,142,10", 1 },
		{ "GenuineIntel,6,183,1", 0 },	/* Raptor Lake: libipt 2.0.5 knows none */
		{ "AuthenticAMD,25,33,0", 0 },
	};
	const struct ptt_case *c = find_case("skd010-tip");
	char want[1024], got[1024];
	size_t i;

	ASSERT_NE(NULL, c);
	reduce_ptxed(c->exp, want, sizeof(want));
	for (i = 0; i < N(cpus); i++) {
		struct jifl_perf_writer_config cfg = { .cpuid = cpus[i].cpuid };

		write_perf(_metadata, self, c, &cfg);
		cmd_run(self->out, sizeof(self->out), "%s -i %s --insn -F ip", decoder(), self->data);
		reduce_jifl(self->out, got, sizeof(got));
		if (cpus[i].errata) {
			EXPECT_STREQ(want, got) TH_LOG("%s:\n%s", cpus[i].cpuid, self->out);
		} else {
			EXPECT_STRNE(want, got) TH_LOG("%s:\n%s", cpus[i].cpuid, self->out);
		}
	}
}

/*
 * Timing from AUXTRACE_INFO: the MTC period of attr.config, CPUID leaf
 * 0x15 and the maximum non-turbo ratio. Two of ptdump's cases at
 * instruction level, "jmp [rax]" twice, the TIPs after the timing
 * packets: tsc-mtc-tma-mtc (an MTC before the TMA is ignored, the one
 * after it is "tsc +aa") and tsc-tma-cbr-cyc (CYC 3 is "tsc +6", CYC 1
 * "tsc +2": a CBR of 2 against a nominal ratio of 4). Without those
 * fields the times stay at the TSC packet's.
 */
static const struct ptt_case timing_cases[] = {
	{
		.name = "tsc-mtc-tma-mtc", .org = 0x100000,
		/* l0: jmp [rax]; l1: jmp [rax]; l2: nop; l3: hlt */
		CODE(0xff, 0x20, 0xff, 0x20, NOP, HLT),
		PKTS(PSB, MODE_EXEC_64, FUP(S3, 0x100000), PSBEND, TSC(0xa0000), MTC(0xc1),
		     TMA(0xc2d2, 0xe), TIP(U16, 0x100002), MTC(0xc3), TIP(U16, 0x100004),
		     FUP(U16, 0x100005), TIP_PGD(NONE, 0x100005)),
		.exp = "0xa0000 100000\n0xa00aa 100002\n0xa00aa 100004\n",
	}, {
		.name = "tsc-tma-cbr-cyc", .org = 0x100000,
		CODE(0xff, 0x20, 0xff, 0x20, NOP, HLT),
		PKTS(PSB, MODE_EXEC_64, FUP(S3, 0x100000), PSBEND, TSC(0xa0000), TMA(0x102, 0x8),
		     CBR(2), CYC(3), TIP(U16, 0x100002), CYC(1), TIP(U16, 0x100004),
		     FUP(U16, 0x100005), TIP_PGD(NONE, 0x100005)),
		.exp = "0xa0006 100000\n0xa0008 100002\n0xa0008 100004\n",
	},
};

/* "SEC.NSEC IP" lines as "0xTSC IP" (perf time is the TSC here). */
static void reduce_times(const char *listing, char *out, size_t len)
{
	unsigned long long sec, nsec, ip;
	const char *line;
	char *o = out;

	*o = '\0';
	for (line = listing; *line; line = strchrnul(line, '\n'), line += !!*line)
		if (sscanf(line, "%llu.%llu %llx", &sec, &nsec, &ip) == 3)
			o += snprintf(o, len - (o - out), "%#llx %llx\n",
				      sec * 1000000000 + nsec, ip);
}

TEST_F(ptt, perf_data_timing_reaches_libipt)
{
	char got[1024], none[1024];
	const struct ptt_case *c;
	size_t i, d;

	for (i = 0; i < N(timing_cases); i++) {
		c = &timing_cases[i];
		for (d = 0; d < NR_DECODERS; d++) {
			struct jifl_perf_writer_config cfg = {
				.pt_config = JIFL_INTEL_PT_CFG_MTC | JIFL_INTEL_PT_CFG_CYC |
					     (8ULL << 14),	/* --mtc-freq 8 */
				/* --cpuid-0x15.eax 1 --cpuid-0x15.ebx 4 */
				.tsc_ctc_d = 1, .tsc_ctc_n = 4,
				.max_nonturbo_ratio = 4,		/* --nom-freq 4 */
			};
			struct jifl_perf_writer_config bare = { 0 };

			write_perf(_metadata, self, c, &cfg);
			EXPECT_EQ(0, cmd_run(self->out, sizeof(self->out), "%s -i %s --insn "
					     "-F time,ip --decoder %s", decoder(), self->data,
					     decoders[d])) TH_LOG("%s", self->out);
			reduce_times(self->out, got, sizeof(got));
			EXPECT_STREQ(c->exp, got)
				TH_LOG("%s, %s decoder:\n%s", c->name, decoders[d], self->out);

			write_perf(_metadata, self, c, &bare);
			cmd_run(self->out, sizeof(self->out), "%s -i %s --insn -F time,ip "
				"--decoder %s", decoder(), self->data, decoders[d]);
			reduce_times(self->out, none, sizeof(none));
			EXPECT_STREQ("0xa0000 100000\n0xa0000 100002\n0xa0000 100004\n", none)
				TH_LOG("%s without timing fields, %s decoder:\n%s", c->name,
				       decoders[d], self->out);
		}
	}
}

TEST_HARNESS_MAIN
