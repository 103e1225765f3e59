// SPDX-License-Identifier: GPL-2.0
/* The processes of a decoding session: one per traced pid, with its code. */
#include <inttypes.h>
#include <string.h>

#include "common/array.h"
#include "common/errcode.h"
#include "process.h"
#include "session_internal.h"
#include "vdso.h"

struct jifl_process *jifl_session_process(struct jifl_session *s, uint32_t pid)
{
	size_t i;

	for (i = 0; i < s->nr_procs; i++)
		if (s->procs[i]->pid == pid)
			return s->procs[i];
	return NULL;
}

int jifl_session_new_process(struct jifl_session *s, uint32_t pid, struct jifl_process **pp)
{
	int err = jifl_array_room(s->procs, s->nr_procs, s->cap_procs);

	if (!err)
		err = jifl_process_new(&s->procs[s->nr_procs], pid, s->jit);
	if (err)
		return err;
	*pp = s->procs[s->nr_procs++];
	return 0;
}

/* The vDSO's code at @m in @p, from the image found the first time. */
static int add_vdso(struct jifl_session *s, struct jifl_process *p,
		    const struct jifl_perf_mmap2 *m)
{
	char msg[1024];

	if (!s->vdso_looked) {
		s->vdso_looked = 1;
		if (jifl_vdso_find(&s->vdso, s->perf, s->buildid_dir, msg, sizeof(msg)))
			jifl_session_warn(s, "%s", msg);
	}
	if (!s->vdso.path[0])
		return 0;
	return jifl_process_add_file(p, s->isc, s->vdso.path, 0, m->len, m->addr);
}

/* A process @pid, unless there is one. */
static int want_proc(struct jifl_session *s, uint32_t pid)
{
	struct jifl_process *p;

	return jifl_session_process(s, pid) ? 0 : jifl_session_new_process(s, pid, &p);
}

/*
 * The processes a per-CPU trace may have run: those its ITRACE_START
 * and switch records name, but the idle task.
 */
static int per_cpu_procs(struct jifl_session *s)
{
	const struct jifl_perf_switch_rec *w;
	const struct jifl_perf_task *t;
	size_t i;
	int err = 0;

	for (i = 0; !err && (t = jifl_perf_reader_task(s->perf, i)); i++)
		if (t->type == PERF_RECORD_ITRACE_START)
			err = want_proc(s, t->pid);
	for (i = 0; !err && (w = jifl_perf_reader_switch(s->perf, i)); i++) {
		if (w->sw.pid && w->sw.pid != (uint32_t)-1)
			err = want_proc(s, w->sw.pid);
		if (!err && w->sw.type == PERF_RECORD_SWITCH_CPU_WIDE && w->sw.next_prev_pid &&
		    w->sw.next_prev_pid != (uint32_t)-1)
			err = want_proc(s, w->sw.next_prev_pid);
	}
	return err;
}

/* A process for every traced pid, with the code its MMAP2 records name. */
int jifl_session_make_procs(struct jifl_session *s)
{
	const struct jifl_perf_queue *q;
	const struct jifl_perf_map *m;
	struct jifl_process *p;
	size_t i;
	int err = 0;

	for (i = 0; !err && (q = jifl_perf_reader_queue(s->perf, i)); i++)
		err = want_proc(s, q->pid);
	if (!err)
		err = per_cpu_procs(s);
	if (err)
		return err;
	/* In file order, i.e. time order: a later mapping replaces an earlier one. */
	for (i = 0; (m = jifl_perf_reader_map(s->perf, i)); i++) {
		p = jifl_session_process(s, m->m.pid);
		if (!p)
			continue;
		if (!strcmp(m->m.filename, "[vdso]"))
			err = add_vdso(s, p, &m->m);
		else
			err = jifl_process_add_map(p, s->isc, &m->m);
		if (err == -jifl_err_nomem)
			return err;
		if (err < 0)
			jifl_session_warn(s, "cannot read '%s' (mapped at 0x%" PRIx64 "): %s; its "
					  "code cannot be decoded", m->m.filename, m->m.addr,
					  jifl_strerror(err));
	}
	return 0;
}
