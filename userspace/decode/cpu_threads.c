// SPDX-License-Identifier: GPL-2.0
#include <stdlib.h>

#include "cpu_threads.h"
#include "common/errcode.h"

/* From @time on, @cpu runs @pid/@tid; @seq: file order, for equal times. */
struct entry {
	uint32_t cpu, pid, tid;
	uint64_t time;
	size_t seq;
};

struct jifl_cpu_threads {
	struct entry *v;
	size_t nr;
};

static int entry_cmp(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;

	if (x->cpu != y->cpu)
		return x->cpu < y->cpu ? -1 : 1;
	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static void add(struct jifl_cpu_threads *c, uint32_t cpu, uint32_t pid, uint32_t tid,
		uint64_t time)
{
	struct entry *e = &c->v[c->nr];

	e->cpu = cpu;
	e->pid = pid;
	e->tid = tid;
	e->time = time;
	e->seq = c->nr++;
}

/* What a switch record says runs from its time on; 0 when it says nothing. */
static int switch_entry(const struct jifl_perf_switch_rec *s, uint32_t sched_switch,
			uint32_t *pid, uint32_t *tid)
{
	int out = !!(s->sw.misc & PERF_RECORD_MISC_SWITCH_OUT);

	if (sched_switch == JIFL_SCHED_SWITCH_CPU_WIDE && out &&
	    s->sw.type == PERF_RECORD_SWITCH_CPU_WIDE) {
		*pid = s->sw.next_prev_pid;
		*tid = s->sw.next_prev_tid;
		return 1;
	}
	if (out)
		return 0;
	*pid = s->sw.pid;
	*tid = s->sw.tid;
	return 1;
}

int jifl_cpu_threads_new(struct jifl_cpu_threads **cp, const struct jifl_perf_reader *r)
{
	const struct jifl_perf_info *info = jifl_perf_reader_info(r);
	size_t n = jifl_perf_reader_nr_switches(r) + jifl_perf_reader_nr_tasks(r), i;
	const struct jifl_perf_switch_rec *s;
	const struct jifl_perf_task *t;
	struct jifl_cpu_threads *c;
	uint32_t pid, tid;

	c = calloc(1, sizeof(*c));
	if (!c || !(c->v = malloc((n ? n : 1) * sizeof(*c->v)))) {
		free(c);
		return -jifl_err_nomem;
	}
	for (i = 0; (s = jifl_perf_reader_switch(r, i)); i++)
		if (s->cpu != (uint32_t)-1 &&
		    switch_entry(s, info->have_sched_switch, &pid, &tid))
			add(c, s->cpu, pid, tid, s->time);
	for (i = 0; info->per_cpu_mmaps && (t = jifl_perf_reader_task(r, i)); i++)
		if (t->type == PERF_RECORD_ITRACE_START && t->cpu != (uint32_t)-1)
			add(c, t->cpu, t->pid, t->tid, t->time);
	/*
	 * At equal times an ITRACE_START sorts after the switch records (of
	 * another list): it comes with a sched-in, whose records name the
	 * same task.
	 */
	qsort(c->v, c->nr, sizeof(*c->v), entry_cmp);
	*cp = c;
	return 0;
}

void jifl_cpu_threads_free(struct jifl_cpu_threads *c)
{
	if (!c)
		return;
	free(c->v);
	free(c);
}

int jifl_cpu_threads_any(const struct jifl_cpu_threads *c)
{
	return c->nr > 0;
}

int jifl_cpu_threads_at(const struct jifl_cpu_threads *c, uint32_t cpu, uint64_t time,
			uint32_t *pid, uint32_t *tid)
{
	size_t lo = 0, hi = c->nr, mid;
	const struct entry *e;

	/* The last entry of @cpu at or before @time. */
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		e = &c->v[mid];
		if (e->cpu < cpu || (e->cpu == cpu && e->time <= time))
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || c->v[lo - 1].cpu != cpu)
		return -1;
	*pid = c->v[lo - 1].pid;
	*tid = c->v[lo - 1].tid;
	return 0;
}
