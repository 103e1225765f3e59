/* SPDX-License-Identifier: GPL-2.0 */
/* jiflctl: settings and counters, for people and for scripts. */
#ifndef JIFLCTL_REPORT_H
#define JIFLCTL_REPORT_H

#include <stdio.h>

#include "jifl/bbcount.h"
#include "jifl/jiflproc.h"

void report_status(FILE *f, const struct jifl_proc_control *c,
		   const struct jifl_proc_stats *s);

/* One "key value  what it counts" line per counter, or a JSON object. */
void report_stats(FILE *f, const struct jifl_proc_stats *s, int json);

/* What changed from @before to @after; cache_* (levels) as they are now. */
void report_delta(FILE *f, const struct jifl_proc_stats *before,
		  const struct jifl_proc_stats *after);

/*
 * The @top (0: all) most run blocks of sorted @bc, as perf report lists
 * symbols: count, share of all counts, "func+0xoff  [module]"; then the
 * totals.
 */
void report_bbcount(FILE *f, const struct jifl_bbcount *bc, unsigned int top);

#endif /* JIFLCTL_REPORT_H */
