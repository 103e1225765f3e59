// SPDX-License-Identifier: GPL-2.0
/*
 * Per CPU (jifl_tracer_run() with virtual CPUs), a thread steps only
 * while it holds one of them (sched.h); the others wait, stopped. A
 * thread whose system call sleeps (a lock, a pipe, a sleep) while
 * others wait gives its CPU up, as it would in the kernel, or a program
 * whose threads wait on each other could never finish.
 */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "tracer_internal.h"

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
	return err || !th ? err : jifl_tracer_thread_go(th);
}

/* Per CPU: waiting threads onto free CPUs. */
int jifl_tracer_dispatch(struct tracer *t)
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
			err = jifl_tracer_thread_go(th);
	}
	return err;
}

/*
 * Per CPU: @th ran its time slice, others wait. An interrupt takes it
 * out of user space before th->ip, and it waits again, last.
 */
int jifl_tracer_preempt(struct tracer *t, struct tthread *th)
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
int jifl_tracer_unblock(struct tracer *t)
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
