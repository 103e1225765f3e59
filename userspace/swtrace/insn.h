/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What an instruction means to Intel PT: which packet, if any, its
 * execution produces. Decoded with Zydis.
 */
#ifndef JIFL_INSN_H
#define JIFL_INSN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum jifl_insn_kind {
	JIFL_INSN_PLAIN,	/* no change of flow: no packet */
	JIFL_INSN_COND,		/* jcc, jrcxz, loop*: one TNT bit */
	JIFL_INSN_DIRECT,	/* jmp/call rel: no packet */
	JIFL_INSN_INDIRECT,	/* jmp/call r/m, ret: TIP */
	JIFL_INSN_FAR,		/* syscall, sysenter, int n: leaves user space */
};

struct jifl_insn {
	uint64_t ip;
	uint64_t target;	/* JIFL_INSN_DIRECT, COND: the branch target */
	uint8_t len;
	uint8_t kind;		/* enum jifl_insn_kind */
	bool rep;		/* rep string op: single-steps per iteration */
	bool call;		/* a call (pushes a return address) */
	bool ret;		/* a return */
	bool valid;
};

/* Decode the instruction in @bytes (@n bytes, at address @ip). */
int jifl_insn_decode(const uint8_t *bytes, size_t n, uint64_t ip,
		     struct jifl_insn *insn);

/*
 * Instructions of a traced process, read from /proc/PID/mem. Those at
 * addresses the caller marks cacheable (read-only file text) are kept
 * until jifl_insn_cache_clear().
 */
struct jifl_insn_cache;

int jifl_insn_cache_alloc(struct jifl_insn_cache **pc, int pid);
void jifl_insn_cache_free(struct jifl_insn_cache *c);
void jifl_insn_cache_clear(struct jifl_insn_cache *c);
int jifl_insn_cache_get(struct jifl_insn_cache *c, uint64_t ip, bool cacheable,
			struct jifl_insn *insn);

#endif /* JIFL_INSN_H */
