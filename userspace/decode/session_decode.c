// SPDX-License-Identifier: GPL-2.0
/*
 * A decoding session's queues decoded: in this thread, or in several
 * (parallel.h).
 */
#include <stdlib.h>

#include "bigstack.h"
#include "common/errcode.h"
#include "parallel.h"
#include "run.h"
#include "session_decode.h"

struct decode_call {
	struct jifl_session *s;
	const struct jifl_decode_config *cfg;
};

/* The queues one after the other, in this thread. */
static int decode_here(void *arg)
{
	struct decode_call *c = arg;
	struct jifl_session *s = c->s;
	size_t n = jifl_session_nr_queues(s), i;
	struct jifl_decode_config qcfg = *c->cfg;
	struct jifl_item_source *items;
	struct jifl_run_source *src;
	struct jifl_qdec **qd;
	int err = 0;

	qcfg.pt = jifl_session_pt(s);
	src = calloc(n, sizeof(*src));
	qd = calloc(n, sizeof(*qd));
	items = calloc(n, sizeof(*items));
	for (i = 0; src && qd && items && i < n && !err; i++) {
		err = jifl_session_queue_decoder(s, i, &src[i], &qcfg, &qd[i]);
		if (!err)
			jifl_qdec_source(qd[i], &items[i]);
	}
	if (!src || !qd || !items)
		err = -jifl_err_nomem;
	if (!err)
		err = jifl_decode_merged(items, n, jifl_session_tsc_conv(s), &qcfg);
	for (i = 0; qd && i < n; i++)
		jifl_qdec_free(qd[i]);
	free(items);
	free(qd);
	free(src);
	return err;
}

int jifl_session_decode(struct jifl_session *s, const struct jifl_decode_config *cfg)
{
	struct decode_call c = { .s = s, .cfg = cfg };

	if (cfg->jobs > 1 && jifl_session_nr_queues(s) > 1 &&
	    jifl_session_perf_info(s))
		return jifl_decode_parallel(s, cfg);
	/* libipt may recurse deeply (bigstack.h): not on the caller's stack. */
	return jifl_bigstack_call(decode_here, &c);
}
