// SPDX-License-Identifier: GPL-2.0
/* A decoding session's FlowJIT data: read, and checked against the trace. */
#include <inttypes.h>

#include "common/errcode.h"
#include "flowjit/fjreader.h"
#include "flowjit/jit_image.h"
#include "jit_file.h"
#include "perf/tsc_conv.h"
#include "session_internal.h"

/* FlowJIT and perf times come from the same TSC; allow for rounding only. */
#define TIME_SLACK_NS	1000000

/* The span of perf times of the side-band records. */
static void perf_span(const struct jifl_perf_reader *r, uint64_t *lo, uint64_t *hi)
{
	const struct jifl_perf_task *t;
	size_t i;

	*lo = UINT64_MAX;
	*hi = 0;
	for (i = 0; (t = jifl_perf_reader_task(r, i)); i++) {
		if (!t->time)
			continue;
		if (t->time < *lo)
			*lo = t->time;
		if (t->time > *hi)
			*hi = t->time;
	}
}

/*
 * The JIT pages' last versions as sections of one memory file, written
 * by the first session, mapped by all. Without one (no memfd, no /proc)
 * libipt's read callback reads them, as the other versions.
 */
static int add_jit_sections(struct jifl_session *s)
{
	size_t i;
	int err = 0;

	if (!s->jit_file)
		err = jifl_jit_file_new(&s->own_jit_file, s->jit);
	if (err)
		return err == -jifl_err_nomem ? err : 0;
	if (!s->jit_file)
		s->jit_file = s->own_jit_file;
	for (i = 0; !err && i < s->nr_procs; i++)
		err = jifl_process_add_jit(s->procs[i], s->isc, s->jit_file);
	return err;
}

/*
 * Read the FlowJIT file into the JIT image. Its snapshots must belong to
 * the trace: a traced pid, and a time inside the trace's.
 */
int jifl_session_load_flowjit(struct jifl_session *s, const char *path, char *msg, size_t len)
{
	const struct jifl_tsc_conv *tc = &jifl_perf_reader_info(s->perf)->tc;
	uint64_t lo, hi, t, execs = 0, matched = 0;
	struct jifl_jit_image_stats st;
	struct jifl_fjreader *r;
	struct flowjit_event ev;
	const void *page;
	int ret;

	ret = jifl_fjreader_open(&r, path);
	if (ret) {
		jifl_session_say(msg, len, "--flowjit: cannot read '%s': %s", path,
				 jifl_strerror(ret));
		return ret;
	}
	perf_span(s->perf, &lo, &hi);
	while (!ret && (ret = jifl_fjreader_next(r, &ev, &page)) > 0) {
		ret = jifl_jit_image_add_event(s->jit, &ev, page);
		if (ev.type != FLOWJIT_EV_EXEC)
			continue;
		execs++;
		t = jifl_tsc_conv_to_time(tc, ev.tsc);
		matched += jifl_session_process(s, ev.pid) && t + TIME_SLACK_NS >= lo &&
			   t <= hi + TIME_SLACK_NS;
	}
	if (ret < 0) {
		jifl_session_say(msg, len, "--flowjit: reading '%s' at offset %" PRIu64 ": %s",
				 path, jifl_fjreader_offset(r), jifl_strerror(ret));
	} else if (execs && !matched) {
		ret = -jifl_err_mismatch;
		jifl_session_say(msg, len, "--flowjit: '%s' is not from the run of the trace: "
				 "none of its %" PRIu64 " code snapshots is of a traced process "
				 "at a traced time", path, execs);
	} else if (execs != matched) {
		jifl_session_warn(s, "--flowjit: %" PRIu64 " of %" PRIu64
				  " code snapshots are of processes or times outside the trace",
				  execs - matched, execs);
	}
	jifl_fjreader_close(r);
	if (ret < 0)
		return ret;
	ret = add_jit_sections(s);
	if (ret) {
		jifl_session_say(msg, len, "%s", jifl_strerror(ret));
		return ret;
	}
	jifl_jit_image_stats(s->jit, &st);
	if (st.lost)
		jifl_session_warn(s, "--flowjit: the kernel dropped %" PRIu64
				  " records: JIT code may decode wrongly or not at all", st.lost);
	if (st.pinned)
		jifl_session_warn(s, "--flowjit: %" PRIu64 " code snapshots are of pages pinned for"
				  " DMA or kernel access, whose writes FlowJIT cannot see: their"
				  " code may decode wrongly", st.pinned);
	return 0;
}
