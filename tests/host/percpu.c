// SPDX-License-Identifier: GPL-2.0
/*
 * Per-CPU traces, what "perf record -e intel_pt//u -- CMD" writes by
 * default, recorded by jifl-swtrace --per-cpu: multi-threaded programs
 * on fewer virtual CPUs than threads, so that threads take turns and
 * migrate. Per thread, jifl-decode (both decoders) must give exactly the
 * ground truth, with the right tids, and its listing must be in time
 * order; stock perf script must give the same threads, CPUs and
 * addresses. The perf.data must be laid out as perf's: a queue per CPU,
 * context switch records that pair up, ITRACE_START. A perf.data whose
 * switch records name the wrong threads must fail the comparison with
 * the truth, for jifl-decode as for perf: the check can tell.
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "cmd.h"
#include "swtrace_truth.h"
#include "tools.h"
#include "tmpdir.h"
#include "perf/perf_data.h"
#include "perf/perf_reader.h"

/* Seconds a test that records may take: single-stepping, on a loaded machine. */
#define RECORD_TIMEOUT	300

/* An instruction as a listing gives it: thread, CPU, address. */
struct tci {
	uint32_t tid, seq;
	int cpu;
	uint64_t ip;
};

struct tci_seq {
	struct tci *v;
	size_t n, cap;
};

FIXTURE(percpu) {
	TMPDIR_TRACE_MEMBERS;
	char out[8192];
	struct tci_seq jifl, perf;
};

FIXTURE_SETUP(percpu)
{
	TMPDIR_TRACE_SETUP("percpu");
}

FIXTURE_TEARDOWN(percpu)
{
	TMPDIR_TRACE_TEARDOWN();
	free(self->jifl.v);
	free(self->perf.v);
}

static int record(FIXTURE_DATA(percpu) *self, const char *opts, const char *cmd)
{
	return cmd_run(self->out, sizeof(self->out), "%s -q --per-cpu %s -o %s --truth %s -- %s",
		       SWTRACE, opts, self->data, self->truth, cmd);
}

