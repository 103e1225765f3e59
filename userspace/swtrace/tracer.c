// SPDX-License-Identifier: GPL-2.0
/*
 * The single-step loop. All threads of the program step at once, each
 * on its own (so one blocked in a system call does not hold the others);
 * waitpid() reports whichever stops. One step is PTRACE_SINGLESTEP,
 * waitpid(), a read() of the thread's page-fault count (the faults of
 * that step), and PTRACE_GETREGS after branches, system calls and
 * signals only. An instruction is recorded at the stop after it ran.
 * Instruction bytes of read-only file text come from a cache.
 *
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
 *
 * Per CPU (jifl_tracer_run() with virtual CPUs), a thread steps only
 * while it holds one of them (sched.h); the others wait, stopped. A
 * thread whose system call sleeps (a lock, a pipe, a sleep) while
 * others wait gives its CPU up, as it would in the kernel, or a program
 * whose threads wait on each other could never finish.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/array.h"
#include "common/errcode.h"
#include "fault_counter.h"
#include "sched.h"
#include "tracer.h"

/* Kernel-internal restart codes a system call may return when a signal hits. */
#define ERESTARTSYS		512
#define ERESTARTNOINTR		513
#define ERESTARTNOHAND		514
#define ERESTART_RESTARTBLOCK	516
#define SYSCALL_INSN_LEN	2
/* Per CPU: how long to wait for a stop before looking for sleepers. */
#define POLL_NS			1000000

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
static int recorded(struct tracer *t, int err)
{
	if (err && !t->res->error) {
		t->res->error = JIFL_TRACER_RECORD;
		t->res->err = err;
	}
	return err;
}

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

static struct tthread *thread_find(struct tracer *t, pid_t tid)
{
	size_t i;

	for (i = 0; i < t->nr; i++)
		if (t->v[i]->tid == tid)
			return t->v[i];
	return NULL;
}

static struct tthread *thread_add(struct tracer *t, pid_t tid)
{
	struct tthread *th;

	if (jifl_array_room(t->v, t->nr, t->cap))
		return NULL;
	th = calloc(1, sizeof(*th));
	if (!th)
		return NULL;
	th->tid = tid;
	jifl_sched_thread_init(&th->sched);
	if (jifl_fault_counter_open(&th->faults, tid))
		t->res->faults_missed = ~0ULL;
	t->v[t->nr++] = th;
	return th;
}

static void thread_del(struct tracer *t, struct tthread *th)
{
	size_t i;

	for (i = 0; i < t->nr; i++)
		if (t->v[i] == th)
			t->v[i] = t->v[--t->nr];
	if (t->per_cpu)
		jifl_sched_remove(&t->sched, &th->sched);
	jifl_fault_counter_close(&th->faults);
	free(th);
}

static void tracer_fetch(struct tracer *t, uint64_t ip, struct jifl_insn *insn)
{
	if (jifl_insn_cache_get(t->cache, ip,
				jifl_maps_cacheable(&t->r->maps, ip), insn)) {
		/* Unreadable or undecodable: it can only fault, not run. */
		memset(insn, 0, sizeof(*insn));
		insn->ip = ip;
	}
}

/* Step th->insn (again), with the signal to deliver, if any. */
static int thread_go(struct tthread *th)
{
	th->injected = th->sig != 0;
	th->running = true;
	if (ptrace(PTRACE_SINGLESTEP, th->tid, NULL, (void *)(long)th->sig))
		return jifl_err_errno(errno);
	th->sig = 0;
	return 0;
}

/*
 * Step the instruction th->insn (again); when detaching, stay stopped;
 * per CPU, only on a CPU: else wait for one (tracer_dispatch()).
 */
static int thread_resume(struct tracer *t, struct tthread *th)
{
	th->running = false;
	if (t->detaching) {
		th->parked = true;
		return 0;
	}
	if (t->per_cpu && th->sched.cpu < 0) {
		jifl_sched_enqueue(&t->sched, &th->sched);
		return 0;
	}
	return thread_go(th);
}

static struct tthread *sched_owner(struct jifl_sched_thread *s)
{
	return (struct tthread *)((char *)s - offsetof(struct tthread, sched));
}

/*
 * CPU @cpu, which the thread there left (or none was there), goes to the
 * first waiting thread, or idles; @preempt: the one that left could
 * have run on.
 */
