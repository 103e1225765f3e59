// SPDX-License-Identifier: GPL-2.0
/*
 * The single-step loop. One step is PTRACE_SINGLESTEP, waitpid() and
 * PTRACE_GETREGS, plus a read of the page-fault counter; instruction bytes
 * of read-only file text come from a cache.
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
 *    in progress.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "errcode.h"
#include "tracer.h"

/* Kernel-internal restart codes a system call may return when a signal hits. */
#define ERESTARTSYS		512
#define ERESTARTNOINTR		513
#define ERESTARTNOHAND		514
#define ERESTART_RESTARTBLOCK	516
#define SYSCALL_INSN_LEN	2

struct tracer {
	struct jifl_recorder *r;
	struct jifl_insn_cache *cache;
	struct jifl_tracer_result *res;
	pid_t pid;
	int fault_fd;
	uint64_t faults;
	int sig;		/* signal to deliver with the next step */
	uint64_t restart_ip;	/* where an interrupted system call may restart */
	uint64_t ip;		/* where the thread is stopped */
};

static pid_t tracer_spawn(char *const argv[], int *exec_errno)
{
	int fds[2], e = 0, st;
	pid_t pid;

	if (pipe2(fds, O_CLOEXEC))
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (!pid) {
		close(fds[0]);
		if (!ptrace(PTRACE_TRACEME, 0, NULL, NULL))
			execvp(argv[0], argv);
		e = errno;
		if (write(fds[1], &e, sizeof(e)) < 0)
			_exit(126);
		_exit(127);
	}
	close(fds[1]);
	if (waitpid(pid, &st, 0) != pid) {
		close(fds[0]);
		return -1;
	}
	if (WIFSTOPPED(st) && WSTOPSIG(st) == SIGTRAP) {
		close(fds[0]);
		return pid;
	}
	if (read(fds[0], &e, sizeof(e)) != sizeof(e))
		e = ECHILD;
	close(fds[0]);
	*exec_errno = e;
	return 0;
}

/* Per-thread count of user-mode page faults, or -1 without one. */
static int fault_counter_open(pid_t pid)
{
	struct perf_event_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_SOFTWARE;
	attr.config = PERF_COUNT_SW_PAGE_FAULTS;
	attr.exclude_kernel = 1;
	attr.exclude_hv = 1;
	return syscall(SYS_perf_event_open, &attr, pid, -1, -1,
		       PERF_FLAG_FD_CLOEXEC);
}

