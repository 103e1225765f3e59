// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer harness: raw mode (jifl-decode --pt FILE, as ptxed), with the
 * processor, the decoder, the trace and the memory it runs in all taken
 * from the input:
 *
 *	u8  family, model, stepping	the processor (family 0: none)
 *	u8  flags			bit 0: block decoder; bit 1: list every
 *					instruction (else count them)
 *	u16 mem_len			little-endian
 *	u8  mem[mem_len]		code, loaded at FUZZ_RAW_BASE (--raw)
 *	u8  pt[]			the Intel PT trace
 *
 * tests/fuzz/seed_raw.c writes seeds in this layout.
 */
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "fuzz_decode.h"
#include "fuzz_file.h"
#include "fuzz_raw.h"
#include "ptconfig.h"

static uint64_t fuzz_sum;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_sink sink = { 0 };
	char in_path[64], pt_path[64], msg[512];
	struct jifl_session *s = NULL;
	struct pt_config cfg;
	struct pt_cpu cpu;
	size_t mem_len;
	int in_fd, pt_fd;

	if (size < FUZZ_RAW_HEADER)
		return 0;
	mem_len = data[4] | (size_t)data[5] << 8;
	if (mem_len > size - FUZZ_RAW_HEADER)
		mem_len = size - FUZZ_RAW_HEADER;
	pt_config_init(&cfg);
	if (data[0]) {
		memset(&cpu, 0, sizeof(cpu));
		cpu.vendor = pcv_intel;
		cpu.family = data[0];
		cpu.model = data[1];
		cpu.stepping = data[2];
		jifl_ptconfig_set_cpu(&cfg, &cpu);
	}
	in_fd = fuzz_file(data, size, in_path, sizeof(in_path));
	pt_fd = fuzz_file(data + FUZZ_RAW_HEADER + mem_len, size - FUZZ_RAW_HEADER - mem_len,
			  pt_path, sizeof(pt_path));
	if (jifl_session_open_raw(&s, pt_path, &cfg, msg, sizeof(msg)))
		goto out;
	if (mem_len && jifl_session_add_raw(s, in_path, FUZZ_RAW_HEADER,
					    FUZZ_RAW_HEADER + mem_len, FUZZ_RAW_BASE, msg,
					    sizeof(msg)))
		goto close;
	fuzz_decode(s, data[3] & 1 ? JIFL_DECODER_BLOCK : JIFL_DECODER_INSN, data[3] & 2, 1,
		    &sink);
close:
	jifl_session_close(s);
out:
	close(pt_fd);
	close(in_fd);
	fuzz_sum += sink.sum;
	return 0;
}
