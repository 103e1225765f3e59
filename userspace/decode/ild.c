// SPDX-License-Identifier: GPL-2.0
#include <stdlib.h>
#include <string.h>

#include "common/errcode.h"
#include "ild.h"

/* PSB, MODE.EXEC, FUP with a full IP, PSBEND: the same size whatever the IP. */
#define TRACE_SIZE	64

struct jifl_ild {
	uint8_t trace[TRACE_SIZE];
	size_t size;			/* of the trace encoded in it */
	struct pt_encoder *enc;
	struct pt_insn_decoder *dec;
	struct pt_image *image;
	/* The instruction's bytes, all the image holds. */
	uint64_t ip;
	const uint8_t *raw;
	size_t len;
};

static int read_raw(uint8_t *buf, size_t size, const struct pt_asid *asid, uint64_t ip,
		    void *ctx)
{
	const struct jifl_ild *ild = ctx;

	(void)asid;
	if (ip != ild->ip)
		return -pte_nomap;
	size = size < ild->len ? size : ild->len;
	memcpy(buf, ild->raw, size);
	return size;
}

/* The trace that starts the decoder at @ip in @mode; returns its size, 0 if it fails. */
static size_t encode(struct jifl_ild *ild, uint64_t ip, enum pt_exec_mode mode)
{
	struct pt_packet pkts[] = {
		{ .type = ppt_psb },
		{ .type = ppt_mode, .payload.mode = { .leaf = pt_mol_exec, .bits.exec = {
			.csl = mode == ptem_64bit, .csd = mode == ptem_32bit } } },
		{ .type = ppt_fup, .payload.ip = { .ipc = pt_ipc_full, .ip = ip } },
		{ .type = ppt_psbend },
	};
	uint64_t off;
	size_t i;

	if (pt_enc_sync_set(ild->enc, 0) < 0)
		return 0;
	for (i = 0; i < sizeof(pkts) / sizeof(pkts[0]); i++)
		if (pt_enc_next(ild->enc, &pkts[i]) < 0)
			return 0;
	return pt_enc_get_offset(ild->enc, &off) < 0 ? 0 : off;
}

int jifl_ild_new(struct jifl_ild **ip)
{
	struct jifl_ild *ild = calloc(1, sizeof(*ild));
	struct pt_config cfg;

	if (!ild)
		return -jifl_err_nomem;
	pt_config_init(&cfg);
	cfg.begin = ild->trace;
	cfg.end = ild->trace + sizeof(ild->trace);
	ild->enc = pt_alloc_encoder(&cfg);
	ild->size = ild->enc ? encode(ild, 0, ptem_64bit) : 0;
	cfg.end = ild->trace + ild->size;
	ild->dec = ild->size ? pt_insn_alloc_decoder(&cfg) : NULL;
	ild->image = pt_image_alloc(NULL);
	if (!ild->dec || !ild->image || pt_image_set_callback(ild->image, read_raw, ild) < 0 ||
	    pt_insn_set_image(ild->dec, ild->image) < 0) {
		jifl_ild_free(ild);
		return -jifl_err_nomem;
	}
	*ip = ild;
	return 0;
}

void jifl_ild_free(struct jifl_ild *ild)
{
	if (!ild)
		return;
	pt_insn_free_decoder(ild->dec);
	pt_image_free(ild->image);
	pt_free_encoder(ild->enc);
	free(ild);
}

/* Sync onto the trace, as it is now, and take its events (enabled, the mode). */
static int start(struct jifl_ild *ild)
{
	struct pt_event ev;
	int status = pt_insn_sync_set(ild->dec, 0);

	while (status >= 0 && (status & pts_event_pending))
		status = pt_insn_event(ild->dec, &ev, sizeof(ev));
	return status;
}

int jifl_ild_decode(struct jifl_ild *ild, struct pt_insn *insn, const uint8_t *raw,
		    size_t len, uint64_t *next)
{
	struct pt_insn got, after;
	int status;

	/* The decoder reads its trace from ild->trace: rewritten in place. */
	if (encode(ild, insn->ip, insn->mode) != ild->size)
		return -jifl_err_internal;
	ild->ip = insn->ip;
	ild->raw = raw;
	ild->len = len;
	status = start(ild);
	if (status < 0)
		return status == -pte_nomem ? -jifl_err_nomem : -jifl_err_internal;
	/* The instruction comes whole even when proceeding needs trace there is not. */
	memset(&got, 0, sizeof(got));
	status = pt_insn_next(ild->dec, &got, sizeof(got));
	if (got.iclass == ptic_error || !got.size)
		return -jifl_err_format;
	insn->size = got.size;
	memcpy(insn->raw, got.raw, got.size);
	insn->iclass = got.iclass;
	*next = insn->ip + got.size;
	/* libipt has gone on without trace (a direct jump or call goes to its target). */
	if (status >= 0 && got.iclass != ptic_other) {
		memset(&after, 0, sizeof(after));
		pt_insn_next(ild->dec, &after, sizeof(after));
		*next = after.ip ? after.ip : *next;
	}
	return 0;
}
