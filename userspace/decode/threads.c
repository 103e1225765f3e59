// SPDX-License-Identifier: GPL-2.0
#include <stdlib.h>

#include "common/array.h"
#include "common/errcode.h"
#include "threads.h"

struct jifl_threads {
	struct jifl_thread **v;
	size_t nr, cap;
	struct jifl_thread *last;	/* asked for last: most often asked again */
};

int jifl_threads_new(struct jifl_threads **tp)
{
	*tp = calloc(1, sizeof(**tp));
	return *tp ? 0 : -jifl_err_nomem;
}

void jifl_threads_free(struct jifl_threads *t)
{
	if (!t)
		return;
	while (t->nr)
		free(t->v[--t->nr]);
	free(t->v);
	free(t);
}

struct jifl_thread *jifl_threads_get(struct jifl_threads *t, uint32_t pid, uint32_t tid)
{
	struct jifl_thread *th;
	size_t i;

	if (t->last && t->last->pid == pid && t->last->tid == tid)
		return t->last;
	/* Threads are asked for when a queue's changes: rarely. */
	for (i = 0; i < t->nr; i++)
		if (t->v[i]->pid == pid && t->v[i]->tid == tid)
			return t->last = t->v[i];
	if (jifl_array_room(t->v, t->nr, t->cap))
		return NULL;
	th = calloc(1, sizeof(*th));
	if (!th)
		return NULL;
	th->pid = pid;
	th->tid = tid;
	t->v[t->nr++] = th;
	return t->last = th;
}
