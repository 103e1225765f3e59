// SPDX-License-Identifier: GPL-2.0
#include <stdlib.h>
#include <string.h>

#include "errcode.h"
#include "jit_loads.h"

struct versions {
	const struct jifl_jit_version **v;
	size_t n, cap;
};

static int push_version(const struct jifl_jit_version *v, void *ctx)
{
	struct versions *vs = ctx;

	if (vs->n == vs->cap) {
		size_t cap = vs->cap ? 2 * vs->cap : 256;
		const struct jifl_jit_version **p = realloc(vs->v, cap * sizeof(*p));

		if (!p)
			return -jifl_err_nomem;
		vs->v = p;
		vs->cap = cap;
	}
	vs->v[vs->n++] = v;
	return 0;
}

/* By process, page, then start: each page's versions in a row. */
static int cmp_version(const void *a, const void *b)
{
	const struct jifl_jit_version *x = *(const struct jifl_jit_version *const *)a;
	const struct jifl_jit_version *y = *(const struct jifl_jit_version *const *)b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->page != y->page)
		return x->page < y->page ? -1 : 1;
	return x->start < y->start ? -1 : x->start > y->start;
}

static int cmp_load(const void *a, const void *b)
{
	const struct jifl_jit_load *x = a, *y = b;

	if (x->v->pid != y->v->pid)
		return x->v->pid < y->v->pid ? -1 : 1;
	if (x->tsc != y->tsc)
		return x->tsc < y->tsc ? -1 : 1;
	return x->v->page < y->v->page ? -1 : x->v->page > y->v->page;
}

/* The last barrier over @v's page at or before perf time @time, or NULL. */
static const struct jifl_jit_barrier *last_barrier(const struct jifl_jit_barrier *b,
						   size_t nr, const struct jifl_jit_version *v,
						   uint64_t time)
{
	const struct jifl_jit_barrier *last = NULL;
	size_t i;

	for (i = 0; i < nr; i++) {
		if (b[i].pid != v->pid || b[i].start >= v->page + FLOWJIT_PAGE_SIZE ||
		    b[i].end <= v->page || b[i].time > time)
			continue;
		/* Of two at one time, the untracked one decides. */
		if (!last || b[i].time > last->time ||
		    (b[i].time == last->time && b[i].untracked))
			last = &b[i];
	}
	return last;
}

/* Not before @v's start, but after a barrier at that very time. */
static uint64_t at_start(const struct jifl_tsc_conv *tc, const struct jifl_jit_version *v,
			 const struct jifl_jit_barrier *b)
{
	if (b && b->time >= jifl_tsc_conv_to_time(tc, v->start))
		return jifl_tsc_conv_after(tc, b->time);
	return v->start;
}

/* When perf is to map @v, which follows @prev (NULL: the page's first). */
static uint64_t load_tsc(const struct jifl_tsc_conv *tc, const struct jifl_jit_version *v,
			 const struct jifl_jit_version *prev,
			 const struct jifl_jit_barrier *b)
{
	int ended = prev && prev->end < v->start;
	uint64_t end_time = ended ? jifl_tsc_conv_to_time(tc, prev->end) : 0, t;

	/* The previous version ran until this one started. */
	if (prev && !ended)
		return at_start(tc, v, b);
	/* A mapping came after the previous version, if any. */
	if (b && (!ended || b->time >= end_time))
		return b->untracked ? at_start(tc, v, b) : jifl_tsc_conv_after(tc, b->time);
	if (!ended)
		return v->start;
	t = jifl_tsc_conv_after(tc, end_time);
	return t < v->start ? t : v->start;
}

/* @tail: the next page's first bytes when @v started; their number. */
static size_t read_tail(const struct jifl_jit_image *img, const struct jifl_jit_version *v,
			uint8_t *tail)
{
	const struct jifl_jit_version *next;
	int n = jifl_jit_image_read(img, v->pid, v->page + FLOWJIT_PAGE_SIZE, v->start, tail,
				    JIFL_JIT_LOAD_TAIL, &next);

	return n > 0 ? n : 0;
}

