// SPDX-License-Identifier: GPL-2.0
/* The instruction flow back end: libipt hands out one instruction at a time. */
#include <string.h>

#include "run.h"

static void *insn_alloc(const struct pt_config *cfg, struct pt_image *image)
{
	struct pt_insn_decoder *dec = pt_insn_alloc_decoder(cfg);

	if (dec && pt_insn_set_image(dec, image) < 0) {
		pt_insn_free_decoder(dec);
		return NULL;
	}
	return dec;
}

static void insn_free(void *dec)
{
	pt_insn_free_decoder(dec);
}

static int insn_set_image(void *dec, struct pt_image *image)
{
	return pt_insn_set_image(dec, image);
}

static int insn_sync_forward(void *dec)
{
	return pt_insn_sync_forward(dec);
}

static int insn_offset(const void *dec, uint64_t *offset)
{
	return pt_insn_get_offset(dec, offset);
}

static int insn_sync_offset(const void *dec, uint64_t *offset)
{
	return pt_insn_get_sync_offset(dec, offset);
}

static uint64_t insn_time(void *dec)
{
	uint32_t lost_mtc, lost_cyc;
	uint64_t tsc = 0;

	pt_insn_time(dec, &tsc, &lost_mtc, &lost_cyc);
	return tsc;
}

static int insn_event(void *dec, struct pt_event *ev)
{
	return pt_insn_event(dec, ev, sizeof(*ev));
}

static int insn_step(struct jifl_run *r, int status)
{
	struct pt_insn insn;

	status = jifl_run_step_begin(r, status);
	if (status < 0)
		return status;
	memset(&insn, 0, sizeof(insn));
	status = pt_insn_next(r->dec, &insn, sizeof(insn));
	/* The instruction may be good even when what follows is not. */
	if (insn.iclass != ptic_error)
		jifl_run_insn(r, &insn, insn_time(r->dec),
			      jifl_process_jit_version(r->proc, insn.ip, insn.isid));
	/* Else libipt still says where, e.g. where no code was. */
	if (insn.iclass != ptic_error || (insn.ip && jifl_insn_failed(status)))
		r->fail_ip = insn.ip;
	return status;
}

const struct jifl_backend jifl_insn_backend = {
	.alloc = insn_alloc,
	.free = insn_free,
	.set_image = insn_set_image,
	.sync_forward = insn_sync_forward,
	.offset = insn_offset,
	.sync_offset = insn_sync_offset,
	.time = insn_time,
	.event = insn_event,
	.step = insn_step,
};
