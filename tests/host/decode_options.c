// SPDX-License-Identifier: GPL-2.0
/*
 * jifl-decode's filters and columns: --pid and --tid keep exactly the
 * ground truth of those threads, --time FROM,TO exactly the lines whose
 * printed time is in the span, -F prints perf script's fields; bad
 * values are wrong usage (status 2) with a message that names them.
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "cmd.h"
#include "swtrace_truth.h"
#include "tools.h"
#include "tmpdir.h"
#include "perf/perf_reader.h"

#define MAX_THREADS	16

FIXTURE(opts) {
	TMPDIR_TRACE_MEMBERS;
	char out[8192];
	uint32_t pid, tids[MAX_THREADS];
	size_t nr_tids;
};

FIXTURE_SETUP(opts)
{
	TMPDIR_TRACE_SETUP("decode-opts");
}

FIXTURE_TEARDOWN(opts)
{
	TMPDIR_TRACE_TEARDOWN();
}

/* Record @prog with its truth; the traced pid and tids from the perf.data. */
static void record(struct __test_metadata *_metadata, FIXTURE_DATA(opts) *self,
		   const char *prog)
{
	const struct jifl_perf_queue *q;
	struct jifl_perf_reader *r;
	uint64_t off;
	size_t i;

	ASSERT_EQ(0, cmd_run(self->out, sizeof(self->out), "%s -q -o %s --truth %s -- %s",
			     SWTRACE, self->data, self->truth, prog)) TH_LOG("%s", self->out);
	ASSERT_EQ(0, truth_read(self->truth, &self->want));
	ASSERT_EQ(0, jifl_perf_reader_open(&r, self->data, &off));
	for (i = 0; (q = jifl_perf_reader_queue(r, i)) && i < MAX_THREADS; i++) {
		self->pid = q->pid;
		self->tids[i] = q->tid;
	}
	self->nr_tids = i;
	jifl_perf_reader_close(r);
	ASSERT_GT(self->nr_tids, 0);
}

/* The truth of the threads @tids (all with @n 0), in the order of the truth. */
static void truth_of(const struct ipseq *all, const uint32_t *tids, size_t n,
		     struct ipseq *out)
{
	size_t i, j;

	out->n = 0;
	for (i = 0; i < all->n; i++)
		for (j = 0; j < n || !n; j++)
			if (!n || all->v[i].tid == tids[j]) {
				ipseq_push(out, all->v[i].tid, all->v[i].ip);
				break;
			}
	qsort(out->v, out->n, sizeof(*out->v), step_cmp);
}

/*
 * jifl-decode --insn @opts must give exactly the truth of @tids (every
 * thread with @n 0), with both decoders, and --stats @opts its count.
 */
static void expect_truth_of(struct __test_metadata *_metadata, FIXTURE_DATA(opts) *self,
			    const char *opts, const uint32_t *tids, size_t n)
{
	struct ipseq want = { 0 };
	char cmd[1024];
	size_t d, i;
	long errors;

	truth_of(&self->want, tids, n, &want);
	ASSERT_GT(want.n, 100);
	for (d = 0; d < NR_DECODERS; d++) {
		snprintf(cmd, sizeof(cmd), "%s -i %s --insn --decoder %s %s", decoder(),
			 self->data, decoders[d], opts);
		self->got.n = 0;
		EXPECT_EQ(0, read_ips(cmd, 1, " error: ", &self->got, &errors)) TH_LOG("%s", cmd);
		qsort(self->got.v, self->got.n, sizeof(*self->got.v), step_cmp);
		EXPECT_EQ(want.n, self->got.n) TH_LOG("%s", cmd);
		for (i = 0; i < want.n && i < self->got.n; i++)
			if (want.v[i].tid != self->got.v[i].tid || want.v[i].ip != self->got.v[i].ip)
				break;
		EXPECT_EQ(want.n, i) TH_LOG("%s: first difference from the truth at %zu", cmd, i);

		/* The block decoder only counts for --stats: the filter must still apply. */
		EXPECT_EQ(0, cmd_run(self->out, sizeof(self->out), "%s -i %s --stats --decoder %s %s",
				     decoder(), self->data, decoders[d], opts));
		snprintf(cmd, sizeof(cmd), "instructions: %zu\n", want.n);
		EXPECT_NE(NULL, strstr(self->out, cmd)) TH_LOG("%s%s", self->out, opts);
	}
	free(want.v);
}

