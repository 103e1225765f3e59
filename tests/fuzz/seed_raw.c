// SPDX-License-Identifier: GPL-2.0
/*
 * Write seeds for the raw-mode harness (fuzz_raw.c) into DIR: a small
 * loop of code and traces of it made with libipt's encoder, in the
 * harness's input layout, for both decoders and with timing, overflow
 * and transaction packets.
 *
 * usage: seed_raw DIR
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <intel-pt.h>

#include "fuzz_raw.h"
#include "pt_encode.h"

#define B		FUZZ_RAW_BASE

/*
 * B+0x00: xor %eax,%eax; cmp $1,%eax; je B+0x0c; call B+0x10;
 * B+0x0c: jmp B+0x00; nop; nop; B+0x10: lea 2(%rip),%rax; jmp *%rax; ret
 */
static const uint8_t code[] = {
	0x31, 0xc0, 0x83, 0xf8, 0x01, 0x74, 0x05, 0xe8, 0x04, 0x00, 0x00, 0x00,
	0xeb, 0xf2, 0x90, 0x90, 0x48, 0x8d, 0x05, 0x02, 0x00, 0x00, 0x00, 0xff,
	0xe0, 0xc3,
};

#define P(t)		{ .type = (t) }
#define IP(t, a)	{ .type = (t), .payload.ip = { .ipc = pt_ipc_full, .ip = (a) } }
#define MODE64		{ .type = ppt_mode, .payload.mode = { .leaf = pt_mol_exec,	\
			  .bits.exec = { .csl = 1 } } }
#define TSX(i, a)	{ .type = ppt_mode, .payload.mode = { .leaf = pt_mol_tsx,	\
			  .bits.tsx = { .intx = (i), .abrt = (a) } } }
#define TNT1(b)		{ .type = ppt_tnt_8, .payload.tnt = { .bit_size = 1, .payload = (b) } }
#define TSC(t)		{ .type = ppt_tsc, .payload.tsc.tsc = (t) }
#define CBR(r)		{ .type = ppt_cbr, .payload.cbr.ratio = (r) }
#define MTC(c)		{ .type = ppt_mtc, .payload.mtc.ctc = (c) }
#define CYC(v)		{ .type = ppt_cyc, .payload.cyc.value = (v) }
#define TMA(c, f)	{ .type = ppt_tma, .payload.tma = { .ctc = (c), .fc = (f) } }
#define END		{ .type = ppt_invalid }

/* One round of the loop: je not taken, jmp *%rax, ret, back to the top. */
#define ROUND		TNT1(0), IP(ppt_tip, B + 0x19), IP(ppt_tip, B + 0x0c)

static const struct pt_packet plain[] = {
	P(ppt_psb), MODE64, P(ppt_psbend), IP(ppt_tip_pge, B),
	ROUND, ROUND, TNT1(0), IP(ppt_tip_pgd, B + 0x17), END,
};

static const struct pt_packet timed[] = {
	P(ppt_psb), MODE64, TSC(0x1000), TMA(0x10, 0x20), CBR(36), P(ppt_psbend),
	IP(ppt_tip_pge, B), MTC(0x11), CYC(40), ROUND, TSC(0x2000), CYC(7), ROUND,
	MTC(0x13), P(ppt_pad), ROUND, P(ppt_psb), MODE64, TSC(0x3000), IP(ppt_fup, B + 0x0c),
	P(ppt_psbend), TNT1(0), IP(ppt_tip_pgd, B + 0x17), END,
};

static const struct pt_packet overflow[] = {
	P(ppt_psb), MODE64, P(ppt_psbend), IP(ppt_tip_pge, B), ROUND, P(ppt_ovf),
	IP(ppt_fup, B + 0x07), IP(ppt_tip, B + 0x19), IP(ppt_tip, B + 0x0c), P(ppt_stop),
	P(ppt_psb), MODE64, IP(ppt_fup, B), P(ppt_psbend), ROUND, END,
};

static const struct pt_packet tsx[] = {
	P(ppt_psb), MODE64, TSX(0, 0), P(ppt_psbend), IP(ppt_tip_pge, B), TSX(1, 0),
	IP(ppt_fup, B + 0x05), ROUND, TSX(0, 1), IP(ppt_fup, B + 0x0c), IP(ppt_tip, B), ROUND,
	{ .type = ppt_pip, .payload.pip.cr3 = 0x1000 }, IP(ppt_fup, B + 0x0c),
	IP(ppt_tip_pgd, 0), END,
};

static size_t encode(const struct pt_packet *pkts, uint8_t *buf, size_t size)
{
	size_t n = 0, len;

	while (pkts[n].type != ppt_invalid)
		n++;
	len = pt_encode(pkts, n, buf, size, NULL);
	if (!len) {
		fprintf(stderr, "seed_raw: a packet does not encode\n");
		exit(1);
	}
	return len;
}

static void write_seed(const char *dir, const char *name, const struct pt_packet *pkts,
		       const uint8_t cpu[3], uint8_t flags)
{
	uint8_t buf[4096];
	size_t n = FUZZ_RAW_HEADER;
	char path[512];
	FILE *f;

	memcpy(buf, cpu, 3);
	buf[3] = flags;
	buf[4] = sizeof(code) & 0xff;
	buf[5] = sizeof(code) >> 8;
	memcpy(buf + n, code, sizeof(code));
	n += sizeof(code);
	n += encode(pkts, buf + n, sizeof(buf) - n);
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (!f || fwrite(buf, 1, n, f) != n || fclose(f)) {
		perror(path);
		exit(1);
	}
}

int main(int argc, char **argv)
{
	static const uint8_t none[3], skl[3] = { 6, 0x5e, 3 }, bdw[3] = { 6, 0x3d, 4 };

	if (argc != 2) {
		fprintf(stderr, "usage: seed_raw DIR\n");
		return 2;
	}
	write_seed(argv[1], "seed-plain-insn", plain, none, 2);
	write_seed(argv[1], "seed-plain-block", plain, none, 1);
	write_seed(argv[1], "seed-timed-skl", timed, skl, 3);
	write_seed(argv[1], "seed-overflow-bdw", overflow, bdw, 2);
	write_seed(argv[1], "seed-tsx-block", tsx, skl, 1);
	return 0;
}
