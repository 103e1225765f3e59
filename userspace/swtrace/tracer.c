// SPDX-License-Identifier: GPL-2.0
/*
 * The single-step loop. All threads of the program step at once, each
 * on its own (so one blocked in a system call does not hold the others);
 * waitpid() reports whichever stops. One step is PTRACE_SINGLESTEP,
 * waitpid(), a read() of the thread's page-fault count (the faults of
 * that step), and PTRACE_GETREGS after branches, system calls and
 * signals only. An instruction is recorded at the stop after it ran.
 * Instruction bytes of read-only file text come from a cache.
 */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <time.h>

#include "common/errcode.h"
#include "tracer_internal.h"

/* Per CPU: how long to wait for a stop before looking for sleepers. */
#define POLL_NS			1000000

static double now_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static volatile sig_atomic_t interrupted;

void jifl_tracer_interrupt(void)
{
	interrupted = 1;
}

/* All threads are parked: end their streams and let them run free. */
static int tracer_detach_all(struct tracer *t)
{
	uint64_t tsc = jifl_tsc_read();
	struct tthread *th;
	int err = 0;

	while (t->nr) {
		th = t->v[0];
		if (th->rt && !err)
			err = recorded(t, jifl_recorder_thread_end(th->rt, th->ip, false, tsc));
		if (ptrace(PTRACE_DETACH, th->tid, NULL, (void *)(long)th->sig) && !err)
			err = jifl_err_errno(errno);
		jifl_tracer_thread_del(t, th);
	}
	return err;
}

static bool all_parked(const struct tracer *t)
{
	size_t i;

	for (i = 0; i < t->nr; i++)
		if (!t->v[i]->parked)
			return false;
	return true;
}

/* Stopped from outside: detach from an attached program, else end it. */
static void tracer_stop(struct tracer *t)
{
	size_t i;

	if (!t->attached) {
		kill(t->pid, SIGKILL);
		return;
	}
	t->detaching = true;
	for (i = 0; i < t->nr; i++)
		ptrace(PTRACE_INTERRUPT, t->v[i]->tid, NULL, NULL);
}

/*
 * The next report: its thread in *@tid and status in *@st, or *@tid 0
 * when the wait was interrupted, or there was none for a while and the
 * caller should look again (per CPU, threads waiting for one). Returns
 * 0 or a negative jifl_error_code.
 */
static int tracer_wait(struct tracer *t, pid_t *tid, int *st)
{
	struct timespec ts = { 0, POLL_NS };
	bool poll = t->per_cpu && jifl_sched_waiting(&t->sched);
	int moved;

	*tid = waitpid(-1, st, __WALL | (poll ? WNOHANG : 0));
	if (*tid < 0) {
		*tid = 0;
		return errno == EINTR ? 0 : jifl_err_errno(errno);
	}
	if (*tid || !poll)
		return 0;
	/* A stop sends SIGCHLD; one since the last waitpid() is pending. */
	if (sigtimedwait(&t->chld, NULL, &ts) >= 0 || errno != EAGAIN)
		return 0;
	moved = jifl_tracer_unblock(t);
	return moved < 0 ? moved : 0;
}

static int tracer_loop(struct tracer *t)
{
	bool stopping = false;
	int err = 0, st;
	pid_t tid;

	while (!err && !t->res->error && t->nr) {
		/* The signal may come while a report is handled, not in wait. */
		if ((interrupted || (t->max_insns && t->r->insns >= t->max_insns)) &&
		    !stopping) {
			stopping = true;
			tracer_stop(t);
		}
		if (t->detaching && all_parked(t))
			return tracer_detach_all(t);
		if (t->per_cpu) {
			err = jifl_tracer_dispatch(t);
			if (err)
				return err;
		}
		err = tracer_wait(t, &tid, &st);
		if (!err && tid)
			err = jifl_tracer_report(t, tid, st, jifl_tsc_read());
	}
	return err;
}

static int tracer_finish(struct tracer *t, int err, double t0);

int jifl_tracer_run(struct jifl_recorder *r, pid_t pid, uint64_t timeslice,
		    struct jifl_tracer_result *res)
{
	struct tracer t = { .r = r, .res = res, .pid = pid, .per_cpu = r->opts.nr_cpus > 0 };
	double t0 = now_seconds();
	struct tthread *th;
	int err = 0;

