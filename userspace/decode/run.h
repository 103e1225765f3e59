/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Decoding one thread's trace: the state that libipt's instruction flow
 * decoder and its block decoder (the two back ends) share, and what both
 * report through it: instructions (or only their count), gaps and
 * progress.
 */
#ifndef JIFL_DECODE_RUN_H
#define JIFL_DECODE_RUN_H

#include "decoder.h"

struct jifl_run;

/* One of libipt's decoders, behind the calls the decode loop needs. */
struct jifl_backend {
	void *(*alloc)(const struct pt_config *cfg, struct pt_image *image);
	void (*free)(void *dec);
	int (*sync_forward)(void *dec);
	int (*offset)(const void *dec, uint64_t *offset);
	int (*sync_offset)(const void *dec, uint64_t *offset);
	uint64_t (*time)(void *dec);
	int (*event)(void *dec, struct pt_event *ev);
	/*
	 * Decode from a synchronisation point (@status: its pt_status_flag
	 * bits) until an error, returned, or the end (-pte_eos). Before
	 * returning an error, set r->fail_ip (see struct jifl_gap.ip).
	 */
	int (*stretch)(struct jifl_run *r, int status);
	int log_reads;			/* needs the process's JIT reads */
};

extern const struct jifl_backend jifl_insn_backend;
extern const struct jifl_backend jifl_block_backend;

struct jifl_run {
	const struct jifl_backend *be;
	void *dec;
	struct jifl_process *proc;
	const struct jifl_tsc_conv *tc;	/* NULL: no perf time */
	uint32_t tid;
	const struct jifl_decode_config *cfg;
	uint64_t base;			/* of the buffer decoded, in the thread's trace */
	uint64_t size;			/* of the buffer */
	uint64_t ip;			/* the last instruction decoded */
	uint64_t fail_ip;		/* where the last failure happened */
	uint64_t insns;			/* decoded so far */
	struct jifl_gap gap;		/* the gap we are in, if in_gap */
	int in_gap;
	int disabled;			/* tracing disabled; at disabled_ip */
	uint64_t disabled_ip;
};

/*
 * Whether a failure at the instruction at @ip is the instruction's own
 * (no code there, or bytes that do not decode): then the gap is there.
 */
static inline int jifl_insn_failed(int status)
{
	return status == -pte_nomap || status == -pte_bad_insn;
}

/* A gap begins at @ip; one that nothing followed ends unresumed first. */
void jifl_run_gap_open(struct jifl_run *r, enum jifl_gap_kind kind, int code, uint64_t ip);

/* The gap, if any, ends: resumed at @ip at @tsc, or not (!@resumed). */
void jifl_run_gap_close(struct jifl_run *r, int resumed, uint64_t ip, uint64_t tsc);

/* The decoder's offset in the thread's trace. */
uint64_t jifl_run_offset(const struct jifl_run *r);

/* Process the pending events (@status says if any); returns the new status. */
int jifl_run_events(struct jifl_run *r, int status);

/* @insn ran, at decoder time @tsc, from JIT page version @jit (or a file). */
void jifl_run_insn(struct jifl_run *r, const struct pt_insn *insn, uint64_t tsc,
		   const struct jifl_jit_version *jit);

/*
 * Counting only (no ops->insn): @n instructions ran, the first at @first
 * at decoder time @tsc, the last at @last; @jit of them from JIT code.
 */
void jifl_run_count(struct jifl_run *r, uint64_t first, uint64_t last, uint64_t tsc,
		    uint64_t n, uint64_t jit);

#endif /* JIFL_DECODE_RUN_H */