/* Does @l show what @v would, with no barrier between them? */
static int same_load(const struct jifl_jit_load *l, const struct jifl_jit_version *v,
		     const uint8_t *tail, size_t tail_size, const struct jifl_jit_barrier *b,
		     const struct jifl_tsc_conv *tc)
{
	return l->tail_size == tail_size && !memcmp(l->tail, tail, tail_size) &&
	       !memcmp(l->v->bytes, v->bytes, FLOWJIT_PAGE_SIZE) &&
	       (!b || b->time < jifl_tsc_conv_to_time(tc, l->tsc));
}

int jifl_jit_loads_plan(const struct jifl_jit_image *img,
			const struct jifl_jit_barrier *b, size_t nr_b,
			const struct jifl_tsc_conv *tc,
			struct jifl_jit_load **loads, size_t *nr)
{
	struct versions vs = { NULL, 0, 0 };
	const struct jifl_jit_barrier *bar;
	const struct jifl_jit_version *v, *prev;
	struct jifl_jit_load *l = NULL, *last = NULL;
	uint8_t tail[JIFL_JIT_LOAD_TAIL];
	size_t i, n = 0, tail_size;
	int err;

	err = jifl_jit_image_for_each(img, push_version, &vs);
	if (!err && vs.n && !(l = malloc(vs.n * sizeof(*l))))
		err = -jifl_err_nomem;
	if (err) {
		free(vs.v);
		return err;
	}
	qsort(vs.v, vs.n, sizeof(*vs.v), cmp_version);
	for (i = 0; i < vs.n; i++) {
		v = vs.v[i];
		prev = i && vs.v[i - 1]->pid == v->pid && vs.v[i - 1]->page == v->page ?
		       vs.v[i - 1] : NULL;
		if (!prev)
			last = NULL;
		bar = last_barrier(b, nr_b, v, jifl_tsc_conv_to_time(tc, v->start));
		tail_size = read_tail(img, v, tail);
		if (last && same_load(last, v, tail, tail_size, bar, tc))
			continue;
		last = &l[n++];
		last->v = v;
		last->tsc = load_tsc(tc, v, prev, bar);
		last->tail_size = tail_size;
		memcpy(last->tail, tail, tail_size);
	}
	free(vs.v);
	if (n)
		qsort(l, n, sizeof(*l), cmp_load);
	*loads = l;
	*nr = n;
	return 0;
}

static int push_barrier(struct jifl_jit_barrier **b, size_t *nr, size_t *cap,
			const struct jifl_jit_barrier *add)
{
	if (*nr == *cap) {
		size_t c = *cap ? 2 * *cap : 64;
		struct jifl_jit_barrier *p = realloc(*b, c * sizeof(*p));

		if (!p)
			return -jifl_err_nomem;
		*b = p;
		*cap = c;
	}
	(*b)[(*nr)++] = *add;
	return 0;
}

/* The names perf inject --jit drops in a process with a jitdump (jit_process()). */
static int anonymous(const char *name)
{
	return !strncmp(name, "//anon", 6) || !strncmp(name, "[anon:", 6) ||
	       !strncmp(name, "/memfd:", 7);
}

int jifl_jit_loads_barriers(const struct jifl_perf_reader *r,
			    struct jifl_jit_barrier **b, size_t *nr)
{
	const struct jifl_perf_task *t;
	const struct jifl_perf_map *m;
	struct jifl_jit_barrier add;
	size_t i, cap = 0;
	int err = 0;

	*b = NULL;
	*nr = 0;
	for (i = 0; !err && (m = jifl_perf_reader_map(r, i)); i++) {
		add = (struct jifl_jit_barrier){
			.pid = m->m.pid, .untracked = !anonymous(m->m.filename),
			.start = m->m.addr, .end = m->m.addr + m->m.len, .time = m->time,
		};
		err = push_barrier(b, nr, &cap, &add);
	}
	for (i = 0; !err && (t = jifl_perf_reader_task(r, i)); i++) {
		if (!(t->type == PERF_RECORD_COMM && t->exec) &&
		    !(t->type == PERF_RECORD_FORK && t->pid == t->tid))
			continue;
		add = (struct jifl_jit_barrier){
			.pid = t->pid, .untracked = t->type == PERF_RECORD_FORK,
			.start = 0, .end = UINT64_MAX, .time = t->time,
		};
		err = push_barrier(b, nr, &cap, &add);
	}
	if (err) {
		free(*b);
		*b = NULL;
		*nr = 0;
	}
	return err;
}
