// SPDX-License-Identifier: GPL-2.0
#include <stdlib.h>

#include "common/errcode.h"
#include "sched.h"

int jifl_sched_init(struct jifl_sched *s, uint32_t nr_cpus, uint64_t slice)
{
	s->nr_cpus = nr_cpus;
	s->slice = slice;
	s->head = s->tail = NULL;
	s->curr = calloc(nr_cpus, sizeof(*s->curr));
	return s->curr ? 0 : -jifl_err_nomem;
}

void jifl_sched_fini(struct jifl_sched *s)
{
	free(s->curr);
	s->curr = NULL;
}

void jifl_sched_enqueue(struct jifl_sched *s, struct jifl_sched_thread *t)
{
	if (t->queued || t->cpu >= 0)
		return;
	t->queued = true;
	t->next = NULL;
	if (s->tail)
		s->tail->next = t;
	else
		s->head = t;
	s->tail = t;
}

static struct jifl_sched_thread *dequeue(struct jifl_sched *s)
{
	struct jifl_sched_thread *t = s->head;

	s->head = t->next;
	if (!s->head)
		s->tail = NULL;
	t->queued = false;
	t->next = NULL;
	return t;
}

struct jifl_sched_thread *jifl_sched_take(struct jifl_sched *s, uint32_t cpu)
{
	struct jifl_sched_thread *t;

	if (!s->head || cpu >= s->nr_cpus || s->curr[cpu])
		return NULL;
	t = dequeue(s);
	t->cpu = t->last_cpu = cpu;
	t->ran = 0;
	s->curr[cpu] = t;
	return t;
}

struct jifl_sched_thread *jifl_sched_dispatch(struct jifl_sched *s, uint32_t *cpu)
{
	uint32_t i;

	if (!s->head)
		return NULL;
	/* Where it ran last, while that CPU is free: no needless migration. */
	if (s->head->last_cpu >= 0 && !s->curr[s->head->last_cpu]) {
		*cpu = s->head->last_cpu;
		return jifl_sched_take(s, *cpu);
	}
	for (i = 0; i < s->nr_cpus; i++) {
		if (!s->curr[i]) {
			*cpu = i;
			return jifl_sched_take(s, i);
		}
	}
	return NULL;
}

bool jifl_sched_tick(struct jifl_sched *s, struct jifl_sched_thread *t)
{
	return t->cpu >= 0 && ++t->ran >= s->slice && s->head;
}

void jifl_sched_remove(struct jifl_sched *s, struct jifl_sched_thread *t)
{
	struct jifl_sched_thread *prev = NULL, *q;

	if (t->cpu >= 0) {
		s->curr[t->cpu] = NULL;
		t->cpu = -1;
	}
	if (!t->queued)
		return;
	for (q = s->head; q && q != t; q = q->next)
		prev = q;
	if (prev)
		prev->next = t->next;
	else
		s->head = t->next;
	if (s->tail == t)
		s->tail = prev;
	t->queued = false;
	t->next = NULL;
}
