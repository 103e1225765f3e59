/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Decoding one queue's trace: the state that libipt's instruction flow
 * decoder and its block decoder (the two back ends) share, and what both
 * hand out through it, as items for the merge (items.h): instructions
 * (or only their count), gaps, and where tracing was disabled. Whose
 * they are: the queue's thread, or per CPU the thread that the switch
 * records say ran when tracing was enabled (cpu_threads.h); decoding
 * goes on in that thread's process.
 */
#ifndef JIFL_DECODE_RUN_H
#define JIFL_DECODE_RUN_H

#include "adopted.h"
#include "cpu_threads.h"
#include "decoder.h"
#include "items.h"
#include "threads.h"

struct jifl_run;

/* One of libipt's decoders, behind the calls the decode loop needs. */
struct jifl_backend {
	void *(*alloc)(const struct pt_config *cfg, struct pt_image *image);
	void (*free)(void *dec);
	int (*set_image)(void *dec, struct pt_image *image);
	int (*sync_forward)(void *dec);
	int (*offset)(const void *dec, uint64_t *offset);
	int (*sync_offset)(const void *dec, uint64_t *offset);
	uint64_t (*time)(void *dec);
	int (*event)(void *dec, struct pt_event *ev);
	/*
	 * One step from a synchronisation point (@status: its pt_status_flag
	 * bits, then what the last step returned): the pending events, then
	 * an instruction or a block. Returns the new status, an error, or
	 * -pte_eos at the end. Before returning an error, set r->fail_ip
	 * (see struct jifl_gap.ip).
	 */
	int (*step)(struct jifl_run *r, int status);
	int log_reads;			/* needs the process's JIT reads */
};

extern const struct jifl_backend jifl_insn_backend;
extern const struct jifl_backend jifl_block_backend;

/* Where a queue's threads and processes come from. */
struct jifl_run_source {
	struct jifl_threads *threads;
	/* Per CPU: what ran on CPU @cpu when; NULL: the queue is one thread's. */
	const struct jifl_cpu_threads *cpus;
	uint32_t cpu;
	/* The queue's thread, or per CPU the one assumed where no record says. */
	uint32_t pid, tid;
	/* The process @pid, or NULL when the trace has none of it. */
	struct jifl_process *(*proc)(void *ctx, uint32_t pid);
	void *ctx;
};

struct jifl_run {
	const struct jifl_backend *be;
	void *dec;
	const struct jifl_run_source *src;
	struct jifl_thread *thread;	/* whose trace it is now */
	struct jifl_process *proc;	/* its process */
	struct jifl_adopted_table adopted;	/* its JIT versions chosen ahead */
	const struct jifl_tsc_index *tscs;	/* the TSC packets of the buffer */
	struct jifl_items *items;	/* where what is decoded goes */
	const struct jifl_tsc_conv *tc;	/* NULL: no perf time */
	const struct jifl_decode_config *cfg;
	uint64_t base;			/* of the buffer decoded, in the queue's trace */
	uint64_t size;			/* of the buffer */
	uint64_t ip;			/* the last instruction decoded */
	uint8_t ip_size;		/* its size; 0: unknown */
	int ip_isid;			/* where it is: its file section, 0: JIT */
	uint64_t fail_ip;		/* where the last failure happened */
	uint64_t insns;			/* decoded so far */
	struct jifl_gap gap;		/* the gap we are in, if in_gap */
	int in_gap;
	int disabled;			/* tracing disabled; at disabled_ip */
	uint64_t disabled_ip;
	/* The next instruction is the first after tracing was enabled then, there. */
	int enabled;
	uint64_t enabled_tsc, enabled_offset;
	int nomem;			/* an item could not be kept */
};

/*
 * Whether a failure at the instruction at @ip is the instruction's own
 * (no code there, or bytes that do not decode): then the gap is there.
 */
static inline int jifl_insn_failed(int status)
{
	return status == -pte_nomap || status == -pte_bad_insn;
}

/*
 * Whose trace it is from decoder time @tsc on (at a synchronisation
 * point, tracing enabled, an overflow): per CPU, the thread that ran
 * then; a new process's image replaces the decoder's. Returns 0 or
 * -pte_nomem.
 */
int jifl_run_thread_at(struct jifl_run *r, uint64_t tsc);

/* Hand the process and the run's state to the decoder, before it decodes on. */
void jifl_run_attach(struct jifl_run *r);

/* A gap begins at @ip; one that nothing followed ends unresumed first. */
void jifl_run_gap_open(struct jifl_run *r, enum jifl_gap_kind kind, int code, uint64_t ip);

/* The gap, if any, ends: resumed at @ip at @tsc, or not (!@resumed). */
void jifl_run_gap_close(struct jifl_run *r, int resumed, uint64_t ip, uint64_t tsc);

/* The decoder's offset in the queue's trace. */
uint64_t jifl_run_offset(const struct jifl_run *r);

/*
 * Before a back end's next instruction or block: the pending events.
 * Returns the new status, an error, or -pte_eos at the end of the trace.
 */
int jifl_run_step_begin(struct jifl_run *r, int status);

/* @insn ran, at decoder time @tsc, from JIT page version @jit (or a file). */
void jifl_run_insn(struct jifl_run *r, const struct pt_insn *insn, uint64_t tsc,
		   const struct jifl_jit_version *jit);

/*
 * Counting only (the consumer lists nothing): @n instructions ran, the
 * first at @first at decoder time @tsc, the last at @last (in libipt's
 * section @isid, 0: JIT code); @jit of them from JIT code.
 */
void jifl_run_count(struct jifl_run *r, uint64_t first, uint64_t last, int isid,
		    uint64_t tsc, uint64_t n, uint64_t jit);

#endif /* JIFL_DECODE_RUN_H */
