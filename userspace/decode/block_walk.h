/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The instructions of a libipt block, one by one. libipt gives a block's
 * first and last address and its length; the instructions in between
 * follow without trace (straight-line code, direct jumps and calls), so
 * they are read back and decoded with Zydis: code from files, and JIT
 * pages in their last version, from the image section cache, remembered
 * per block start (neither changes); other JIT code from the reads of
 * the process's JIT memory that the block decoder made while it went
 * through the block, each with its page version. Bytes that Zydis refuses but libipt went through are decoded
 * by libipt (ild.h): the instruction flow decoder lists them too.
 */
#ifndef JIFL_DECODE_BLOCK_WALK_H
#define JIFL_DECODE_BLOCK_WALK_H

#include <intel-pt.h>

#include "process.h"

struct jifl_walk_cache;

struct jifl_walk {
	const struct pt_insn *insns;	/* the block's instructions but the last */
	struct pt_insn last;		/* the last one, classified by libipt */
	const struct jifl_jit_version *const *jit;	/* JIT code: each one's version */
	uint64_t next;			/* where the last one leads without trace */
};

int jifl_walk_cache_new(struct jifl_walk_cache **cp);
void jifl_walk_cache_free(struct jifl_walk_cache *c);

/*
 * Walk @block of @p, whose file code is read from @isc. The result is
 * valid until the next walk. Returns 0, -jifl_err_nomem, or
 * -jifl_err_format when an instruction cannot be read or decoded
 * (-jifl_err_internal if libipt fails otherwise).
 */
int jifl_block_walk(struct jifl_walk_cache *c, struct pt_image_section_cache *isc,
		    const struct jifl_process *p, const struct pt_block *block,
		    struct jifl_walk *w);

#endif /* JIFL_DECODE_BLOCK_WALK_H */
