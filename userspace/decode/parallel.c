// SPDX-License-Identifier: GPL-2.0
#include <pthread.h>
#include <stdlib.h>

#include "bigstack.h"
#include "common/errcode.h"
#include "items.h"
#include "parallel.h"
#include "run.h"

#define CHUNK	512	/* items handed over at once */

struct chunk {
	struct jifl_item v[CHUNK];
	size_t n;
	struct chunk *next;
};

struct pool;

/* One queue: decoded by a worker, merged by the caller. */
struct pqueue {
	struct pool *pool;
	/* The worker's. */
	struct jifl_run_source src;
	struct jifl_qdec *qd;
	/* Under pool->lock. */
	struct chunk *head, *tail;	/* decoded, not yet merged */
	size_t ready;			/* chunks in that list */
	int finished;			/* the decoder has nothing more */
	int err;			/* why, if not the end of the trace */
	uint64_t done;			/* trace bytes decoded (atomic) */
	/* The caller's. */
	struct jifl_session *main;
	struct chunk *cur;		/* being merged, at @pos */
	size_t pos;
	int map_err;
	struct jifl_thread *from_th, *to_th;		/* the last mapping made */
	struct jifl_process *from_proc, *to_proc;
};

struct worker {
	struct pool *pool;
	pthread_t thread;
	int started;
	struct jifl_session *s;		/* its own */
	struct jifl_decode_config cfg;
	size_t first;			/* its queues: first, first + jobs, ... */
};

struct pool {
	pthread_mutex_t lock;
	pthread_cond_t ready;		/* a chunk was added, or a queue finished */
	pthread_cond_t room;		/* a chunk was taken, or stop */
	struct pqueue *q;
	size_t n;
	size_t jobs;
	size_t ahead;			/* chunks a queue may have ready */
	int stop;			/* the merge is over */
	struct chunk *spare;		/* merged chunks, to fill again */
};

static struct chunk *get_chunk(struct pool *p)
{
	struct chunk *c;

	pthread_mutex_lock(&p->lock);
	c = p->spare;
	if (c)
		p->spare = c->next;
	pthread_mutex_unlock(&p->lock);
	return c ? c : malloc(sizeof(*c));
}

/* Decode a chunk of queue @q's items, and hand it over. */
static void fill(struct pool *p, struct pqueue *q)
{
	struct chunk *c = get_chunk(p);
	struct jifl_item *it = NULL;
	int err = c ? 0 : -jifl_err_nomem;

	if (c) {
		c->n = 0;
		c->next = NULL;
		while (c->n < CHUNK && (it = jifl_qdec_peek(q->qd, &err))) {
			c->v[c->n++] = *it;
			jifl_qdec_pop(q->qd);
		}
	}
	pthread_mutex_lock(&p->lock);
	if (c && c->n) {
		if (q->tail)
			q->tail->next = c;
		else
			q->head = c;
		q->tail = c;
		q->ready++;
	} else if (c) {
		c->next = p->spare;
		p->spare = c;
	}
	if (!it) {
		q->finished = 1;
		q->err = err;
	}
	__atomic_store_n(&q->done, jifl_qdec_done(q->qd), __ATOMIC_RELAXED);
	pthread_cond_broadcast(&p->ready);
	pthread_mutex_unlock(&p->lock);
}

/*
 * A worker: round robin over its queues, a chunk for each that is not
 * finished and has room; when none has, wait for the merge to take one.
 */
static void *work(void *arg)
{
	struct worker *w = arg;
	struct pool *p = w->pool;
	size_t i, live, filled;
	struct pqueue *q;
	int room;

	for (;;) {
		live = filled = 0;
		for (i = w->first; i < p->n; i += p->jobs) {
			q = &p->q[i];
			pthread_mutex_lock(&p->lock);
			if (p->stop) {
				pthread_mutex_unlock(&p->lock);
				return NULL;
			}
			live += !q->finished;
			room = !q->finished && q->ready < p->ahead;
			pthread_mutex_unlock(&p->lock);
			if (room) {
				fill(p, q);
				filled++;
			}
		}
		if (!live)
			return NULL;
		if (filled)
			continue;
		pthread_mutex_lock(&p->lock);
		for (;;) {
			room = p->stop;
			for (i = w->first; i < p->n && !room; i += p->jobs)
				room = !p->q[i].finished && p->q[i].ready < p->ahead;
			if (room)
				break;
			pthread_cond_wait(&p->room, &p->lock);
		}
		pthread_mutex_unlock(&p->lock);
	}
}

/* @it as the merge sees it: with the caller's session's thread and process. */
static int map(struct pqueue *q, struct jifl_item *it)
{
	const struct jifl_item *from = it;

	if (from->thread != q->from_th) {
		q->to_th = jifl_session_thread(q->main, from->thread->pid, from->thread->tid);
		if (!q->to_th)
			return -jifl_err_nomem;
		q->from_th = from->thread;
	}
	if (from->proc != q->from_proc) {
		/* read from the same file, the sessions know the same processes */
		q->to_proc = jifl_session_process(q->main, from->proc->pid);
		if (!q->to_proc)
			return -jifl_err_noproc;
		q->from_proc = from->proc;
	}
	it->thread = q->to_th;
	it->proc = q->to_proc;
	if (it->kind == JIFL_ITEM_GAP)
		it->u.gap.thread = q->to_th;
	return 0;
}