static int cpu_switch(struct tracer *t, uint32_t cpu, bool preempt)
{
	struct jifl_sched_thread *next = jifl_sched_take(&t->sched, cpu);
	struct tthread *th = next ? sched_owner(next) : NULL;
	int err;

	err = recorded(t, jifl_recorder_switch(t->r, cpu, th ? th->rt : NULL, preempt,
					       jifl_tsc_read()));
	return err || !th ? err : thread_go(th);
}

/* Per CPU: waiting threads onto free CPUs. */
static int tracer_dispatch(struct tracer *t)
{
	struct jifl_sched_thread *st;
	struct tthread *th;
	uint32_t cpu;
	int err = 0;

	while (!err && (st = jifl_sched_dispatch(&t->sched, &cpu))) {
		th = sched_owner(st);
		err = recorded(t, jifl_recorder_switch(t->r, cpu, th->rt, false,
						       jifl_tsc_read()));
		if (!err)
			err = thread_go(th);
	}
	return err;
}

/*
 * Per CPU: @th ran its time slice, others wait. An interrupt takes it
 * out of user space before th->ip, and it waits again, last.
 */
static int thread_preempt(struct tracer *t, struct tthread *th)
{
	uint32_t cpu = th->sched.cpu;
	int err;

	err = recorded(t, jifl_recorder_leave(th->rt, th->ip, jifl_tsc_read()));
	if (err)
		return err;
	jifl_sched_remove(&t->sched, &th->sched);
	jifl_sched_enqueue(&t->sched, &th->sched);
	return cpu_switch(t, cpu, true);
}

/*
 * Step the instruction at th->ip. Faults of the steps of the previous
 * one are dropped if it was not recorded: it did not run (a signal came
 * first, or the fault raised one).
 */
static int thread_step(struct tracer *t, struct tthread *th)
{
	int err = 0;

	tracer_fetch(t, th->ip, &th->insn);
	th->faulted = false;
	if (t->per_cpu && jifl_sched_tick(&t->sched, &th->sched))
		err = thread_preempt(t, th);
	return err ? err : thread_resume(t, th);
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
			tracer_fetch(t, ip, &in);
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
		tracer_fetch(t, ip, &th->insn);
		ip += th->insn.len;
		err = tracer_record(t, th, ip, -1, tsc);
	}
	th->ip = next;
	return err;
}

/* A thread is known once both its first stop and its clone event came. */
static int thread_begin(struct tracer *t, struct tthread *th)
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
	nt = thread_find(t, tid);
	if (!nt)
		nt = thread_add(t, tid);
	if (!nt)
		return -jifl_err_nomem;
	err = recorded(t, jifl_recorder_thread_new(t->r, th->tid, tid, tsc, &nt->rt));
	if (!err && nt->stopped)
		err = thread_begin(t, nt);
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
		return err ? err : thread_resume(t, th);
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
	return thread_resume(t, th);
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
	thread_del(t, th);
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
			tracer_fetch(t, th->restart_ip, insn);
		th->restart_ip = 0;
	}
	if (insn->rep && regs.rip == insn->ip)
		return thread_resume(t, th);
	err = thread_ran(t, th, regs.rip, regs.orig_rax, tsc);
	return err ? err : thread_step(t, th);
}

/* One waitpid() report. */
static int tracer_report(struct tracer *t, pid_t tid, int st, uint64_t tsc)
{
	struct tthread *th = thread_find(t, tid);

	if (!th) {
		/* A new thread stopped before its creator's clone event. */
		th = thread_add(t, tid);
		if (!th)
			return -jifl_err_nomem;
	}
	/* The faults of the step that ended here (the thread is stopped or gone). */
	th->faulted |= jifl_fault_counter_changed(&th->faults);
	if (WIFEXITED(st) || WIFSIGNALED(st))
		return tracer_gone(t, th, st, tsc);
	if (!th->stopped) {
		th->stopped = true;
		return th->rt ? thread_begin(t, th) : 0;
	}
	t->res->steps++;
	if (st >> 16)
		return tracer_event(t, th, st >> 16, tsc);
	return tracer_stopped(t, th, st, tsc);
}

/*
 * Each step wakes the tracer and then the tracee; on one CPU that is a
 * plain switch, across CPUs an inter-processor wake-up (three times
 * slower measured in a VM).
 */
static void tracer_pin(void)
{
	int cpu = sched_getcpu();
	cpu_set_t set;

	if (cpu < 0)
		return;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	sched_setaffinity(0, sizeof(set), &set);
}

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
		thread_del(t, th);
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

