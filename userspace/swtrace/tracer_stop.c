// SPDX-License-Identifier: GPL-2.0
/*
 * What a stop means (x86-64 Linux):
 *  - SIGTRAP after a plain step: the instruction ran (a rep string op
 *    may stop once per iteration with RIP unchanged);
 *  - SIGTRAP with si_code SIGTRAP right after a signal was injected: the
 *    kernel set up a handler frame and stopped before its first
 *    instruction;
 *  - another signal: it is about to be delivered; the instruction we
 *    stepped did not run, unless it was a system call that was
 *    interrupted (orig_rax is then the call's number, not -1);
 *  - a ptrace event (clone, exec): the stepped instruction is still
 *    in progress;
 *  - a new thread's first stop is a SIGSTOP, before or after its
 *    creator's clone event.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/user.h>
#include <sys/wait.h>

#include "common/errcode.h"
#include "tracer_internal.h"

/* Kernel-internal restart codes a system call may return when a signal hits. */
#define ERESTARTSYS		512
#define ERESTARTNOINTR		513
#define ERESTARTNOHAND		514
#define ERESTART_RESTARTBLOCK	516
#define SYSCALL_INSN_LEN	2

static bool syscall_changes_maps(long nr)
{
	return nr == SYS_mmap || nr == SYS_mprotect || nr == SYS_munmap ||
	       nr == SYS_mremap || nr == SYS_pkey_mprotect || nr == SYS_shmat ||
	       nr == SYS_remap_file_pages;
}

static bool restart_code(long rax)
{
	return rax == -ERESTARTSYS || rax == -ERESTARTNOINTR ||
	       rax == -ERESTARTNOHAND || rax == -ERESTART_RESTARTBLOCK;
}

/*
 * Step the instruction at th->ip. Faults of the steps of the previous
 * one are dropped if it was not recorded: it did not run (a signal came
 * first, or the fault raised one).
 */
static int thread_step(struct tracer *t, struct tthread *th)
{
	int err = 0;

	jifl_tracer_fetch(t, th->ip, &th->insn);
	th->faulted = false;
	if (t->per_cpu && jifl_sched_tick(&t->sched, &th->sched))
		err = jifl_tracer_preempt(t, th);
	return err ? err : jifl_tracer_thread_resume(t, th);
}

static int thread_get_ip(struct tthread *th)
{
	struct user_regs_struct regs;

	if (ptrace(PTRACE_GETREGS, th->tid, NULL, &regs))
		return jifl_err_errno(errno);
	th->ip = regs.rip;
	return 0;
}

/* th->insn ran and control went to @next; @sysno: the system call it made. */
static int tracer_record(struct tracer *t, struct tthread *th, uint64_t next,
			 long sysno, uint64_t tsc)
{
	const struct jifl_insn *insn = &th->insn;
	int err;

	err = recorded(t, jifl_recorder_insn(th->rt, insn, next, th->faulted, tsc));
	if (err)
		return err;
	if (insn->kind == JIFL_INSN_FAR && syscall_changes_maps(sysno)) {
		jifl_insn_cache_clear(t->cache);
		err = recorded(t, jifl_recorder_rescan(t->r, tsc));
	}
	return err;
}

/* Straight-line instructions a lost trap may have run, at most. */
#define LOST_TRAP_INSNS	8

/*
 * Where control went right after th->insn, if the step ran plain
 * instructions after it too: @next, where it stopped, is none of
 * th->insn's successors, but plain instructions from one of them lead
 * there. Some hypervisors lose the debug trap of a step now and then
 * (seen after a conditional branch that followed CPUID, which they
 * emulate). 0: @next is a successor, or nothing explains it.
 */
static uint64_t lost_trap_from(struct tracer *t, const struct jifl_insn *insn,
			       uint64_t next)
{
	uint64_t from[2], ip;
	struct jifl_insn in;
	int i, k, n = 0;

	if (!insn->valid || insn->rep)
		return 0;
	if (insn->kind == JIFL_INSN_PLAIN || insn->kind == JIFL_INSN_COND)
		from[n++] = insn->ip + insn->len;
	if (insn->kind == JIFL_INSN_DIRECT || insn->kind == JIFL_INSN_COND)
		from[n++] = insn->target;
	for (k = 0; k < n; k++)
		if (from[k] == next)
			return 0;
	for (k = 0; k < n; k++) {
		for (ip = from[k], i = 0; i < LOST_TRAP_INSNS; i++) {
			jifl_tracer_fetch(t, ip, &in);
			if (!in.valid || in.kind != JIFL_INSN_PLAIN || in.rep)
				break;
			ip += in.len;
			if (ip == next)
				return from[k];
		}
	}
	return 0;
}

/*
 * th->insn ran and control went to @next: record it, and the plain
 * instructions a lost trap ran after it (lost_trap_from()).
 */
