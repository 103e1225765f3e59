// SPDX-License-Identifier: GPL-2.0
#include <stdlib.h>
#include <intel-pt.h>

#include "common/array.h"
#include "common/errcode.h"
#include "tsc_index.h"

static int push(struct jifl_tsc_index *ix, size_t *cap, uint64_t tsc)
{
	int err = jifl_array_room(ix->tsc, ix->nr, *cap);

	if (err)
		return err;
	ix->tsc[ix->nr++] = tsc;
	return 0;
}

int jifl_tsc_index_build(struct jifl_tsc_index *ix, const struct pt_config *cfg)
{
	struct pt_packet_decoder *dec;
	struct pt_packet pkt;
	size_t cap = 0;
	int status, err = 0;

	ix->tsc = NULL;
	ix->nr = 0;
	dec = pt_pkt_alloc_decoder(cfg);
	if (!dec)
		return -jifl_err_nomem;
	/* A packet that does not decode: go on from the next PSB, as the decoder will. */
	for (status = pt_pkt_sync_forward(dec); status >= 0 && !err;) {
		status = pt_pkt_next(dec, &pkt, sizeof(pkt));
		if (status == -pte_eos)
			break;
		if (status < 0)
			status = pt_pkt_sync_forward(dec);
		else if (pkt.type == ppt_tsc)
			err = push(ix, &cap, pkt.payload.tsc.tsc);
	}
	pt_pkt_free_decoder(dec);
	return err;
}

uint64_t jifl_tsc_index_next(const struct jifl_tsc_index *ix, uint64_t tsc)
{
	size_t lo = 0, hi = ix->nr, mid;

	while (lo < hi) {
		mid = (lo + hi) / 2;
		if (ix->tsc[mid] <= tsc)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < ix->nr ? ix->tsc[lo] : UINT64_MAX;
}

void jifl_tsc_index_free(struct jifl_tsc_index *ix)
{
	free(ix->tsc);
	ix->tsc = NULL;
	ix->nr = 0;
}
