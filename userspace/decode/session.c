// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/array.h"
#include "common/errcode.h"
#include "perf/buildid_cache.h"
#include "cpu_threads.h"
#include "jit_file.h"
#include "ptconfig.h"
#include "rawmem.h"
#include "run.h"
#include "session_internal.h"
#include "threads.h"
#include "vdso.h"

void jifl_session_say(char *msg, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, len, fmt, ap);
	va_end(ap);
}

void jifl_session_warn(struct jifl_session *s, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (jifl_array_room(s->warnings, s->nr_warnings, s->cap_warnings))
		return;
	s->warnings[s->nr_warnings] = strdup(buf);
	if (s->warnings[s->nr_warnings])
		s->nr_warnings++;
}

static struct jifl_process *proc_of(void *ctx, uint32_t pid)
{
	return jifl_session_process(ctx, pid);
}

/*
 * A session whose sections go into @isc (libipt's image section cache is
 * thread-safe: the same file section is mapped once, its block cache
 * filled once, for all decoding threads), or into its own if NULL.
 */
static int session_new(struct jifl_session **sp, struct pt_image_section_cache *isc)
{
	struct jifl_session *s = calloc(1, sizeof(*s));

	if (!s)
		return -jifl_err_nomem;
	s->shares_isc = !!isc;
	s->isc = isc ? isc : pt_iscache_alloc(NULL);
	if (!s->isc || jifl_threads_new(&s->threads)) {
		if (!isc)
			pt_iscache_free(s->isc);
		free(s);
		return -jifl_err_nomem;
	}
	*sp = s;
	return 0;
}

/* A recorder that did not finish the file: its data read up to the end of it. */
static void warn_unfinished(struct jifl_session *s, const char *path)
{
	const struct jifl_perf_info *info = jifl_perf_reader_info(s->perf);

	if (info->pipe && info->cut_at)
		jifl_session_warn(s, "'%s': written to a pipe, its last record cut off at offset %"
				  PRIu64 " (was the recorder killed?)", path, info->cut_at);
	else if (info->cut_at)
		jifl_session_warn(s, "'%s': unfinished (data size 0 in its header: was the "
				  "recorder killed?); read to the end of the file, whose last "
				  "record is cut off at offset %" PRIu64, path, info->cut_at);
	else if (info->unfinished)
		jifl_session_warn(s, "'%s': unfinished (data size 0 in its header: was the "
				  "recorder killed?); read to the end of the file", path);
}

static int session_open(struct jifl_session **sp, const char *perf_path,
			const char *fj_path, const char *buildid_dir,
			struct pt_image_section_cache *isc,
			const struct jifl_jit_file *jit_file, char *msg, size_t len)
{
	struct jifl_session *s;
	uint64_t off = 0;
	int err;

	err = session_new(&s, isc);
	if (err) {
		jifl_session_say(msg, len, "%s", jifl_strerror(err));
		return err;
	}
	s->jit_file = jit_file;
	err = jifl_buildid_cache_dir(buildid_dir, s->buildid_dir, sizeof(s->buildid_dir));
	if (err) {
		jifl_session_say(msg, len, "--buildid-dir: the path is too long");
		jifl_session_close(s);
		return err;
	}
	s->perf_path = strdup(perf_path);
	s->fj_path = fj_path ? strdup(fj_path) : NULL;
	if (!s->perf_path || (fj_path && !s->fj_path)) {
		jifl_session_say(msg, len, "%s", jifl_strerror(-jifl_err_nomem));
		jifl_session_close(s);
		return -jifl_err_nomem;
	}
	err = jifl_perf_reader_open(&s->perf, perf_path, &off);
	if (err == -jifl_err_nosupp)
		jifl_session_say(msg, len, "'%s': no Intel PT trace in it (no intel_pt "
				 "AUXTRACE_INFO)", perf_path);
	else if (err == -jifl_err_format || err == -jifl_err_truncated)
		jifl_session_say(msg, len, "reading '%s' at offset %" PRIu64 ": %s", perf_path,
				 off, jifl_strerror(err));
	else if (err)
		jifl_session_say(msg, len, "cannot read '%s': %s", perf_path, jifl_strerror(err));
	if (!err && !jifl_perf_reader_nr_queues(s->perf)) {
		err = -jifl_err_format;
		jifl_session_say(msg, len, "'%s': the trace is empty (no AUXTRACE data%s)",
				 perf_path, jifl_perf_reader_info(s->perf)->unfinished ?
				 " in an unfinished file: data size 0 in its header" : "");
	}
	if (!err) {
		warn_unfinished(s, perf_path);
		/* No errata known to libipt (a newer processor) is no error. */
		jifl_ptconfig_from_perf(&s->pt, jifl_perf_reader_info(s->perf));
	}
	/* Processes read the JIT image the FlowJIT file fills in later. */
	if (!err && fj_path) {
		err = jifl_jit_image_new(&s->jit);
		if (err)
			jifl_session_say(msg, len, "%s", jifl_strerror(err));
	}
	/* Processes first: the FlowJIT check looks for traced pids. */
	if (!err) {
		err = jifl_session_make_procs(s);
		if (!err)
			err = jifl_cpu_threads_new(&s->cpus, s->perf);
		if (err)
			jifl_session_say(msg, len, "%s", jifl_strerror(err));
	}
	if (!err && fj_path)
		err = jifl_session_load_flowjit(s, fj_path, msg, len);
	if (err) {
		jifl_session_close(s);
		return err;
	}
	*sp = s;
	return 0;
}

