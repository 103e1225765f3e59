/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Which thread ran on which CPU when, in a per-CPU trace, read as perf's
 * Intel PT decoder reads it (tools/perf/util/intel-pt.c,
 * intel_pt_context_switch() and intel_pt_process_itrace_start()): from
 * a record's time on, its CPU runs
 *  - with CPU-wide switch records (have_sched_switch 3), the task a
 *    switch-out names (next_prev), or the one a switch-in is of;
 *  - with the traced tasks' switch records (2, or none), the task a
 *    switch-in is of; switch-outs say nothing;
 *  - the task of an ITRACE_START, where the buffers are per CPU.
 * An instruction belongs to the thread that ran on its CPU at its time:
 * records at the same time as an instruction come before it, as perf
 * processes the side band up to a time before the trace at that time.
 */
#ifndef JIFL_DECODE_CPU_THREADS_H
#define JIFL_DECODE_CPU_THREADS_H

#include <stdint.h>

#include "perf/perf_reader.h"

struct jifl_cpu_threads;

/* Returns 0 or -jifl_err_nomem. */
int jifl_cpu_threads_new(struct jifl_cpu_threads **cp, const struct jifl_perf_reader *r);
void jifl_cpu_threads_free(struct jifl_cpu_threads *c);

/* Whether the trace says what ran on its CPUs at all. */
int jifl_cpu_threads_any(const struct jifl_cpu_threads *c);

/*
 * The thread that ran on @cpu at perf time @time, in *@pid and *@tid;
 * returns 0, or -1 (both left alone) when no record says so yet.
 */
int jifl_cpu_threads_at(const struct jifl_cpu_threads *c, uint32_t cpu, uint64_t time,
			uint32_t *pid, uint32_t *tid);

#endif /* JIFL_DECODE_CPU_THREADS_H */