TEST_F(opts, pid_and_tid)
{
	uint32_t two[2];
	char opts[128];
	size_t i;

	record(_metadata, self, PROGS "swt_thread");
	ASSERT_GT(self->nr_tids, 2);
	for (i = 0; i < self->nr_tids; i++) {
		snprintf(opts, sizeof(opts), "--tid %u", self->tids[i]);
		expect_truth_of(_metadata, self, opts, &self->tids[i], 1);
	}
	two[0] = self->tids[2];
	two[1] = self->tids[0];
	snprintf(opts, sizeof(opts), "--tid %u,%u", two[0], two[1]);
	expect_truth_of(_metadata, self, opts, two, 2);
	/* The process: all its threads; given twice, as perf allows. */
	snprintf(opts, sizeof(opts), "--pid %u --pid %u", self->pid + 1, self->pid);
	expect_truth_of(_metadata, self, opts, NULL, 0);
	snprintf(opts, sizeof(opts), "--pid %u --tid %u", self->pid, self->tids[1]);
	expect_truth_of(_metadata, self, opts, &self->tids[1], 1);

	/* Nothing passes: said so, status 1. */
	EXPECT_EQ(1, cmd_run(self->out, sizeof(self->out), "%s -i %s --pid %u", decoder(),
			     self->data, self->pid + 1));
	EXPECT_NE(NULL, strstr(self->out, "no instruction of the trace passed --pid, --tid "
			       "and --time")) TH_LOG("%s", self->out);
	/* Branches and calls of other threads are not printed either. */
	EXPECT_EQ(0, cmd_run(self->out, sizeof(self->out),
			     "%s -i %s --branches --tid %u | awk '$2 != %u' | head -3", decoder(),
			     self->data, self->tids[1], self->tids[1]));
	EXPECT_STREQ("", self->out);
}

/* The lines of @path (an --insn listing) whose time is in [@from, @to]. */
static char *lines_between(const char *path, uint64_t from, uint64_t to, size_t *nr)
{
	char line[1024], *buf = NULL;
	unsigned long long sec, nsec;
	size_t len = 0;
	FILE *f = fopen(path, "r"), *out = open_memstream(&buf, &len);
	uint64_t t;

	*nr = 0;
	while (f && out && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llu.%llu", &sec, &nsec) != 2)
			continue;
		t = sec * 1000000000ull + nsec;
		if (t >= from && t <= to) {
			fputs(line, out);
			++*nr;
		}
	}
	if (f)
		fclose(f);
	if (out)
		fclose(out);
	return buf;
}

static char *slurp(const char *path)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = fopen(path, "r"), *out = open_memstream(&buf, &len);
	int c;

	while (f && out && (c = getc(f)) != EOF)
		putc(c, out);
	if (f)
		fclose(f);
	if (out)
		fclose(out);
	return buf;
}

/* The time of line @n of the listing @path, in ns. */
static uint64_t time_of_line(const char *path, size_t n)
{
	unsigned long long sec = 0, nsec = 0;
	char line[1024];
	FILE *f = fopen(path, "r");

	while (f && n-- && fgets(line, sizeof(line), f))
		;
	if (f && fgets(line, sizeof(line), f))
		sscanf(line, "%llu.%llu", &sec, &nsec);
	if (f)
		fclose(f);
	return sec * 1000000000ull + nsec;
}

/*
 * --time @span must print exactly the lines of the full listing whose
 * time lies in [@from, @to], with both decoders; when there are none,
 * jifl-decode says so and exits 1.
 */
