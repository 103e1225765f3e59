// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/array.h"
#include "common/build_id.h"
#include "common/errcode.h"
#include "perf/perf_data.h"
#include "recorder.h"
#include "vdso.h"

#define PT_BUF_SIZE	(256 * 1024)

/* psb_period field of the intel_pt config: PSB every 2^(n + 11) bytes. */
static uint64_t psb_period_field(uint64_t bytes)
{
	uint64_t n = 0;

	while (n < 15 && (2048ULL << (n + 1)) <= bytes)
		n++;
	return n;
}

static int recorder_flush_pt(void *ctx, const uint8_t *data, size_t size)
{
	struct jifl_rqueue *q = ctx;

	q->r->bytes += size;
	return jifl_perf_writer_auxtrace_cpu(q->r->writer, q->idx, q->tid, q->cpu, data,
					     size);
}

static int queue_init(struct jifl_recorder *r, struct jifl_rqueue *q, int cpu)
{
	int err;

	memset(q, 0, sizeof(*q));
	q->r = r;
	q->idx = r->nr_queues;
	q->cpu = cpu;
	err = jifl_pt_stream_init(&q->pt, PT_BUF_SIZE, r->opts.psb_period,
				  recorder_flush_pt, q);
	if (err)
		return err;
	q->pt.ret_compression = r->opts.ret_compression;
	r->nr_queues++;
	return 0;
}

/* One queue per CPU, numbered as the CPUs are, as perf's per-CPU buffers. */
static int cpus_init(struct jifl_recorder *r)
{
	uint32_t i;
	int err = 0;

	if (!r->opts.nr_cpus)
		return 0;
	r->cpus = calloc(r->opts.nr_cpus, sizeof(*r->cpus));
	if (!r->cpus)
		return -jifl_err_nomem;
	for (i = 0; i < r->opts.nr_cpus && !err; i++)
		err = queue_init(r, &r->cpus[i], i);
	/* Records before any thread ran name a CPU of the trace. */
	if (!err)
		jifl_perf_writer_set_cpu(r->writer, 0);
	return err;
}

static void cpus_free(struct jifl_recorder *r)
{
	uint32_t i;

	for (i = 0; r->cpus && i < r->opts.nr_cpus; i++)
		jifl_pt_stream_fini(&r->cpus[i].pt);
	free(r->cpus);
	r->cpus = NULL;
}

/*
 * Make sure @path can be written before any output file is truncated:
 * create it (*@created), or open the file that is there, as it is.
 */
static int output_check(const char *path, bool *created)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);

	*created = fd >= 0;
	if (fd < 0 && errno == EEXIST)
		fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return jifl_err_errno(errno);
	close(fd);
	return 0;
}

/* Remove the output files this run created. */
static void outputs_remove(const struct jifl_recorder_opts *opts,
			   bool output_created, bool truth_created)
{
	if (output_created)
		unlink(opts->output);
	if (truth_created)
		unlink(opts->truth);
}

int jifl_recorder_open(struct jifl_recorder *r, const struct jifl_recorder_opts *opts)
{
	bool output_created = false, truth_created = false;
	struct jifl_perf_writer_config cfg;
	int err;

	memset(r, 0, sizeof(*r));
	r->opts = *opts;
	err = jifl_tsc_conv_init(&r->tc);
	if (err)
		return err;
	r->bad_path = opts->output;
	err = output_check(opts->output, &output_created);
	if (!err && opts->truth) {
		r->bad_path = opts->truth;
		err = output_check(opts->truth, &truth_created);
	}
	if (err) {
		outputs_remove(opts, output_created, truth_created);
		return err;
	}
	memset(&cfg, 0, sizeof(cfg));
	cfg.pt_pmu_type = opts->pmu_type;
	cfg.pt_config = JIFL_INTEL_PT_CFG_PT | JIFL_INTEL_PT_CFG_TSC |
			JIFL_INTEL_PT_CFG_BRANCH |
			psb_period_field(opts->psb_period) << JIFL_INTEL_PT_CFG_PSB_SHIFT;
	if (!opts->ret_compression)
		cfg.pt_config |= JIFL_INTEL_PT_CFG_NORETCOMP;
	cfg.tc = r->tc;
	cfg.nr_cpus = opts->nr_cpus;
	cfg.sched_switch = opts->sched_switch;
	r->bad_path = opts->output;
	err = jifl_perf_writer_open(&r->writer, opts->output, &cfg);
	if (!err)
		err = cpus_init(r);
	if (!err && opts->truth) {
		r->bad_path = opts->truth;
		err = jifl_truth_open(&r->truth, opts->truth);
	}
	if (!err)
		r->bad_path = NULL;
	else
		outputs_remove(opts, output_created, truth_created);
	return err;
}

