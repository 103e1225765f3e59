// SPDX-License-Identifier: GPL-2.0
/*
 * The block back end: libipt hands out blocks of straight-line code,
 * which need no trace inside and are decoded from its block cache; the
 * instructions in a block are only walked when they are to be listed
 * one by one (block_walk.c).
 */
#include <string.h>

#include "block_walk.h"
#include "common/errcode.h"
#include "run.h"

static void *blk_alloc(const struct pt_config *cfg, struct pt_image *image)
{
	struct pt_block_decoder *dec = pt_blk_alloc_decoder(cfg);

	if (dec && pt_blk_set_image(dec, image) < 0) {
		pt_blk_free_decoder(dec);
		return NULL;
	}
	return dec;
}

static void blk_free(void *dec)
{
	pt_blk_free_decoder(dec);
}

static int blk_set_image(void *dec, struct pt_image *image)
{
	return pt_blk_set_image(dec, image);
}

static int blk_sync_forward(void *dec)
{
	return pt_blk_sync_forward(dec);
}

static int blk_offset(const void *dec, uint64_t *offset)
{
	return pt_blk_get_offset(dec, offset);
}

static int blk_sync_offset(const void *dec, uint64_t *offset)
{
	return pt_blk_get_sync_offset(dec, offset);
}

static uint64_t blk_time(void *dec)
{
	uint32_t lost_mtc, lost_cyc;
	uint64_t tsc = 0;

	pt_blk_time(dec, &tsc, &lost_mtc, &lost_cyc);
	return tsc;
}

static int blk_event(void *dec, struct pt_event *ev)
{
	return pt_blk_event(dec, ev, sizeof(*ev));
}

/* @b's instructions, walked; 0 or a negative pt_error_code. */
static int walk(struct jifl_run *r, const struct pt_block *b, struct jifl_walk *w)
{
	struct jifl_process *p = r->proc;
	int err = 0;

	if (!p->walks)
		err = jifl_walk_cache_new(&p->walks);
	if (!err)
		err = jifl_block_walk(p->walks, p->isc, p, b, w);
	return err == -jifl_err_nomem ? -pte_nomem : err ? -pte_bad_insn : 0;
}

/*
 * Hand out @b, decoded from decoder time @start to @end. The instructions
 * before the last one needed no trace: they ran at @start, as the
 * instruction flow decoder would say; the last one at @end. Returns 0 or
 * a negative pt_error_code.
 */
static int emit_block(struct jifl_run *r, const struct pt_block *b, uint64_t start,
		      uint64_t end, int status)
{
	uint64_t jit = !b->isid || jifl_process_jit_section(r->proc, b->isid, b->ip) ?
		       b->ninsn : 0;
	struct jifl_walk w;
	uint16_t i;
	int err;

	/* Counting needs no walk, but a failed instruction must be named. */
	if (!r->cfg->ops->insn && !jifl_insn_failed(status)) {
		jifl_run_count(r, b->ip, b->end_ip, b->isid, start, b->ninsn, jit);
		r->fail_ip = b->end_ip;
		return 0;
	}
	err = walk(r, b, &w);
	if (err)
		return err;
	if (!r->cfg->ops->insn) {
		jifl_run_count(r, b->ip, b->end_ip, b->isid, start, b->ninsn, jit);
	} else {
		for (i = 0; i + 1 < b->ninsn; i++)
			jifl_run_insn(r, &w.insns[i], start, w.jit ? w.jit[i] : NULL);
		jifl_run_insn(r, &w.last, end, w.jit ? w.jit[i] : NULL);
	}
	/* An instruction after the last one could not be read or decoded. */
	r->fail_ip = jifl_insn_failed(status) ? w.next : b->end_ip;
	return 0;
}

static int blk_step(struct jifl_run *r, int status)
{
	struct pt_block block;
	uint64_t start;
	int err;

	status = jifl_run_step_begin(r, status);
	if (status < 0)
		return status;
	memset(&block, 0, sizeof(block));
	start = blk_time(r->dec);
	status = pt_blk_next(r->dec, &block, sizeof(block));
	if (block.ninsn) {
		err = emit_block(r, &block, start, blk_time(r->dec), status);
		if (err)
			return err;
	} else if (block.ip && jifl_insn_failed(status)) {
		r->fail_ip = block.ip;
	}
	return status;
}

const struct jifl_backend jifl_block_backend = {
	.alloc = blk_alloc,
	.free = blk_free,
	.set_image = blk_set_image,
	.sync_forward = blk_sync_forward,
	.offset = blk_offset,
	.sync_offset = blk_sync_offset,
	.time = blk_time,
	.event = blk_event,
	.step = blk_step,
	.log_reads = 1,
};
