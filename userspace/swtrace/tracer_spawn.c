// SPDX-License-Identifier: GPL-2.0
/* The program to trace started, stopped before its first instruction. */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/errcode.h"
#include "tracer.h"

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
