// SPDX-License-Identifier: GPL-2.0
/*
 * One queue's trace decoded a step at a time, so that several queues
 * can be decoded together and their output merged in time order. The
 * loop of decoding a buffer, as a state machine:
 *
 *   OPEN  -> a decoder for the next buffer (between lost data), or DONE
 *   SYNC  -> to the next PSB: STEP, or CLOSE at the end
 *   STEP  -> one instruction or block; on an error a gap and SYNC, at
 *            the end CLOSE
 *   CLOSE -> the gap left open ends; lost data after the buffer is a
 *            gap; OPEN
 */
#include <stdlib.h>
#include <string.h>

#include "common/errcode.h"
#include "run.h"

enum qdec_state { QD_OPEN, QD_SYNC, QD_STEP, QD_CLOSE, QD_DONE };

struct jifl_qdec {
	struct jifl_run r;
	struct jifl_qdec_trace trace;
	struct jifl_decode_config cfg;		/* the user's, progress ours */
	const struct jifl_decode_config *user;
	struct jifl_items items;
	struct jifl_tsc_index tscs;
	enum qdec_state state;
	uint32_t part;				/* the buffer decoded: 0 to trace.gaps */
	int status;				/* of the last step */
	uint64_t last_fail;			/* offset of the last failure */
	uint64_t loop_offset, loop_insns;	/* the trace offset after loop_insns */
	uint64_t done;				/* bytes decoded, as last reported */
};

static void qdec_progress(void *arg, uint64_t offset)
{
	struct jifl_qdec *d = arg;

	d->done = offset;
}

int jifl_qdec_new(struct jifl_qdec **dp, const struct jifl_qdec_trace *trace,
		  const struct jifl_run_source *src, const struct jifl_tsc_conv *tc,
		  const struct jifl_decode_config *cfg)
{
	struct jifl_qdec *d = calloc(1, sizeof(*d));
	struct jifl_run *r;

	if (!d)
		return -jifl_err_nomem;
	d->trace = *trace;
	d->user = cfg;
	d->cfg = *cfg;
	d->cfg.progress = cfg->progress ? qdec_progress : NULL;
	d->cfg.progress_arg = d;
	r = &d->r;
	r->be = cfg->kind == JIFL_DECODER_BLOCK ? &jifl_block_backend : &jifl_insn_backend;
	r->src = src;
	r->tc = tc;
	r->cfg = &d->cfg;
	r->items = &d->items;
	r->proc = src->proc(src->ctx, src->pid);
	r->thread = jifl_threads_get(src->threads, src->pid, src->tid);
	if (!r->proc || !r->thread) {
		free(d);
		return -jifl_err_nomem;
	}
	*dp = d;
	return 0;
}

static void close_decoder(struct jifl_qdec *d)
{
	struct jifl_run *r = &d->r;

	if (!r->dec)
		return;
	jifl_process_attach(r->proc, NULL, NULL, NULL, NULL, 0);
	r->be->free(r->dec);
	r->dec = NULL;
	jifl_tsc_index_free(&d->tscs);
}

void jifl_qdec_free(struct jifl_qdec *d)
{
	if (!d)
		return;
	close_decoder(d);
	jifl_adopted_fini(&d->r.adopted);
	jifl_items_fini(&d->items);
	free(d);
}

/* A decoder for buffer d->part, from r->base on. */
static int open_buffer(struct jifl_qdec *d)
{
	struct jifl_run *r = &d->r;
	uint64_t end;
	struct pt_config cfg;

	end = d->part < d->trace.gaps ? d->trace.gap_at[d->part] : d->trace.size;
	if (d->user->pt)
		cfg = *d->user->pt;
	else
		pt_config_init(&cfg);
	cfg.begin = (uint8_t *)d->trace.data + r->base;
	cfg.end = (uint8_t *)d->trace.data + end;
	if (jifl_tsc_index_build(&d->tscs, &cfg))
		return -jifl_err_nomem;
	r->size = end - r->base;
	r->tscs = &d->tscs;
	r->dec = r->be->alloc(&cfg, r->proc->image);
	if (!r->dec) {
		jifl_tsc_index_free(&d->tscs);
		return -jifl_err_nomem;
	}
	d->last_fail = UINT64_MAX;
	return 0;
}

/*
 * A failure: a gap from there, decoding resumes at the next PSB. Never
 * report the same failure twice: step past it, else give the buffer up.
 */
static enum qdec_state lose(struct jifl_qdec *d, enum jifl_gap_kind kind, int status)
{
	struct jifl_run *r = &d->r;
	uint64_t offset;

	jifl_run_gap_open(r, kind, status, r->fail_ip);
	if (r->be->offset(r->dec, &offset) < 0 || offset == d->last_fail)
		return QD_CLOSE;
	d->last_fail = offset;
	return QD_SYNC;
}

static enum qdec_state fail(struct jifl_qdec *d, int status)
{
	return lose(d, JIFL_GAP_ERROR, status);
}

