// SPDX-License-Identifier: GPL-2.0
/*
 * perf.data as perf writes it when data is lost, compressed or piped:
 * one recording of a test program, written again by the perf.data
 * writer as each variant says (to a pipe, "perf record -o -"; its
 * side-band compressed, "-z"; PERF_RECORD_LOST and _LOST_SAMPLES; a
 * PERF_RECORD_AUX whose flags say the trace was cut there). jifl-decode
 * must decode each to the ground truth, with a "trace data lost" gap
 * exactly where an AUX record's flags say data was lost, and say at the
 * end, on stderr, how much was lost: never silently.
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/perf_event.h>

#include "kselftest_harness.h"
#include "cmd.h"
#include "swtrace_truth.h"
#include "tools.h"
#include "tmpdir.h"
#include "perf/perf_reader.h"
#include "perf/perf_writer.h"

FIXTURE(lost) {
	TMPDIR_TRACE_MEMBERS;
	char out[16384];
};

/*
 * How to write the recording again. @cut: trace bytes from a third to
 * half of the queue are left out, and an AUX record with @aux_flags says
 * so: TRUNCATED, of the data before (the trace stopped at its end), or
 * COLLISION, of the data after (lost from its start). Otherwise an AUX
 * record with @aux_flags, if any, covers the whole trace, which is all
 * there. @status and the lines @warn that jifl-decode must end with.
 */
FIXTURE_VARIANT(lost) {
	int pipe, compress, compressed2;
	uint64_t lost, lost_samples;
	uint64_t aux_flags;
	int cut;
	int status;
	const char *warn[2];
};

FIXTURE_VARIANT_ADD(lost, pipe) {
	.pipe = 1,
};

FIXTURE_VARIANT_ADD(lost, compressed) {
	.compress = 3,
};

FIXTURE_VARIANT_ADD(lost, compressed2_to_a_pipe) {
	.pipe = 1, .compress = 1, .compressed2 = 1,
};

FIXTURE_VARIANT_ADD(lost, lost_records) {
	.lost = 3, .lost_samples = 5, .status = 1,
	.warn = { "jifl-decode: warning: 3 records lost (1 PERF_RECORD_LOST)",
		  "jifl-decode: warning: 5 samples lost" },
};

FIXTURE_VARIANT_ADD(lost, aux_truncated) {
	.aux_flags = PERF_AUX_FLAG_TRUNCATED, .cut = 1, .status = 1,
	.warn = { "jifl-decode: warning: AUX data lost 1 times (of 1 AUX records)" },
};

FIXTURE_VARIANT_ADD(lost, aux_truncated_compressed_to_a_pipe) {
	.pipe = 1, .compress = 3, .aux_flags = PERF_AUX_FLAG_TRUNCATED, .cut = 1, .status = 1,
	.warn = { "jifl-decode: warning: AUX data lost 1 times (of 1 AUX records)" },
};

FIXTURE_VARIANT_ADD(lost, aux_collision) {
	.aux_flags = PERF_AUX_FLAG_COLLISION, .cut = 1, .status = 1,
	.warn = { "jifl-decode: warning: AUX data collided 1 times (of 1 AUX records)" },
};

FIXTURE_VARIANT_ADD(lost, aux_partial) {
	.aux_flags = PERF_AUX_FLAG_PARTIAL, .status = 1,
	.warn = { "jifl-decode: warning: AUX data had gaps in it 1 times (of 1 AUX records)" },
};

FIXTURE_VARIANT_ADD(lost, aux_overwrite) {
	.aux_flags = PERF_AUX_FLAG_OVERWRITE, .status = 1,
	.warn = { "jifl-decode: warning: AUX data overwritten 1 times (of 1 AUX records)" },
};

FIXTURE_SETUP(lost)
{
	TMPDIR_TRACE_SETUP("decode-lost");
}

FIXTURE_TEARDOWN(lost)
{
	TMPDIR_TRACE_TEARDOWN();
}

