// SPDX-License-Identifier: GPL-2.0
#include <Zydis/Zydis.h>
#include <string.h>

#include "common/branch.h"
#include "common/errcode.h"
#include "insn.h"

static bool is_relative(const ZydisDecodedInstruction *zi)
{
	return zi->raw.imm[0].is_relative;
}

int jifl_insn_decode(const uint8_t *bytes, size_t n, uint64_t ip,
		     struct jifl_insn *insn)
{
	static ZydisDecoder dec;
	static bool dec_ready;
	ZydisDecodedInstruction zi;
	enum jifl_branch br;

	if (!dec_ready) {
		ZydisDecoderInit(&dec, ZYDIS_MACHINE_MODE_LONG_64,
				 ZYDIS_STACK_WIDTH_64);
		dec_ready = true;
	}
	memset(insn, 0, sizeof(*insn));
	insn->ip = ip;
	if (!ZYAN_SUCCESS(ZydisDecoderDecodeInstruction(&dec, NULL, bytes, n, &zi)))
		return -jifl_err_format;
	insn->len = zi.length;
	insn->valid = true;
	insn->rep = !!(zi.attributes & (ZYDIS_ATTRIB_HAS_REP |
					ZYDIS_ATTRIB_HAS_REPE |
					ZYDIS_ATTRIB_HAS_REPNE)) &&
		    zi.meta.category == ZYDIS_CATEGORY_STRINGOP;

	br = jifl_branch_classify(&zi);
	switch (br) {
	case jifl_branch_cond:
		insn->kind = JIFL_INSN_COND;
		insn->target = ip + zi.length + zi.raw.imm[0].value.s;
		break;
	case jifl_branch_jump:
	case jifl_branch_far_jump:
	case jifl_branch_call:
	case jifl_branch_far_call:
		insn->kind = is_relative(&zi) ? JIFL_INSN_DIRECT : JIFL_INSN_INDIRECT;
		insn->target = ip + zi.length + zi.raw.imm[0].value.s;
		/* "call next" only reads the IP: decoders push nothing for it. */
		insn->call = (br == jifl_branch_call || br == jifl_branch_far_call) &&
			     !(insn->kind == JIFL_INSN_DIRECT &&
			       insn->target == ip + zi.length);
		break;
	case jifl_branch_return:
	case jifl_branch_far_return:
		insn->kind = JIFL_INSN_INDIRECT;
		insn->ret = true;
		break;
	case jifl_branch_trap:
		insn->kind = JIFL_INSN_FAR;
		break;
	default:
		/* sysret and sysexit too: privileged, they fault in user space. */
		insn->kind = JIFL_INSN_PLAIN;
		break;
	}
	return 0;
}
