/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Inside the tracer (tracer.h), for the files that make it up: tracer.c
 * (the single-step loop: run, attach, detach), tracer_threads.c (the
 * traced threads and their steps), tracer_sched.c (threads on virtual
 * CPUs), tracer_stop.c (what a stop means) and tracer_spawn.c (the
 * program started traced).
 */
#ifndef JIFL_TRACER_INTERNAL_H
#define JIFL_TRACER_INTERNAL_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "fault_counter.h"
#include "insn.h"
#include "sched.h"
#include "tracer.h"

struct tthread {
	struct jifl_rthread *rt;	/* NULL until the clone event named it */
	pid_t tid;
	bool stopped;		/* its first stop was seen */
	uint64_t ip;		/* where it is stopped */
	struct jifl_insn insn;	/* the instruction being stepped */
	int sig;		/* signal to deliver with the next step */
	bool injected;		/* the current step delivers a signal */
	uint64_t restart_ip;	/* where an interrupted system call may restart */
	struct jifl_fault_counter faults;
	bool faulted;		/* a step of insn (rep: of any iteration) faulted */
	bool parked;		/* detaching: stopped for good */
	bool running;		/* stepping: a step was started, its stop not seen */
	struct jifl_sched_thread sched;	/* per CPU */
};

struct tracer {
	struct jifl_recorder *r;
	struct jifl_insn_cache *cache;
	struct jifl_tracer_result *res;
	pid_t pid;
	struct tthread **v;
	size_t nr, cap;
	bool attached;		/* -p: detach at the end instead of killing */
	uint64_t max_insns;	/* attached: detach after this many (0: never) */
	bool detaching;
	bool per_cpu;		/* threads step on the virtual CPUs of @sched */
	struct jifl_sched sched;
	sigset_t chld, saved_mask;	/* per CPU: SIGCHLD, blocked to wait for it */
};

/*
 * The recorder failed (writing the files, reading the program's maps):
 * say so. Returns @err.
 */
static inline int recorded(struct tracer *t, int err)
{
	if (err && !t->res->error) {
		t->res->error = JIFL_TRACER_RECORD;
		t->res->err = err;
	}
	return err;
}

/* Thread @tid, or NULL if it is not known (yet). */
struct tthread *jifl_tracer_thread_find(struct tracer *t, pid_t tid);
/* Thread @tid is new: NULL if out of memory. */
struct tthread *jifl_tracer_thread_add(struct tracer *t, pid_t tid);
/* Thread @th is gone: off its CPU, and freed. */
void jifl_tracer_thread_del(struct tracer *t, struct tthread *th);
/* The instruction at @ip of the traced program. */
void jifl_tracer_fetch(struct tracer *t, uint64_t ip, struct jifl_insn *insn);
int jifl_tracer_thread_go(struct tthread *th);
int jifl_tracer_thread_resume(struct tracer *t, struct tthread *th);

/* Per CPU (tracer_sched.c). */
int jifl_tracer_dispatch(struct tracer *t);
int jifl_tracer_preempt(struct tracer *t, struct tthread *th);
int jifl_tracer_unblock(struct tracer *t);

/* Stops (tracer_stop.c). */
int jifl_tracer_thread_begin(struct tracer *t, struct tthread *th);
int jifl_tracer_report(struct tracer *t, pid_t tid, int st, uint64_t tsc);

#endif /* JIFL_TRACER_INTERNAL_H */
