/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Decoding under fuzzing: a session decoded to the end with every
 * instruction and gap looked at (so that the sanitizers see a bad one),
 * nothing printed.
 */
#ifndef JIFL_FUZZ_DECODE_H
#define JIFL_FUZZ_DECODE_H

#include <stdint.h>

#include "session_decode.h"

struct fuzz_sink {
	uint64_t insns, sum, gaps;
};

static void fuzz_insn(void *ctx, const struct jifl_decoded_insn *di)
{
	struct fuzz_sink *s = ctx;
	const struct pt_insn *in = di->insn;

	s->insns++;
	s->sum += in->ip + in->iclass + (in->size ? in->raw[in->size - 1] : 0) + di->tid;
	if (di->jit)
		s->sum += di->jit->bytes[in->ip & 4095] + di->jit->number;
}

static void fuzz_count(void *ctx, uint64_t n, uint64_t jit)
{
	struct fuzz_sink *s = ctx;

	s->insns += n;
	s->sum += jit;
}

static void fuzz_gap(void *ctx, const struct jifl_gap *gap)
{
	struct fuzz_sink *s = ctx;

	s->gaps++;
	s->sum += gap->ip + gap->offset + gap->insns + gap->resume_ip + gap->kind;
}

/*
 * Decode @s with the decoder @kind, every instruction handed out
 * (@listed) or only counted, by @jobs threads. Returns what
 * jifl_session_decode() does.
 */
static inline int fuzz_decode(struct jifl_session *s, enum jifl_decoder_kind kind,
			      int listed, unsigned int jobs, struct fuzz_sink *sink)
{
	static const struct jifl_decode_ops listed_ops = {
		.insn = fuzz_insn, .gap = fuzz_gap,
	};
	static const struct jifl_decode_ops counted_ops = {
		.count = fuzz_count, .gap = fuzz_gap,
	};
	struct jifl_decode_config cfg = {
		.kind = kind,
		.ops = listed ? &listed_ops : &counted_ops,
		.ctx = sink,
		.jobs = jobs,
	};

	return jifl_session_decode(s, &cfg);
}

#endif /* JIFL_FUZZ_DECODE_H */