static int thread_ran(struct tracer *t, struct tthread *th, uint64_t next,
		      long sysno, uint64_t tsc)
{
	uint64_t ip = lost_trap_from(t, &th->insn, next);
	int err;

	if (!ip) {
		th->ip = next;
		return tracer_record(t, th, next, sysno, tsc);
	}
	t->res->lost_traps++;
	/* th->insn went to @ip, then the plain instructions up to @next ran */
	err = tracer_record(t, th, ip, -1, tsc);
	/* a fault of the step is the first instruction's */
	th->faulted = false;
	while (!err && ip != next) {
		jifl_tracer_fetch(t, ip, &th->insn);
		ip += th->insn.len;
		err = tracer_record(t, th, ip, -1, tsc);
	}
	th->ip = next;
	return err;
}

/* A thread is known once both its first stop and its clone event came. */
int jifl_tracer_thread_begin(struct tracer *t, struct tthread *th)
{
	struct user_regs_struct regs;

	if (ptrace(PTRACE_GETREGS, th->tid, NULL, &regs))
		return jifl_err_errno(errno);
	th->ip = regs.rip;
	/* Attached inside a system call: it restarts, and runs again. */
	if ((long)regs.orig_rax != -1 && restart_code(regs.rax))
		th->ip -= SYSCALL_INSN_LEN;
	return thread_step(t, th);
}

/* @th made thread @tid (PTRACE_EVENT_CLONE). */
static int tracer_clone(struct tracer *t, struct tthread *th, uint64_t tsc)
{
	struct tthread *nt;
	unsigned long tid;
	int err;

	if (ptrace(PTRACE_GETEVENTMSG, th->tid, NULL, &tid))
		return jifl_err_errno(errno);
	nt = jifl_tracer_thread_find(t, tid);
	if (!nt)
		nt = jifl_tracer_thread_add(t, tid);
	if (!nt)
		return -jifl_err_nomem;
	err = recorded(t, jifl_recorder_thread_new(t->r, th->tid, tid, tsc, &nt->rt));
	if (!err && nt->stopped)
		err = jifl_tracer_thread_begin(t, nt);
	return err;
}

/*
 * The program exec'ed another: the old image is gone. The next step only
 * completes the system call (a trap at its exit, no instruction runs);
 * then read the new image's mappings.
 */
static int tracer_exec(struct tracer *t, struct tthread *th, uint64_t tsc)
{
	int st, err;

	if (t->nr > 1) {
		t->res->error = JIFL_TRACER_THREADS;
		return 0;
	}
	err = tracer_record(t, th, 0, -1, tsc);
	if (err)
		return err;
	if (ptrace(PTRACE_SINGLESTEP, th->tid, NULL, NULL) ||
	    waitpid(th->tid, &st, __WALL) != th->tid)
		return jifl_err_errno(errno);
	/* it ended (or was killed) instead of stopping after its exec */
	if (!WIFSTOPPED(st) || WSTOPSIG(st) != SIGTRAP)
		return jifl_err_errno(ESRCH);
	err = thread_get_ip(th);
	if (err)
		return err;
	jifl_insn_cache_free(t->cache);
	t->cache = NULL;
	err = jifl_insn_cache_alloc(&t->cache, t->pid);
	if (!err)
		err = recorded(t, jifl_recorder_exec(t->r, tsc));
	return err ? err : thread_step(t, th);
}

/* Is SIGTRAP pending for thread @tid alone (SigPnd in its status)? */
static bool sigtrap_pending(pid_t tid)
{
	unsigned long long mask = 0;
	char path[64], line[128];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", tid);
	f = fopen(path, "re");
	if (!f)
		return false;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "SigPnd: %llx", &mask) == 1)
			break;
	fclose(f);
	return mask & (1ULL << (SIGTRAP - 1));
}

/* A ptrace event stop inside the system call th->insn. */
static int tracer_event(struct tracer *t, struct tthread *th, int event,
			uint64_t tsc)
{
	int err;

	switch (event) {
	case PTRACE_EVENT_CLONE:
		err = tracer_clone(t, th, tsc);
		return err ? err : jifl_tracer_thread_resume(t, th);
	case PTRACE_EVENT_EXEC:
		return tracer_exec(t, th, tsc);
	case PTRACE_EVENT_STOP:
		/*
		 * PTRACE_INTERRUPT can stop a thread after its step ran but
		 * before the step's SIGTRAP was reported. Take that trap
		 * first (resuming runs nothing: the signal is dequeued), or
		 * a detached thread would die of it.
		 */
		if (t->detaching && sigtrap_pending(th->tid))
			return ptrace(PTRACE_SINGLESTEP, th->tid, NULL, NULL) ?
			       jifl_err_errno(errno) : 0;
		break;
	}
	return jifl_tracer_thread_resume(t, th);
}

