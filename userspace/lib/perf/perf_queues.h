/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The AUXTRACE queues of a perf.data file: each queue's buffers joined in
 * the order of their offsets in its AUX area, and the places where trace
 * data was lost: where a buffer does not follow the previous one (perf
 * lost it), and where a PERF_RECORD_AUX's flags say so (the kernel did).
 */
#ifndef JIFL_PERF_QUEUES_H
#define JIFL_PERF_QUEUES_H

#include <stddef.h>
#include <stdint.h>

#include "perf_reader.h"

/* An AUXTRACE record's buffer (@data points into the file or a copy). */
struct jifl_perf_aux_buffer {
	uint32_t idx, tid, cpu;
	uint64_t offset;		/* in the queue's AUX area */
	const uint8_t *data;
	uint64_t size;
};

/* Trace data lost at offset @at of the AUX area of CPU @cpu or thread @tid. */
struct jifl_perf_aux_loss {
	uint32_t cpu, tid;
	uint64_t at;
};

/*
 * Join @bufs (sorted here) into queues, in *@qs (*@nr of them). A loss
 * is of the queue of its CPU in a per-CPU session (@per_cpu), else of
 * its thread; it is a gap where it falls in the queue's data, none at
 * either end (nothing to decode apart there) or in a queue it names
 * none of. Returns 0 or -jifl_err_nomem.
 */
int jifl_perf_queues_make(struct jifl_perf_queue **qs, size_t *nr,
			  struct jifl_perf_aux_buffer *bufs, size_t nr_bufs,
			  const struct jifl_perf_aux_loss *losses, size_t nr_losses, int per_cpu);

void jifl_perf_queues_free(struct jifl_perf_queue *qs, size_t nr);

#endif /* JIFL_PERF_QUEUES_H */