int jifl_session_open(struct jifl_session **sp, const char *perf_path,
		      const char *fj_path, const char *buildid_dir, char *msg, size_t len)
{
	return session_open(sp, perf_path, fj_path, buildid_dir, NULL, NULL, msg, len);
}

int jifl_session_open_raw(struct jifl_session **sp, const char *pt_path,
			  const struct pt_config *pt, char *msg, size_t len)
{
	struct jifl_session *s = NULL;
	struct jifl_process *p;
	struct stat st;
	FILE *f;
	int err;

	err = session_new(&s, NULL);
	if (!err)
		err = jifl_session_new_process(s, 0, &p);
	if (!err)
		err = jifl_rawmem_new(&s->rawmem, p, s->isc);
	if (err) {
		jifl_session_say(msg, len, "%s", jifl_strerror(err));
		jifl_session_close(s);
		return err;
	}
	f = fopen(pt_path, "re");
	if (!f || fstat(fileno(f), &st) || !(s->raw_pt = malloc(st.st_size + 1)) ||
	    fread(s->raw_pt, 1, st.st_size, f) != (size_t)st.st_size) {
		err = jifl_err_errno(errno);
		jifl_session_say(msg, len, "--pt: cannot read '%s': %s", pt_path,
				 jifl_strerror(err));
	} else if (!st.st_size) {
		err = -jifl_err_format;
		jifl_session_say(msg, len, "--pt: '%s': the trace is empty", pt_path);
	}
	if (f)
		fclose(f);
	if (err) {
		jifl_session_close(s);
		return err;
	}
	s->raw_size = st.st_size;
	s->pt = *pt;
	*sp = s;
	return 0;
}

int jifl_session_add_elf(struct jifl_session *s, const char *path, uint64_t base,
			 char *msg, size_t len)
{
	return jifl_rawmem_add_elf(s->rawmem, path, base, msg, len);
}

int jifl_session_add_raw(struct jifl_session *s, const char *path, uint64_t from,
			 uint64_t to, uint64_t base, char *msg, size_t len)
{
	return jifl_rawmem_add_raw(s->rawmem, path, from, to, base, msg, len);
}

size_t jifl_session_nr_warnings(const struct jifl_session *s)
{
	return s->nr_warnings;
}

const char *jifl_session_warning(const struct jifl_session *s, size_t i)
{
	return i < s->nr_warnings ? s->warnings[i] : NULL;
}

size_t jifl_session_trace_size(const struct jifl_session *s)
{
	const struct jifl_perf_queue *q;
	size_t i, n = s->raw_size;

	for (i = 0; s->perf && (q = jifl_perf_reader_queue(s->perf, i)); i++)
		n += q->size;
	return n;
}

/*
 * Where queue @q's threads come from: per CPU (a CPU's queue, in a trace
 * that says what ran on its CPUs, as perf decides: switch records, or
 * no thread named by the queue), the thread that ran when; else the
 * queue's thread.
 */
static void queue_source(struct jifl_session *s, const struct jifl_perf_queue *q,
			 struct jifl_run_source *src)
{
	const struct jifl_perf_info *info = jifl_perf_reader_info(s->perf);

