/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The sample_id_all trailer of perf's side-band records (MMAP2, COMM,
 * ...): the fields the events' sample_type selects, in the kernel's
 * order (perf_event_header__init_id()): TID, TIME, ID, STREAM_ID, CPU,
 * IDENTIFIER.
 */
#ifndef JIFL_PERF_SAMPLE_ID_H
#define JIFL_PERF_SAMPLE_ID_H

#include <stddef.h>
#include <stdint.h>

#include "perf_data.h"

/* The largest trailer: every field selected. */
#define JIFL_PERF_SAMPLE_ID_MAX	48

/*
 * Bytes of the trailer for @sample_type; @time_from_end (if not NULL):
 * where its time starts, counted back from the end of the record (0:
 * no time).
 */
size_t jifl_perf_sample_id_size(uint64_t sample_type, size_t *time_from_end);

/*
 * Write the trailer of @sid for @sample_type into @buf (room for
 * JIFL_PERF_SAMPLE_ID_MAX bytes), STREAM_ID as ID; returns its size.
 */
size_t jifl_perf_sample_id_put(void *buf, uint64_t sample_type,
			       const struct jifl_perf_sample_id *sid);

/*
 * Read the trailer at @buf, laid out for @sample_type, into @sid: the
 * fields it has; the others 0, but cpu (uint32_t)-1 when it has none.
 */
void jifl_perf_sample_id_get(const void *buf, uint64_t sample_type,
			     struct jifl_perf_sample_id *sid);

#endif /* JIFL_PERF_SAMPLE_ID_H */
