// SPDX-License-Identifier: GPL-2.0
#include <stdlib.h>
#include <string.h>

#include "common/array.h"
#include "common/errcode.h"
#include "jit_loads.h"

struct versions {
	const struct jifl_jit_version **v;
	size_t n, cap;
};

static int push_version(const struct jifl_jit_version *v, void *ctx)
{
	struct versions *vs = ctx;
	int err = jifl_array_room(vs->v, vs->n, vs->cap);

	if (err)
		return err;
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

/* By process, time, address; a version's loads in the order they were made. */
static int cmp_load(const void *a, const void *b)
{
	const struct jifl_jit_load *x = a, *y = b;

	if (x->v->pid != y->v->pid)
		return x->v->pid < y->v->pid ? -1 : 1;
	if (x->tsc != y->tsc)
		return x->tsc < y->tsc ? -1 : 1;
	if (x->v->page != y->v->page)
		return x->v->page < y->v->page ? -1 : 1;
	if (x->v->start != y->v->start)
		return x->v->start < y->v->start ? -1 : 1;
	return x->reload < y->reload ? -1 : x->reload > y->reload;
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

struct plan {
	const struct jifl_jit_image *img;
	const struct jifl_jit_barrier *b;
	size_t nr_b;
	const struct jifl_tsc_conv *tc;
	struct versions vs;	/* by process, page, start */
	uint64_t *tsc;		/* of each version's load */
	struct jifl_jit_load *l;
	size_t n, cap;
};

static int emit(struct plan *p, const struct jifl_jit_version *v, uint64_t tsc,
		unsigned int reload, const uint8_t *tail, size_t tail_size)
{
	struct jifl_jit_load *l;

	if (jifl_array_room(p->l, p->n, p->cap))
		return -jifl_err_nomem;
	l = &p->l[p->n++];
	l->v = v;
	l->tsc = tsc;
	l->reload = reload;
	l->tail_size = tail_size;
	memcpy(l->tail, tail, tail_size);
	return 0;
}

/* The index of the first version of @pid's @page that starts after @tsc, or the end. */
static size_t first_after(const struct versions *vs, uint32_t pid, uint64_t page, uint64_t tsc)
{
	size_t lo = 0, hi = vs->n, mid;
	const struct jifl_jit_version *v;

	while (lo < hi) {
		mid = (lo + hi) / 2;
		v = vs->v[mid];
		if (v->pid < pid || (v->pid == pid && (v->page < page ||
						       (v->page == page && v->start <= tsc))))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * The loads of version @i; @last: the index of its page's last load so
 * far, or -1. A version equal to that load gets none
 * of its own; the next page's versions that start while it runs each
 * give it a load with their first bytes as its tail.
 */
static int plan_version(struct plan *p, size_t i, ssize_t *last)
{
	const struct jifl_jit_version *v = p->vs.v[i], *w;
	uint64_t next = v->page + FLOWJIT_PAGE_SIZE, tsc;
	const struct jifl_jit_barrier *bar;
	uint8_t tail[JIFL_JIT_LOAD_TAIL];
	unsigned int reload = 0;
	size_t tail_size, k;
	int err;

	bar = last_barrier(p->b, p->nr_b, v, jifl_tsc_conv_to_time(p->tc, v->start));
	tail_size = read_tail(p->img, v, tail);
	if (*last < 0 || !same_load(&p->l[*last], v, tail, tail_size, bar, p->tc)) {
		err = emit(p, v, p->tsc[i], 0, tail, tail_size);
		if (err)
			return err;
		*last = p->n - 1;
	}
	for (k = first_after(&p->vs, v->pid, next, v->start);
	     k < p->vs.n && p->vs.v[k]->pid == v->pid && p->vs.v[k]->page == next &&
	     p->vs.v[k]->start < v->end; k++) {
		w = p->vs.v[k];
		if (p->l[*last].tail_size == JIFL_JIT_LOAD_TAIL &&
		    !memcmp(p->l[*last].tail, w->bytes, JIFL_JIT_LOAD_TAIL))
			continue;
		tsc = p->tsc[k] > p->l[*last].tsc ? p->tsc[k] : p->l[*last].tsc;
		err = emit(p, v, tsc, ++reload, w->bytes, JIFL_JIT_LOAD_TAIL);
		if (err)
			return err;
		*last = p->n - 1;
	}
	return 0;
}

int jifl_jit_loads_plan(const struct jifl_jit_image *img,
			const struct jifl_jit_barrier *b, size_t nr_b,
			const struct jifl_tsc_conv *tc,
			struct jifl_jit_load **loads, size_t *nr)
{
	struct plan p = { .img = img, .b = b, .nr_b = nr_b, .tc = tc };
	const struct jifl_jit_version *v, *prev;
	ssize_t last = -1;
	size_t i;
	int err;

	err = jifl_jit_image_for_each(img, push_version, &p.vs);
	if (!err && p.vs.n && !(p.tsc = malloc(p.vs.n * sizeof(*p.tsc))))
		err = -jifl_err_nomem;
	if (!err)
		qsort(p.vs.v, p.vs.n, sizeof(*p.vs.v), cmp_version);
	for (i = 0; !err && i < p.vs.n; i++) {
		v = p.vs.v[i];
		prev = i && p.vs.v[i - 1]->pid == v->pid && p.vs.v[i - 1]->page == v->page ?
		       p.vs.v[i - 1] : NULL;
		p.tsc[i] = load_tsc(tc, v, prev,
				    last_barrier(b, nr_b, v, jifl_tsc_conv_to_time(tc, v->start)));
	}
	for (i = 0; !err && i < p.vs.n; i++) {
		v = p.vs.v[i];
		if (!i || p.vs.v[i - 1]->pid != v->pid || p.vs.v[i - 1]->page != v->page)
			last = -1;
		err = plan_version(&p, i, &last);
	}
	free(p.vs.v);
	free(p.tsc);
	if (err) {
		free(p.l);
		return err;
	}
	if (p.n)
		qsort(p.l, p.n, sizeof(*p.l), cmp_load);
	*loads = p.l;
	*nr = p.n;
	return 0;
}

static int push_barrier(struct jifl_jit_barrier **b, size_t *nr, size_t *cap,
			const struct jifl_jit_barrier *add)
{
	int err = jifl_array_room(*b, *nr, *cap);

	if (err)
		return err;
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