static int tci_cmp(const void *a, const void *b)
{
	const struct tci *x = a, *y = b;

	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/*
 * Lines "TID [CPU] IP" of @cmd into @s, sorted by thread (in listing
 * order within one); lines with @error_mark counted in *@errors.
 * Returns the command's status.
 */
static int read_tci(const char *cmd, const char *error_mark, struct tci_seq *s,
		    long *errors)
{
	char line[1024];
	unsigned long long ip;
	unsigned int tid;
	FILE *f = popen(cmd, "r");
	int cpu, st;

	if (!f)
		return -1;
	*errors = 0;
	while (fgets(line, sizeof(line), f)) {
		if (strstr(line, error_mark)) {
			(*errors)++;
			continue;
		}
		if (sscanf(line, " %u [%d] %llx", &tid, &cpu, &ip) != 3)
			continue;
		if (s->n == s->cap) {
			s->cap = s->cap ? 2 * s->cap : 4096;
			s->v = realloc(s->v, s->cap * sizeof(*s->v));
			if (!s->v)
				break;
		}
		s->v[s->n].tid = tid;
		s->v[s->n].seq = s->n;
		s->v[s->n].cpu = cpu;
		s->v[s->n].ip = ip;
		s->n++;
	}
	st = pclose(f);
	qsort(s->v, s->n, sizeof(*s->v), tci_cmp);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* jifl-decode's listing is in time order: its times never go back. */
static void expect_time_order(struct __test_metadata *_metadata, FIXTURE_DATA(percpu) *self,
			      const char *dec)
{
	unsigned long long sec, nsec, t, last = 0, back = 0, n = 0;
	char cmd[512], line[256];
	FILE *f;

	snprintf(cmd, sizeof(cmd), "%s -i %s --decoder %s -F time,tid", decoder(), self->data,
		 dec);
	f = popen(cmd, "r");
	ASSERT_NE(NULL, f);
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llu.%llu", &sec, &nsec) != 2)
			continue;
		t = sec * 1000000000ull + nsec;
		back += t < last;
		last = t;
		n++;
	}
	EXPECT_EQ(0, pclose(f));
	EXPECT_LT(1000, n);
	EXPECT_EQ(0, back) TH_LOG("%s: %llu times earlier than the line before", cmd, back);
}

/* The threads of the truth, and whether each ran on more than one CPU. */
static void expect_migrations(struct __test_metadata *_metadata, const struct tci_seq *s,
			      size_t threads, int nr_cpus)
{
	uint64_t cpus = 0, mine = 0;
	size_t i, n = 0, moved = 0;

	for (i = 0; i < s->n; i++) {
		if (!i || s->v[i].tid != s->v[i - 1].tid) {
			moved += __builtin_popcountll(mine) > 1;
			mine = 0;
			n++;
		}
		ASSERT_LE(0, s->v[i].cpu);
		ASSERT_GT(nr_cpus, s->v[i].cpu);
		mine |= 1ull << s->v[i].cpu;
		cpus |= 1ull << s->v[i].cpu;
	}
	moved += __builtin_popcountll(mine) > 1;
	EXPECT_EQ(threads, n);
	EXPECT_EQ(nr_cpus, __builtin_popcountll(cpus));
	if (nr_cpus > 1)
		EXPECT_LT(0, moved) TH_LOG("no thread migrated");
	TH_LOG("%zu threads on %d CPUs, %zu of them on more than one", n, nr_cpus, moved);
}

/* The number of distinct threads of the truth (sorted by thread). */
static size_t truth_threads(const struct ipseq *s)
{
	size_t i, n = 0;

	for (i = 0; i < s->n; i++)
		n += !i || s->v[i].tid != s->v[i - 1].tid;
	return n;
}

/* The "restarted elsewhere" gaps jifl-decode counts in self->data; no other gap. */
static long restarts(struct __test_metadata *_metadata, FIXTURE_DATA(percpu) *self)
{
	static const char lost[] = "\ngap totals: 0 decode errors (0 missing code), "
				   "0 overflows, 0 trace stops, ";
	const char *p;

	EXPECT_EQ(0, cmd_run(self->out, sizeof(self->out), "%s -i %s --stats", decoder(),
			     self->data));
	p = strstr(self->out, lost);
	EXPECT_NE(NULL, p) TH_LOG("%s", self->out);
	return p ? strtol(p + strlen(lost), NULL, 10) : -1;
}

/*
 * jifl-decode, both decoders: the truth thread by thread, no error; a
 * time-ordered listing; @restarts gaps "restarted elsewhere" (signals;
 * context switches are none), no other; the instructions' threads and
 * CPUs those of perf script, which gives the truth too. With @migrate,
 * each of the @nr_cpus CPUs ran threads, and some thread ran on two.
 */
static void check_decode(struct __test_metadata *_metadata, FIXTURE_DATA(percpu) *self,
			 int nr_cpus, long nr_restarts, int migrate)
{
	char cmd[512];
	long errors;
	size_t d, i;

	ASSERT_EQ(0, truth_read(self->truth, &self->want));
	ASSERT_LT(1000, self->want.n);
	qsort(self->want.v, self->want.n, sizeof(*self->want.v), step_cmp);
	for (d = 0; d < NR_DECODERS; d++) {
		snprintf(cmd, sizeof(cmd), "%s -i %s --decoder %s", decoder(), self->data,
			 decoders[d]);
		self->got.n = 0;
		EXPECT_EQ(0, read_ips(cmd, 1, " error: ", &self->got, &errors)) TH_LOG("%s", cmd);
		EXPECT_EQ(0, errors);
		qsort(self->got.v, self->got.n, sizeof(*self->got.v), step_cmp);
		i = ipseq_first_diff(&self->want, &self->got);
		EXPECT_EQ(self->want.n, self->got.n) TH_LOG("%s", cmd);
		ASSERT_EQ(self->want.n, i) TH_LOG("%s: first difference from the truth at %zu of %zu",
						  cmd, i, self->want.n);
		expect_time_order(_metadata, self, decoders[d]);
	}
	EXPECT_EQ(nr_restarts, restarts(_metadata, self));

	snprintf(cmd, sizeof(cmd), "%s -i %s -F tid,cpu,ip", decoder(), self->data);
	EXPECT_EQ(0, read_tci(cmd, " error: ", &self->jifl, &errors));
	snprintf(cmd, sizeof(cmd), "perf script -i %s --itrace=i1ie -F tid,cpu,ip 2>&1",
		 self->data);
	EXPECT_EQ(0, read_tci(cmd, "instruction trace error", &self->perf, &errors));
	EXPECT_EQ(0, errors);
	ASSERT_EQ(self->want.n, self->perf.n);
	ASSERT_EQ(self->perf.n, self->jifl.n);
	for (i = 0; i < self->perf.n; i++) {
		ASSERT_EQ(self->want.v[i].tid, self->perf.v[i].tid) TH_LOG("perf: at %zu", i);
		ASSERT_EQ(self->want.v[i].ip, self->perf.v[i].ip) TH_LOG("perf: at %zu", i);
		ASSERT_EQ(self->perf.v[i].tid, self->jifl.v[i].tid) TH_LOG("at %zu", i);
		ASSERT_EQ(self->perf.v[i].cpu, self->jifl.v[i].cpu) TH_LOG("at %zu", i);
		ASSERT_EQ(self->perf.v[i].ip, self->jifl.v[i].ip) TH_LOG("at %zu", i);
	}
	if (migrate)
		expect_migrations(_metadata, &self->jifl, truth_threads(&self->want), nr_cpus);
}

/*
 * The perf.data of a recording on @nr_cpus CPUs with switch records of
 * kind @sched_switch: a queue per CPU (idx = cpu, named by the process),
 * switch records that pair up (out of one task, in of the one it names,
 * per CPU, time never going back), ITRACE_START once per CPU, every
 * thread of the truth switched in.
 */
static void check_layout(struct __test_metadata *_metadata, FIXTURE_DATA(percpu) *self,
			 int nr_cpus, uint32_t sched_switch)
{
	uint64_t last[64] = { 0 }, itrace = 0, switched_in = 0;
	const struct jifl_perf_switch_rec *w, *in;
	const struct jifl_perf_info *info;
	const struct jifl_perf_queue *q;
	const struct jifl_perf_task *t;
	struct jifl_perf_reader *r;
	uint32_t pid = 0;
	uint64_t off;
	size_t i, j;

	ASSERT_EQ(0, jifl_perf_reader_open(&r, self->data, &off));
	info = jifl_perf_reader_info(r);
	EXPECT_EQ(1, info->per_cpu_mmaps);
	EXPECT_EQ(sched_switch, info->have_sched_switch);
	ASSERT_EQ(nr_cpus, jifl_perf_reader_nr_queues(r));
	for (i = 0; (q = jifl_perf_reader_queue(r, i)); i++) {
		EXPECT_EQ(i, q->idx);
		EXPECT_EQ(i, q->cpu);
		pid = q->pid;
		EXPECT_EQ(pid, q->tid) TH_LOG("per-CPU buffers are named by the process");
	}
	for (i = 0; (t = jifl_perf_reader_task(r, i)); i++) {
		if (t->type != PERF_RECORD_ITRACE_START)
			continue;
		ASSERT_GT(nr_cpus, t->cpu);
		EXPECT_EQ(0, itrace & (1ull << t->cpu)) TH_LOG("two ITRACE_START on CPU %u", t->cpu);
		itrace |= 1ull << t->cpu;
		EXPECT_EQ(pid, t->pid);
	}
	EXPECT_EQ(nr_cpus, __builtin_popcountll(itrace));
	for (i = 0; (w = jifl_perf_reader_switch(r, i)); i++) {
		ASSERT_GT(nr_cpus, w->cpu);
		EXPECT_LE(last[w->cpu], w->time);
		last[w->cpu] = w->time;
		EXPECT_EQ(sched_switch == JIFL_SCHED_SWITCH_CPU_WIDE ? PERF_RECORD_SWITCH_CPU_WIDE :
			  PERF_RECORD_SWITCH, w->sw.type);
		if (!(w->sw.misc & PERF_RECORD_MISC_SWITCH_OUT)) {
			/* The idle task: CPU-wide records only. */
			if (!w->sw.tid && sched_switch == JIFL_SCHED_SWITCH_CPU_WIDE)
				continue;
			EXPECT_EQ(pid, w->sw.pid);
			for (j = 0; j < self->want.n; j++)
				if (self->want.v[j].tid == w->sw.tid)
					break;
			EXPECT_GT(self->want.n, j) TH_LOG("switch-in of tid %u", w->sw.tid);
			switched_in++;
			continue;
		}
		/* CPU-wide: the out record names the next task, whose in record follows. */
		if (sched_switch != JIFL_SCHED_SWITCH_CPU_WIDE)
			continue;
		for (j = i + 1; (in = jifl_perf_reader_switch(r, j)) && in->cpu != w->cpu; j++)
			;
		ASSERT_NE(NULL, in);
		EXPECT_FALSE(in->sw.misc & PERF_RECORD_MISC_SWITCH_OUT);
		EXPECT_EQ(w->sw.next_prev_tid, in->sw.tid);
		EXPECT_EQ(w->sw.tid, in->sw.next_prev_tid);
	}
	EXPECT_LE(truth_threads(&self->want), switched_in);
	jifl_perf_reader_close(r);
}

TEST_F_TIMEOUT(percpu, threads_more_than_cpus, RECORD_TIMEOUT)
{
	ASSERT_EQ(0, record(self, "--cpus 2 --timeslice 300", PROGS "swt_sched 4"))
		TH_LOG("%s", self->out);
	check_decode(_metadata, self, 2, 0, 1);
	EXPECT_EQ(4, truth_threads(&self->want));
	check_layout(_metadata, self, 2, JIFL_SCHED_SWITCH_CPU_WIDE);
}

TEST_F_TIMEOUT(percpu, threads_take_turns_on_one_cpu, RECORD_TIMEOUT)
{
	ASSERT_EQ(0, record(self, "--cpus 1 --timeslice 200", PROGS "swt_sched-static 3"))
		TH_LOG("%s", self->out);
	check_decode(_metadata, self, 1, 0, 1);
	EXPECT_EQ(3, truth_threads(&self->want));
	check_layout(_metadata, self, 1, JIFL_SCHED_SWITCH_CPU_WIDE);
}

TEST_F_TIMEOUT(percpu, task_switch_records, RECORD_TIMEOUT)
{
	ASSERT_EQ(0, record(self, "--cpus 2 --timeslice 250 --switches task",
			    PROGS "swt_sched 3")) TH_LOG("%s", self->out);
	check_decode(_metadata, self, 2, 0, 1);
	check_layout(_metadata, self, 2, JIFL_SCHED_SWITCH_TASK);
}

TEST_F_TIMEOUT(percpu, as_many_cpus_as_threads, RECORD_TIMEOUT)
{
	ASSERT_EQ(0, record(self, "--cpus 2", PROGS "swt_sched-static 2")) TH_LOG("%s", self->out);
	check_decode(_metadata, self, 2, 0, 0);
	EXPECT_EQ(2, truth_threads(&self->want));
}

TEST_F_TIMEOUT(percpu, thread_program_of_the_per_thread_tests, RECORD_TIMEOUT)
{
	ASSERT_EQ(0, record(self, "--cpus 3 --timeslice 100", PROGS "swt_thread"))
		TH_LOG("%s", self->out);
	check_decode(_metadata, self, 3, 0, 1);
	EXPECT_EQ(4, truth_threads(&self->want));
}

/*
 * The queues decoded by several threads (-j) give the listing, gaps and
 * statistics of one thread decoding them in turn, byte for byte: four
 * threads on three CPUs, each decoder, every listing mode.
 */
TEST_F_TIMEOUT(percpu, jobs_give_the_same_output, RECORD_TIMEOUT)
{
	static const char *const modes[] = {
		"--insn --decoder insn", "--insn --decoder block -F tid,cpu,ip,sym",
		"--branches", "--calls", "--stats --decoder insn", "--stats",
	};
	char one[192], many[192], cmd[512];
	size_t i;
	int j;

	ASSERT_EQ(0, record(self, "--cpus 3 --timeslice 150", PROGS "swt_thread 3"))
		TH_LOG("%s", self->out);
	snprintf(one, sizeof(one), "%s/one.txt", self->dir);
	snprintf(many, sizeof(many), "%s/many.txt", self->dir);
	for (i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
		snprintf(cmd, sizeof(cmd), "%s -j 1 -i %s %s > %s 2>&1", decoder(), self->data,
			 modes[i], one);
		ASSERT_EQ(0, system(cmd)) TH_LOG("%s", cmd);
		for (j = 2; j <= 4; j += 2) {
			snprintf(cmd, sizeof(cmd), "%s -j %d -i %s %s > %s 2>&1", decoder(), j,
				 self->data, modes[i], many);
			ASSERT_EQ(0, system(cmd)) TH_LOG("%s", cmd);
			snprintf(cmd, sizeof(cmd), "cmp -s %s %s", one, many);
			EXPECT_EQ(0, system(cmd)) TH_LOG("%s: -j %d differs from -j 1", modes[i], j);
		}
	}
}

/*
 * Returns compressed into TNT bits: a CPU's trace goes from thread to
 * thread, the decoders' stacks of calls with it (libipt pops only at a
 * compressed return, perf at any): both must still give the truth.
 */
TEST_F_TIMEOUT(percpu, ret_compression, RECORD_TIMEOUT)
{
	ASSERT_EQ(0, record(self, "--cpus 2 --timeslice 200 --ret-compression",
			    PROGS "swt_sched 3")) TH_LOG("%s", self->out);
	check_decode(_metadata, self, 2, 0, 1);
}

/*
 * Signals jump in a thread's flow (to a handler, back with sigreturn):
 * gaps, "restarted elsewhere", per CPU as per thread; context switches
 * in between are none.
 */
TEST_F_TIMEOUT(percpu, signals_restart_elsewhere_as_per_thread, RECORD_TIMEOUT)
{
	long per_thread;

	ASSERT_EQ(0, cmd_run(self->out, sizeof(self->out), "%s -q -o %s --truth %s -- %s",
			     SWTRACE, self->data, self->truth, PROGS "swt_sig"))
		TH_LOG("%s", self->out);
	per_thread = restarts(_metadata, self);
	ASSERT_LT(0, per_thread);
	ASSERT_EQ(0, record(self, "--cpus 2", PROGS "swt_sig")) TH_LOG("%s", self->out);
	check_decode(_metadata, self, 2, per_thread, 0);
}

/* Swap tids @a and @b in every switch record and ITRACE_START of self->data. */
static void swap_tids(struct __test_metadata *_metadata, FIXTURE_DATA(percpu) *self,
		      uint32_t a, uint32_t b)
{
	struct jifl_perf_file_header h;
	struct perf_event_header eh;
	struct jifl_perf_auxtrace aux;
	uint32_t v[2], swapped = 0;
	uint64_t off, end, at[2];
	FILE *f = fopen(self->data, "r+");
	int k, i;

	ASSERT_NE(NULL, f);
	ASSERT_EQ(1, fread(&h, sizeof(h), 1, f));
	for (off = h.data.offset, end = off + h.data.size; off < end; off += eh.size) {
		ASSERT_EQ(0, fseek(f, off, SEEK_SET));
		ASSERT_EQ(1, fread(&eh, sizeof(eh), 1, f));
		if (eh.type == JIFL_PERF_RECORD_AUXTRACE) {
			ASSERT_EQ(0, fseek(f, off, SEEK_SET));
			ASSERT_EQ(1, fread(&aux, sizeof(aux), 1, f));
			off += aux.size;
			continue;
		}
		if (eh.type != PERF_RECORD_SWITCH_CPU_WIDE && eh.type != PERF_RECORD_ITRACE_START)
			continue;
		/* pid, tid: the record's own (next_prev, itrace_start), the sample id's. */
		at[0] = off + sizeof(eh);
		at[1] = off + eh.size - sizeof(struct jifl_perf_sample_id);
		for (k = 0; k < 2; k++) {
			ASSERT_EQ(0, fseek(f, at[k], SEEK_SET));
			ASSERT_EQ(1, fread(v, sizeof(v), 1, f));
			for (i = 0; i < 2; i++)
				v[i] = v[i] == a ? b : v[i] == b ? a : v[i];
			ASSERT_EQ(0, fseek(f, at[k], SEEK_SET));
			ASSERT_EQ(1, fwrite(v, sizeof(v), 1, f));
			swapped++;
		}
	}
	EXPECT_EQ(0, fclose(f));
	EXPECT_LT(4, swapped);
}

/*
 * The check can tell: with two threads' tids swapped in the switch
 * records, neither jifl-decode nor perf gives the truth any more, as
 * both read which thread ran from them.
 */
TEST_F_TIMEOUT(percpu, swapped_tids_are_caught, RECORD_TIMEOUT)
{
	uint32_t pid, tid[2] = { 0, 0 };
	struct jifl_perf_reader *r;
	char cmd[512];
	uint64_t off;
	long errors;
	size_t i, n = 0;

	ASSERT_EQ(0, record(self, "--cpus 2 --timeslice 300", PROGS "swt_sched 3"))
		TH_LOG("%s", self->out);
	ASSERT_EQ(0, truth_read(self->truth, &self->want));
	qsort(self->want.v, self->want.n, sizeof(*self->want.v), step_cmp);
	ASSERT_EQ(0, jifl_perf_reader_open(&r, self->data, &off));
	pid = jifl_perf_reader_queue(r, 0)->pid;
	jifl_perf_reader_close(r);
	/* Two workers (the main thread's tid is the process's pid). */
	for (i = 0; i < self->want.n && n < 2; i++)
		if (self->want.v[i].tid != pid && (!n || self->want.v[i].tid != tid[0]))
			tid[n++] = self->want.v[i].tid;
	ASSERT_EQ(2, n);
	swap_tids(_metadata, self, tid[0], tid[1]);

	snprintf(cmd, sizeof(cmd), "%s -i %s", decoder(), self->data);
	read_ips(cmd, 1, " error: ", &self->got, &errors);
	qsort(self->got.v, self->got.n, sizeof(*self->got.v), step_cmp);
	EXPECT_GT(self->want.n, ipseq_first_diff(&self->want, &self->got));
	snprintf(cmd, sizeof(cmd), "perf script -i %s --itrace=i1ie -F tid,cpu,ip 2>&1",
		 self->data);
	read_tci(cmd, "instruction trace error", &self->perf, &errors);
	for (i = 0; i < self->perf.n && i < self->want.n; i++)
		if (self->perf.v[i].tid != self->want.v[i].tid ||
		    self->perf.v[i].ip != self->want.v[i].ip)
			break;
	EXPECT_TRUE(errors || i < self->want.n);
}

/* --per-cpu: usage errors. */
TEST_F(percpu, usage)
{
	EXPECT_EQ(2, cmd_run(self->out, sizeof(self->out), "%s --cpus 2 -- true", SWTRACE));
	EXPECT_NE(NULL, strstr(self->out, "--cpus and --switches are for --per-cpu"));
	EXPECT_EQ(2, cmd_run(self->out, sizeof(self->out), "%s --per-cpu --cpus 0 -- true",
			     SWTRACE));
	EXPECT_EQ(2, cmd_run(self->out, sizeof(self->out), "%s --per-cpu --cpus 65 -- true",
			     SWTRACE));
	EXPECT_EQ(2, cmd_run(self->out, sizeof(self->out),
			     "%s --per-cpu --switches sometimes -- true", SWTRACE));
	EXPECT_NE(NULL, strstr(self->out, "--switches: cpu-wide or task, not 'sometimes'"));
	EXPECT_EQ(2, cmd_run(self->out, sizeof(self->out), "%s --per-cpu --timeslice 0 -- true",
			     SWTRACE));
	EXPECT_EQ(2, cmd_run(self->out, sizeof(self->out), "%s --per-cpu -p 1", SWTRACE));
	EXPECT_NE(NULL, strstr(self->out, "--per-cpu: not with -p"));
}

TEST_HARNESS_MAIN
