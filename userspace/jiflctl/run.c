// SPDX-License-Identifier: GPL-2.0
/*
 * jiflctl run: the child waits on a pipe until the pid filter names it,
 * so that JIFL covers its whole life from execve on, and nothing else.
 * jiflctl cover runs its command the same way.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ctl.h"
#include "common/errcode.h"
#include "report.h"

static void __attribute__((noreturn)) child(int go[2], char *const argv[],
					    int (*setup)(void *), void *arg)
{
	char c;
	int e;

	close(go[1]);
	/* EOF: the parent could not set JIFL up and says why */
	if (read(go[0], &c, 1) != 1)
		_exit(127);
	if (setup && setup(arg))
		_exit(126);
	execvp(argv[0], argv);
	e = errno;
	jifl_perror(PROG, jifl_err_errno(e), "run: %s", argv[0]);
	_exit(e == ENOENT ? 127 : 126);
}

static int wait_child(pid_t pid, int *status)
{
	pid_t r;

	do
		r = waitpid(pid, status, 0);
	while (r < 0 && errno == EINTR);
	return r == pid ? 0 : -1;
}

#define NO_PIDFD	(-2)

/*
 * A handle on the selected process, taken when the settings are saved:
 * its pid may name another process by the time they are restored.
 * -1 when none is selected or it has already gone; NO_PIDFD on a
 * kernel without pidfd_open() (before 5.3).
 */
static int selected_open(const struct jifl_proc_control *saved)
{
	int fd;

	if (saved->pid <= 0)
		return -1;
	fd = syscall(SYS_pidfd_open, saved->pid, 0);
	return fd < 0 && errno == ENOSYS ? NO_PIDFD : fd;
}

/* Does the selected process still run (or wait to be reaped)? */
static int selected_alive(const struct jifl_proc_control *saved, int pidfd)
{
	if (pidfd == NO_PIDFD)
		return !kill(saved->pid, 0);
	return pidfd >= 0 && !syscall(SYS_pidfd_send_signal, pidfd, 0, NULL, 0);
}

/*
 * Back to the settings before the run, JIFL off unless it was on. A
 * tree is selected anew from its root, if that still runs: what the
 * root created before is not selected any more. A selected process
 * that has exited is not selected again: its pid may be another's now,
 * so JIFL is left off.
 */
static int restore(const struct jifl_proc_control *saved, int pidfd)
{
	int alive = selected_alive(saved, pidfd), enable = saved->enabled;

	if (saved->pid > 0 && !alive && enable) {
		jifl_warn(PROG, "run: process %d, selected before, has exited; JIFL is left "
			  "disabled", (int)saved->pid);
		enable = 0;
	} else if (saved->tree > 0 && enable) {
		jifl_warn(PROG, "run: process %d is selected again; the processes it "
			  "created before are not", (int)saved->pid);
	}
	if (pidfd >= 0)
		close(pidfd);
	return ctl_apply(&saved->syscalls, saved->pid, saved->tree > 0 && alive, enable);
}

void run_report_exit(const struct ctl_opts *o, pid_t pid, int status)
{
	if (!o->quiet)
		fprintf(stderr, PROG ": %s (pid %d) %s %d\n", o->argv[0], (int)pid,
			WIFEXITED(status) ? "exit status" : "signal",
			WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
}

int run_tool_switch(const char *name, struct jifl_proc_control *saved)
{
	char what[64];
	int err = jifl_proc_read_control(saved);

	if (err) {
		ctl_file_error(JIFL_PROC_CONTROL, err);
		return -1;
	}
	if (!strcmp(saved->tool, name))
		return 0;
	err = jifl_proc_set_tool(name);
	if (err) {
		snprintf(what, sizeof(what), "tool %s", name);
		ctl_error(what, err);
		fprintf(stderr, PROG ": %s: is the module loaded? (modprobe jifl_%s)\n", name, name);
		return -1;
	}
	return 0;
}

int run_tool_restore(const char *name, const struct jifl_proc_control *saved)
{
	if (!strcmp(saved->tool, name) || !saved->tool[0] || !jifl_proc_set_tool(saved->tool))
		return 0;
	fprintf(stderr, PROG ": %s: could not set tool %s back\n", name, saved->tool);
	return -1;
}

int run_exit_code(int status)
{
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

int run_command(const struct ctl_opts *o, const char *what, int tree,
		int (*setup)(void *), void *arg, pid_t *pidp, int *status)
{
	char *const *argv = o->argv;
	struct jifl_proc_control saved;
	struct sigaction ign = { .sa_handler = SIG_IGN }, old_int, old_quit;
	int go[2], err, pidfd;
	pid_t pid;

	err = jifl_proc_read_control(&saved);
	if (err) {
		ctl_file_error(JIFL_PROC_CONTROL, err);
		return -1;
	}
	if (pipe2(go, O_CLOEXEC)) {
		jifl_perror(PROG, jifl_err_errno(errno), "%s: pipe", what);
		return -1;
	}
	pidfd = selected_open(&saved);
	pid = fork();
	if (pid < 0) {
		jifl_perror(PROG, jifl_err_errno(errno), "%s: fork", what);
		close(go[0]);
		close(go[1]);
		if (pidfd >= 0)
			close(pidfd);
		return -1;
	}
	if (pid == 0)
		child(go, argv, setup, arg);
	close(go[0]);
	*pidp = pid;
	/* like a shell: ^C is for the command; we must live to disable JIFL */
	sigaction(SIGINT, &ign, &old_int);
	sigaction(SIGQUIT, &ign, &old_quit);
	if (tree && saved.tree < 0 && !o->quiet)
		fprintf(stderr, PROG ": %s: this kernel selects no children (its control file "
			"has no 'tree'): %s's process alone\n", what, argv[0]);
	err = ctl_apply(&o->syscalls, pid, tree && saved.tree >= 0, 1);
	if (!err && write(go[1], "", 1) != 1)
		err = -1;
	close(go[1]);
	if (wait_child(pid, status)) {
		jifl_perror(PROG, jifl_err_errno(errno), "%s: waitpid", what);
		err = -1;
	}
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGQUIT, &old_quit, NULL);
	if (restore(&saved, pidfd) || err)
		return -1;
	return 0;
}

int ctl_run(const struct ctl_opts *o)
{
	struct jifl_proc_stats before, after;
	int status, err;
	pid_t pid;

	/* run_command() reads and restores the control file */
	err = jifl_proc_read_stats(&before);
	if (err) {
		ctl_file_error(JIFL_PROC_STATS, err);
		return 1;
	}
	if (run_command(o, "run", o->tree, NULL, NULL, &pid, &status))
		return 1;
	if (!o->quiet) {
		err = jifl_proc_read_stats(&after);
		if (err) {
			ctl_file_error(JIFL_PROC_STATS, err);
			return 1;
		}
		fprintf(stderr, PROG ": %s (pid %d) %s %d; JIFL counters of the run:\n",
			o->argv[0], (int)pid, WIFEXITED(status) ? "exit status" : "signal",
			WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
		report_delta(stderr, &before, &after);
	}
	return run_exit_code(status);
}