	memset(res, 0, sizeof(*res));
	if (t.per_cpu) {
		sigemptyset(&t.chld);
		sigaddset(&t.chld, SIGCHLD);
		pthread_sigmask(SIG_BLOCK, &t.chld, &t.saved_mask);
		err = jifl_sched_init(&t.sched, r->opts.nr_cpus, timeslice);
	}
	if (!err && ptrace(PTRACE_SETOPTIONS, t.pid, NULL,
			   (void *)(long)(PTRACE_O_TRACECLONE | PTRACE_O_TRACEEXEC |
					  PTRACE_O_EXITKILL)))
		err = jifl_err_errno(errno);
	th = jifl_tracer_thread_add(&t, t.pid);
	if (!err && !th)
		err = -jifl_err_nomem;
	if (!err)
		err = jifl_insn_cache_alloc(&t.cache, t.pid);
	if (!err)
		err = recorded(&t, jifl_recorder_start(r, t.pid, jifl_tsc_read(), &th->rt));
	if (!err) {
		th->stopped = true;
		err = jifl_tracer_thread_begin(&t, th);
	}
	return tracer_finish(&t, err, t0);
}

/* Run the loop after a start that returned @err; finish the recording. */
static int tracer_finish(struct tracer *t, int err, double t0)
{
	struct jifl_tracer_result *res = t->res;
	struct jifl_recorder *r = t->r;
	int st;

	if (!err)
		err = tracer_loop(t);
	if (err && !res->error) {
		res->error = jifl_err_is_errno(err) ? JIFL_TRACER_SYSTEM : JIFL_TRACER_RECORD;
		res->err = err;
	}
	if (res->error && t->attached) {
		tracer_detach_all(t);
	} else if (res->error) {
		/* Threads it made are our tracees too: reap them all. */
		kill(t->pid, SIGKILL);
		while (waitpid(-1, &st, __WALL) > 0 || errno == EINTR)
			;
	}
	res->seconds = now_seconds() - t0;

	/* Keep the trace up to the end, whatever the end was. */
	err = jifl_recorder_finish(r, jifl_tsc_read());
	if (err && !res->error) {
		res->error = JIFL_TRACER_RECORD;
		res->err = err;
	}
	while (t->nr)
		jifl_tracer_thread_del(t, t->v[0]);
	free(t->v);
	if (t->per_cpu) {
		jifl_sched_fini(&t->sched);
		pthread_sigmask(SIG_SETMASK, &t->saved_mask, NULL);
	}
	jifl_insn_cache_free(t->cache);
	return res->error ? -1 : 0;
}

/* Seize every thread of @pid and interrupt it; their stops start them. */
static int tracer_seize(struct tracer *t)
{
	const long opts = PTRACE_O_TRACECLONE | PTRACE_O_TRACEEXEC;
	struct dirent *de;
	char path[64];
	pid_t tid;
	DIR *d;
	int err = 0;

	snprintf(path, sizeof(path), "/proc/%d/task", t->pid);
	d = opendir(path);
	if (!d)
		return jifl_err_errno(errno);
	while (!err && (de = readdir(d))) {
		tid = atoi(de->d_name);
		if (tid <= 0)
			continue;
		if (ptrace(PTRACE_SEIZE, tid, NULL, (void *)opts)) {
			if (errno != ESRCH)	/* a thread that just exited */
				err = jifl_err_errno(errno);
			continue;
		}
		if (!jifl_tracer_thread_add(t, tid))
			err = -jifl_err_nomem;
		else if (ptrace(PTRACE_INTERRUPT, tid, NULL, NULL))
			err = jifl_err_errno(errno);
	}
	closedir(d);
	return err;
}

int jifl_tracer_attach(struct jifl_recorder *r, pid_t pid, uint64_t max_insns,
		       struct jifl_tracer_result *res)
{
	struct tracer t = {
		.r = r, .res = res, .pid = pid, .attached = true, .max_insns = max_insns,
	};
	double t0 = now_seconds();
	uint64_t tsc;
	size_t i;
	int err;

	memset(res, 0, sizeof(*res));
	err = tracer_seize(&t);
	if (!err)
		err = jifl_insn_cache_alloc(&t.cache, pid);
	tsc = jifl_tsc_read();
	if (!err)
		err = recorded(&t, jifl_recorder_attach(r, pid, tsc));
	for (i = 0; i < t.nr && !err; i++)
		err = recorded(&t, jifl_recorder_thread_found(r, t.v[i]->tid, tsc, &t.v[i]->rt));
	return tracer_finish(&t, err, t0);
}