static int recorder_new_map(void *ctx, const struct jifl_perf_mmap2 *m)
{
	struct jifl_recorder *r = ctx;
	uint8_t id[JIFL_BUILD_ID_MAX];
	int n;

	/* Where a file has a build ID, perf checks it before using the file. */
	if (m->filename[0] == '/') {
		n = jifl_build_id_read(m->filename, id);
		if (n > 0 && jifl_perf_writer_build_id(r->writer, m->filename, id, n))
			return -jifl_err_nomem;
	}
	/* A vDSO that cannot be kept costs its code only: the trace goes on. */
	if (!strcmp(m->filename, JIFL_VDSO_NAME)) {
		n = jifl_vdso_record(r->writer, r->opts.buildid_dir, r->pid, m);
		if (n == -jifl_err_nomem)
			return n;
		if (n && !r->vdso_err)
			r->vdso_err = n;
	}
	return jifl_perf_writer_mmap2(r->writer, m, jifl_tsc_read());
}

int jifl_recorder_rescan(struct jifl_recorder *r, uint64_t tsc)
{
	(void)tsc;
	return jifl_maps_scan(&r->maps, recorder_new_map, r);
}

static int read_comm(uint32_t pid, char *comm, size_t len)
{
	char path[64];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%u/comm", pid);
	f = fopen(path, "re");
	if (!f)
		return jifl_err_errno(errno);
	if (!fgets(comm, len, f))
		comm[0] = '\0';
	fclose(f);
	comm[strcspn(comm, "\n")] = '\0';
	return 0;
}

static int recorder_image(struct jifl_recorder *r, uint64_t tsc, int exec)
{
	char comm[32];
	int err;

	jifl_maps_fini(&r->maps);
	jifl_maps_init(&r->maps, r->pid);
	err = read_comm(r->pid, comm, sizeof(comm));
	if (!err)
		err = jifl_perf_writer_comm(r->writer, r->pid, r->pid, comm, exec, tsc);
	if (!err)
		err = jifl_recorder_rescan(r, tsc);
	return err;
}

static void thread_free(struct jifl_rthread *th)
{
	if (th->own)
		jifl_pt_stream_fini(&th->own->pt);
	free(th->own);
	free(th);
}

static int thread_add(struct jifl_recorder *r, uint32_t ptid, uint32_t tid,
		      struct jifl_rthread **pth)
{
	struct jifl_rthread *th;
	int err;

	err = jifl_array_room(r->threads, r->nr_threads, r->cap_threads);
	if (err)
		return err;
	th = calloc(1, sizeof(*th));
	if (!th)
		return -jifl_err_nomem;
	th->r = r;
	th->tid = tid;
	th->ptid = ptid;
	if (!r->opts.nr_cpus) {
		th->own = malloc(sizeof(*th->own));
		err = th->own ? queue_init(r, th->own, -1) : -jifl_err_nomem;
		if (err) {
			free(th->own);
			free(th);
			return err;
		}
		th->own->tid = tid;
		th->q = th->own;
	}
	r->threads[r->nr_threads++] = th;
	*pth = th;
	return 0;
}

/*
 * Tracing of a new thread starts in the kernel: PSB+ without FUP. Per
 * CPU, that happens where it is first switched in.
 */
static int thread_start(struct jifl_rthread *th)
{
	int err;

	if (!th->own)
		return 0;
	err = jifl_perf_writer_itrace_start(th->r->writer, th->r->pid, th->tid,
					    jifl_tsc_read());
	if (!err)
		err = jifl_pt_stream_psb(&th->own->pt, jifl_tsc_read(), 0);
	return err;
}

