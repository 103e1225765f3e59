/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the recording lost, in words, as perf tells it at the end of a
 * report ("AUX data lost N times out of M!"): the counts of the
 * perf.data's records of lost data (struct jifl_perf_info).
 */
#ifndef JIFL_DECODE_LOSSES_H
#define JIFL_DECODE_LOSSES_H

#include <stddef.h>

#include "perf/perf_reader.h"

#define JIFL_LOSS_MSG	128
#define JIFL_LOSSES_MAX	6

/* One message per kind of loss @info counts, in @msg; returns how many. */
size_t jifl_losses_describe(const struct jifl_perf_info *info,
			    char msg[JIFL_LOSSES_MAX][JIFL_LOSS_MSG]);

#endif /* JIFL_DECODE_LOSSES_H */
