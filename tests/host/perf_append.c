// SPDX-License-Identifier: GPL-2.0
/*
 * A perf.data copied with a record added at the end of its data (the
 * marker flowjit jitdump adds): the copy reads as the original plus the
 * record, for this project's reader and for perf, whose header listing
 * differs only in the data's size and the features' offset; bad input
 * is refused with its error code.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "cmd.h"
#include "tmpdir.h"
#include "common/errcode.h"
#include "perf/perf_append.h"
#include "perf/perf_reader.h"
#include "perf/perf_writer.h"

#define PID		4194002		/* a process of the perf.data only */
#define MARK_TIME	1500000123ull

FIXTURE(append) {
	char dir[64], in[128], out[128], mark[128];
	char text[16384];
};

FIXTURE_SETUP(append)
{
	static const uint8_t id[20] = { 1, 2, 3, 4, 5 };
	struct jifl_perf_writer_config cfg = {
		.pt_pmu_type = 8,
		.pt_config = JIFL_INTEL_PT_CFG_PT | JIFL_INTEL_PT_CFG_TSC,
		.tc = { .time_shift = 0, .time_mult = 1 },
	};
	struct jifl_perf_mmap2 m = {
		.pid = PID, .tid = PID, .addr = 0x400000, .len = 0x1000,
		.prot = PROT_READ | PROT_EXEC, .flags = MAP_PRIVATE, .filename = "/bin/true",
	};
	static const uint8_t trace[64] = { 2, 0x82 };
	struct jifl_perf_writer *w;

	ASSERT_EQ(0, tmpdir_make(self->dir, sizeof(self->dir), "append"));
	snprintf(self->in, sizeof(self->in), "%s/in.data", self->dir);
	snprintf(self->out, sizeof(self->out), "%s/out.data", self->dir);
	snprintf(self->mark, sizeof(self->mark), "%s/jit-%d.dump", self->dir, PID);
	ASSERT_EQ(0, jifl_perf_writer_open(&w, self->in, &cfg));
	ASSERT_EQ(0, jifl_perf_writer_comm(w, PID, PID, "prog", 1, 1000000000));
	ASSERT_EQ(0, jifl_perf_writer_mmap2(w, &m, 1000000100));
	ASSERT_EQ(0, jifl_perf_writer_itrace_start(w, PID, PID, 1000000200));
	ASSERT_EQ(0, jifl_perf_writer_auxtrace(w, 0, PID, trace, sizeof(trace)));
	ASSERT_EQ(0, jifl_perf_writer_exit(w, PID, 0, PID, 0, 2000000000));
	ASSERT_EQ(0, jifl_perf_writer_build_id(w, "/bin/true", id, sizeof(id)));
	ASSERT_EQ(0, jifl_perf_writer_close(w));
}

FIXTURE_TEARDOWN(append)
{
	tmpdir_remove(self->dir);
}

/* The marker MMAP2 record of self->mark, as flowjit jitdump makes it. */
static int marker(FIXTURE_DATA(append) *self, uint8_t *buf, size_t size)
{
	struct jifl_perf_mmap2 m = {
		.pid = PID, .tid = PID, .len = 0x1000, .prot = PROT_READ | PROT_EXEC,
		.flags = MAP_PRIVATE, .filename = self->mark,
	};
	struct jifl_perf_reader *r;
	uint64_t off;
	int n;

	if (jifl_perf_reader_open(&r, self->in, &off))
		return -1;
	n = jifl_perf_append_encode_mmap2(buf, size, &m, MARK_TIME, jifl_perf_reader_info(r));
	jifl_perf_reader_close(r);
	return n;
}

