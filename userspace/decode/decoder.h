/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Decode AUXTRACE queues (a thread's trace each, or a CPU's) with
 * libipt's instruction flow decoder or its block decoder, handing every
 * instruction (or only their count) and every gap to the caller, all
 * queues merged in time order. A gap is a place where the trace lost
 * the instruction flow: a decode error (after which the decoder
 * resynchronises at the next PSB), an overflow, tracing stopped or
 * restarted elsewhere, trace data that perf lost (the buffers on either
 * side are decoded apart). What lies in a gap is reported, never
 * skipped silently.
 */
#ifndef JIFL_DECODE_DECODER_H
#define JIFL_DECODE_DECODER_H

#include <stdint.h>
#include <intel-pt.h>

#include "perf/perf_reader.h"
#include "process.h"
#include "threads.h"

struct jifl_decoded_insn {
	const struct pt_insn *insn;
	uint64_t tsc;				/* decoder time (last TSC) */
	uint64_t time;				/* the same in perf time, ns */
	uint32_t tid;
	struct jifl_thread *thread;		/* its thread */
	int cpu;				/* of its queue; -1: a thread's queue */
	struct jifl_process *proc;
	const struct jifl_jit_version *jit;	/* NULL: code from a file */
};

enum jifl_gap_kind {
	JIFL_GAP_ERROR,		/* libipt could not go on (@code); resynchronised */
	JIFL_GAP_OVERFLOW,	/* the hardware lost packets (OVF) */
	JIFL_GAP_STOP,		/* tracing stopped (TraceStop) */
	JIFL_GAP_RESTART,	/* tracing disabled, enabled again elsewhere */
	JIFL_GAP_LOST,		/* perf lost trace data between two buffers */
	JIFL_GAP_LOOP,		/* a never-ending loop: code that reads no trace */
};

struct jifl_gap {
	enum jifl_gap_kind kind;
	int code;		/* JIFL_GAP_ERROR: negative pt_error_code */
	uint32_t pid, tid;
	struct jifl_thread *thread;
	uint64_t time;		/* perf time, ns (decoder time) */
	/*
	 * Where the flow was lost: the instruction that could not be
	 * decoded, else the last one decoded (0: none yet).
	 */
	uint64_t ip;
	uint64_t offset;	/* offset in the queue's trace where it was lost */
	uint64_t insns;		/* instructions of this thread decoded before it */
	int resumed;		/* 0: no instruction followed in this thread */
	uint64_t resume_ip;	/* the first instruction after the gap */
	uint64_t resume_time;
	uint64_t resume_offset;	/* jifl_gap_resyncs(): the PSB decoding resumed at */
};

struct jifl_decode_ops {
	/* Every instruction; NULL: only count them (cheaper with blocks). */
	void (*insn)(void *ctx, const struct jifl_decoded_insn *di);
	/* Without @insn: @n more instructions, @jit of them from JIT code. */
	void (*count)(void *ctx, uint64_t n, uint64_t jit);
	/* Called once the gap is over, before the instruction that follows. */
	void (*gap)(void *ctx, const struct jifl_gap *gap);
};

/* Which of libipt's decoders (Documentation/decode.rst, "Decoders"). */
enum jifl_decoder_kind {
	JIFL_DECODER_INSN,	/* instruction flow: pt_insn_next() */
	JIFL_DECODER_BLOCK,	/* blocks: pt_blk_next(), instructions walked with Zydis */
};

/* Gaps that mean lost or wrong trace data: errors, overflows, lost data, loops. */
static inline int jifl_gap_is_error(const struct jifl_gap *gap)
{
	return gap->kind == JIFL_GAP_ERROR || gap->kind == JIFL_GAP_OVERFLOW ||
	       gap->kind == JIFL_GAP_LOST || gap->kind == JIFL_GAP_LOOP;
}

/* Gaps after which decoding resumed at the next PSB (resume_offset). */
static inline int jifl_gap_resyncs(const struct jifl_gap *gap)
{
	return gap->kind == JIFL_GAP_ERROR || gap->kind == JIFL_GAP_LOOP;
}

/* How to decode, and where the results go. */
struct jifl_decode_config {
	enum jifl_decoder_kind kind;
	/*
	 * The processor (cpu and errata, timing, address filter; see
	 * ptconfig.h) with begin and end unused; NULL: libipt's defaults.
	 */
	const struct pt_config *pt;
	const struct jifl_decode_ops *ops;
	void *ctx;			/* of @ops */
	/* Optional: the trace offset reached, now and then and at the end. */
	void (*progress)(void *arg, uint64_t offset);
	void *progress_arg;
	/*
	 * Threads that decode a session's queues (parallel.c), the output
	 * still in time order; 0 or 1: all in the caller's.
	 */
	unsigned int jobs;
};

struct jifl_run_source;
struct jifl_item;

/* One queue's trace, decoded a little at a time (decoder.c). */
struct jifl_qdec;

/* A queue's trace: its bytes, and where buffers that lost data before them start. */
struct jifl_qdec_trace {
	const uint8_t *data;
	size_t size;
	uint32_t gaps;
	const uint64_t *gap_at;
};

/*
 * Decode @trace, whose threads and processes @src names (kept by
 * reference), with perf time from @tc (NULL: none) as @cfg says. Returns
 * 0 or -jifl_err_nomem.
 */
int jifl_qdec_new(struct jifl_qdec **dp, const struct jifl_qdec_trace *trace,
		  const struct jifl_run_source *src, const struct jifl_tsc_conv *tc,
		  const struct jifl_decode_config *cfg);
void jifl_qdec_free(struct jifl_qdec *d);

/*
 * The next thing decoded, decoding on as far as it takes; NULL at the
 * end of the trace, or with *@err set (-jifl_err_nomem).
 */
struct jifl_item *jifl_qdec_peek(struct jifl_qdec *d, int *err);
void jifl_qdec_pop(struct jifl_qdec *d);

/* The CPU whose queue it decodes; -1: a thread's. */
int jifl_qdec_cpu(const struct jifl_qdec *d);

/* Bytes of the trace decoded so far (for progress). */
uint64_t jifl_qdec_done(const struct jifl_qdec *d);

/*
 * A queue's items as the merge takes them: from a decoder in this thread
 * (jifl_qdec_source()) or from one in another (parallel.c). @peek
 * returns the next item (NULL at the end, or with *err set), @pop drops
 * it, @done says the trace bytes decoded so far.
 */
struct jifl_item_source {
	struct jifl_item *(*peek)(void *ctx, int *err);
	void (*pop)(void *ctx);
	uint64_t (*done)(void *ctx);
	void *ctx;
	int cpu;			/* of the queue; -1: a thread's */
};

void jifl_qdec_source(struct jifl_qdec *d, struct jifl_item_source *src);

/*
 * Decode the @n queues @q together: hand what they give to cfg->ops in
 * time order (the decoder times; equal ones in queue order), a thread's
 * instructions in their order. Returns 0 when every trace was read to
 * its end (gaps inside go to ops->gap), or -jifl_err_nomem.
 */
int jifl_decode_merged(const struct jifl_item_source *q, size_t n,
		       const struct jifl_tsc_conv *tc, const struct jifl_decode_config *cfg);

#endif /* JIFL_DECODE_DECODER_H */
