// SPDX-License-Identifier: GPL-2.0
#include <string.h>

#include "perf_sample_id.h"

size_t jifl_perf_sample_id_size(uint64_t sample_type, size_t *time_from_end)
{
	static const uint64_t after_time[] = {
		PERF_SAMPLE_ID, PERF_SAMPLE_STREAM_ID, PERF_SAMPLE_CPU,
		PERF_SAMPLE_IDENTIFIER,
	};
	size_t size = 0, from_end = 0, i;

	for (i = 0; i < sizeof(after_time) / sizeof(after_time[0]); i++)
		if (sample_type & after_time[i])
			size += 8;
	if (sample_type & PERF_SAMPLE_TIME) {
		size += 8;
		from_end = size;
	}
	if (sample_type & PERF_SAMPLE_TID)
		size += 8;
	if (time_from_end)
		*time_from_end = from_end;
	return size;
}

static size_t put(uint8_t *buf, size_t at, const void *v, size_t n)
{
	memcpy(buf + at, v, n);
	return at + n;
}

size_t jifl_perf_sample_id_put(void *buf, uint64_t sample_type,
			       const struct jifl_perf_sample_id *sid)
{
	size_t n = 0;

	if (sample_type & PERF_SAMPLE_TID) {
		n = put(buf, n, &sid->pid, sizeof(sid->pid));
		n = put(buf, n, &sid->tid, sizeof(sid->tid));
	}
	if (sample_type & PERF_SAMPLE_TIME)
		n = put(buf, n, &sid->time, sizeof(sid->time));
	if (sample_type & PERF_SAMPLE_ID)
		n = put(buf, n, &sid->id, sizeof(sid->id));
	if (sample_type & PERF_SAMPLE_STREAM_ID)
		n = put(buf, n, &sid->id, sizeof(sid->id));
	if (sample_type & PERF_SAMPLE_CPU) {
		n = put(buf, n, &sid->cpu, sizeof(sid->cpu));
		n = put(buf, n, &sid->res, sizeof(sid->res));
	}
	if (sample_type & PERF_SAMPLE_IDENTIFIER)
		n = put(buf, n, &sid->id, sizeof(sid->id));
	return n;
}