TEST_F(append, reads_as_before_plus_the_record)
{
	const struct jifl_perf_queue *qa, *qb;
	const struct jifl_perf_map *mark;
	struct jifl_perf_reader *a, *b;
	uint8_t rec[512];
	char want[256];
	uint64_t off;
	size_t i;
	int n;

	n = marker(self, rec, sizeof(rec));
	ASSERT_LT(0, n);
	EXPECT_EQ(0, n % 8);
	ASSERT_EQ(0, jifl_perf_append(self->in, self->out, rec, n));

	ASSERT_EQ(0, jifl_perf_reader_open(&a, self->in, &off));
	ASSERT_EQ(0, jifl_perf_reader_open(&b, self->out, &off));
	ASSERT_EQ(jifl_perf_reader_nr_maps(a) + 1, jifl_perf_reader_nr_maps(b));
	mark = jifl_perf_reader_map(b, jifl_perf_reader_nr_maps(a));
	EXPECT_STREQ(self->mark, mark->m.filename);
	EXPECT_EQ(PID, mark->m.pid);
	EXPECT_EQ(0x1000, mark->m.len);
	EXPECT_EQ(MARK_TIME, mark->time);
	EXPECT_EQ(jifl_perf_reader_nr_tasks(a), jifl_perf_reader_nr_tasks(b));
	ASSERT_EQ(1, jifl_perf_reader_nr_build_ids(b));
	EXPECT_STREQ("/bin/true", jifl_perf_reader_build_id(b, 0)->filename);
	ASSERT_EQ(jifl_perf_reader_nr_queues(a), jifl_perf_reader_nr_queues(b));
	for (i = 0; i < jifl_perf_reader_nr_queues(a); i++) {
		qa = jifl_perf_reader_queue(a, i);
		qb = jifl_perf_reader_queue(b, i);
		ASSERT_EQ(qa->size, qb->size);
		EXPECT_EQ(0, memcmp(qa->data, qb->data, qa->size));
	}
	jifl_perf_reader_close(a);
	jifl_perf_reader_close(b);

	/* perf: the same header but for where the data ends, and the record at its time. */
	EXPECT_EQ(0, cmd_run(self->text, sizeof(self->text),
			     "cd %s && perf report -i in.data --header-only -I > in.h && "
			     "perf report -i out.data --header-only -I > out.h && "
			     "grep -q '# event : name = dummy:u' out.h && "
			     "{ diff in.h out.h | grep '^[<>]' | grep -v -e '# data size' "
			     "-e '# feat offset'; test $? = 1; }", self->dir))
		TH_LOG("%s", self->text);
	EXPECT_EQ(0, cmd_run(self->text, sizeof(self->text), "perf buildid-list -i %s", self->out));
	EXPECT_NE(NULL, strstr(self->text, "0102030405")) TH_LOG("%s", self->text);
	EXPECT_NE(NULL, strstr(self->text, " /bin/true")) TH_LOG("%s", self->text);
	EXPECT_EQ(0, cmd_run(self->text, sizeof(self->text), "perf script -D -i %s | grep jit-",
			     self->out));
	snprintf(want, sizeof(want), " %llu 0x", MARK_TIME);
	EXPECT_NE(NULL, strstr(self->text, want)) TH_LOG("%s", self->text);
	snprintf(want, sizeof(want),
		 "PERF_RECORD_MMAP2 %d/%d: [0(0x1000) @ 0 00:00 0 0]: r-xp %s\n", PID, PID,
		 self->mark);
	EXPECT_NE(NULL, strstr(self->text, want)) TH_LOG("%s", self->text);
}

TEST_F(append, bad_input)
{
	struct jifl_perf_writer_config cfg = { .pt_pmu_type = 8, .tc = { .time_mult = 1 } };
	struct jifl_perf_writer *w;
	uint8_t rec[512];
	char path[160];
	int n;

	n = marker(self, rec, sizeof(rec));
	ASSERT_LT(0, n);
	/* A record larger than its buffer. */
	EXPECT_EQ(-jifl_err_invalid, marker(self, rec, n - 8));
	EXPECT_EQ(-jifl_err_invalid, jifl_perf_append(self->in, self->in, rec, n));
	snprintf(path, sizeof(path), "%s/none", self->dir);
	EXPECT_EQ(jifl_err_errno(ENOENT), jifl_perf_append(path, self->out, rec, n));
	EXPECT_EQ(-jifl_err_format, jifl_perf_append("/etc/passwd", self->out, rec, n));
	/* A recorder that did not finish: data size 0 in the header. */
	snprintf(path, sizeof(path), "%s/unfinished.data", self->dir);
	ASSERT_EQ(0, jifl_perf_writer_open(&w, path, &cfg));
	ASSERT_EQ(0, jifl_perf_writer_comm(w, PID, PID, "prog", 1, 1000));
	jifl_perf_writer_free(w);
	EXPECT_EQ(-jifl_err_truncated, jifl_perf_append(path, self->out, rec, n));
}

TEST_HARNESS_MAIN
