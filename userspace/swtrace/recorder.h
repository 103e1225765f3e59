/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Turns what the tracer sees (executed instructions, exits from user
 * space, new threads and mappings) into Intel PT packets, side-band
 * records in a perf.data file, and ground truth. Packets go to one
 * stream per thread, as perf's per-thread mode records them, or per CPU
 * (perf's default) for threads that the tracer places on virtual CPUs,
 * with context-switch records saying which thread ran where.
 */
#ifndef JIFL_RECORDER_H
#define JIFL_RECORDER_H

#include <stdbool.h>
#include <stdint.h>

#include "insn.h"
#include "maps.h"
#include "perf/perf_writer.h"
#include "pt_stream.h"
#include "truth.h"

struct jifl_recorder_opts {
	const char *output;	/* perf.data path */
	const char *truth;	/* ground truth path, or NULL */
	uint64_t psb_period;	/* bytes of packets between PSB+ */
	uint64_t tsc_every;	/* TSC ticks before a new TSC packet is due */
	uint32_t pmu_type;	/* intel_pt PMU type to record */
	bool ret_compression;	/* compress returns to TNT bits (no noretcomp) */
	const char *buildid_dir;	/* perf's build-id cache, or NULL: none */
	uint32_t nr_cpus;	/* per-CPU trace of so many CPUs; 0: per-thread */
	/* Per CPU: the switch records, JIFL_SCHED_SWITCH_CPU_WIDE or _TASK. */
	enum jifl_intel_pt_sched_switch sched_switch;
};

/* Most CPUs of a per-CPU trace (a thread keeps a bit per CPU it ran on). */
#define JIFL_RECORDER_MAX_CPUS	64

struct jifl_recorder;
struct jifl_rthread;

/* An AUXTRACE queue and its packet stream: a thread's, or a CPU's. */
struct jifl_rqueue {
	struct jifl_recorder *r;
	uint32_t idx;
	uint32_t tid;		/* what its AUXTRACE records name */
	int cpu;		/* -1: a thread's */
	struct jifl_pt_stream pt;
	struct jifl_rthread *curr;	/* a CPU's: the thread on it, NULL: idle */
	bool started;		/* a CPU's: its ITRACE_START is written */
};

/* A traced thread. */
struct jifl_rthread {
	struct jifl_recorder *r;
	uint32_t tid;
	uint32_t ptid;		/* the thread that made it (itself for the first) */
	struct jifl_rqueue *q;	/* where its packets go; NULL: on no CPU */
	struct jifl_rqueue *own;	/* per-thread: its own queue */
	uint64_t cpus_run;	/* per CPU: a bit for each CPU it has run on */
	bool entered;		/* its system call's packets are written (_block()) */
};

struct jifl_recorder {
	struct jifl_recorder_opts opts;
	struct jifl_perf_writer *writer;
	struct jifl_truth truth;
	struct jifl_maps maps;
	struct jifl_tsc_conv tc;
	uint32_t pid;
	struct jifl_rthread **threads;	/* live ones */
	size_t nr_threads, cap_threads;
	uint32_t nr_queues;
	struct jifl_rqueue *cpus;	/* per CPU: one queue each */
	uint64_t switches;	/* context switches between threads */
	uint64_t insns;		/* instructions recorded */
	uint64_t leaves;	/* asynchronous exits (faults, signals) */
	uint64_t bytes;		/* bytes of packets */
	const char *bad_path;	/* the file jifl_recorder_open() could not create */
	/* The first failure to keep the vDSO (lib/perf/buildid_cache.h). */
	int vdso_err;
};

/*
 * Create the output files; nothing runs yet. Files that are there are
 * truncated only once every output file can be written; on failure the
 * files this call created are removed again, and
 * r->bad_path names the one that could not be written.
 */
int jifl_recorder_open(struct jifl_recorder *r, const struct jifl_recorder_opts *opts);

/* The program @pid has just been exec'ed: COMM, MMAP2s, its first thread. */
int jifl_recorder_start(struct jifl_recorder *r, uint32_t pid, uint64_t tsc,
			struct jifl_rthread **pth);

/* Thread @ptid made thread @tid: FORK, ITRACE_START, a new stream. */
int jifl_recorder_thread_new(struct jifl_recorder *r, uint32_t ptid,
			     uint32_t tid, uint64_t tsc, struct jifl_rthread **pth);

/* Attached to the running process @pid: COMM, MMAP2s; no thread yet. */
int jifl_recorder_attach(struct jifl_recorder *r, uint32_t pid, uint64_t tsc);

/* Thread @tid of the attached process: COMM and FORK as perf synthesizes. */
int jifl_recorder_thread_found(struct jifl_recorder *r, uint32_t tid,
			       uint64_t tsc, struct jifl_rthread **pth);

/*
 * @th stopped being traced before @ip (0: after a system call); an EXIT
 * record when it @exited (not when detached). Per CPU, its CPU idles.
 * Frees @th.
 */
int jifl_recorder_thread_end(struct jifl_rthread *th, uint64_t ip, bool exited,
			     uint64_t tsc);

/*
 * @insn ran in @th and control went on to @next; @faulted when it took
 * a page fault first; @tsc read right after it ran.
 */
int jifl_recorder_insn(struct jifl_rthread *th, const struct jifl_insn *insn,
		       uint64_t next, bool faulted, uint64_t tsc);

/* Control left user space asynchronously before the instruction at @ip. */
int jifl_recorder_leave(struct jifl_rthread *th, uint64_t ip, uint64_t tsc);

/*
 * Per CPU: from now on @th (NULL: no thread, the CPU idles) runs on CPU
 * @cpu, after the thread there, if any (@preempt: which could have run
 * on), left user space (jifl_recorder_leave(), _block(), or a system
 * call) or ended. Writes the switch records, ITRACE_START the first time
 * the CPU runs a thread, and the packets of enabling the trace: a PSB+
 * the first time @th runs there (the kernel resets the PSB counter for a
 * new event), else a TSC packet.
 */
int jifl_recorder_switch(struct jifl_recorder *r, uint32_t cpu, struct jifl_rthread *th,
			 bool preempt, uint64_t tsc);

/*
 * Per CPU: @th blocks in the system call @insn, which has not returned:
 * write its packets now, before it leaves its CPU; when it returns,
 * jifl_recorder_insn() records it without packets.
 */
int jifl_recorder_block(struct jifl_rthread *th, const struct jifl_insn *insn,
			uint64_t tsc);

/* The program exec'ed a new image: COMM, MMAP2s for all its mappings. */
int jifl_recorder_exec(struct jifl_recorder *r, uint64_t tsc);

/* Mappings may have changed (mmap, mprotect...): MMAP2 for new ones. */
int jifl_recorder_rescan(struct jifl_recorder *r, uint64_t tsc);

/* The program is gone: the last trace data, features; closes the files. */
int jifl_recorder_finish(struct jifl_recorder *r, uint64_t tsc);

/* Free everything after a failure; the files stay as they are. */
void jifl_recorder_abort(struct jifl_recorder *r);

#endif /* JIFL_RECORDER_H */