/* The side-band of @r again, and the records of lost data @v asks for. */
static void write_sideband(struct __test_metadata *_metadata, const FIXTURE_VARIANT(lost) *v,
			   struct jifl_perf_writer *w, const struct jifl_perf_reader *r,
			   const struct jifl_perf_queue *q)
{
	const struct jifl_perf_build_id *b;
	const struct jifl_perf_map *m;
	size_t i;

	ASSERT_EQ(0, jifl_perf_writer_comm(w, q->pid, q->tid, "lost", 1, 1));
	for (i = 0; (m = jifl_perf_reader_map(r, i)); i++)
		ASSERT_EQ(0, jifl_perf_writer_mmap2(w, &m->m, 1));
	for (i = 0; (b = jifl_perf_reader_build_id(r, i)); i++)
		ASSERT_EQ(0, jifl_perf_writer_build_id(w, b->filename, b->id, b->size));
	ASSERT_EQ(0, jifl_perf_writer_itrace_start(w, q->pid, q->tid, 1));
	if (v->lost)
		ASSERT_EQ(0, jifl_perf_writer_lost(w, v->lost, 1));
	if (v->lost_samples)
		ASSERT_EQ(0, jifl_perf_writer_lost_samples(w, v->lost_samples, 1));
}

/*
 * Write self->data (one thread) again as @v says, without queue offsets
 * [@lo, @hi) of its trace; returns where in the new queue they were (the
 * first buffer padded to 8 bytes).
 */
static uint64_t rewrite(struct __test_metadata *_metadata, FIXTURE_DATA(lost) *self,
			const FIXTURE_VARIANT(lost) *v, size_t lo, size_t hi)
{
	struct jifl_perf_writer_config cfg = {
		.pipe = v->pipe, .compress = v->compress, .compressed2 = v->compressed2,
	};
	const struct jifl_perf_info *info;
	const struct jifl_perf_queue *q;
	struct jifl_perf_reader *r;
	struct jifl_perf_writer *w;
	uint64_t off, at;
	char orig[160];
	int err = 0;

	snprintf(orig, sizeof(orig), "%s.orig", self->data);
	EXPECT_EQ(0, rename(self->data, orig));
	EXPECT_EQ(0, jifl_perf_reader_open(&r, orig, &off));
	EXPECT_EQ(1, jifl_perf_reader_nr_queues(r));
	q = jifl_perf_reader_queue(r, 0);
	EXPECT_LE(hi, q->size);
	info = jifl_perf_reader_info(r);
	cfg.pt_pmu_type = info->pt_pmu_type;
	cfg.pt_config = info->pt_config;
	cfg.tc = info->tc;
	EXPECT_EQ(0, jifl_perf_writer_open(&w, self->data, &cfg));
	write_sideband(_metadata, v, w, r, q);
	EXPECT_EQ(0, jifl_perf_writer_auxtrace(w, 0, q->tid, q->data, lo));
	at = jifl_perf_writer_aux_offset(w, 0);
	if (v->aux_flags & PERF_AUX_FLAG_COLLISION)
		err = jifl_perf_writer_aux(w, q->pid, q->tid, at, q->size - hi, v->aux_flags, 2);
	else if (v->aux_flags)
		err = jifl_perf_writer_aux(w, q->pid, q->tid, 0, at, v->aux_flags, 2);
	EXPECT_EQ(0, err);
	if (hi < q->size)
		EXPECT_EQ(0, jifl_perf_writer_auxtrace(w, 0, q->tid, q->data + hi,
						       q->size - hi));
	EXPECT_EQ(0, jifl_perf_writer_exit(w, q->pid, q->pid, q->tid, q->tid, 3));
	EXPECT_EQ(0, jifl_perf_writer_close(w));
	jifl_perf_reader_close(r);
	return at;
}

/* The size of queue 0 of self->data. */
static size_t queue_size(struct __test_metadata *_metadata, FIXTURE_DATA(lost) *self)
{
	struct jifl_perf_reader *r;
	uint64_t off;
	size_t size;

	EXPECT_EQ(0, jifl_perf_reader_open(&r, self->data, &off));
	size = jifl_perf_reader_queue(r, 0)->size;
	jifl_perf_reader_close(r);
	return size;
}

/* jifl-decode's last lines on stderr are @v's warnings. */
static void expect_warnings(struct __test_metadata *_metadata, FIXTURE_DATA(lost) *self,
			    const FIXTURE_VARIANT(lost) *v, const char *opts)
{
	char want[512] = "";
	size_t i, n;

	for (i = 0; i < 2 && v->warn[i]; i++)
		snprintf(want + strlen(want), sizeof(want) - strlen(want), "%s\n", v->warn[i]);
	EXPECT_EQ(v->status, cmd_run(self->out, sizeof(self->out),
				     "%s -i %s --stats %s 2> %s/err > /dev/null; s=$?; cat %s/err; exit $s",
				     decoder(), self->data, opts, self->dir, self->dir));
	n = strlen(self->out);
	EXPECT_TRUE(n >= strlen(want) && !strcmp(self->out + n - strlen(want), want))
		TH_LOG("%s: stderr ends\n%s\nnot\n%s", opts, self->out, want);
}

