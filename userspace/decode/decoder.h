/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Decode one AUXTRACE queue (one thread's trace) with libipt's
 * instruction flow decoder, handing every instruction and every error to
 * the caller. After an error the decoder resynchronises at the next PSB;
 * what lies between is reported as an error, never skipped silently.
 */
#ifndef JIFL_DECODE_DECODER_H
#define JIFL_DECODE_DECODER_H

#include <stdint.h>
#include <intel-pt.h>

#include "perf_reader.h"
#include "process.h"

struct jifl_decoded_insn {
	const struct pt_insn *insn;
	uint64_t tsc;				/* decoder time (last TSC) */
	uint64_t time;				/* the same in perf time, ns */
	uint32_t tid;
	struct jifl_process *proc;
	const struct jifl_jit_version *jit;	/* NULL: code from a file */
};

struct jifl_decode_error {
	int code;				/* negative pt_error_code */
	uint64_t ip;				/* where decoding stood */
	uint64_t offset;			/* in the queue's trace */
	uint64_t time;
	uint32_t tid;
};

struct jifl_decode_ops {
	void (*insn)(void *ctx, const struct jifl_decoded_insn *di);
	void (*error)(void *ctx, const struct jifl_decode_error *de);
};

/*
 * Decode @q in process @p. Returns 0 when the trace was read to its end
 * (errors inside it go to ops->error), or a negative jifl_error_code
 * when decoding could not start (-jifl_err_nomem).
 */
int jifl_decode_queue(const struct jifl_perf_queue *q, struct jifl_process *p,
		      const struct jifl_tsc_conv *tc, const struct jifl_decode_ops *ops,
		      void *ctx);

/* Decode a raw PT buffer (no perf.data) the same way; tid and times are 0. */
int jifl_decode_buffer(const uint8_t *data, size_t size, struct jifl_process *p,
		       const struct jifl_decode_ops *ops, void *ctx);

#endif /* JIFL_DECODE_DECODER_H */