/* Did the thread take a user page fault since the last call? */
static bool tracer_faulted(struct tracer *t)
{
	uint64_t n;

	if (t->fault_fd < 0 || read(t->fault_fd, &n, sizeof(n)) != sizeof(n))
		return false;
	if (n == t->faults)
		return false;
	t->faults = n;
	return true;
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

static int tracer_fetch(struct tracer *t, uint64_t ip, struct jifl_insn *insn)
{
	int err;

	err = jifl_insn_cache_get(t->cache, ip,
				  jifl_maps_cacheable(&t->r->maps, ip), insn);
	if (err) {
		/* Unreadable or undecodable: it can only fault, not run. */
		memset(insn, 0, sizeof(*insn));
		insn->ip = ip;
	}
	return 0;
}

static int tracer_record(struct tracer *t, const struct jifl_insn *insn,
			 uint64_t next, long sysno, uint64_t tsc)
{
	bool faulted = tracer_faulted(t) && insn->kind != JIFL_INSN_FAR;
	int err;

	err = jifl_recorder_insn(t->r, insn, next, faulted, tsc);
	if (err)
		return err;
	t->ip = next;
	if (insn->kind == JIFL_INSN_FAR && syscall_changes_maps(sysno)) {
		jifl_insn_cache_clear(t->cache);
		err = jifl_recorder_rescan(t->r, tsc);
	}
	return err;
}

/*
 * The program exec'ed another: the old image is gone. The next step only
 * completes the system call (a trap at its exit, no instruction runs);
 * then read the new image's mappings.
 */
static int tracer_exec(struct tracer *t, uint64_t tsc)
{
	struct user_regs_struct regs;
	int st, err;

	if (ptrace(PTRACE_SINGLESTEP, t->pid, NULL, NULL) ||
	    waitpid(t->pid, &st, __WALL) != t->pid)
		return -jifl_err_io;
	if (!WIFSTOPPED(st) || WSTOPSIG(st) != SIGTRAP ||
	    ptrace(PTRACE_GETREGS, t->pid, NULL, &regs))
		return -jifl_err_io;
	t->ip = regs.rip;
	jifl_insn_cache_free(t->cache);
	t->cache = NULL;
	err = jifl_insn_cache_alloc(&t->cache, t->pid);
	if (!err)
		err = jifl_recorder_exec(t->r, tsc);
	return err;
}

/*
 * A ptrace event stop inside the system call @insn: it has entered the
 * kernel. Returns 1 to step it again, 0 when it is done, or an error code.
 */
static int tracer_event(struct tracer *t, int event,
			const struct jifl_insn *insn, uint64_t tsc)
{
	int err;

	switch (event) {
	case PTRACE_EVENT_CLONE:
		t->res->error = JIFL_TRACER_THREADS;
		return tracer_record(t, insn, 0, -1, tsc);
	case PTRACE_EVENT_EXEC:
		err = tracer_record(t, insn, 0, -1, tsc);
		return err ? err : tracer_exec(t, tsc);
	}
	return 1;
}

enum step_result { STEP_RAN, STEP_NONE, STEP_GONE, STEP_STOP };

/* A signal is about to be delivered before the instruction @insn. */
static int tracer_signal(struct tracer *t, const struct jifl_insn *insn,
			 const struct user_regs_struct *regs, int sig,
			 uint64_t tsc)
{
	int err = 0;

	/* A system call that was interrupted did run. */
	if (insn->kind == JIFL_INSN_FAR && (long)regs->orig_rax != -1 &&
	    regs->rip != insn->ip)
		err = tracer_record(t, insn, regs->rip, regs->orig_rax, tsc);
	if (!err)
		err = jifl_recorder_leave(t->r, regs->rip, tsc);
	t->ip = regs->rip;
	t->sig = sig;
	t->restart_ip = 0;
	if ((long)regs->orig_rax != -1 && restart_code(regs->rax))
		t->restart_ip = regs->rip - SYSCALL_INSN_LEN;
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

/* Step the instruction at the current IP once, and record what happened. */
static int tracer_step(struct tracer *t, enum step_result *what)
{
	struct user_regs_struct regs;
	struct jifl_insn insn;
	bool injected = t->sig != 0;
	uint64_t tsc, next;
	siginfo_t si;
	int st, err;

	tracer_fetch(t, t->ip, &insn);
again:
	if (ptrace(PTRACE_SINGLESTEP, t->pid, NULL, (void *)(long)t->sig))
		return -jifl_err_io;
	t->sig = 0;
	if (waitpid(t->pid, &st, __WALL) != t->pid)
		return -jifl_err_io;
	tsc = jifl_tsc_read();
	t->res->steps++;

	if (WIFEXITED(st) || WIFSIGNALED(st)) {
		t->res->exit_status = st;
		*what = STEP_GONE;
		/* exit_group() ran; a fatal signal stopped the instruction. */
		if (WIFEXITED(st) && insn.kind == JIFL_INSN_FAR)
			return tracer_record(t, &insn, 0, -1, tsc);
		return 0;
	}
	if (st >> 16) {
		err = tracer_event(t, st >> 16, &insn, tsc);
		if (err == 1)
			goto again;
		*what = t->res->error ? STEP_STOP : STEP_NONE;
		return err;
	}

	if (WSTOPSIG(st) == SIGTRAP && !step_needs_regs(&insn, injected)) {
		*what = STEP_RAN;
		next = insn.kind == JIFL_INSN_DIRECT ? insn.target : insn.ip + insn.len;
		return tracer_record(t, &insn, next, -1, tsc);
	}
	if (ptrace(PTRACE_GETREGS, t->pid, NULL, &regs))
		return -jifl_err_io;
	if (WSTOPSIG(st) != SIGTRAP) {
		*what = STEP_NONE;
		tracer_faulted(t);
		return tracer_signal(t, &insn, &regs, WSTOPSIG(st), tsc);
	}
	if (injected) {
		if (ptrace(PTRACE_GETSIGINFO, t->pid, NULL, &si))
			return -jifl_err_io;
		if (si.si_code == SIGTRAP) {
			/* Stopped at a handler's first instruction. */
			*what = STEP_NONE;
			t->restart_ip = 0;
			t->ip = regs.rip;
			return 0;
		}
		/* No handler: the kernel may have restarted the system call. */
		if (t->restart_ip && regs.rip == t->restart_ip + SYSCALL_INSN_LEN)
			tracer_fetch(t, t->restart_ip, &insn);
		t->restart_ip = 0;
	}
	if (insn.rep && regs.rip == insn.ip)
		goto again;
	*what = STEP_RAN;
	return tracer_record(t, &insn, regs.rip, regs.orig_rax, tsc);
}

static int tracer_get_ip(struct tracer *t)
{
	struct user_regs_struct regs;

	if (ptrace(PTRACE_GETREGS, t->pid, NULL, &regs))
		return -jifl_err_io;
	t->ip = regs.rip;
	return 0;
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

static int tracer_loop(struct tracer *t)
{
	enum step_result what;
	int err;

	do {
		err = tracer_step(t, &what);
	} while (!err && what != STEP_GONE && what != STEP_STOP);
	return err;
}

int jifl_tracer_run(struct jifl_recorder *r, char *const argv[], bool pin,
		    struct jifl_tracer_result *res)
{
	struct tracer t = { .r = r, .res = res, .fault_fd = -1 };
	double t0 = now_seconds();
	int err, st;

	memset(res, 0, sizeof(*res));
	if (pin)
		tracer_pin();
	t.pid = tracer_spawn(argv, &res->exec_errno);
	if (t.pid < 0) {
		res->error = JIFL_TRACER_SYSTEM;
		return -1;
	}
	if (!t.pid) {
		res->error = JIFL_TRACER_EXEC;
		return -1;
	}
	if (ptrace(PTRACE_SETOPTIONS, t.pid, NULL,
		   (void *)(long)(PTRACE_O_TRACECLONE | PTRACE_O_TRACEEXEC |
				  PTRACE_O_EXITKILL))) {
		res->error = JIFL_TRACER_SYSTEM;
		kill(t.pid, SIGKILL);
		return -1;
	}
	t.fault_fd = fault_counter_open(t.pid);
	if (t.fault_fd < 0)
		res->faults_missed = ~0ULL;
	tracer_faulted(&t);

	err = jifl_insn_cache_alloc(&t.cache, t.pid);
	if (!err)
		err = tracer_get_ip(&t);
	if (!err)
		err = jifl_recorder_start(r, t.pid, jifl_tsc_read());
	if (!err)
		err = tracer_loop(&t);
	if (err && !res->error) {
		res->error = err == -jifl_err_io ? JIFL_TRACER_SYSTEM : JIFL_TRACER_RECORD;
		res->record_err = err;
	}
	if (res->error) {
		/* Threads it made are our tracees too: reap them all. */
		kill(t.pid, SIGKILL);
		while (waitpid(-1, &st, __WALL) > 0 || errno == EINTR)
			;
	}
	res->seconds = now_seconds() - t0;

	/* Keep the trace up to the end, whatever the end was. */
	err = jifl_recorder_finish(r, jifl_tsc_read());
	if (err && !res->error) {
		res->error = JIFL_TRACER_RECORD;
		res->record_err = err;
	}
	jifl_insn_cache_free(t.cache);
	if (t.fault_fd >= 0)
		close(t.fault_fd);
	return res->error ? -1 : 0;
}
