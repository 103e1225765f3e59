// SPDX-License-Identifier: GPL-2.0
#include <stdlib.h>
#include <string.h>

#include "common/array.h"
#include "common/errcode.h"
#include "perf_queues.h"

/* Where the queue's data lost some: sorted, each once. */
struct gap_list {
	uint64_t *v;
	size_t nr, cap;
};

static int gap_add(struct gap_list *g, uint64_t at)
{
	int err = jifl_array_room(g->v, g->nr, g->cap);

	if (err)
		return err;
	g->v[g->nr++] = at;
	return 0;
}

static int u64_cmp(const void *a, const void *b)
{
	const uint64_t *x = a, *y = b;

	return *x < *y ? -1 : *x > *y;
}

static int buf_cmp(const void *a, const void *b)
{
	const struct jifl_perf_aux_buffer *x = a, *y = b;

	if (x->idx != y->idx)
		return x->idx < y->idx ? -1 : 1;
	return x->offset < y->offset ? -1 : x->offset > y->offset;
}

/*
 * Where AUX area offset @at is in the data of the queue of buffers @b
 * (@n of them): in a buffer or at its end, else where the next buffer
 * starts (the data between was lost anyway).
 */
static uint64_t queue_pos(const struct jifl_perf_aux_buffer *b, size_t n, uint64_t at)
{
	uint64_t pos = 0;
	size_t i;

	for (i = 0; i < n; pos += b[i].size, i++) {
		if (at < b[i].offset)
			return pos;
		if (at - b[i].offset <= b[i].size)
			return pos + (at - b[i].offset);
	}
	return pos;
}

static int loss_of(const struct jifl_perf_queue *q, const struct jifl_perf_aux_loss *l,
		   int per_cpu)
{
	return per_cpu ? l->cpu == q->cpu : l->tid == q->tid;
}

/* The gaps of queue @q, made of buffers @b (@n of them). */
static int queue_gaps(struct jifl_perf_queue *q, const struct jifl_perf_aux_buffer *b, size_t n,
		      const struct jifl_perf_aux_loss *losses, size_t nr_losses, int per_cpu)
{
	struct gap_list g = { 0 };
	uint64_t pos = 0;
	uint32_t i, k;
	size_t j;

	for (j = 1; j < n; j++) {
		pos += b[j - 1].size;
		/* Not where the previous one ended: perf lost trace data. */
		if (b[j].offset != b[j - 1].offset + b[j - 1].size && gap_add(&g, pos))
			goto nomem;
	}
	for (j = 0; j < nr_losses; j++)
		if (loss_of(q, &losses[j], per_cpu) &&
		    gap_add(&g, queue_pos(b, n, losses[j].at)))
			goto nomem;
	if (g.nr)
		qsort(g.v, g.nr, sizeof(*g.v), u64_cmp);
	for (i = 0, k = 0; i < g.nr; i++)
		if (g.v[i] && g.v[i] < q->size && (!k || g.v[k - 1] != g.v[i]))
			g.v[k++] = g.v[i];
	q->gaps = k;
	q->gap_at = g.v;
	return 0;
nomem:
	free(g.v);
	return -jifl_err_nomem;
}

/* A queue of the @n buffers at @b, all of one idx. */
static int queue_make(struct jifl_perf_queue *q, const struct jifl_perf_aux_buffer *b, size_t n)
{
	uint8_t *data;
	size_t i;

	q->idx = b->idx;
	q->tid = b->tid;
	q->pid = b->tid;
	q->cpu = b->cpu;
	for (i = 0; i < n; i++) {
		if (b[i].size > SIZE_MAX - q->size)
			return -jifl_err_nomem;
		data = realloc((void *)q->data, q->size + b[i].size);
		if (!data && q->size + b[i].size)
			return -jifl_err_nomem;
		memcpy(data + q->size, b[i].data, b[i].size);
		q->data = data;
		q->size += b[i].size;
		q->nr_buffers++;
	}
	return 0;
}

int jifl_perf_queues_make(struct jifl_perf_queue **qs, size_t *nr,
			  struct jifl_perf_aux_buffer *bufs, size_t nr_bufs,
			  const struct jifl_perf_aux_loss *losses, size_t nr_losses, int per_cpu)
{
	struct jifl_perf_queue *q;
	size_t i, n, cap = 0;
	int err;

	*qs = NULL;
	*nr = 0;
	if (nr_bufs)
		qsort(bufs, nr_bufs, sizeof(*bufs), buf_cmp);
	for (i = 0; i < nr_bufs; i += n) {
		for (n = 1; i + n < nr_bufs && bufs[i + n].idx == bufs[i].idx; n++)
			;
		err = jifl_array_room(*qs, *nr, cap);
		if (err)
			return err;
		q = &(*qs)[(*nr)++];
		memset(q, 0, sizeof(*q));
		err = queue_make(q, &bufs[i], n);
		if (!err)
			err = queue_gaps(q, &bufs[i], n, losses, nr_losses, per_cpu);
		if (err)
			return err;
	}
	return 0;
}

void jifl_perf_queues_free(struct jifl_perf_queue *qs, size_t nr)
{
	size_t i;

	for (i = 0; i < nr; i++) {
		free((void *)qs[i].data);
		free((void *)qs[i].gap_at);
	}
	free(qs);
}
