// SPDX-License-Identifier: GPL-2.0
#include <inttypes.h>
#include <stdio.h>

#include "losses.h"

/* AUX records with a flag: @count of all of them. */
static size_t aux(char *msg, uint64_t count, const char *what, const struct jifl_perf_info *info)
{
	if (!count)
		return 0;
	snprintf(msg, JIFL_LOSS_MSG, "AUX data %s %" PRIu64 " times (of %" PRIu64 " AUX records)",
		 what, count, info->aux_records);
	return 1;
}

size_t jifl_losses_describe(const struct jifl_perf_info *info,
			    char msg[JIFL_LOSSES_MAX][JIFL_LOSS_MSG])
{
	size_t n = 0;

	n += aux(msg[n], info->aux_lost, "lost", info);
	n += aux(msg[n], info->aux_collisions, "collided", info);
	n += aux(msg[n], info->aux_partial, "had gaps in it", info);
	n += aux(msg[n], info->aux_overwritten, "overwritten", info);
	if (info->lost_chunks)
		snprintf(msg[n++], JIFL_LOSS_MSG, "%" PRIu64 " records lost (%" PRIu64
			 " PERF_RECORD_LOST)", info->lost_records, info->lost_chunks);
	if (info->lost_samples)
		snprintf(msg[n++], JIFL_LOSS_MSG, "%" PRIu64 " samples lost", info->lost_samples);
	return n;
}
