/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The perf.data file format (tools/perf/Documentation/perf.data-file-format.txt):
 * the parts JIFL writes and reads. Kernel record layouts come from
 * <linux/perf_event.h>; the records perf itself adds are defined here.
 */
#ifndef JIFL_PERF_DATA_H
#define JIFL_PERF_DATA_H

#include <linux/perf_event.h>
#include <stdint.h>

#define JIFL_PERF_MAGIC		0x32454c4946524550ULL	/* "PERFILE2" */
#define JIFL_PERF_FEAT_BITS	256
#define JIFL_PERF_NAME_ALIGN	64

struct jifl_perf_section {
	uint64_t offset;
	uint64_t size;
};

struct jifl_perf_file_header {
	uint64_t magic;
	uint64_t size;			/* of this header */
	uint64_t attr_size;		/* of one struct jifl_perf_file_attr */
	struct jifl_perf_section attrs;
	struct jifl_perf_section data;
	struct jifl_perf_section event_types;	/* unused, zero */
	uint64_t features[JIFL_PERF_FEAT_BITS / 64];
};

struct jifl_perf_file_attr {
	struct perf_event_attr attr;
	struct jifl_perf_section ids;	/* array of u64 sample ids */
};

/* Feature sections (bit numbers in features[]). */
enum jifl_perf_feature {
	JIFL_PERF_FEAT_BUILD_ID		= 2,
	JIFL_PERF_FEAT_HOSTNAME		= 3,
	JIFL_PERF_FEAT_OSRELEASE	= 4,
	JIFL_PERF_FEAT_VERSION		= 5,
	JIFL_PERF_FEAT_ARCH		= 6,
	JIFL_PERF_FEAT_NRCPUS		= 7,
	JIFL_PERF_FEAT_CPUDESC		= 8,
	JIFL_PERF_FEAT_CPUID		= 9,
	JIFL_PERF_FEAT_CMDLINE		= 11,
	JIFL_PERF_FEAT_EVENT_DESC	= 12,
	JIFL_PERF_FEAT_PMU_MAPPINGS	= 16,
	JIFL_PERF_FEAT_AUXTRACE		= 18,
	JIFL_PERF_FEAT_COMPRESSED	= 27,
};

/*
 * A file written to a pipe ("perf record -o -") starts with this header
 * alone (@size: its own); the attributes, features and build IDs come
 * as records (PERF_RECORD_HEADER_ATTR, _HEADER_FEATURE, _HEADER_BUILD_ID).
 */
struct jifl_perf_pipe_header {
	uint64_t magic;
	uint64_t size;
};

/* header.misc of a BUILD_ID feature entry: the size field is valid. */
#define JIFL_PERF_MISC_BUILD_ID_SIZE	(1 << 15)

/* Record types perf adds to the kernel's (PERF_RECORD_USER_TYPE_START on). */
enum jifl_perf_user_record {
	JIFL_PERF_RECORD_HEADER_ATTR	= 64,
	JIFL_PERF_RECORD_HEADER_BUILD_ID	= 67,
	JIFL_PERF_RECORD_FINISHED_ROUND	= 68,
	JIFL_PERF_RECORD_AUXTRACE_INFO	= 70,
	JIFL_PERF_RECORD_AUXTRACE	= 71,
	JIFL_PERF_RECORD_TIME_CONV	= 79,
	JIFL_PERF_RECORD_HEADER_FEATURE	= 80,
	JIFL_PERF_RECORD_COMPRESSED	= 81,
	JIFL_PERF_RECORD_COMPRESSED2	= 83,
};

/* PERF_RECORD_HEADER_ATTR: an attribute (attr.size bytes), then its u64 ids. */
struct jifl_perf_header_attr {
	struct perf_event_header header;
	struct perf_event_attr attr;
};

/* PERF_RECORD_HEADER_FEATURE: a feature section's bytes as a record. */
struct jifl_perf_header_feature {
	struct perf_event_header header;
	uint64_t feat_id;
	uint8_t data[];
};

/*
 * PERF_RECORD_COMPRESSED: zstd output of one stream that runs through
 * all of them, which decompresses into records ("perf record -z").
 * header.size need not be a multiple of 8: the records after it may be
 * unaligned. _COMPRESSED2 pads to 8 bytes and says how many are data.
 */