/* Is thread @tid asleep in the kernel (state S or D)? */
static bool thread_sleeping(pid_t tid)
{
	char path[64], buf[256], *p;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/stat", tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	/* "pid (comm) S ...": the comm may hold spaces and parentheses. */
	p = strrchr(buf, ')');
	return p && p[1] == ' ' && (p[2] == 'S' || p[2] == 'D');
}

/*
 * Per CPU, while threads wait: threads asleep in a system call give
 * their CPU up (its packets are written now). Returns 1 if one did.
 */
static int tracer_unblock(struct tracer *t)
{
	struct tthread *th;
	uint32_t cpu;
	int err, moved = 0;

	for (cpu = 0; cpu < t->sched.nr_cpus; cpu++) {
		if (!t->sched.curr[cpu])
			continue;
		th = sched_owner(t->sched.curr[cpu]);
		if (!th->running || th->insn.kind != JIFL_INSN_FAR || th->rt->entered ||
		    !thread_sleeping(th->tid))
			continue;
		err = recorded(t, jifl_recorder_block(th->rt, &th->insn, jifl_tsc_read()));
		if (err)
			return err;
		jifl_sched_remove(&t->sched, &th->sched);
		err = cpu_switch(t, cpu, false);
		if (err)
			return err;
		moved = 1;
	}
	return moved;
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
	moved = tracer_unblock(t);
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
			err = tracer_dispatch(t);
			if (err)
				return err;
		}
		err = tracer_wait(t, &tid, &st);
		if (!err && tid)
			err = tracer_report(t, tid, st, jifl_tsc_read());
	}
	return err;
}

static int tracer_finish(struct tracer *t, int err, double t0);

void jifl_tracer_cancel(pid_t pid)
{
	int st;

	kill(pid, SIGKILL);
	while (waitpid(pid, &st, __WALL) < 0 && errno == EINTR)
		;
}

/* The child's exec error, if it sent one (its end of @fd closes on exec). */
static int exec_error(int fd)
{
	int e;

	return read(fd, &e, sizeof(e)) == sizeof(e) ? e : 0;
}

pid_t jifl_tracer_spawn(char *const argv[], bool pin, struct jifl_tracer_result *res)
{
	int fds[2], e, st;
	pid_t pid;

	memset(res, 0, sizeof(*res));
	if (pin)
		tracer_pin();
	res->error = JIFL_TRACER_SYSTEM;
	if (pipe2(fds, O_CLOEXEC)) {
		res->err = jifl_err_errno(errno);
		return -1;
	}
	pid = fork();
	if (!pid) {
		close(fds[0]);
		if (!ptrace(PTRACE_TRACEME, 0, NULL, NULL))
			execvp(argv[0], argv);
		e = errno;
		if (write(fds[1], &e, sizeof(e)) < 0)
			_exit(126);
		_exit(127);
	}
	if (pid < 0)
		res->err = jifl_err_errno(errno);
	close(fds[1]);
	if (pid > 0 && waitpid(pid, &st, 0) != pid) {
		res->err = jifl_err_errno(errno);
		jifl_tracer_cancel(pid);
		pid = -1;
	}
	if (pid > 0 && WIFSTOPPED(st) && WSTOPSIG(st) == SIGTRAP) {
		/* Should the recorder die before jifl_tracer_run(), so does it. */
		if (ptrace(PTRACE_SETOPTIONS, pid, NULL, (void *)(long)PTRACE_O_EXITKILL)) {
			res->err = jifl_err_errno(errno);
			jifl_tracer_cancel(pid);
			pid = -1;
		} else {
			res->error = JIFL_TRACER_OK;
		}
	} else if (pid > 0) {
		/* Not run: exec failed, or it stopped or ended before its start. */
		res->error = JIFL_TRACER_EXEC;
		res->exec_errno = exec_error(fds[0]);
		if (WIFSTOPPED(st))
			jifl_tracer_cancel(pid);
		pid = -1;
	}
	close(fds[0]);
	return pid;
}

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
	th = thread_add(&t, t.pid);
	if (!err && !th)
		err = -jifl_err_nomem;
	if (!err)
		err = jifl_insn_cache_alloc(&t.cache, t.pid);
	if (!err)
		err = recorded(&t, jifl_recorder_start(r, t.pid, jifl_tsc_read(), &th->rt));
	if (!err) {
		th->stopped = true;
		err = thread_begin(&t, th);
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
		thread_del(t, t->v[0]);
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
		if (!thread_add(t, tid))
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
