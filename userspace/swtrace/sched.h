/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The virtual CPUs of a per-CPU recording: which traced thread runs on
 * which CPU. The tracer single-steps a thread only while it holds a CPU;
 * the others wait in a queue, first come first served. A thread gives
 * its CPU up when it ends, when it blocks in a system call, or when it
 * has run a time slice of instructions while others wait (it is
 * preempted and queues again); a waiting thread takes the CPU it last
 * ran on if that one is free, else any free one, so that threads
 * migrate when there are more of them than CPUs.
 */
#ifndef JIFL_SCHED_H
#define JIFL_SCHED_H

#include <stdbool.h>
#include <stdint.h>

/* A thread as the scheduler sees it; embedded in the tracer's. */
struct jifl_sched_thread {
	int cpu;			/* the CPU it holds, -1: none */
	int last_cpu;			/* the CPU it ran on last, -1: none yet */
	bool queued;			/* waiting for a CPU */
	uint64_t ran;			/* instructions since it took its CPU */
	struct jifl_sched_thread *next;	/* in the queue */
};

struct jifl_sched {
	uint32_t nr_cpus;
	uint64_t slice;			/* instructions of a time slice */
	struct jifl_sched_thread **curr;	/* per CPU: the thread on it */
	struct jifl_sched_thread *head, *tail;	/* the queue */
};

/* Returns 0 or -jifl_err_nomem. */
int jifl_sched_init(struct jifl_sched *s, uint32_t nr_cpus, uint64_t slice);
void jifl_sched_fini(struct jifl_sched *s);

static inline void jifl_sched_thread_init(struct jifl_sched_thread *t)
{
	t->cpu = -1;
	t->last_cpu = -1;
	t->queued = false;
	t->ran = 0;
	t->next = NULL;
}

/* @t, on no CPU, waits for one (once). */
void jifl_sched_enqueue(struct jifl_sched *s, struct jifl_sched_thread *t);

/* Are threads waiting for a CPU? */
static inline bool jifl_sched_waiting(const struct jifl_sched *s)
{
	return s->head != NULL;
}

/*
 * The first waiting thread, given a free CPU (*@cpu), if there are both;
 * else NULL.
 */
struct jifl_sched_thread *jifl_sched_dispatch(struct jifl_sched *s, uint32_t *cpu);

/* The first waiting thread, given CPU @cpu, which is free; NULL: none waits. */
struct jifl_sched_thread *jifl_sched_take(struct jifl_sched *s, uint32_t cpu);

/*
 * @t, on a CPU, ran one more instruction. True when its time slice is
 * over and another thread waits: it should be preempted.
 */
bool jifl_sched_tick(struct jifl_sched *s, struct jifl_sched_thread *t);

/* @t leaves its CPU, if it has one, and the queue, if it is in it. */
void jifl_sched_remove(struct jifl_sched *s, struct jifl_sched_thread *t);

#endif /* JIFL_SCHED_H */
