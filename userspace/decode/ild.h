/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libipt's decoding of one instruction: its size, bytes and class, as
 * pt_insn_next() gives them, for instructions that Zydis does not know
 * (newer ones, such as FRED's ERETU or APX's, or ones invalid in 64-bit
 * mode that libipt's length decoder does not check). libipt 2.0.5 has
 * no public length decoder; its instruction flow decoder is run on a
 * trace of PSB+ alone, which puts it at the instruction with tracing
 * enabled, over an image that holds only the instruction's bytes. Where
 * the instruction leads without trace is where libipt goes next.
 */
#ifndef JIFL_DECODE_ILD_H
#define JIFL_DECODE_ILD_H

#include <stddef.h>
#include <stdint.h>
#include <intel-pt.h>

struct jifl_ild;

/* Returns 0 or -jifl_err_nomem. */
int jifl_ild_new(struct jifl_ild **ip);
void jifl_ild_free(struct jifl_ild *ild);

/*
 * Decode the instruction at @insn->ip in mode @insn->mode from @len
 * bytes at @raw: its size, raw bytes and class into @insn; in @next the
 * address it leads to if it needs no trace (the fall-through one if it
 * does). Returns 0, -jifl_err_format if libipt cannot decode it either,
 * or -jifl_err_nomem.
 */
int jifl_ild_decode(struct jifl_ild *ild, struct pt_insn *insn, const uint8_t *raw,
		    size_t len, uint64_t *next);

#endif /* JIFL_DECODE_ILD_H */
