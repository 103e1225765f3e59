/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The listing of the kernel's bbcount tool (module jifl_bbcount), which
 * /proc/jifl/tool gives while it is the active tool:
 *
 *   # count address bytes insns end symbol
 *   1000 0xffffffffa4e653c0 21 6 c __do_sys_getpid+0x0/0x20
 *   ...
 *   # blocks 51, not counted 0 (max_blocks 16384)
 *
 * one line per block that ran, in no order: how many times it ran, its
 * original address, bytes and instructions, how it ends (JIFL_BBCOUNT_ENDS)
 * and its symbol as the kernel's %pS prints it ("func+0xoff/0xsize",
 * " [module]" after it for a module's code).
 */
#ifndef JIFL_BBCOUNT_H
#define JIFL_BBCOUNT_H

#include <stddef.h>
#include <stdint.h>

#define JIFL_BBCOUNT_HEADER	"# count address bytes insns end symbol"

/*
 * How a block ends: a conditional branch, a call, a return, another
 * jump, none of those (it was cut, and goes on with the next block).
 */
#define JIFL_BBCOUNT_ENDS	"jcrg-"

struct jifl_bbcount_block {
	uint64_t count;
	uint64_t addr;
	uint32_t bytes;
	uint32_t insns;		/* original instructions */
	char end;		/* one of JIFL_BBCOUNT_ENDS */
	const char *symbol;	/* in the parsed text */
};

struct jifl_bbcount {
	struct jifl_bbcount_block *block;
	size_t n;
	uint64_t total;		/* the counts added up */
	uint64_t insns;		/* the original instructions they ran */
	/* the last line's */
	uint64_t blocks;	/* blocks the tool has a counter for */
	uint64_t not_counted;	/* blocks translated with none left */
	uint64_t max_blocks;	/* counters it has */
	/*
	 * -jifl_err_format: the line that is wrong (1 the first) and its
	 * text; NULL when the listing ends before its last line.
	 */
	size_t bad_nr;
	const char *bad_line;
};

/* Whether @text is a bbcount listing: its first line is the header. */
int jifl_bbcount_is(const char *text);

/*
 * Parse @text, which is split into lines in place (@bc points into it;
 * free both). Returns 0, -jifl_err_nomem, or -jifl_err_format with
 * bc->bad_nr and bc->bad_line set.
 */
int jifl_bbcount_parse(struct jifl_bbcount *bc, char *text);

/* Most run first; blocks run as often by address. */
void jifl_bbcount_sort(struct jifl_bbcount *bc);

void jifl_bbcount_free(struct jifl_bbcount *bc);

#endif /* JIFL_BBCOUNT_H */