/* The CPUs' AUXTRACE records name the process, as perf's per-CPU buffers do. */
static void cpus_name(struct jifl_recorder *r)
{
	uint32_t i;

	for (i = 0; i < r->opts.nr_cpus; i++)
		r->cpus[i].tid = r->pid;
}

int jifl_recorder_start(struct jifl_recorder *r, uint32_t pid, uint64_t tsc,
			struct jifl_rthread **pth)
{
	int err;

	r->pid = pid;
	cpus_name(r);
	err = recorder_image(r, tsc, 1);
	if (!err)
		err = thread_add(r, pid, pid, pth);
	if (!err)
		err = thread_start(*pth);
	return err;
}

int jifl_recorder_thread_new(struct jifl_recorder *r, uint32_t ptid,
			     uint32_t tid, uint64_t tsc, struct jifl_rthread **pth)
{
	int err;

	err = jifl_perf_writer_fork(r->writer, r->pid, r->pid, tid, ptid, tsc);
	if (!err)
		err = thread_add(r, ptid, tid, pth);
	if (!err)
		err = thread_start(*pth);
	return err;
}

int jifl_recorder_attach(struct jifl_recorder *r, uint32_t pid, uint64_t tsc)
{
	r->pid = pid;
	cpus_name(r);
	return recorder_image(r, tsc, 0);
}

int jifl_recorder_thread_found(struct jifl_recorder *r, uint32_t tid,
			       uint64_t tsc, struct jifl_rthread **pth)
{
	char comm[32];
	int err;

	/* As perf synthesizes an existing thread: COMM, FORK from the leader. */
	err = read_comm(r->pid, comm, sizeof(comm));
	if (!err && tid != r->pid)
		err = jifl_perf_writer_comm(r->writer, r->pid, tid, comm, 0, tsc);
	if (!err && tid != r->pid)
		err = jifl_perf_writer_fork(r->writer, r->pid, r->pid, tid, r->pid, tsc);
	if (!err)
		err = thread_add(r, r->pid, tid, pth);
	if (!err)
		err = thread_start(*pth);
	return err;
}

int jifl_recorder_thread_end(struct jifl_rthread *th, uint64_t ip, bool exited,
			     uint64_t tsc)
{
	struct jifl_recorder *r = th->r;
	uint32_t i;
	int err = 0;

	/* A thread killed in user space leaves it like an interrupt would. */
	if (ip)
		err = jifl_recorder_leave(th, ip, tsc);
	if (!err && th->own)
		err = jifl_pt_stream_flush(&th->own->pt);
	if (!err && exited)
		err = jifl_perf_writer_exit(r->writer, r->pid, th->tid == r->pid ?
					    (uint32_t)getpid() : r->pid,
					    th->tid, th->ptid, tsc);
	/* As the kernel writes EXIT before the dead task's last switch. */
	if (!err && th->q && !th->own)
		err = jifl_recorder_switch(r, th->q->cpu, NULL, false, tsc);
	for (i = 0; i < r->nr_threads; i++)
		if (r->threads[i] == th)
			r->threads[i] = r->threads[--r->nr_threads];
	thread_free(th);
	return err;
}

int jifl_recorder_exec(struct jifl_recorder *r, uint64_t tsc)
{
	return recorder_image(r, tsc, 1);
}

static bool insn_has_packet(const struct jifl_insn *insn)
{
	return insn->kind == JIFL_INSN_COND || insn->kind == JIFL_INSN_INDIRECT ||
	       insn->kind == JIFL_INSN_FAR;
}