/*
 * Code that branches only directly (jmp .) runs without reading the
 * trace, and libipt's decoders would follow it for ever. No thread runs
 * LOOP_LIMIT instructions without a conditional or indirect branch, a
 * return or an event (perf's decoder gives up after 100,000 such
 * branches: "Never-ending loop"): when the trace offset has not moved
 * for that many, the flow is lost, and decoding resumes at the next PSB.
 */
#define LOOP_LIMIT	(1u << 20)

static int loops(struct jifl_qdec *d)
{
	struct jifl_run *r = &d->r;
	uint64_t offset;

	if (r->insns - d->loop_insns < LOOP_LIMIT)
		return 0;
	if (r->be->offset(r->dec, &offset) < 0)
		offset = UINT64_MAX;
	if (offset != UINT64_MAX && offset == d->loop_offset)
		return 1;
	d->loop_offset = offset;
	d->loop_insns = r->insns;
	return 0;
}

static enum qdec_state sync(struct jifl_qdec *d)
{
	struct jifl_run *r = &d->r;
	uint64_t offset;
	int status;

	r->fail_ip = r->ip;
	status = r->be->sync_forward(r->dec);
	if (status == -pte_eos)
		return QD_CLOSE;
	if (status >= 0) {
		r->disabled = 0;
		r->enabled = 0;
		if (r->in_gap && jifl_gap_resyncs(&r->gap) &&
		    r->be->sync_offset(r->dec, &offset) >= 0)
			r->gap.resume_offset = r->base + offset;
		d->status = status;
		d->loop_offset = UINT64_MAX;
		d->loop_insns = r->insns;
		status = jifl_run_thread_at(r, r->be->time(r->dec));
		if (status >= 0)
			return QD_STEP;
	}
	return fail(d, status);
}

static enum qdec_state step(struct jifl_qdec *d)
{
	struct jifl_run *r = &d->r;
	int status = r->be->step(r, d->status);

	if (status >= 0) {
		d->status = status;
		if (!loops(d))
			return QD_STEP;
		r->fail_ip = r->ip;
		return lose(d, JIFL_GAP_LOOP, 0);
	}
	return status == -pte_eos ? QD_CLOSE : fail(d, status);
}

/* The buffer is decoded: its last gap, the gap of the data lost after it. */
static void close_buffer(struct jifl_qdec *d)
{
	struct jifl_run *r = &d->r;

	jifl_run_gap_close(r, 0, 0, 0);
	if (d->part < d->trace.gaps) {
		jifl_run_gap_open(r, JIFL_GAP_LOST, 0, r->ip);
		r->gap.offset = r->base + r->size;
	}
	if (d->cfg.progress)
		d->cfg.progress(d, r->base + r->size);
	close_decoder(d);
	r->base += r->size;
	d->part++;
}

/* One step of the state machine. Returns 0 or -jifl_err_nomem. */
static int advance(struct jifl_qdec *d)
{
	struct jifl_run *r = &d->r;
	int err;

	if (r->dec)
		jifl_run_attach(r);
	switch (d->state) {
	case QD_OPEN:
		if (d->part > d->trace.gaps) {
			d->state = QD_DONE;
			break;
		}
		err = open_buffer(d);
		if (err)
			return err;
		jifl_run_attach(r);
		d->state = QD_SYNC;
		break;
	case QD_SYNC:
		d->state = sync(d);
		break;
	case QD_STEP:
		d->state = step(d);
		break;
	case QD_CLOSE:
		close_buffer(d);
		d->state = QD_OPEN;
		break;
	case QD_DONE:
		break;
	}
	return r->nomem ? -jifl_err_nomem : 0;
}

struct jifl_item *jifl_qdec_peek(struct jifl_qdec *d, int *err)
{
	struct jifl_item *it;

	*err = 0;
	while (!(it = jifl_items_peek(&d->items)) && d->state != QD_DONE) {
		*err = advance(d);
		if (*err)
			return NULL;
	}
	return it;
}

void jifl_qdec_pop(struct jifl_qdec *d)
{
	jifl_items_pop(&d->items);
}

int jifl_qdec_cpu(const struct jifl_qdec *d)
{
	return (int)d->r.src->cpu;
}

uint64_t jifl_qdec_done(const struct jifl_qdec *d)
{
	return d->done;
}

static struct jifl_item *source_peek(void *ctx, int *err)
{
	return jifl_qdec_peek(ctx, err);
}

static void source_pop(void *ctx)
{
	jifl_qdec_pop(ctx);
}

static uint64_t source_done(void *ctx)
{
	return jifl_qdec_done(ctx);
}

void jifl_qdec_source(struct jifl_qdec *d, struct jifl_item_source *src)
{
	src->peek = source_peek;
	src->pop = source_pop;
	src->done = source_done;
	src->ctx = d;
	src->cpu = jifl_qdec_cpu(d);
}
