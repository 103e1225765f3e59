/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Write a perf.data file as "perf record -e intel_pt//u" writes it, for a
 * per-thread session (--per-thread) or a per-CPU one (the default): an
 * intel_pt event and a dummy:u tracking event (and, per CPU, a dummy:u
 * event on every CPU for CPU-wide context switches), the AUXTRACE_INFO
 * and TIME_CONV records, side-band records (COMM, MMAP2, FORK,
 * ITRACE_START, SWITCH, EXIT) and AUXTRACE records holding the packets,
 * then the feature sections perf's Intel PT decoder uses (including the
 * AUXTRACE index). Also records of lost data (AUX flags, LOST), and the
 * file as "perf record -z" compresses it or "-o -" writes it to a pipe.
 *
 * All times are given as TSC values and converted with the configured
 * struct jifl_tsc_conv, as the kernel converts its own time stamps.
 */
#ifndef JIFL_PERF_WRITER_H
#define JIFL_PERF_WRITER_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "perf_data.h"
#include "tsc_conv.h"

struct jifl_perf_writer;

struct jifl_perf_writer_config {
	uint32_t pt_pmu_type;	/* the intel_pt PMU type to name in attr.type */
	uint64_t pt_config;	/* intel_pt attr.config (JIFL_INTEL_PT_CFG_*) */
	struct jifl_tsc_conv tc;
	const char *cpuid;	/* CPUID feature (kept until close); NULL: this machine's */
	/* AUXTRACE_INFO's timing fields (0: unknown), as perf's: */
	uint32_t tsc_ctc_n, tsc_ctc_d;	/* CPUID leaf 0x15: EBX, EAX */
	uint32_t max_nonturbo_ratio;	/* MSR_PLATFORM_INFO[15:8] */
	/*
	 * A per-CPU session of @nr_cpus CPUs (0: per-thread), whose context
	 * switches come as @sched_switch says (JIFL_SCHED_SWITCH_TASK or
	 * _CPU_WIDE).
	 */
	uint32_t nr_cpus;
	enum jifl_intel_pt_sched_switch sched_switch;
	/*
	 * @pipe: the file as "perf record -o -" writes it to a pipe (a pipe
	 * header, then attributes, features and build IDs as records;
	 * nothing rewritten at close). @compress: the kernel's records
	 * (side-band, AUX, LOST) in PERF_RECORD_COMPRESSED records of one
	 * zstd stream at this level, as "perf record -z" writes them (0:
	 * none); @compressed2: as PERF_RECORD_COMPRESSED2 (perf 6.16 on).
	 */
	int pipe;
	int compress;
	int compressed2;
};

/* Create @path and write its header; returns 0 or -jifl_error_code. */
int jifl_perf_writer_open(struct jifl_perf_writer **pw, const char *path,
			  const struct jifl_perf_writer_config *cfg);

int jifl_perf_writer_comm(struct jifl_perf_writer *w, uint32_t pid,
			  uint32_t tid, const char *comm, int exec, uint64_t tsc);
int jifl_perf_writer_mmap2(struct jifl_perf_writer *w,
			   const struct jifl_perf_mmap2 *m, uint64_t tsc);
int jifl_perf_writer_itrace_start(struct jifl_perf_writer *w, uint32_t pid,
				  uint32_t tid, uint64_t tsc);
/* A new thread @tid of process @pid, made by thread @ptid. */
int jifl_perf_writer_fork(struct jifl_perf_writer *w, uint32_t pid,
			  uint32_t ppid, uint32_t tid, uint32_t ptid, uint64_t tsc);
int jifl_perf_writer_exit(struct jifl_perf_writer *w, uint32_t pid,
			  uint32_t ppid, uint32_t tid, uint32_t ptid, uint64_t tsc);

/*
 * The CPU that the sample ids of the records written from now on name;
 * -1 (the default): the one the writer runs on.
 */
void jifl_perf_writer_set_cpu(struct jifl_perf_writer *w, int cpu);

/* A context switch on the CPU jifl_perf_writer_set_cpu() named. */
int jifl_perf_writer_switch(struct jifl_perf_writer *w,
			    const struct jifl_perf_switch *sw, uint64_t tsc);

/* One buffer of trace data for the per-thread queue @idx (0, 1, ...) of @tid. */
int jifl_perf_writer_auxtrace(struct jifl_perf_writer *w, uint32_t idx,
			      uint32_t tid, const void *data, size_t size);

/* The same for queue @idx of CPU @cpu (-1: per-thread), @tid as perf names it. */
int jifl_perf_writer_auxtrace_cpu(struct jifl_perf_writer *w, uint32_t idx,
				  uint32_t tid, int cpu, const void *data, size_t size);

/*
 * @bytes of the trace of queue @idx, which has had a buffer, were lost
 * (as perf loses data when its buffer is full): the next buffer does not
 * follow the previous one. Returns 0 or -jifl_err_invalid.
 */
int jifl_perf_writer_aux_lost(struct jifl_perf_writer *w, uint32_t idx, uint64_t bytes);

/* Bytes of queue @idx's trace so far (its next AUXTRACE buffer's offset). */
uint64_t jifl_perf_writer_aux_offset(const struct jifl_perf_writer *w, uint32_t idx);

/*
 * PERF_RECORD_AUX of the intel_pt event of thread @pid/@tid (on the CPU
 * jifl_perf_writer_set_cpu() named): the kernel wrote @size bytes at
 * @offset of the AUX area, with PERF_AUX_FLAG_* @flags (TRUNCATED: the
 * trace stopped there, the buffer being full).
 */
int jifl_perf_writer_aux(struct jifl_perf_writer *w, uint32_t pid, uint32_t tid,
			 uint64_t offset, uint64_t size, uint64_t flags, uint64_t tsc);

/* PERF_RECORD_LOST: @lost records of the side-band lost. */
int jifl_perf_writer_lost(struct jifl_perf_writer *w, uint64_t lost, uint64_t tsc);

/* PERF_RECORD_LOST_SAMPLES: @lost samples lost. */
int jifl_perf_writer_lost_samples(struct jifl_perf_writer *w, uint64_t lost, uint64_t tsc);

/* The build ID of a DSO @filename (once per name), for the BUILD_ID feature. */
int jifl_perf_writer_build_id(struct jifl_perf_writer *w, const char *filename,
			      const uint8_t *id, size_t size);

/* Tell perf that all records so far may be sorted and processed. */
int jifl_perf_writer_round(struct jifl_perf_writer *w);

/* Write the features and the final header, close and free @w. */
int jifl_perf_writer_close(struct jifl_perf_writer *w);

/* Free @w without finishing the file. */
void jifl_perf_writer_free(struct jifl_perf_writer *w);

#endif /* JIFL_PERF_WRITER_H */