/* The packets of @insn, which went on to @next (0 for a system call). */
static int insn_packets(struct jifl_rthread *th, const struct jifl_insn *insn,
			uint64_t next, bool faulted, uint64_t tsc)
{
	struct jifl_recorder *r = th->r;
	struct jifl_pt_stream *s = &th->q->pt;
	int err = 0;

	if (faulted && s->enabled) {
		err = jifl_pt_stream_fup_pgd(s, insn->ip);
		r->leaves++;
	}
	if (!err && !s->enabled) {
		err = jifl_pt_stream_tsc(s, tsc);
		if (!err)
			err = jifl_pt_stream_pge(s, insn->ip);
	} else if (!err && insn_has_packet(insn) &&
		   tsc - s->last_tsc >= r->opts.tsc_every) {
		err = jifl_pt_stream_tsc(s, tsc);
	}
	if (err)
		return err;

	switch (insn->kind) {
	case JIFL_INSN_COND:
		err = jifl_pt_stream_tnt(s, next != insn->ip + insn->len);
		break;
	case JIFL_INSN_INDIRECT:
		if (insn->ret)
			err = jifl_pt_stream_ret(s, next);
		else
			err = jifl_pt_stream_tip(s, next);
		break;
	case JIFL_INSN_FAR:
		err = jifl_pt_stream_pgd(s);
		break;
	}
	if (insn->call)
		jifl_pt_stream_call(s, insn->ip + insn->len);
	/* The decoder is exactly at @next only right after a packet. */
	if (!err && s->enabled && insn_has_packet(insn))
		err = jifl_pt_stream_psb_due(s, tsc, next);
	return err;
}

int jifl_recorder_insn(struct jifl_rthread *th, const struct jifl_insn *insn,
		       uint64_t next, bool faulted, uint64_t tsc)
{
	struct jifl_recorder *r = th->r;
	int err = 0;

	/* Per CPU, side-band records that follow are of this thread's CPU. */
	if (th->q && !th->own)
		jifl_perf_writer_set_cpu(r->writer, th->q->cpu);
	if (!th->entered)
		err = th->q ? insn_packets(th, insn, next, faulted, tsc) : -jifl_err_internal;
	th->entered = false;
	if (!err && r->truth.f)
		err = jifl_truth_add(&r->truth, th->tid, insn->ip, tsc);
	r->insns++;
	return err;
}

int jifl_recorder_block(struct jifl_rthread *th, const struct jifl_insn *insn,
			uint64_t tsc)
{
	int err;

	if (!th->q || insn->kind != JIFL_INSN_FAR)
		return -jifl_err_internal;
	err = insn_packets(th, insn, 0, false, tsc);
	th->entered = !err;
	return err;
}

int jifl_recorder_leave(struct jifl_rthread *th, uint64_t ip, uint64_t tsc)
{
	(void)tsc;
	if (!th->q || !th->q->pt.enabled)
		return 0;
	th->r->leaves++;
	return jifl_pt_stream_fup_pgd(&th->q->pt, ip);
}

/* The idle task, as a CPU-wide switch record names it. */
static uint32_t task_pid(const struct jifl_rthread *th)
{
	return th ? th->r->pid : 0;
}

static uint32_t task_tid(const struct jifl_rthread *th)
{
	return th ? th->tid : 0;
}

/*
 * The records the kernel writes when @next follows @prev on a CPU: for
 * a CPU-wide event, one out (of @prev, naming @next) and one in (of
 * @next, naming @prev), idle included; for the traced tasks' events,
 * out of @prev and in of @next where they are traced (not idle).
 * ITRACE_START comes with the first sched-in of the intel_pt event on
 * the CPU, before the switch-in record.
 */
static int switch_records(struct jifl_rqueue *q, struct jifl_rthread *prev,
			  struct jifl_rthread *next, bool preempt, uint64_t tsc)
{
	struct jifl_recorder *r = q->r;
	bool cpu_wide = r->opts.sched_switch == JIFL_SCHED_SWITCH_CPU_WIDE;
	struct jifl_perf_switch out = {
		.type = cpu_wide ? PERF_RECORD_SWITCH_CPU_WIDE : PERF_RECORD_SWITCH,
		.misc = PERF_RECORD_MISC_SWITCH_OUT |
			(preempt ? PERF_RECORD_MISC_SWITCH_OUT_PREEMPT : 0),
		.pid = task_pid(prev), .tid = task_tid(prev),
		.next_prev_pid = task_pid(next), .next_prev_tid = task_tid(next),
	};
	struct jifl_perf_switch in = {
		.type = out.type,
		.pid = task_pid(next), .tid = task_tid(next),
		.next_prev_pid = task_pid(prev), .next_prev_tid = task_tid(prev),
	};
	int err = 0;