struct jifl_perf_compressed2 {
	struct perf_event_header header;
	uint64_t data_size;
	uint8_t data[];
};

/* The COMPRESSED feature: what "perf record -z" used. */
struct jifl_perf_comp_feature {
	uint32_t version;		/* 0 */
	uint32_t type;			/* JIFL_PERF_COMP_ZSTD */
	uint32_t level;
	uint32_t ratio;
	uint32_t mmap_len;		/* of a decompressed chunk */
};

#define JIFL_PERF_COMP_ZSTD	1

/* PERF_RECORD_AUXTRACE_INFO type for Intel PT, and its priv[] indices. */
#define JIFL_PERF_AUXTRACE_INTEL_PT	1

enum jifl_intel_pt_info {
	JIFL_INTEL_PT_PMU_TYPE,
	JIFL_INTEL_PT_TIME_SHIFT,
	JIFL_INTEL_PT_TIME_MULT,
	JIFL_INTEL_PT_TIME_ZERO,
	JIFL_INTEL_PT_CAP_USER_TIME_ZERO,
	JIFL_INTEL_PT_TSC_BIT,
	JIFL_INTEL_PT_NORETCOMP_BIT,
	JIFL_INTEL_PT_HAVE_SCHED_SWITCH,
	JIFL_INTEL_PT_SNAPSHOT_MODE,
	JIFL_INTEL_PT_PER_CPU_MMAPS,
	JIFL_INTEL_PT_MTC_BIT,
	JIFL_INTEL_PT_MTC_FREQ_BITS,
	JIFL_INTEL_PT_TSC_CTC_N,
	JIFL_INTEL_PT_TSC_CTC_D,
	JIFL_INTEL_PT_CYC_BIT,
	JIFL_INTEL_PT_MAX_NONTURBO_RATIO,
	JIFL_INTEL_PT_FILTER_STR_LEN,
	JIFL_INTEL_PT_INFO_MAX,
};

/*
 * AUXTRACE_INFO's have_sched_switch: how a per-CPU trace says which
 * thread ran (perf's arch/x86/util/intel-pt.c): PERF_RECORD_SWITCH of
 * the traced tasks' events, or PERF_RECORD_SWITCH_CPU_WIDE of a dummy
 * event on every CPU (perf's choice where it may open one).
 */
enum jifl_intel_pt_sched_switch {
	JIFL_SCHED_SWITCH_NONE		= 0,
	JIFL_SCHED_SWITCH_TRACEPOINT	= 1,
	JIFL_SCHED_SWITCH_TASK		= 2,
	JIFL_SCHED_SWITCH_CPU_WIDE	= 3,
};

/* intel_pt PMU config bits (its sysfs "format" directory). */
#define JIFL_INTEL_PT_CFG_PT		(1ULL << 0)
#define JIFL_INTEL_PT_CFG_CYC		(1ULL << 1)
#define JIFL_INTEL_PT_CFG_MTC		(1ULL << 9)
#define JIFL_INTEL_PT_CFG_TSC		(1ULL << 10)
#define JIFL_INTEL_PT_CFG_NORETCOMP	(1ULL << 11)
#define JIFL_INTEL_PT_CFG_BRANCH	(1ULL << 13)
#define JIFL_INTEL_PT_CFG_MTC_PERIOD	(0xfULL << 14)	/* IA32_RTIT_CTL.MTCFreq */
#define JIFL_INTEL_PT_CFG_PSB_SHIFT	24

struct jifl_perf_auxtrace_info {
	struct perf_event_header header;
	uint32_t type;
	uint32_t reserved;
	uint64_t priv[JIFL_INTEL_PT_INFO_MAX];
};

/* Followed by @size bytes of trace data; header.size excludes them. */
struct jifl_perf_auxtrace {
	struct perf_event_header header;
	uint64_t size;
	uint64_t offset;
	uint64_t reference;
	uint32_t idx;
	uint32_t tid;
	uint32_t cpu;
	uint32_t reserved;
};

struct jifl_perf_time_conv {
	struct perf_event_header header;
	uint64_t time_shift;
	uint64_t time_mult;
	uint64_t time_zero;
	uint64_t time_cycles;
	uint64_t time_mask;
	uint8_t cap_user_time_zero;
	uint8_t cap_user_time_short;
	uint8_t reserved[6];
};

