/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Turns what the tracer sees (executed instructions, exits from user
 * space, new threads and mappings) into Intel PT packets (one stream per
 * thread, as perf's per-thread mode records them), side-band records in
 * a perf.data file, and ground truth.
 */
#ifndef JIFL_RECORDER_H
#define JIFL_RECORDER_H

#include <stdbool.h>
#include <stdint.h>

#include "insn.h"
#include "maps.h"
#include "perf_writer.h"
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
};

struct jifl_recorder;

/* A traced thread: its own packet stream in its own AUXTRACE queue. */
struct jifl_rthread {
	struct jifl_recorder *r;
	uint32_t tid;
	uint32_t ptid;		/* the thread that made it (itself for the first) */
	uint32_t idx;		/* AUXTRACE queue */
	struct jifl_pt_stream pt;
};

struct jifl_recorder {
	struct jifl_recorder_opts opts;
	struct jifl_perf_writer *writer;
	struct jifl_truth truth;
	struct jifl_maps maps;
	struct jifl_tsc_conv tc;
	uint32_t pid;
	struct jifl_rthread **threads;	/* live ones */
	uint32_t nr_threads, nr_queues;
	uint64_t insns;		/* instructions recorded */
	uint64_t leaves;	/* asynchronous exits (faults, signals) */
	uint64_t bytes;		/* bytes of packets */
	const char *bad_path;	/* the file jifl_recorder_open() could not create */
	/* The first failure to keep the vDSO (lib/buildid_cache.h), and errno. */
	int vdso_err, vdso_errno;
};

/*
 * Create the output files; nothing runs yet. Files that are there are
 * truncated only once every output file can be written; on failure the
 * files this call created are removed again (errno stays), and
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
 * record when it @exited (not when detached). Frees @th.
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

/* The program exec'ed a new image: COMM, MMAP2s for all its mappings. */
int jifl_recorder_exec(struct jifl_recorder *r, uint64_t tsc);

/* Mappings may have changed (mmap, mprotect...): MMAP2 for new ones. */
int jifl_recorder_rescan(struct jifl_recorder *r, uint64_t tsc);

/* The program is gone: the last trace data, features; closes the files. */
int jifl_recorder_finish(struct jifl_recorder *r, uint64_t tsc);

/* Free everything after a failure; the files stay as they are. */
void jifl_recorder_abort(struct jifl_recorder *r);

#endif /* JIFL_RECORDER_H */