/* Decoded with a gap at @at of the queue: the truth before and after it. */
static void expect_gap(struct __test_metadata *_metadata, FIXTURE_DATA(lost) *self,
		       const char *opts, uint64_t at)
{
	unsigned long long ip, before, off, resume_ip, total;
	char *line;
	long errors;
	size_t j;

	cmd_run(self->out, sizeof(self->out), "%s -i %s --stats %s", decoder(), self->data, opts);
	line = strstr(self->out, "\ninstructions: ");
	ASSERT_NE(NULL, line) TH_LOG("%s", self->out);
	ASSERT_EQ(1, sscanf(line, "\ninstructions: %llu", &total));
	EXPECT_NE(NULL, strstr(self->out, ", 1 trace data lost, 0 never-ending loops; "))
		TH_LOG("%s: %s", opts, self->out);
	line = strstr(self->out, " trace data lost at ip ");
	ASSERT_NE(NULL, line) TH_LOG("%s: %s", opts, self->out);
	ASSERT_EQ(4, sscanf(line, " trace data lost at ip %llx after %llu instructions, "
			    "trace offset %llx; resumed at ip %llx", &ip, &before, &off,
			    &resume_ip));
	EXPECT_EQ(at, off);
	self->got.n = 0;
	snprintf(self->out, sizeof(self->out), "%s -i %s --insn %s", decoder(), self->data, opts);
	EXPECT_EQ(1, read_ips(self->out, 1, " error: ", &self->got, &errors));
	ASSERT_EQ(total, self->got.n);
	ASSERT_LT(0, before);
	ASSERT_LT(before, total);
	for (j = 0; j < before; j++)
		ASSERT_EQ(self->want.v[j].ip, self->got.v[j].ip) TH_LOG("instruction %zu", j);
	EXPECT_EQ(resume_ip, self->got.v[before].ip);
	for (j = 1; j <= total - before; j++)
		ASSERT_EQ(self->want.v[self->want.n - j].ip, self->got.v[total - j].ip)
			TH_LOG("instruction %zu from the end", j);
}

/* Decoded whole: exactly the truth. */
static void expect_truth(struct __test_metadata *_metadata, FIXTURE_DATA(lost) *self,
			 const FIXTURE_VARIANT(lost) *v, const char *opts)
{
	size_t first;
	char cmd[512];
	long errors;

	snprintf(cmd, sizeof(cmd), "%s -i %s --insn %s 2> /dev/null", decoder(), self->data, opts);
	self->got.n = 0;
	EXPECT_EQ(v->status, read_ips(cmd, 1, " error: ", &self->got, &errors));
	EXPECT_EQ(0, errors);
	qsort(self->got.v, self->got.n, sizeof(*self->got.v), step_cmp);
	EXPECT_EQ(0, ipseq_diffs(&self->want, &self->got, &first))
		TH_LOG("%s: %zu of %zu instructions, first difference at %zu", opts,
		       self->got.n, self->want.n, first);
}

TEST_F(lost, decoded_and_told)
{
	char opts[64];
	uint64_t at;
	size_t size, d;

	ASSERT_EQ(0, cmd_run(self->out, sizeof(self->out), "%s -q -o %s --truth %s -- %s",
			     SWTRACE, self->data, self->truth, PROGS "swt_flow-static 10"))
		TH_LOG("%s", self->out);
	ASSERT_EQ(0, truth_read(self->truth, &self->want));
	if (!variant->cut)
		qsort(self->want.v, self->want.n, sizeof(*self->want.v), step_cmp);
	size = queue_size(_metadata, self);
	if (variant->cut)
		at = rewrite(_metadata, self, variant, size / 3, size / 2);
	else
		at = rewrite(_metadata, self, variant, size, size);
	for (d = 0; d < NR_DECODERS; d++) {
		snprintf(opts, sizeof(opts), "--decoder %s", decoders[d]);
		expect_warnings(_metadata, self, variant, opts);
		if (variant->cut)
			expect_gap(_metadata, self, opts, at);
		else
			expect_truth(_metadata, self, variant, opts);
	}
}

TEST_HARNESS_MAIN
