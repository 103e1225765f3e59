/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The text of a listing line's columns that depend on the instruction
 * alone (thread and process ids, address, symbol, disassembly), kept by
 * address: a trace runs the same instructions again and again, and
 * formatting them costs more than decoding them. A key names everything
 * the text was made from, so that a hit is the text that would be made
 * again; what does not fit a slot is not kept.
 */
#ifndef JIFL_DECODE_LINE_CACHE_H
#define JIFL_DECODE_LINE_CACHE_H

#include <stddef.h>
#include <stdint.h>

struct jifl_line_key {
	uint64_t ip;
	uint64_t syms;		/* jifl_symtab_stamp() of the process's symbols */
	uint32_t jit;		/* JIT version number, 0: code from a file */
	uint32_t pid, tid;
	uint8_t mode;		/* pt_exec_mode */
	uint8_t size;
	uint8_t raw[15];	/* the instruction's bytes, zero after @size */
};

struct jifl_line_cache;

int jifl_line_cache_new(struct jifl_line_cache **cp);
void jifl_line_cache_free(struct jifl_line_cache *c);

/* The text kept for @key and its length in @len, or NULL. */
const char *jifl_line_cache_get(const struct jifl_line_cache *c,
				const struct jifl_line_key *key, size_t *len);

/* Keep @text for @key in place of what its slot held, if it fits. */
void jifl_line_cache_put(struct jifl_line_cache *c, const struct jifl_line_key *key,
			 const char *text, size_t len);

#endif /* JIFL_DECODE_LINE_CACHE_H */
