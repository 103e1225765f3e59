// SPDX-License-Identifier: GPL-2.0
#include <stdbool.h>

#include "branch.h"

enum jifl_branch jifl_branch_classify(const ZydisDecodedInstruction *z)
{
	bool far = z->meta.branch_type == ZYDIS_BRANCH_TYPE_FAR;

	switch (z->meta.category) {
	case ZYDIS_CATEGORY_COND_BR:
		return jifl_branch_cond;
	case ZYDIS_CATEGORY_UNCOND_BR:
		return far ? jifl_branch_far_jump : jifl_branch_jump;
	case ZYDIS_CATEGORY_CALL:
		return far ? jifl_branch_far_call : jifl_branch_call;
	case ZYDIS_CATEGORY_RET:
		return far || z->mnemonic == ZYDIS_MNEMONIC_IRET ||
		       z->mnemonic == ZYDIS_MNEMONIC_IRETD ||
		       z->mnemonic == ZYDIS_MNEMONIC_IRETQ ?
		       jifl_branch_far_return : jifl_branch_return;
	case ZYDIS_CATEGORY_SYSCALL:
	case ZYDIS_CATEGORY_INTERRUPT:
		return jifl_branch_trap;
	case ZYDIS_CATEGORY_SYSRET:
		return jifl_branch_sysret;
	default:
		return jifl_branch_none;
	}
}