	jifl_perf_writer_set_cpu(r->writer, q->cpu);
	if (cpu_wide || prev)
		err = jifl_perf_writer_switch(r->writer, &out, tsc);
	if (!err && next && !q->started) {
		err = jifl_perf_writer_itrace_start(r->writer, r->pid, next->tid, tsc);
		q->started = true;
	}
	if (!err && (cpu_wide || next))
		err = jifl_perf_writer_switch(r->writer, &in, tsc);
	return err;
}

/* @tsc, or the first TSC 2 ns after the last TSC packet of @q if that is later. */
static uint64_t switch_time(const struct jifl_recorder *r, const struct jifl_rqueue *q,
			    uint64_t tsc)
{
	uint64_t after = jifl_tsc_conv_to_time(&r->tc, q->pt.last_tsc) + 2;

	if (!q->pt.last_tsc || (int64_t)(jifl_tsc_conv_to_time(&r->tc, tsc) - after) >= 0)
		return tsc;
	return jifl_tsc_conv_after(&r->tc, after);
}

int jifl_recorder_switch(struct jifl_recorder *r, uint32_t cpu, struct jifl_rthread *th,
			 bool preempt, uint64_t tsc)
{
	struct jifl_rqueue *q = cpu < r->opts.nr_cpus ? &r->cpus[cpu] : NULL;
	struct jifl_rthread *prev;
	int err;

	/* The thread there left user space first; @th is on no CPU. */
	if (!q || q->pt.enabled || (th && th->q))
		return -jifl_err_internal;
	prev = q->curr;
	if (prev == th)
		return 0;
	/*
	 * Decoders give an instruction to the thread that the switch
	 * records say ran at its time, the last TSC packet before it: the
	 * switch must come after that, in perf time (ns) too.
	 */
	tsc = switch_time(r, q, tsc);
	err = switch_records(q, prev, th, preempt, tsc);
	if (prev)
		prev->q = NULL;
	q->curr = th;
	if (err || !th)
		return err;
	th->q = q;
	r->switches += prev != NULL;
	/*
	 * TraceEn set: the kernel cleared the status, the PSB byte counter
	 * included, when this thread's event first started on the CPU.
	 */
	if (!(th->cpus_run & (1ULL << cpu))) {
		th->cpus_run |= 1ULL << cpu;
		return jifl_pt_stream_psb(&q->pt, tsc, 0);
	}
	/*
	 * The calls remembered for return compression are another thread's.
	 * libipt pops its stack only for a compressed return, perf for any:
	 * returns to calls made before the switch are not compressed, so
	 * that both keep the thread's later calls on top.
	 */
	jifl_pt_stream_forget_calls(&q->pt);
	return jifl_pt_stream_tsc(&q->pt, tsc);
}

int jifl_recorder_finish(struct jifl_recorder *r, uint64_t tsc)
{
	int err = 0, err2;
	uint32_t i;

	while (r->nr_threads && !err)
		err = jifl_recorder_thread_end(r->threads[0], 0, true, tsc);
	for (i = 0; i < r->opts.nr_cpus && !err; i++)
		err = jifl_pt_stream_flush(&r->cpus[i].pt);
	if (!err)
		err = jifl_perf_writer_round(r->writer);
	if (!err)
		err = jifl_perf_writer_close(r->writer);
	else
		jifl_perf_writer_free(r->writer);
	r->writer = NULL;
	err2 = jifl_truth_close(&r->truth);
	jifl_recorder_abort(r);
	return err ? err : err2;
}

void jifl_recorder_abort(struct jifl_recorder *r)
{
	jifl_perf_writer_free(r->writer);
	r->writer = NULL;
	jifl_truth_close(&r->truth);
	while (r->nr_threads)
		thread_free(r->threads[--r->nr_threads]);
	free(r->threads);
	r->threads = NULL;
	cpus_free(r);
	jifl_maps_fini(&r->maps);
}
