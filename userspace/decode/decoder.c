// SPDX-License-Identifier: GPL-2.0
#include "errcode.h"
#include "run.h"

/* Decode the whole trace: after each failure, a gap and the next PSB. */
static int decode(struct jifl_run *r)
{
	uint64_t offset, last = UINT64_MAX;
	int status;

	for (;;) {
		r->fail_ip = r->ip;
		status = r->be->sync_forward(r->dec);
		if (status == -pte_eos)
			break;
		if (status >= 0) {
			r->disabled = 0;
			if (r->in_gap && r->gap.kind == JIFL_GAP_ERROR &&
			    r->be->sync_offset(r->dec, &offset) >= 0)
				r->gap.resume_offset = r->base + offset;
			status = r->be->stretch(r, status);
		}
		if (status == -pte_eos)
			break;
		jifl_run_gap_open(r, JIFL_GAP_ERROR, status, r->fail_ip);
		/* Never report the same failure twice: step past it. */
		if (r->be->offset(r->dec, &offset) < 0 || offset == last)
			break;
		last = offset;
	}
	jifl_run_gap_close(r, 0, 0, 0);
	if (r->cfg->progress)
		r->cfg->progress(r->cfg->progress_arg, r->base + r->size);
	return 0;
}

/*
 * Decode @size bytes at @data, at r->base in the thread's trace. With
 * @lost, trace data was lost after them: a gap until the next buffer.
 */
static int run_buffer(struct jifl_run *r, const uint8_t *data, size_t size, int lost)
{
	struct jifl_tsc_index tscs;
	struct pt_config cfg;
	int err;

	r->be = r->cfg->kind == JIFL_DECODER_BLOCK ? &jifl_block_backend : &jifl_insn_backend;
	if (r->cfg->pt)
		cfg = *r->cfg->pt;
	else
		pt_config_init(&cfg);
	cfg.begin = (uint8_t *)data;
	cfg.end = (uint8_t *)data + size;
	if (jifl_tsc_index_build(&tscs, &cfg))
		return -jifl_err_nomem;
	r->size = size;
	r->dec = r->be->alloc(&cfg, r->proc->image);
	if (!r->dec) {
		jifl_tsc_index_free(&tscs);
		return -jifl_err_nomem;
	}
	jifl_process_attach(r->proc, r->dec, r->be->time, &tscs, r->be->log_reads);
	err = decode(r);
	if (!err && lost) {
		jifl_run_gap_open(r, JIFL_GAP_LOST, 0, r->ip);
		r->gap.offset = r->base + size;
	}
	jifl_process_attach(r->proc, NULL, NULL, NULL, 0);
	r->be->free(r->dec);
	jifl_tsc_index_free(&tscs);
	return err;
}

int jifl_decode_queue(const struct jifl_perf_queue *q, struct jifl_process *p,
		      const struct jifl_tsc_conv *tc, const struct jifl_decode_config *cfg)
{
	struct jifl_run r = { .proc = p, .tc = tc, .tid = q->tid, .cfg = cfg };
	uint64_t end;
	uint32_t i;
	int err = 0;

	/* libipt would run the buffers around lost data together: decode them apart. */
	for (i = 0; !err && i <= q->gaps; i++, r.base = end) {
		end = i < q->gaps ? q->gap_at[i] : q->size;
		err = run_buffer(&r, q->data + r.base, end - r.base, i < q->gaps);
	}
	return err;
}

int jifl_decode_buffer(const uint8_t *data, size_t size, struct jifl_process *p,
		       const struct jifl_decode_config *cfg)
{
	struct jifl_run r = { .proc = p, .cfg = cfg };

	return run_buffer(&r, data, size, 0);
}
