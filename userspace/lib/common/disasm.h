/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Intel-syntax disassembly of decoded instructions for the listings,
 * with Zydis, through a cache: a trace runs the same instructions over
 * and over, and formatting one costs more than decoding its trace. An
 * entry is reused only for the same address, the same bytes (JIT code
 * changes under the same address) and the same symbols. A branch target
 * is followed by its function, "jmp 0x401126 <main+0x10>", through a
 * hook on the formatter (set up once).
 */
#ifndef JIFL_DECODE_DISASM_H
#define JIFL_DECODE_DISASM_H

#include <stdint.h>
#include <intel-pt.h>

#include "symtab.h"

struct jifl_disasm;

/* Returns 0 or -jifl_err_nomem. */
int jifl_disasm_new(struct jifl_disasm **dp);
void jifl_disasm_free(struct jifl_disasm *d);

/*
 * The text of @insn ("(bad)" where Zydis does not decode its bytes),
 * branch targets named from @syms (NULL: none), valid until the next
 * call; its length in @len.
 */
const char *jifl_disasm(struct jifl_disasm *d, const struct pt_insn *insn,
			struct jifl_symtab *syms, size_t *len);

#endif /* JIFL_DECODE_DISASM_H */
