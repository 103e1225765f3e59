// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer harness: the input is a perf.data file. It is read
 * (jifl_perf_reader: every record, queue and build ID looked at), then
 * opened as a decoding session and decoded to the end, as jifl-decode
 * would. The binaries its MMAP2 records name are read from this machine
 * (the seeds name the project's test programs); the vDSO's build-id
 * cache is a directory that does not exist.
 */
#include <stdint.h>
#include <unistd.h>

#include "fuzz_decode.h"
#include "fuzz_file.h"
#include "perf/perf_reader.h"

static uint64_t fuzz_sum;

static void read_all(const char *path)
{
	const struct jifl_perf_info *info;
	struct jifl_perf_reader *r;
	uint64_t bad, sum = 0;
	size_t i, j;

	if (jifl_perf_reader_open(&r, path, &bad))
		return;
	info = jifl_perf_reader_info(r);
	sum += info->pt_config + info->sample_type + (info->cpuid ? info->cpuid[0] : 0);
	for (i = 0; i < jifl_perf_reader_nr_maps(r); i++) {
		const struct jifl_perf_map *m = jifl_perf_reader_map(r, i);

		sum += m->m.addr + m->m.len + m->m.pgoff + m->m.filename[0];
	}
	for (i = 0; i < jifl_perf_reader_nr_tasks(r); i++) {
		const struct jifl_perf_task *t = jifl_perf_reader_task(r, i);

		sum += t->tid + (t->comm ? t->comm[0] : 0);
		sum += jifl_perf_reader_comm(r, t->tid, t->time)[0];
	}
	for (i = 0; i < jifl_perf_reader_nr_switches(r); i++)
		sum += jifl_perf_reader_switch(r, i)->time;
	for (i = 0; i < jifl_perf_reader_nr_build_ids(r); i++) {
		const struct jifl_perf_build_id *b = jifl_perf_reader_build_id(r, i);

		sum += b->filename[0] + b->id[b->size ? b->size - 1 : 0];
	}
	for (i = 0; i < jifl_perf_reader_nr_queues(r); i++) {
		const struct jifl_perf_queue *q = jifl_perf_reader_queue(r, i);

		for (j = 0; j < q->size; j++)
			sum += q->data[j];
		for (j = 0; j < q->gaps; j++)
			sum += q->gap_at[j];
	}
	jifl_perf_reader_close(r);
	fuzz_sum += sum;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_sink sink = { 0 };
	struct jifl_session *s;
	char path[64], msg[512];
	int fd;

	fd = fuzz_file(data, size, path, sizeof(path));
	read_all(path);
	if (!jifl_session_open(&s, path, NULL, "/nonexistent/jifl-fuzz", msg, sizeof(msg))) {
		/*
		 * Both decoders, listing or counting, by one thread or by two
		 * (parallel.c): one run each, chosen by the input.
		 */
		fuzz_decode(s, size & 1 ? JIFL_DECODER_BLOCK : JIFL_DECODER_INSN,
			    size & 2, size & 4 ? 2 : 1, &sink);
		jifl_session_close(s);
	}
	close(fd);
	fuzz_sum += sink.sum;
	return 0;
}