static struct jifl_item *pq_peek(void *ctx, int *err)
{
	struct pqueue *q = ctx;
	struct pool *p = q->pool;

	*err = q->map_err;
	if (*err)
		return NULL;
	if (q->cur && q->pos < q->cur->n)
		return &q->cur->v[q->pos];
	pthread_mutex_lock(&p->lock);
	if (q->cur) {
		q->cur->next = p->spare;
		p->spare = q->cur;
		q->cur = NULL;
	}
	while (!q->head && !q->finished)
		pthread_cond_wait(&p->ready, &p->lock);
	if (q->head) {
		q->cur = q->head;
		q->head = q->cur->next;
		q->cur->next = NULL;
		if (!q->head)
			q->tail = NULL;
		q->ready--;
		pthread_cond_broadcast(&p->room);
	} else {
		*err = q->err;
	}
	pthread_mutex_unlock(&p->lock);
	if (!q->cur)
		return NULL;
	q->pos = 0;
	*err = q->map_err = map(q, &q->cur->v[0]);
	return *err ? NULL : &q->cur->v[0];
}

static void pq_pop(void *ctx)
{
	struct pqueue *q = ctx;

	if (++q->pos < q->cur->n)
		q->map_err = map(q, &q->cur->v[q->pos]);
}

static uint64_t pq_done(void *ctx)
{
	struct pqueue *q = ctx;

	return __atomic_load_n(&q->done, __ATOMIC_RELAXED);
}

static void free_chunks(struct chunk *c)
{
	struct chunk *next;

	for (; c; c = next) {
		next = c->next;
		free(c);
	}
}

/* Each worker's session and decoders; the merge's sources. */
static int set_up(struct pool *p, struct worker *w, struct jifl_session *s,
		  const struct jifl_decode_config *cfg, struct jifl_item_source *src)
{
	size_t i, j;
	int err;

	for (j = 0; j < p->jobs; j++) {
		w[j].pool = p;
		w[j].first = j;
		err = jifl_session_reopen(s, &w[j].s);
		if (err)
			return err;
		w[j].cfg = *cfg;
		w[j].cfg.pt = jifl_session_pt(w[j].s);
		for (i = j; i < p->n; i += p->jobs) {
			p->q[i].pool = p;
			p->q[i].main = s;
			err = jifl_session_queue_decoder(w[j].s, i, &p->q[i].src, &w[j].cfg,
							 &p->q[i].qd);
			if (err)
				return err;
			src[i].peek = pq_peek;
			src[i].pop = pq_pop;
			src[i].done = pq_done;
			src[i].ctx = &p->q[i];
			src[i].cpu = jifl_qdec_cpu(p->q[i].qd);
		}
	}
	return 0;
}

int jifl_decode_parallel(struct jifl_session *s, const struct jifl_decode_config *cfg)
{
	struct pool p = { .n = jifl_session_nr_queues(s) };
	struct jifl_item_source *src;
	struct worker *w;
	size_t i, j;
	int err;

	p.jobs = cfg->jobs < p.n ? cfg->jobs : p.n;
	/* Memory: about 80 KiB a chunk, for each queue these and one more. */
	p.ahead = p.n > 16 ? 2 : 4;
	pthread_mutex_init(&p.lock, NULL);
	pthread_cond_init(&p.ready, NULL);
	pthread_cond_init(&p.room, NULL);
	p.q = calloc(p.n, sizeof(*p.q));
	src = calloc(p.n, sizeof(*src));
	w = calloc(p.jobs, sizeof(*w));
	err = p.q && src && w ? set_up(&p, w, s, cfg, src) : -jifl_err_nomem;
	for (j = 0; !err && j < p.jobs; j++) {
		if (jifl_bigstack_create(&w[j].thread, work, &w[j]))
			err = -jifl_err_nomem;
		else
			w[j].started = 1;
	}
	if (!err)
		err = jifl_decode_merged(src, p.n, jifl_session_tsc_conv(s), cfg);
	pthread_mutex_lock(&p.lock);
	p.stop = 1;
	pthread_cond_broadcast(&p.room);
	pthread_mutex_unlock(&p.lock);
	for (j = 0; w && j < p.jobs; j++)
		if (w[j].started)
			pthread_join(w[j].thread, NULL);
	for (i = 0; p.q && i < p.n; i++) {
		jifl_qdec_free(p.q[i].qd);
		free_chunks(p.q[i].head);
		free_chunks(p.q[i].cur);
	}
	free_chunks(p.spare);
	for (j = 0; w && j < p.jobs; j++)
		jifl_session_close(w[j].s);
	free(w);
	free(src);
	free(p.q);
	pthread_cond_destroy(&p.room);
	pthread_cond_destroy(&p.ready);
	pthread_mutex_destroy(&p.lock);
	return err;
}
