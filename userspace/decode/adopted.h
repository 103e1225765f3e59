/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The JIT page versions one thread's decoding chose ahead of the TSC
 * (process.c, Documentation/decode.rst "Which code version"): a version
 * once chosen stays chosen for its page until time moves past it, so
 * none may be forgotten. A hash table of page -> version that grows with
 * the pages that had one chosen.
 */
#ifndef JIFL_DECODE_ADOPTED_H
#define JIFL_DECODE_ADOPTED_H

#include <stddef.h>
#include <stdint.h>

#include "flowjit/jit_image.h"

struct jifl_adopted {
	uint64_t page;
	const struct jifl_jit_version *v;	/* NULL: a free slot */
};

struct jifl_adopted_table {
	struct jifl_adopted *slot;
	size_t size, used;			/* size: 0 or a power of two */
};

/* The version chosen for @page, or NULL. */
const struct jifl_jit_version *jifl_adopted_get(const struct jifl_adopted_table *t,
						uint64_t page);

/* Choose @v (not NULL) for @page. Returns 0 or -jifl_err_nomem. */
int jifl_adopted_put(struct jifl_adopted_table *t, uint64_t page,
		     const struct jifl_jit_version *v);

/* Forget every choice (a new thread's trace); the memory stays. */
void jifl_adopted_clear(struct jifl_adopted_table *t);

void jifl_adopted_fini(struct jifl_adopted_table *t);

#endif /* JIFL_DECODE_ADOPTED_H */