/* PERF_RECORD_COMM: followed by the name, '\0'-padded to 8 bytes. */
struct jifl_perf_comm_event {
	struct perf_event_header header;
	uint32_t pid, tid;
	char comm[];
};

/* PERF_RECORD_MMAP2: followed by the file name, '\0'-padded to 8 bytes. */
struct jifl_perf_mmap2_event {
	struct perf_event_header header;
	uint32_t pid, tid;
	uint64_t addr, len, pgoff;
	uint32_t maj, min;
	uint64_t ino, ino_generation;
	uint32_t prot, flags;
	char filename[];
};

/* PERF_RECORD_FORK and PERF_RECORD_EXIT. */
struct jifl_perf_task_event {
	struct perf_event_header header;
	uint32_t pid, ppid, tid, ptid;
	uint64_t time;
};

/* PERF_RECORD_ITRACE_START. */
struct jifl_perf_itrace_start_event {
	struct perf_event_header header;
	uint32_t pid, tid;
};

/*
 * An entry of the BUILD_ID feature (perf's perf_record_header_build_id):
 * followed by the DSO's name, '\0'-padded to JIFL_PERF_NAME_ALIGN bytes.
 * @size is valid where header.misc has JIFL_PERF_MISC_BUILD_ID_SIZE;
 * older files have 20-byte IDs only.
 */
struct jifl_perf_build_id_event {
	struct perf_event_header header;
	int32_t pid;			/* the machine: -1 for the host */
	uint8_t data[20];
	uint8_t size;
	uint8_t reserved[3];
	char filename[];
};

/* PERF_RECORD_AUX: the kernel wrote AUX data (flags: PERF_AUX_FLAG_*). */
struct jifl_perf_aux_event {
	struct perf_event_header header;
	uint64_t aux_offset;
	uint64_t aux_size;
	uint64_t flags;
};

/* PERF_RECORD_LOST: @lost records of event @id lost (ring buffer full). */
struct jifl_perf_lost_event {
	struct perf_event_header header;
	uint64_t id;
	uint64_t lost;
};

/* PERF_RECORD_LOST_SAMPLES: @lost samples dropped. */
struct jifl_perf_lost_samples_event {
	struct perf_event_header header;
	uint64_t lost;
};

/* PERF_RECORD_SWITCH_CPU_WIDE; PERF_RECORD_SWITCH is the header alone. */
struct jifl_perf_switch_cpu_wide_event {
	struct perf_event_header header;
	uint32_t next_prev_pid, next_prev_tid;
};

/*
 * A context switch record in memory. @pid and @tid are its sample id's:
 * the task switched out (PERF_RECORD_MISC_SWITCH_OUT in @misc) or in;
 * a CPU-wide record also names the task switched to (out) or from (in).
 * The idle task is pid 0, tid 0.
 */
struct jifl_perf_switch {
	uint32_t type;			/* PERF_RECORD_SWITCH or _SWITCH_CPU_WIDE */
	uint16_t misc;			/* PERF_RECORD_MISC_SWITCH_OUT[_PREEMPT] */
	uint32_t pid, tid;
	uint32_t next_prev_pid, next_prev_tid;	/* _SWITCH_CPU_WIDE only */
};

/* An MMAP2 record in memory (what the writer is given, the reader returns). */
struct jifl_perf_mmap2 {
	uint32_t pid, tid;
	uint64_t addr, len, pgoff;	/* pgoff: file offset in bytes */
	uint32_t maj, min;
	uint64_t ino;
	uint32_t prot, flags;		/* PROT_*, MAP_* */
	const char *filename;		/* "//anon" for anonymous memory */
};

/* The sample_id_all trailer of the records JIFL writes (see sample_type). */
#define JIFL_PERF_SAMPLE_TYPE (PERF_SAMPLE_IP | PERF_SAMPLE_TID | \
	PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_IDENTIFIER)

struct jifl_perf_sample_id {
	uint32_t pid, tid;
	uint64_t time;
	uint32_t cpu, res;
	uint64_t id;
};

#endif /* JIFL_PERF_DATA_H */
