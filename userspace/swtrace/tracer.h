/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Run a program under ptrace, single-stepping every user instruction,
 * and feed what it executes to a recorder.
 */
#ifndef JIFL_TRACER_H
#define JIFL_TRACER_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "recorder.h"

enum jifl_tracer_error {
	JIFL_TRACER_OK,
	JIFL_TRACER_EXEC,	/* the program could not be run: see exec_errno */
	JIFL_TRACER_THREADS,	/* a multi-threaded program exec'ed */
	JIFL_TRACER_SYSTEM,	/* ptrace or wait failed: see err */
	JIFL_TRACER_RECORD,	/* the recorder failed: see err */
};

struct jifl_tracer_result {
	enum jifl_tracer_error error;
	int exec_errno;		/* 0: the program stopped or ended before it ran */
	int err;		/* negative code of a SYSTEM or RECORD error */
	int exit_status;	/* as from waitpid() */
	uint64_t steps;		/* single-steps taken */
	uint64_t faults_missed;	/* 0, or ~0 when a fault counter was missing */
	uint64_t lost_traps;	/* steps that ran more than one instruction */
	double seconds;		/* wall time of the traced run */
};

/*
 * Start @argv traced, stopped before its first instruction: nothing of it
 * has run yet. Returns its pid, or -1 with res->error set (EXEC, SYSTEM).
 * @pin: keep the tracer and the program on the CPU the tracer runs on.
 */
pid_t jifl_tracer_spawn(char *const argv[], bool pin, struct jifl_tracer_result *res);

/* Kill the program @pid of jifl_tracer_spawn() before it runs. */
void jifl_tracer_cancel(pid_t pid);

/*
 * Run the program @pid of jifl_tracer_spawn() under @r (already opened);
 * the recorder is finished on return. For a per-CPU recorder, threads
 * run on its virtual CPUs, each for @timeslice instructions at a time
 * while others wait.
 */
int jifl_tracer_run(struct jifl_recorder *r, pid_t pid, uint64_t timeslice,
		    struct jifl_tracer_result *res);

/*
 * Attach to the running process @pid (all its threads) and record until
 * it exits, jifl_tracer_interrupt() is called, or (@max_insns not 0) at
 * least @max_insns instructions are recorded; then detach, leaving it
 * running. The recorder (per-thread) is finished on return.
 */
int jifl_tracer_attach(struct jifl_recorder *r, pid_t pid, uint64_t max_insns,
		       struct jifl_tracer_result *res);

/*
 * Async-signal-safe: make a running jifl_tracer_run() kill the program,
 * or jifl_tracer_attach() detach from it (the trace up to there is kept),
 * once its wait is interrupted.
 */
void jifl_tracer_interrupt(void);

#endif /* JIFL_TRACER_H */
