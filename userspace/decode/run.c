// SPDX-License-Identifier: GPL-2.0
#include <string.h>

#include "run.h"

/* Instructions between two progress reports (a power of two). */
#define PROGRESS_EVERY	(1 << 16)

static uint64_t run_time(const struct jifl_run *r, uint64_t tsc)
{
	return r->tc ? jifl_tsc_conv_to_time(r->tc, tsc) : 0;
}

uint64_t jifl_run_offset(const struct jifl_run *r)
{
	uint64_t offset = 0;

	r->be->offset(r->dec, &offset);
	return r->base + offset;
}

void jifl_run_gap_close(struct jifl_run *r, int resumed, uint64_t ip, uint64_t tsc)
{
	if (!r->in_gap)
		return;
	r->in_gap = 0;
	if (resumed) {
		r->gap.resumed = 1;
		r->gap.resume_ip = ip;
		r->gap.resume_time = run_time(r, tsc);
	}
	r->cfg->ops->gap(r->cfg->ctx, &r->gap);
}

void jifl_run_gap_open(struct jifl_run *r, enum jifl_gap_kind kind, int code, uint64_t ip)
{
	struct jifl_gap *g = &r->gap;

	jifl_run_gap_close(r, 0, 0, 0);
	memset(g, 0, sizeof(*g));
	g->kind = kind;
	g->code = code;
	g->pid = r->proc->pid;
	g->tid = r->tid;
	g->time = run_time(r, r->be->time(r->dec));
	g->ip = ip;
	g->insns = r->insns;
	g->offset = jifl_run_offset(r);
	/* Until a PSB says otherwise, an error skips the rest of the buffer. */
	g->resume_offset = kind == JIFL_GAP_ERROR ? r->base + r->size : 0;
	r->in_gap = 1;
}

/*
 * Events that lose the flow open a gap. Tracing disabled and enabled
 * again where it stopped (a system call, an interrupt in a user-only
 * trace) loses nothing; enabled elsewhere, the flow jumps (a signal).
 */
static void on_event(struct jifl_run *r, const struct pt_event *ev)
{
	switch (ev->type) {
	case ptev_overflow:
		jifl_run_gap_open(r, JIFL_GAP_OVERFLOW, -pte_overflow, r->ip);
		r->disabled = 0;
		break;
	case ptev_stop:
		jifl_run_gap_open(r, JIFL_GAP_STOP, 0, r->disabled ? r->disabled_ip : r->ip);
		break;
	case ptev_disabled:
	case ptev_async_disabled:
		r->disabled = 1;
		r->disabled_ip = ev->type == ptev_async_disabled ?
				 ev->variant.async_disabled.at : r->ip;
		break;
	case ptev_enabled:
		if (r->disabled && !ev->variant.enabled.resumed && !r->in_gap)
			jifl_run_gap_open(r, JIFL_GAP_RESTART, 0, r->disabled_ip);
		r->disabled = 0;
		break;
	default:
		break;
	}
}

int jifl_run_events(struct jifl_run *r, int status)
{
	struct pt_event ev;

	while (status >= 0 && (status & pts_event_pending)) {
		status = r->be->event(r->dec, &ev);
		if (status >= 0)
			on_event(r, &ev);
	}
	return status;
}

/* Tell the progress callback where we are when @before..r->insns crossed a mark. */
static void progress(struct jifl_run *r, uint64_t before)
{
	if (r->cfg->progress && before / PROGRESS_EVERY != r->insns / PROGRESS_EVERY)
		r->cfg->progress(r->cfg->progress_arg, jifl_run_offset(r));
}

void jifl_run_insn(struct jifl_run *r, const struct pt_insn *insn, uint64_t tsc,
		   const struct jifl_jit_version *jit)
{
	struct jifl_decoded_insn di = {
		.insn = insn, .tsc = tsc, .time = run_time(r, tsc), .tid = r->tid,
		.proc = r->proc, .jit = jit,
	};

	r->ip = insn->ip;
	r->insns++;
	jifl_run_gap_close(r, 1, insn->ip, tsc);
	if (r->cfg->ops->insn)
		r->cfg->ops->insn(r->cfg->ctx, &di);
	else
		r->cfg->ops->count(r->cfg->ctx, 1, !!jit);
	progress(r, r->insns - 1);
}

void jifl_run_count(struct jifl_run *r, uint64_t first, uint64_t last, uint64_t tsc,
		    uint64_t n, uint64_t jit)
{
	r->ip = last;
	r->insns += n;
	jifl_run_gap_close(r, 1, first, tsc);
	r->cfg->ops->count(r->cfg->ctx, n, jit);
	progress(r, r->insns - n);
}