/* The thread is gone: exit_group(), or killed. */
static int tracer_gone(struct tracer *t, struct tthread *th, int st,
		       uint64_t tsc)
{
	uint64_t stop_ip = th->ip;
	int err = 0;

	if (th->tid == t->pid)
		t->res->exit_status = st;
	/* A system call it was in did run; a fatal signal stopped the rest. */
	if (th->rt && th->stopped && th->running && th->insn.kind == JIFL_INSN_FAR &&
	    !th->injected) {
		err = tracer_record(t, th, 0, -1, tsc);
		stop_ip = 0;
	}
	if (!err && th->rt)
		err = recorded(t, jifl_recorder_thread_end(th->rt, stop_ip, true, tsc));
	jifl_tracer_thread_del(t, th);
	return err;
}

/* A signal is about to be delivered before th->insn (or after a syscall). */
static int tracer_signal(struct tracer *t, struct tthread *th,
			 const struct user_regs_struct *regs, int sig,
			 uint64_t tsc)
{
	const struct jifl_insn *insn = &th->insn;
	int err = 0;

	/* A system call that was interrupted did run. */
	if (insn->kind == JIFL_INSN_FAR && (long)regs->orig_rax != -1 &&
	    regs->rip != insn->ip)
		err = tracer_record(t, th, regs->rip, regs->orig_rax, tsc);
	if (!err)
		err = recorded(t, jifl_recorder_leave(th->rt, regs->rip, tsc));
	th->ip = regs->rip;
	th->sig = sig;
	th->restart_ip = 0;
	if ((long)regs->orig_rax != -1 && restart_code(regs->rax))
		th->restart_ip = regs->rip - SYSCALL_INSN_LEN;
	return err;
}

/*
 * After a plain step, the next IP follows from the instruction itself;
 * only branches, system calls and signals need the registers.
 */
static bool step_needs_regs(const struct jifl_insn *insn, bool injected)
{
	return injected || insn->rep || insn->kind == JIFL_INSN_COND ||
	       insn->kind == JIFL_INSN_INDIRECT || insn->kind == JIFL_INSN_FAR ||
	       !insn->valid;
}

/* @th stopped with @st after stepping th->insn: record, step on. */
static int tracer_stopped(struct tracer *t, struct tthread *th, int st,
			  uint64_t tsc)
{
	struct jifl_insn *insn = &th->insn;
	struct user_regs_struct regs;
	uint64_t next;
	siginfo_t si;
	int err;

	if (WSTOPSIG(st) == SIGTRAP && !step_needs_regs(insn, th->injected)) {
		next = insn->kind == JIFL_INSN_DIRECT ? insn->target :
							 insn->ip + insn->len;
		err = thread_ran(t, th, next, -1, tsc);
		return err ? err : thread_step(t, th);
	}
	if (ptrace(PTRACE_GETREGS, th->tid, NULL, &regs))
		return jifl_err_errno(errno);
	if (WSTOPSIG(st) != SIGTRAP) {
		err = tracer_signal(t, th, &regs, WSTOPSIG(st), tsc);
		return err ? err : thread_step(t, th);
	}
	if (th->injected) {
		if (ptrace(PTRACE_GETSIGINFO, th->tid, NULL, &si))
			return jifl_err_errno(errno);
		if (si.si_code == SIGTRAP) {
			/* Stopped at a handler's first instruction. */
			th->restart_ip = 0;
			th->ip = regs.rip;
			return thread_step(t, th);
		}
		/* No handler: the kernel may have restarted the system call. */
		if (th->restart_ip && regs.rip == th->restart_ip + SYSCALL_INSN_LEN)
			jifl_tracer_fetch(t, th->restart_ip, insn);
		th->restart_ip = 0;
	}
	if (insn->rep && regs.rip == insn->ip)
		return jifl_tracer_thread_resume(t, th);
	err = thread_ran(t, th, regs.rip, regs.orig_rax, tsc);
	return err ? err : thread_step(t, th);
}

/* One waitpid() report. */
int jifl_tracer_report(struct tracer *t, pid_t tid, int st, uint64_t tsc)
{
	struct tthread *th = jifl_tracer_thread_find(t, tid);

	if (!th) {
		/* A new thread stopped before its creator's clone event. */
		th = jifl_tracer_thread_add(t, tid);
		if (!th)
			return -jifl_err_nomem;
	}
	/* The faults of the step that ended here (the thread is stopped or gone). */
	th->faulted |= jifl_fault_counter_changed(&th->faults);
	if (WIFEXITED(st) || WIFSIGNALED(st))
		return tracer_gone(t, th, st, tsc);
	if (!th->stopped) {
		th->stopped = true;
		return th->rt ? jifl_tracer_thread_begin(t, th) : 0;
	}
	t->res->steps++;
	if (st >> 16)
		return tracer_event(t, th, st >> 16, tsc);
	return tracer_stopped(t, th, st, tsc);
}