static void expect_span(struct __test_metadata *_metadata, FIXTURE_DATA(opts) *self,
			const char *span, uint64_t from, uint64_t to)
{
	char all[160], part[160], *want, *got;
	size_t d, nr;

	snprintf(all, sizeof(all), "%s/all", self->dir);
	snprintf(part, sizeof(part), "%s/part", self->dir);
	want = lines_between(all, from, to, &nr);
	ASSERT_NE(NULL, want);
	for (d = 0; d < NR_DECODERS; d++) {
		EXPECT_EQ(nr ? 0 : 1, cmd_run(self->out, sizeof(self->out),
					      "%s -i %s --decoder %s --time %s > %s", decoder(),
					      self->data, decoders[d], span, part))
			TH_LOG("%s: %s", span, self->out);
		/* the listing, and stderr with it */
		got = slurp(part);
		ASSERT_NE(NULL, got);
		if (nr) {
			EXPECT_EQ(strlen(want), strlen(got))
				TH_LOG("--time %s: %zu lines wanted", span, nr);
			EXPECT_EQ(0, strcmp(want, got)) TH_LOG("--time %s", span);
		} else {
			EXPECT_STREQ("jifl-decode: no instruction of the trace passed --pid, "
				     "--tid and --time\n", got);
		}
		free(got);
	}
	free(want);
}

static void print_sec(char *buf, size_t len, uint64_t ns)
{
	snprintf(buf, len, "%" PRIu64 ".%09" PRIu64, ns / 1000000000, ns % 1000000000);
}

TEST_F(opts, time_span)
{
	char all[160], a[32], b[32], span[80];
	uint64_t ta, tb, half;
	size_t nr;

	record(_metadata, self, PROGS "swt_flow-static 10");
	snprintf(all, sizeof(all), "%s/all", self->dir);
	ASSERT_EQ(0, cmd_run(self->out, sizeof(self->out), "%s -i %s > %s", decoder(),
			     self->data, all));
	ta = time_of_line(all, self->want.n / 3);
	tb = time_of_line(all, 2 * self->want.n / 3);
	ASSERT_LT(ta, tb) TH_LOG("no two times in the listing");
	/* A span that cuts the listing in three, by the times it prints. */
	free(lines_between(all, ta, tb, &nr));
	ASSERT_LT(nr, self->want.n);
	ASSERT_GT(nr, 0);
	print_sec(a, sizeof(a), ta);
	print_sec(b, sizeof(b), tb);
	snprintf(span, sizeof(span), "%s,%s", a, b);
	expect_span(_metadata, self, span, ta, tb);
	snprintf(span, sizeof(span), "%s,", a);
	expect_span(_metadata, self, span, ta, UINT64_MAX);
	snprintf(span, sizeof(span), ",%s", b);
	expect_span(_metadata, self, span, 0, tb);
	/* Fewer decimals: 1234.5 is 1234.500000000, the whole second too. */
	half = (ta / 1000000000) * 1000000000 + 500000000;
	snprintf(span, sizeof(span), "%" PRIu64 ".5,", ta / 1000000000);
	expect_span(_metadata, self, span, half, UINT64_MAX);
	snprintf(span, sizeof(span), ",%" PRIu64, tb / 1000000000);
	expect_span(_metadata, self, span, 0, tb / 1000000000 * 1000000000);
	snprintf(span, sizeof(span), "%s,%s", a, a);
	expect_span(_metadata, self, span, ta, ta);
	/*
	 * Nothing: a span that ends before the trace. (The span above that
	 * ends at tb's whole second is empty too when the trace starts in
	 * that second, which depends on when it was recorded.)
	 */
	snprintf(span, sizeof(span), ",%" PRIu64, ta / 1000000000 - 1);
	expect_span(_metadata, self, span, 0, (ta / 1000000000 - 1) * 1000000000);
}

