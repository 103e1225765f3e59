// SPDX-License-Identifier: GPL-2.0
/* The traced threads: who they are, and their steps started. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>

#include "common/array.h"
#include "common/errcode.h"
#include "tracer_internal.h"

struct tthread *jifl_tracer_thread_find(struct tracer *t, pid_t tid)
{
	size_t i;

	for (i = 0; i < t->nr; i++)
		if (t->v[i]->tid == tid)
			return t->v[i];
	return NULL;
}

struct tthread *jifl_tracer_thread_add(struct tracer *t, pid_t tid)
{
	struct tthread *th;

	if (jifl_array_room(t->v, t->nr, t->cap))
		return NULL;
	th = calloc(1, sizeof(*th));
	if (!th)
		return NULL;
	th->tid = tid;
	jifl_sched_thread_init(&th->sched);
	if (jifl_fault_counter_open(&th->faults, tid))
		t->res->faults_missed = ~0ULL;
	t->v[t->nr++] = th;
	return th;
}

void jifl_tracer_thread_del(struct tracer *t, struct tthread *th)
{
	size_t i;

	for (i = 0; i < t->nr; i++)
		if (t->v[i] == th)
			t->v[i] = t->v[--t->nr];
	if (t->per_cpu)
		jifl_sched_remove(&t->sched, &th->sched);
	jifl_fault_counter_close(&th->faults);
	free(th);
}

void jifl_tracer_fetch(struct tracer *t, uint64_t ip, struct jifl_insn *insn)
{
	if (jifl_insn_cache_get(t->cache, ip,
				jifl_maps_cacheable(&t->r->maps, ip), insn)) {
		/* Unreadable or undecodable: it can only fault, not run. */
		memset(insn, 0, sizeof(*insn));
		insn->ip = ip;
	}
}

/* Step th->insn (again), with the signal to deliver, if any. */
int jifl_tracer_thread_go(struct tthread *th)
{
	th->injected = th->sig != 0;
	th->running = true;
	if (ptrace(PTRACE_SINGLESTEP, th->tid, NULL, (void *)(long)th->sig))
		return jifl_err_errno(errno);
	th->sig = 0;
	return 0;
}

/*
 * Step the instruction th->insn (again); when detaching, stay stopped;
 * per CPU, only on a CPU: else wait for one (jifl_tracer_dispatch()).
 */
int jifl_tracer_thread_resume(struct tracer *t, struct tthread *th)
{
	th->running = false;
	if (t->detaching) {
		th->parked = true;
		return 0;
	}
	if (t->per_cpu && th->sched.cpu < 0) {
		jifl_sched_enqueue(&t->sched, &th->sched);
		return 0;
	}
	return jifl_tracer_thread_go(th);
}
