/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What an x86-64 instruction does to the flow of control, from Zydis'
 * decoding of it: the one classification that jifl-decode's block walk
 * (as libipt's instruction classes) and jifl-swtrace (as the packets it
 * writes) both start from.
 */
#ifndef JIFL_BRANCH_H
#define JIFL_BRANCH_H

#include <Zydis/Zydis.h>

enum jifl_branch {
	jifl_branch_none,	/* on to the next instruction */
	jifl_branch_cond,	/* jcc, jrcxz, loop* */
	jifl_branch_jump,	/* jmp */
	jifl_branch_call,	/* call */
	jifl_branch_return,	/* ret */
	jifl_branch_far_jump,	/* jmp far */
	jifl_branch_far_call,	/* call far */
	jifl_branch_far_return,	/* ret far, iret */
	jifl_branch_trap,	/* syscall, sysenter, int n: into the kernel */
	jifl_branch_sysret,	/* sysret, sysexit: out of it */
};

enum jifl_branch jifl_branch_classify(const ZydisDecodedInstruction *z);

#endif /* JIFL_BRANCH_H */