TEST_F(opts, fields)
{
	char path[160], cmd[512], line[1024], comm[64], sym[256], dso[512];
	unsigned int pid, tid, sec, nsec, lines = 0, in_prog = 0;
	unsigned long long ip;
	FILE *f;

	record(_metadata, self, PROGS "swt_thread");
	/* The default columns, named: the same listing. */
	EXPECT_EQ(0, cmd_run(self->out, sizeof(self->out),
			     "%s -i %s > %s/a && %s -i %s -F time,tid,ip,sym,insn > %s/b && "
			     "cmp %s/a %s/b", decoder(), self->data, self->dir, decoder(),
			     self->data, self->dir, self->dir, self->dir)) TH_LOG("%s", self->out);
	/* Every column, in the order given. */
	snprintf(path, sizeof(path), "%s/c", self->dir);
	ASSERT_EQ(0, cmd_run(self->out, sizeof(self->out),
			     "%s -i %s -F comm,pid,tid,time,ip,sym,dso,insn > %s", decoder(),
			     self->data, path)) TH_LOG("%s", self->out);
	f = fopen(path, "r");
	ASSERT_NE(NULL, f);
	while (fgets(line, sizeof(line), f)) {
		ASSERT_EQ(8, sscanf(line, "%63s %u %u %u.%u %llx %255s (%511[^)])", comm, &pid,
				    &tid, &sec, &nsec, &ip, sym, dso)) TH_LOG("%s", line);
		EXPECT_STREQ("swt_thread", comm);
		EXPECT_EQ(self->pid, pid);
		EXPECT_NE(NULL, strchr(line, '	'));
		/* The program's own functions are in the program's file. */
		if (!strncmp(sym, "work+", 5) || !strncmp(sym, "main+", 5)) {
			EXPECT_STREQ(PROGS "swt_thread", dso) TH_LOG("%s", line);
			in_prog++;
		}
		ASSERT_STRNE("[unknown]", dso) TH_LOG("%s", line);
		lines++;
	}
	fclose(f);
	EXPECT_EQ(self->want.n, lines);
	EXPECT_GT(in_prog, 100);
	/* -F ip: the addresses alone, those of the default listing. */
	snprintf(cmd, sizeof(cmd), "%s -i %s -F ip | cmp - %s/ips", decoder(), self->data,
		 self->dir);
	EXPECT_EQ(0, cmd_run(self->out, sizeof(self->out),
			     "awk '{ printf \"%%16s\\n\", $3 }' %s/a > %s/ips && %s", self->dir,
			     self->dir, cmd)) TH_LOG("%s", self->out);
}

static const struct bad_case {
	const char *args, *message;
} bad_cases[] = {
	{ "--time abc", "--time: expected FROM,TO in seconds" },
	{ "--time 5", "--time: expected FROM,TO in seconds" },
	{ "--time 5,2", "--time: FROM is after TO in '5,2'" },
	{ "--time 1.5.2,", "--time: expected FROM,TO" },
	{ "--time 1.1234567891,", "--time: expected FROM,TO" },
	{ "--time ,-1", "--time: expected FROM,TO" },
	{ "--time 1,2,3", "--time: expected FROM,TO" },
	{ "--pid -3", "--pid: expected PID[,PID...] (decimal numbers), got '-3'" },
	{ "--pid ''", "--pid: expected PID" },
	{ "--pid 1,", "--pid: expected PID" },
	{ "--tid 1,,2", "--tid: expected TID[,TID...] (decimal numbers), got '1,,2'" },
	{ "--tid 0x10", "--tid: expected TID" },
	{ "--tid 4294967296", "--tid: expected TID" },
	{ "-F foo", "-F: unknown or repeated field 'foo' in 'foo'" },
	{ "-F ip,ip", "-F: unknown or repeated field 'ip' in 'ip,ip'" },
	{ "--fields ip,", "-F: unknown or repeated field '' in 'ip,'" },
	{ "--branches -F ip", "-F: the fields are those of --insn" },
};

TEST_F(opts, bad_input)
{
	size_t i;

	for (i = 0; i < sizeof(bad_cases) / sizeof(bad_cases[0]); i++) {
		EXPECT_EQ(2, cmd_run(self->out, sizeof(self->out), "%s -i /nonexistent %s",
				     decoder(), bad_cases[i].args)) TH_LOG("%s", bad_cases[i].args);
		EXPECT_NE(NULL, strstr(self->out, bad_cases[i].message))
			TH_LOG("%s: %s", bad_cases[i].args, self->out);
		EXPECT_EQ(0, strncmp(self->out, "jifl-decode: ", 13)) TH_LOG("%s", self->out);
	}
}

TEST_HARNESS_MAIN
