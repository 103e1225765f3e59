/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Read a perf.data file of an Intel PT session ("perf record -e
 * intel_pt//u", or jifl-swtrace): the header and attributes, the side-band
 * records a decoder needs (MMAP2, COMM, FORK/EXIT, ITRACE_START,
 * SWITCH, SWITCH_CPU_WIDE, AUXTRACE_INFO, TIME_CONV), the build IDs of
 * the BUILD_ID feature, and the trace itself, gathered into one buffer
 * per AUXTRACE queue (per thread in per-thread mode, per CPU in per-CPU
 * mode).
 *
 * Every size and offset is checked against the file: a truncated or
 * corrupted file gives an error and a byte offset, never a bad read. A
 * file the recorder did not finish (data size 0 in the header) is read
 * up to its end (struct jifl_perf_info, @unfinished).
 *
 * Files written to a pipe ("perf record -o -") and compressed ones
 * ("perf record -z", PERF_RECORD_COMPRESSED and _COMPRESSED2) are read
 * as perf reads them. What the recording lost is counted (struct
 * jifl_perf_info), and where the trace lost data, its queue has a gap.
 */
#ifndef JIFL_PERF_READER_H
#define JIFL_PERF_READER_H

#include <stddef.h>
#include <stdint.h>

#include "perf_data.h"
#include "tsc_conv.h"

struct jifl_perf_reader;

/* What the session's AUXTRACE_INFO and TIME_CONV records say. */
struct jifl_perf_info {
	uint64_t pt_config;		/* intel_pt attr.config */
	uint32_t pt_pmu_type;
	/*
	 * AUXTRACE_INFO's timing fields, 0 where the recorder did not write
	 * them: the attr.config masks of MTC and of its period
	 * (IA32_RTIT_CTL.MTCFreq), CPUID leaf 0x15 (TSC/CTC ratio
	 * @tsc_ctc_n / @tsc_ctc_d: EBX / EAX) and MSR_PLATFORM_INFO's
	 * maximum non-turbo ratio (libipt's nominal frequency).
	 */
	uint64_t mtc_bit, mtc_freq_bits;
	uint32_t tsc_ctc_n, tsc_ctc_d;
	uint32_t max_nonturbo_ratio;
	/* The CPUID header feature ("GenuineIntel,6,142,10"); NULL: none. */
	const char *cpuid;
	struct jifl_tsc_conv tc;	/* TSC -> perf time */
	int have_time_conv;
	/*
	 * The header's data size was 0: the recorder did not finish the
	 * file (perf writes the size last), so the data was read up to the
	 * end of the file; @cut_at: the file offset of a last record that
	 * the end of the file cut off (its trace data kept as far as it
	 * goes), else 0.
	 */
	int unfinished;
	uint64_t cut_at;
	/*
	 * The events' sample_type and sample_id_all (the same for all, as
	 * perf requires): the layout of side-band records' trailers; the
	 * first id of the event that records side-band (attr.mmap), else
	 * of the first event, for records added to the file. @use_clockid:
	 * an event has attr.use_clockid (perf record -k): times are of that
	 * clock, not the TSC's conversion.
	 */
	uint64_t sample_type;
	int sample_id_all;
	uint64_t sideband_id;
	int use_clockid;
	/*
	 * AUXTRACE_INFO's per_cpu_mmaps (a queue per CPU, perf record's
	 * default) and have_sched_switch (enum jifl_intel_pt_sched_switch:
	 * which records say what ran on each CPU).
	 */
	int per_cpu_mmaps;
	uint32_t have_sched_switch;
	/*
	 * What the recording lost, for the user to be told. PERF_RECORD_AUX
	 * records (@aux_records) with the PERF_AUX_FLAG_ TRUNCATED flag
	 * (@aux_lost: the trace stopped at its end, a gap in its queue
	 * there), COLLISION (@aux_collisions: data lost in it, a gap at its
	 * start), PARTIAL (@aux_partial) and OVERWRITE (@aux_overwritten:
	 * a snapshot's older data overwritten); PERF_RECORD_LOST
	 * (@lost_chunks of them, @lost_records records lost in all) and
	 * _LOST_SAMPLES (@lost_samples).
	 */
	uint64_t aux_records, aux_lost, aux_collisions, aux_partial, aux_overwritten;
	uint64_t lost_records, lost_chunks, lost_samples;
	/* Written to a pipe; COMPRESSED records read. */
	int pipe;
	uint64_t compressed;
};

/* A side-band record, with its time (perf time, ns; 0 if none). */
struct jifl_perf_map {
	struct jifl_perf_mmap2 m;	/* filename points into the file */
	uint64_t time;
};

struct jifl_perf_task {
	uint32_t type;			/* PERF_RECORD_COMM, _FORK, _EXIT, _ITRACE_START */
	uint32_t pid, tid;
	const char *comm;		/* PERF_RECORD_COMM only */
	int exec;			/* COMM of an execve */
	uint64_t time;
	uint32_t cpu;			/* of its sample id; (uint32_t)-1: none */
};

/* A context switch record (in file order), with its sample id's CPU and time. */
struct jifl_perf_switch_rec {
	struct jifl_perf_switch sw;
	uint32_t cpu;			/* (uint32_t)-1: none */
	uint64_t time;
};

/* A BUILD_ID feature entry: the build ID perf recorded for a DSO. */
struct jifl_perf_build_id {
	const char *filename;		/* points into the file; "[vdso]" for the vDSO */
	int32_t pid;			/* the machine: -1 for the host */
	uint16_t cpumode;		/* PERF_RECORD_MISC_USER, _KERNEL, ... */
	uint8_t size;
	uint8_t id[20];
};

/* One AUXTRACE queue: its buffers joined in offset order. */
struct jifl_perf_queue {
	uint32_t idx;
	uint32_t pid, tid;		/* tid of its AUXTRACE records; pid from side-band */
	uint32_t cpu;
	const uint8_t *data;
	size_t size;
	uint32_t nr_buffers;
	/*
	 * Where trace data was lost: where a buffer does not follow the
	 * previous one, or an AUX record's flags say so (perf_queues.h);
	 * @gaps offsets in @data, ascending, each once, none at either end.
	 */
	uint32_t gaps;
	const uint64_t *gap_at;
};

/*
 * Open and read @path. Returns 0 and the reader in @rp, or a negative
 * jifl_error_code: a system error (errcode.h), -jifl_err_format (not a
 * perf.data file, or a record that makes no sense),
 * -jifl_err_truncated, -jifl_err_nosupp (no Intel PT trace in it),
 * -jifl_err_nomem. On -jifl_err_format and -jifl_err_truncated,
 * @bad_offset (if not NULL) is set to the file offset of the bad part.
 */
int jifl_perf_reader_open(struct jifl_perf_reader **rp, const char *path,
			  uint64_t *bad_offset);

const struct jifl_perf_info *jifl_perf_reader_info(const struct jifl_perf_reader *r);

size_t jifl_perf_reader_nr_maps(const struct jifl_perf_reader *r);
const struct jifl_perf_map *jifl_perf_reader_map(const struct jifl_perf_reader *r,
						 size_t i);

size_t jifl_perf_reader_nr_tasks(const struct jifl_perf_reader *r);
const struct jifl_perf_task *jifl_perf_reader_task(const struct jifl_perf_reader *r,
						   size_t i);

size_t jifl_perf_reader_nr_switches(const struct jifl_perf_reader *r);
const struct jifl_perf_switch_rec *jifl_perf_reader_switch(const struct jifl_perf_reader *r,
							   size_t i);

size_t jifl_perf_reader_nr_build_ids(const struct jifl_perf_reader *r);
const struct jifl_perf_build_id *jifl_perf_reader_build_id(const struct jifl_perf_reader *r,
							   size_t i);

size_t jifl_perf_reader_nr_queues(const struct jifl_perf_reader *r);
const struct jifl_perf_queue *jifl_perf_reader_queue(const struct jifl_perf_reader *r,
						     size_t i);

/* The command name of thread @tid at perf time @time ("" if unknown). */
const char *jifl_perf_reader_comm(const struct jifl_perf_reader *r, uint32_t tid,
				  uint64_t time);

void jifl_perf_reader_close(struct jifl_perf_reader *r);

#endif /* JIFL_PERF_READER_H */
