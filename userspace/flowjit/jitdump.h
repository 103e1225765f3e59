/* SPDX-License-Identifier: GPL-2.0 */
/*
 * flowjit jitdump: a FlowJIT recording as perf jitdump files, and a copy
 * of the run's perf.data with the markers that make "perf inject --jit"
 * read them.
 */
#ifndef FLOWJIT_JITDUMP_H
#define FLOWJIT_JITDUMP_H

struct fj_jitdump_opts {
	const char *input;	/* the FlowJIT data file */
	const char *perf_in;	/* the perf.data of the same run */
	const char *perf_out;	/* its copy with the markers */
	const char *dir;	/* where jit-PID.dump go (perf inject writes its ELF files there) */
	int quiet;
};

/* Returns the exit status. */
int fj_jitdump(const struct fj_jitdump_opts *o);

#endif /* FLOWJIT_JITDUMP_H */