	src->pid = q->pid;
	src->tid = q->tid;
	src->cpu = q->cpu;
	if (q->cpu != (uint32_t)-1 && jifl_cpu_threads_any(s->cpus) &&
	    (info->have_sched_switch || q->tid == (uint32_t)-1))
		src->cpus = s->cpus;
}

const struct jifl_perf_info *jifl_session_perf_info(const struct jifl_session *s)
{
	return s->perf ? jifl_perf_reader_info(s->perf) : NULL;
}

size_t jifl_session_nr_queues(const struct jifl_session *s)
{
	return s->perf ? jifl_perf_reader_nr_queues(s->perf) : 1;
}

const struct jifl_tsc_conv *jifl_session_tsc_conv(const struct jifl_session *s)
{
	return s->perf ? &jifl_perf_reader_info(s->perf)->tc : NULL;
}

int jifl_session_queue_decoder(struct jifl_session *s, size_t i, struct jifl_run_source *src,
			       const struct jifl_decode_config *cfg, struct jifl_qdec **qd)
{
	const struct jifl_perf_queue *q;
	struct jifl_qdec_trace trace;

	memset(src, 0, sizeof(*src));
	memset(&trace, 0, sizeof(trace));
	src->threads = s->threads;
	src->proc = proc_of;
	src->ctx = s;
	if (s->perf) {
		q = jifl_perf_reader_queue(s->perf, i);
		queue_source(s, q, src);
		trace.data = q->data;
		trace.size = q->size;
		trace.gaps = q->gaps;
		trace.gap_at = q->gap_at;
	} else {
		src->cpu = (uint32_t)-1;
		trace.data = s->raw_pt;
		trace.size = s->raw_size;
	}
	return jifl_qdec_new(qd, &trace, src, jifl_session_tsc_conv(s), cfg);
}

const struct pt_config *jifl_session_pt(const struct jifl_session *s)
{
	return &s->pt;
}

int jifl_session_reopen(const struct jifl_session *s, struct jifl_session **copy)
{
	char msg[1024];

	if (!s->perf)
		return -jifl_err_invalid;
	return session_open(copy, s->perf_path, s->fj_path, s->buildid_dir, s->isc,
			    s->jit_file, msg, sizeof(msg));
}

struct jifl_thread *jifl_session_thread(struct jifl_session *s, uint32_t pid, uint32_t tid)
{
	return jifl_threads_get(s->threads, pid, tid);
}

const char *jifl_session_comm(const struct jifl_session *s, uint32_t pid, uint32_t tid,
			      uint64_t time)
{
	const char *comm;

	if (!s->perf)
		return "";
	comm = jifl_perf_reader_comm(s->perf, tid, time);
	return *comm ? comm : jifl_perf_reader_comm(s->perf, pid, time);
}

const char *jifl_session_dso(const struct jifl_session *s, uint32_t pid, uint64_t ip,
			     uint64_t time)
{
	const struct jifl_perf_map *m;
	const char *name = NULL;
	size_t i;

	/*
	 * In file order, i.e. time order: a later mapping replaces an
	 * earlier one; the first one stands for the time before it.
	 */
	for (i = 0; s->perf && (m = jifl_perf_reader_map(s->perf, i)); i++)
		if (m->m.pid == pid && ip >= m->m.addr && ip - m->m.addr < m->m.len &&
		    (!name || m->time <= time))
			name = m->m.filename;
	return name;
}

void jifl_session_close(struct jifl_session *s)
{
	size_t i;

	if (!s)
		return;
	for (i = 0; i < s->nr_procs; i++)
		jifl_process_free(s->procs[i]);
	free(s->procs);
	jifl_threads_free(s->threads);
	jifl_cpu_threads_free(s->cpus);
	if (!s->shares_isc)
		pt_iscache_free(s->isc);
	/* After the cache: its sections read the file by name. */
	jifl_jit_file_free(s->own_jit_file);
	jifl_jit_image_free(s->jit);
	jifl_perf_reader_close(s->perf);
	while (s->nr_warnings)
		free(s->warnings[--s->nr_warnings]);
	free(s->warnings);
	free(s->raw_pt);
	jifl_rawmem_free(s->rawmem);
	jifl_vdso_fini(&s->vdso);
	free(s->perf_path);
	free(s->fj_path);
	free(s);
}
