// SPDX-License-Identifier: GPL-2.0
#include <string.h>

#include "decoder.h"
#include "errcode.h"

struct run {
	struct pt_insn_decoder *dec;
	struct jifl_process *proc;
	const struct jifl_tsc_conv *tc;	/* NULL: no perf time */
	uint32_t tid;
	const struct jifl_decode_ops *ops;
	void *ctx;
	uint64_t ip;			/* last known position */
};

static uint64_t run_tsc(const struct run *r)
{
	uint32_t lost_mtc, lost_cyc;
	uint64_t tsc = 0;

	pt_insn_time(r->dec, &tsc, &lost_mtc, &lost_cyc);
	return tsc;
}

static void report(struct run *r, int code, uint64_t ip)
{
	struct jifl_decode_error de = { .code = code, .ip = ip, .tid = r->tid };

	pt_insn_get_offset(r->dec, &de.offset);
	de.time = r->tc ? jifl_tsc_conv_to_time(r->tc, run_tsc(r)) : 0;
	r->ops->error(r->ctx, &de);
}

static void emit(struct run *r, const struct pt_insn *insn)
{
	struct jifl_decoded_insn di = { .insn = insn, .tid = r->tid, .proc = r->proc };

	di.tsc = run_tsc(r);
	di.time = r->tc ? jifl_tsc_conv_to_time(r->tc, di.tsc) : 0;
	di.jit = jifl_process_jit_version(r->proc, insn->ip, insn->isid);
	r->ip = insn->ip;
	r->ops->insn(r->ctx, &di);
}

/* Process pending events; an overflow is an error of the trace. */
static int drain_events(struct run *r, int status)
{
	struct pt_event ev;

	while (status >= 0 && (status & pts_event_pending)) {
		status = pt_insn_event(r->dec, &ev, sizeof(ev));
		if (status < 0)
			break;
		if (ev.type == ptev_overflow)
			report(r, -pte_overflow, ev.variant.overflow.ip);
	}
	return status;
}

/* Decode from a synchronisation point until an error or the end. */
static int decode_stretch(struct run *r, int status)
{
	struct pt_insn insn;

	for (;;) {
		status = drain_events(r, status);
		if (status < 0)
			return status;
		if (status & pts_eos)
			return -pte_eos;
		memset(&insn, 0, sizeof(insn));
		r->proc->last_ver = NULL;
		status = pt_insn_next(r->dec, &insn, sizeof(insn));
		/* The instruction may be good even when what follows is not. */
		if (insn.iclass != ptic_error)
			emit(r, &insn);
		if (status < 0)
			return status;
	}
}

static int decode(struct run *r)
{
	uint64_t offset, last = UINT64_MAX;
	int status;

	for (;;) {
		status = pt_insn_sync_forward(r->dec);
		if (status == -pte_eos)
			return 0;
		if (status >= 0)
			status = decode_stretch(r, status);
		if (status == -pte_eos)
			return 0;
		report(r, status, r->ip);
		/* Never report the same failure twice: step past it. */
		if (pt_insn_get_offset(r->dec, &offset) < 0 || offset == last)
			return 0;
		last = offset;
	}
}

static int run_buffer(struct run *r, const uint8_t *data, size_t size)
{
	struct jifl_tsc_index tscs;
	struct pt_config cfg;
	int err;

	if (jifl_tsc_index_build(&tscs, data, size))
		return -jifl_err_nomem;
	pt_config_init(&cfg);
	cfg.begin = (uint8_t *)data;
	cfg.end = (uint8_t *)data + size;
	r->dec = pt_insn_alloc_decoder(&cfg);
	if (!r->dec) {
		jifl_tsc_index_free(&tscs);
		return -jifl_err_nomem;
	}
	if (pt_insn_set_image(r->dec, r->proc->image) < 0) {
		err = -jifl_err_internal;
	} else {
		jifl_process_attach(r->proc, r->dec, &tscs);
		err = decode(r);
		jifl_process_attach(r->proc, NULL, NULL);
	}
	pt_insn_free_decoder(r->dec);
	jifl_tsc_index_free(&tscs);
	return err;
}

int jifl_decode_queue(const struct jifl_perf_queue *q, struct jifl_process *p,
		      const struct jifl_tsc_conv *tc, const struct jifl_decode_ops *ops,
		      void *ctx)
{
	struct run r = { .proc = p, .tc = tc, .tid = q->tid, .ops = ops, .ctx = ctx };

	return run_buffer(&r, q->data, q->size);
}

int jifl_decode_buffer(const uint8_t *data, size_t size, struct jifl_process *p,
		       const struct jifl_decode_ops *ops, void *ctx)
{
	struct run r = { .proc = p, .ops = ops, .ctx = ctx };

	return run_buffer(&r, data, size);
}
