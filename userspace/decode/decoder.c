// SPDX-License-Identifier: GPL-2.0
#include <string.h>

#include "decoder.h"
#include "errcode.h"

/* Instructions between two progress reports (a power of two). */
#define PROGRESS_EVERY	(1 << 16)

struct run {
	struct pt_insn_decoder *dec;
	struct jifl_process *proc;
	const struct jifl_tsc_conv *tc;	/* NULL: no perf time */
	uint32_t tid;
	const struct jifl_decode_ops *ops;
	void *ctx;
	const struct jifl_decode_config *cfg;
	uint64_t size;			/* of the trace */
	uint64_t ip;			/* the last instruction decoded */
	uint64_t fail_ip;		/* where the last failure happened */
	uint64_t insns;			/* decoded so far */
	struct jifl_gap gap;		/* the gap we are in, if in_gap */
	int in_gap;
	int disabled;			/* tracing disabled; at disabled_ip */
	uint64_t disabled_ip;
};

static uint64_t run_tsc(const struct run *r)
{
	uint32_t lost_mtc, lost_cyc;
	uint64_t tsc = 0;

	pt_insn_time(r->dec, &tsc, &lost_mtc, &lost_cyc);
	return tsc;
}

static uint64_t run_time(const struct run *r, uint64_t tsc)
{
	return r->tc ? jifl_tsc_conv_to_time(r->tc, tsc) : 0;
}

/* The gap ends at @di, or unresumed (NULL): report it. */
static void gap_close(struct run *r, const struct jifl_decoded_insn *di)
{
	if (!r->in_gap)
		return;
	r->in_gap = 0;
	if (di) {
		r->gap.resumed = 1;
		r->gap.resume_ip = di->insn->ip;
		r->gap.resume_time = di->time;
	}
	r->ops->gap(r->ctx, &r->gap);
}

/* A gap begins at @ip; one that nothing followed ends unresumed first. */
static void gap_open(struct run *r, enum jifl_gap_kind kind, int code, uint64_t ip)
{
	struct jifl_gap *g = &r->gap;

	gap_close(r, NULL);
	memset(g, 0, sizeof(*g));
	g->kind = kind;
	g->code = code;
	g->tid = r->tid;
	g->time = run_time(r, run_tsc(r));
	g->ip = ip;
	g->insns = r->insns;
	pt_insn_get_offset(r->dec, &g->offset);
	/* Until a PSB says otherwise, an error skips the rest of the trace. */
	g->resume_offset = kind == JIFL_GAP_ERROR ? r->size : 0;
	r->in_gap = 1;
}

static void emit(struct run *r, const struct pt_insn *insn)
{
	struct jifl_decoded_insn di = { .insn = insn, .tid = r->tid, .proc = r->proc };

	di.tsc = run_tsc(r);
	di.time = run_time(r, di.tsc);
	di.jit = jifl_process_jit_version(r->proc, insn->ip, insn->isid);
	r->ip = insn->ip;
	r->insns++;
	gap_close(r, &di);
	r->ops->insn(r->ctx, &di);
	if (!(r->insns & (PROGRESS_EVERY - 1)) && r->cfg->progress) {
		uint64_t offset = 0;

		pt_insn_get_offset(r->dec, &offset);
		r->cfg->progress(r->cfg->progress_arg, offset);
	}
}

/*
 * Events that lose the flow open a gap. Tracing disabled and enabled
 * again where it stopped (a system call, an interrupt in a user-only
 * trace) loses nothing; enabled elsewhere, the flow jumps (a signal).
 */
static void on_event(struct run *r, const struct pt_event *ev)
{
	switch (ev->type) {
	case ptev_overflow:
		gap_open(r, JIFL_GAP_OVERFLOW, -pte_overflow, r->ip);
		r->disabled = 0;
		break;
	case ptev_stop:
		gap_open(r, JIFL_GAP_STOP, 0, r->disabled ? r->disabled_ip : r->ip);
		break;
	case ptev_disabled:
	case ptev_async_disabled:
		r->disabled = 1;
		r->disabled_ip = ev->type == ptev_async_disabled ?
				 ev->variant.async_disabled.at : r->ip;
		break;
	case ptev_enabled:
		if (r->disabled && !ev->variant.enabled.resumed && !r->in_gap)
			gap_open(r, JIFL_GAP_RESTART, 0, r->disabled_ip);
		r->disabled = 0;
		break;
	default:
		break;
	}
}

static int drain_events(struct run *r, int status)
{
	struct pt_event ev;

	while (status >= 0 && (status & pts_event_pending)) {
		status = pt_insn_event(r->dec, &ev, sizeof(ev));
		if (status >= 0)
			on_event(r, &ev);
	}
	return status;
}

/* Decode from a synchronisation point until an error or the end. */
static int decode_stretch(struct run *r, int status)
{
	struct pt_insn insn;

	for (;;) {
		r->fail_ip = r->ip;
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
		else if (insn.ip)
			r->fail_ip = insn.ip;	/* e.g. no code there */
		if (status < 0)
			return status;
	}
}

static int decode(struct run *r)
{
	uint64_t offset, last = UINT64_MAX;
	int status;

	for (;;) {
		r->fail_ip = r->ip;
		status = pt_insn_sync_forward(r->dec);
		if (status == -pte_eos)
			break;
		if (status >= 0) {
			r->disabled = 0;
			if (r->in_gap && r->gap.kind == JIFL_GAP_ERROR)
				pt_insn_get_sync_offset(r->dec, &r->gap.resume_offset);
			status = decode_stretch(r, status);
		}
		if (status == -pte_eos)
			break;
		gap_open(r, JIFL_GAP_ERROR, status, r->fail_ip);
		/* Never report the same failure twice: step past it. */
		if (pt_insn_get_offset(r->dec, &offset) < 0 || offset == last)
			break;
		last = offset;
	}
	gap_close(r, NULL);
	if (r->cfg->progress)
		r->cfg->progress(r->cfg->progress_arg, r->size);
	return 0;
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
	r->size = size;
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
		      const struct jifl_tsc_conv *tc, const struct jifl_decode_config *cfg)
{
	struct run r = { .proc = p, .tc = tc, .tid = q->tid, .ops = cfg->ops,
			 .ctx = cfg->ctx, .cfg = cfg };

	return run_buffer(&r, q->data, q->size);
}

int jifl_decode_buffer(const uint8_t *data, size_t size, struct jifl_process *p,
		       const struct jifl_decode_config *cfg)
{
	struct run r = { .proc = p, .ops = cfg->ops, .ctx = cfg->ctx, .cfg = cfg };

	return run_buffer(&r, data, size);
}
