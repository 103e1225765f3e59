/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The code loads that show a versioned JIT image (jit_image.h) to perf,
 * for a jitdump (jitdump_writer.h) that "perf inject --jit" turns into MMAP2
 * records: one load for each version of a page, but none for a version
 * equal to the load before it.
 *
 * perf keeps a load mapped until another mapping covers its addresses,
 * and its Intel PT decoder decodes the trace up to a record's time
 * before it applies the record: code runs right only if its load is
 * mapped by the last timestamp before it in the trace. A version is
 * therefore loaded as early as nothing else can run at its page: just
 * after its page's previous version ended (no code of the page runs
 * between a FlowJIT WRITE and the next EXEC), or just after the
 * last mapping of the page perf knows of (a barrier) when that came
 * later and left the page to FlowJIT (anonymous memory); otherwise at
 * its own start. Versions of one page that follow each other within one
 * interval between two timestamps of the trace cannot be told apart
 * that way: perf decodes that interval with one of them.
 *
 * An instruction near the end of a page may reach into the next one:
 * perf reads it from the load of its first byte, so a load carries the
 * next page's first bytes (its tail) as they were when its version
 * started, and each version of the next page that starts while it runs
 * loads it again with the new bytes.
 */
#ifndef JIFL_JIT_LOADS_H
#define JIFL_JIT_LOADS_H

#include <stddef.h>
#include <stdint.h>

#include "jit_image.h"
#include "perf/perf_reader.h"
#include "perf/tsc_conv.h"

/* Bytes an instruction that starts on a page can reach past its end. */
#define JIFL_JIT_LOAD_TAIL	15

/*
 * perf maps something else at [start, end) of process @pid from @time
 * on. @untracked: code may run there without FlowJIT snapshots (a
 * file's text, an address space a new process took over), so a version
 * that follows it is not loaded before its own start.
 */
struct jifl_jit_barrier {
	uint32_t pid;
	int untracked;
	uint64_t start, end;
	uint64_t time;		/* perf time */
};

struct jifl_jit_load {
	const struct jifl_jit_version *v;
	uint64_t tsc;		/* perf is to map it from this TSC on */
	unsigned int reload;	/* 0, or n: @v's n-th load again, for a new tail */
	size_t tail_size;	/* bytes of @tail: 0 without a next page then */
	uint8_t tail[JIFL_JIT_LOAD_TAIL];
};

/*
 * The barriers of a perf.data's side band: its MMAP2 records (files are
 * untracked; anonymous memory and memfds, which perf inject --jit drops
 * in a process with a jitdump, are not), an execve (COMM exec) and a
 * new process (FORK, untracked: it runs its parent's code), the last
 * two over the whole address space. Returns 0 and an array in *@b
 * (free() it), or -jifl_err_nomem.
 */
int jifl_jit_loads_barriers(const struct jifl_perf_reader *r,
			    struct jifl_jit_barrier **b, size_t *nr);

/*
 * Plan the loads of @img for @nr_b barriers @b, @tc converting TSC to
 * perf time. Returns 0 and an array in *@loads (free() it) ordered by
 * process, then time, then address, or -jifl_err_nomem. The loads
 * point into @img.
 */
int jifl_jit_loads_plan(const struct jifl_jit_image *img,
			const struct jifl_jit_barrier *b, size_t nr_b,
			const struct jifl_tsc_conv *tc,
			struct jifl_jit_load **loads, size_t *nr);

#endif /* JIFL_JIT_LOADS_H */
