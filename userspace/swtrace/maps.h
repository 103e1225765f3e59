/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Executable mappings of a traced process, from /proc/PID/maps. A rescan
 * reports each mapping that is new or changed, for an MMAP2 record.
 */
#ifndef JIFL_MAPS_H
#define JIFL_MAPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "perf/perf_writer.h"

struct jifl_maps {
	int pid;
	struct jifl_perf_mmap2 *v;	/* executable mappings, by address */
	size_t nr, cap;
	size_t hint;			/* last mapping jifl_maps_cacheable hit */
};

typedef int (*jifl_maps_new_fn)(void *ctx, const struct jifl_perf_mmap2 *m);

void jifl_maps_init(struct jifl_maps *m, int pid);
void jifl_maps_fini(struct jifl_maps *m);

/* Read the mappings again; call @fn for each one not seen before. */
int jifl_maps_scan(struct jifl_maps *m, jifl_maps_new_fn fn, void *ctx);

/*
 * Is @ip in read-only executable file text mapped private, whose bytes
 * cannot change? (A shared mapping, the read-execute view of a memfd a
 * JIT writes through another view, changes under its own protection.)
 */
bool jifl_maps_cacheable(struct jifl_maps *m, uint64_t ip);

#endif /* JIFL_MAPS_H */
