/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The TSC packets of one trace buffer, in stream order. The decoder's time
 * (the last TSC packet it read) is a lower bound of an instruction's
 * time; the next TSC packet in the stream is an upper bound. JIT page
 * versions that started between the two are the ambiguous ones
 * (Documentation/decode.rst, "Which code version").
 */
#ifndef JIFL_DECODE_TSC_INDEX_H
#define JIFL_DECODE_TSC_INDEX_H

#include <stddef.h>
#include <stdint.h>
#include <intel-pt.h>

struct jifl_tsc_index {
	uint64_t *tsc;		/* each TSC packet's value */
	size_t nr;
};

/*
 * Index the TSC packets of the trace @cfg->begin to @cfg->end, read with
 * @cfg's processor (errata change what some packets are). 0 or
 * -jifl_err_nomem.
 */
int jifl_tsc_index_build(struct jifl_tsc_index *ix, const struct pt_config *cfg);

/*
 * The first TSC packet value above @tsc, the decoder's time; UINT64_MAX
 * if none. By value, not by the decoder's offset: libipt reads ahead of
 * its time. TSC values only grow within one thread's trace.
 */
uint64_t jifl_tsc_index_next(const struct jifl_tsc_index *ix, uint64_t tsc);

void jifl_tsc_index_free(struct jifl_tsc_index *ix);

#endif /* JIFL_DECODE_TSC_INDEX_H */
