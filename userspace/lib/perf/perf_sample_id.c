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

static size_t get(const uint8_t *buf, size_t at, void *v, size_t n)
{
	memcpy(v, buf + at, n);
	return at + n;
}

void jifl_perf_sample_id_get(const void *buf, uint64_t sample_type,
			     struct jifl_perf_sample_id *sid)
{
	size_t n = 0;

	memset(sid, 0, sizeof(*sid));
	sid->cpu = (uint32_t)-1;
	if (sample_type & PERF_SAMPLE_TID) {
		n = get(buf, n, &sid->pid, sizeof(sid->pid));
		n = get(buf, n, &sid->tid, sizeof(sid->tid));
	}
	if (sample_type & PERF_SAMPLE_TIME)
		n = get(buf, n, &sid->time, sizeof(sid->time));
	if (sample_type & PERF_SAMPLE_ID)
		n = get(buf, n, &sid->id, sizeof(sid->id));
	if (sample_type & PERF_SAMPLE_STREAM_ID)
		n += sizeof(uint64_t);
	if (sample_type & PERF_SAMPLE_CPU) {
		n = get(buf, n, &sid->cpu, sizeof(sid->cpu));
		n = get(buf, n, &sid->res, sizeof(sid->res));
	}
	if (sample_type & PERF_SAMPLE_IDENTIFIER)
		get(buf, n, &sid->id, sizeof(sid->id));
}
