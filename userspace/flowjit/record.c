// SPDX-License-Identifier: GPL-2.0
/*
 * The recording loop. The stream is opened before the command runs, so
 * no event of it is missed; the kernel's ring is global, so records are
 * kept only for the recorded process and the children it forks (FORK
 * records name them), plus every LOST record. A process leaves the set
 * with its UNTRACK record (it exited, or stopped being tracked), so that
 * a later process with its pid is not taken for it. The recorder is a
 * child subreaper: processes that outlive the command become its
 * children, and the recording ends when the last of them has exited.
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <inttypes.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <linux/prctl.h>

#include "common/array.h"
#include "common/errcode.h"
#include "flowjit/fjproc.h"
#include "flowjit/fjwriter.h"
#include "record.h"
#include "perf/tsc_conv.h"

#define PROG "flowjit"

struct recording {
	const struct fj_record_opts *o;
	struct jifl_fjwriter *w;
	struct jifl_fjproc *stream;
	pid_t *pids;		/* the recorded process and its descendants */
	size_t npids, maxpids;
	uint64_t processes;	/* how many were ever recorded */
	uint64_t snapshots;
	uint64_t lost;
	int err;		/* a failure while recording */
};

static volatile sig_atomic_t stop_requested;

static void on_stop(int sig)
{
	(void)sig;
	stop_requested = 1;
}

static int has_pid(const struct recording *r, pid_t pid)
{
	size_t i;

	for (i = 0; i < r->npids; i++)
		if (r->pids[i] == pid)
			return 1;
	return 0;
}

static int add_pid(struct recording *r, pid_t pid)
{
	if (has_pid(r, pid))
		return 0;
	if (jifl_array_room(r->pids, r->npids, r->maxpids))
		return -jifl_err_nomem;
	r->pids[r->npids++] = pid;
	r->processes++;
	return 0;
}

static void del_pid(struct recording *r, pid_t pid)
{
	size_t i;

	for (i = 0; i < r->npids; i++)
		if (r->pids[i] == pid) {
			r->pids[i] = r->pids[--r->npids];
			return;
		}
}

/* Is @ev about a process we record? FORK adds the child. */
static int keep(struct recording *r, const struct flowjit_event *ev)
{
	if (ev->type == FLOWJIT_EV_LOST)
		return 1;
	if (ev->type == FLOWJIT_EV_FORK && has_pid(r, (pid_t)ev->aux)) {
		r->err = r->err ? r->err : add_pid(r, ev->pid);
		return 1;
	}
	return has_pid(r, ev->pid);
}

static void save(struct recording *r, const struct flowjit_event *ev)
{
	int ret;

	if (!keep(r, ev))
		return;
	if (ev->type == FLOWJIT_EV_LOST) {
		r->lost += ev->aux;
		jifl_warn(PROG, "the kernel dropped %" PRIu64 " events (ring full): this "
			  "recording is incomplete; use a larger --bufsize", (uint64_t)ev->aux);
	}
	r->snapshots += !!(ev->flags & FLOWJIT_EVF_PAYLOAD);
	/* its last record: the pid may be someone else's next */
	if (ev->type == FLOWJIT_EV_UNTRACK)
		del_pid(r, ev->pid);
	ret = jifl_fjwriter_add(r->w, ev);
	if (ret && !r->err) {
		jifl_perror(PROG, ret, "--output: cannot write '%s'", r->o->output);
		r->err = ret;
	}
}

/* Read the stream until it is empty; @discard: before we began. */
static int drain(struct recording *r, int discard)
{
	const struct flowjit_event *ev;
	int ret;

	while ((ret = jifl_fjproc_read(r->stream)) > 0)
		while ((ev = jifl_fjproc_next(r->stream)))
			if (!discard)
				save(r, ev);
	if (ret < 0)
		jifl_perror(PROG, ret, "cannot read '%s'", JIFL_FJPROC_STREAM);
	return ret;
}

static uint64_t monotonic_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static uint64_t tsc_hz(void)
{
	struct jifl_tsc_conv tc;

	if (jifl_tsc_conv_init(&tc) || !tc.time_mult)
		return 0;
	/* ns = ticks * mult >> shift */
	return (uint64_t)((1000000000.0 * (double)(1ull << tc.time_shift)) / tc.time_mult);
}

/* Arguments each ended by '\0', as in /proc/PID/cmdline. */
static char *join_argv(char **argv, size_t *len)
{
	size_t n = 0, i;
	char *s, *p;

	for (i = 0; argv[i]; i++)
		n += strlen(argv[i]) + 1;
	s = p = malloc(n ? n : 1);
	if (!s)
		return NULL;
	for (i = 0; argv[i]; i++)
		p = stpcpy(p, argv[i]) + 1;
	*len = n;
	return s;
}

static char *read_cmdline(pid_t pid, size_t *len)
{
	char path[64], *buf = malloc(4096);
	FILE *f;

	if (!buf)
		return NULL;
	snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)pid);
	f = fopen(path, "re");
	*len = f ? fread(buf, 1, 4096, f) : 0;
	if (f)
		fclose(f);
	/* A cut-off last argument still ends with '\0'. */
	if (*len && buf[*len - 1])
		buf[*len - 1] = '\0';
	return buf;
}

/*
 * Everything up to the first event: the data file, the ring size, the
 * stream (emptied of what came before us). Returns 0 or prints why not.
 */
static int setup(struct recording *r, pid_t pid, const char *cmdline,
		 size_t cmdline_len)
{
	const struct fj_record_opts *o = r->o;
	struct jifl_fj_info info = {
		.tsc_hz = tsc_hz(), .start_ns = monotonic_ns(), .pid = pid,
		.flags = FLOWJIT_F_INHERIT | o->flags | (o->pid ? JIFL_FJ_F_ATTACHED : 0),
		.cmdline = cmdline, .cmdline_len = cmdline_len,
	};
	char cmd[64];
	int fd, ret, e;

	/*
	 * Snapshots are the recorded process' memory: only the recorder
	 * reads them (0600), and a file or link planted where a recorder
	 * run as root writes is neither followed nor overwritten unless
	 * asked (--force, which still follows no link).
	 */
	fd = open(o->output, O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW |
			     (o->force ? O_TRUNC : O_EXCL), 0600);
	if (fd < 0) {
		e = errno;
		ret = jifl_err_errno(e);
		jifl_perror_hint(PROG, ret, e == EEXIST ? "--force replaces it" :
				 e == ELOOP ? "a symbolic link, not followed" : NULL,
				 "--output: cannot create '%s'", o->output);
		return ret;
	}
	ret = jifl_fjwriter_fdopen(&r->w, fd, &info);
	if (ret) {
		jifl_perror(PROG, ret, "--output: cannot write '%s'", o->output);
		return ret;
	}
	if (o->bufsize) {
		snprintf(cmd, sizeof(cmd), "bufsize %llu", o->bufsize);
		ret = jifl_fjproc_control(cmd);
		if (ret) {
			jifl_perror(PROG, ret, "--bufsize: cannot set the kernel ring to %llu bytes",
				    o->bufsize);
			return ret;
		}
	}
	ret = jifl_fjproc_open(&r->stream);
	if (ret) {
		e = jifl_err_to_errno(ret);
		jifl_perror_hint(PROG, ret, e == EBUSY ? "another consumer is reading it" :
				 e == ENOENT ? "a kernel without FlowJIT" : NULL,
				 "cannot open '%s'", JIFL_FJPROC_STREAM);
		return ret;
	}
	ret = drain(r, 1);
	if (ret)
		return ret;
	return add_pid(r, pid);
}

/* Close the file; returns 0 or prints why it failed. */
static int finish(struct recording *r)
{
	uint64_t count = jifl_fjwriter_count(r->w);
	int ret = jifl_fjwriter_close(r->w);

	r->w = NULL;
	if (ret) {
		jifl_perror(PROG, ret, "--output: cannot write '%s'", r->o->output);
		return ret;
	}
	if (r->lost)
		jifl_warn(PROG, "%" PRIu64 " events were dropped in all; '%s' is incomplete",
			  r->lost, r->o->output);
	if (!r->o->quiet)
		fprintf(stderr, PROG ": wrote %" PRIu64 " records (%" PRIu64
			" code snapshots) of %" PRIu64 " process%s to '%s'\n",
			count, r->snapshots, r->processes,
			r->processes == 1 ? "" : "es", r->o->output);
	return r->err;
}

static void cleanup(struct recording *r)
{
	if (r->w)
		jifl_fjwriter_close(r->w);
	jifl_fjproc_close(r->stream);
	free(r->pids);
}

/* Without pidfds (before Linux 5.3): has @pid (our child if @own) ended? */
static int gone(pid_t pid, int own)
{
	siginfo_t si = { .si_pid = 0 };

	if (own)
		return !waitid(P_PID, pid, &si, WEXITED | WNOHANG | WNOWAIT) &&
		       si.si_pid == pid;
	return kill(pid, 0) && errno == ESRCH;
}

static int pidfd_open(pid_t pid)
{
	return syscall(SYS_pidfd_open, pid, 0);
}

/*
 * Drain the stream until @pid has exited (or, when @until_signal, until
 * SIGINT/SIGTERM), then once more until it is empty.
 */
static int stream_until_exit(struct recording *r, pid_t pid, int until_signal)
{
	struct pollfd pfd[2] = {
		{ .fd = jifl_fjproc_fd(r->stream), .events = POLLIN },
		{ .fd = pidfd_open(pid), .events = POLLIN },
	};
	sigset_t waitmask;
	struct timespec tick = { 0, 100 * 1000 * 1000 };
	int ret = 0;

	sigprocmask(SIG_SETMASK, NULL, &waitmask);
	sigdelset(&waitmask, SIGINT);
	sigdelset(&waitmask, SIGTERM);
	while (!(until_signal && stop_requested)) {
		/* Without pidfds (before 5.3), look every 100 ms. */
		if (ppoll(pfd, 2, pfd[1].fd < 0 ? &tick : NULL, &waitmask) < 0 &&
		    errno != EINTR)
			break;
		ret = drain(r, 0);
		if (ret)
			break;
		if (pfd[1].fd >= 0 ? pfd[1].revents != 0 : gone(pid, !until_signal))
			break;
	}
	if (pfd[1].fd >= 0)
		close(pfd[1].fd);
	return ret ? ret : drain(r, 0);
}

/*
 * The command has exited; the processes it created that outlive it are
 * our children now (a child subreaper). Drain the stream until the last
 * of them has exited, or until SIGINT/SIGTERM, then once more.
 */
static int stream_until_orphans_exit(struct recording *r)
{
	struct pollfd pfd = { .fd = jifl_fjproc_fd(r->stream), .events = POLLIN };
	struct timespec tick = { 0, 100 * 1000 * 1000 };
	sigset_t waitmask;
	int ret = 0;
	pid_t p;

	sigprocmask(SIG_SETMASK, NULL, &waitmask);
	sigdelset(&waitmask, SIGINT);
	sigdelset(&waitmask, SIGTERM);
	while (!stop_requested) {
		while ((p = waitpid(-1, NULL, WNOHANG)) > 0)
			;
		if (p < 0 && errno == ECHILD)
			break;
		if (ppoll(&pfd, 1, &tick, &waitmask) < 0 && errno != EINTR)
			break;
		ret = drain(r, 0);
		if (ret)
			break;
	}
	return ret ? ret : drain(r, 0);
}

static void catch_stop_signals(sigset_t *old)
{
	struct sigaction sa;
	sigset_t block;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	/* Delivered only inside ppoll(): no wake-up is lost. */
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigprocmask(SIG_BLOCK, &block, old);
}

/* Who the command runs as (--user). */
struct identity {
	const char *name;	/* for initgroups(), or NULL: no groups */
	uid_t uid;
	gid_t gid;
};

/* Where the child failed, and errno, as it tells the recorder. */
enum child_stage { CHILD_USER, CHILD_PRCTL, CHILD_EXEC };

struct child_error {
	int stage, err;
};

/* --user: a name, or a uid (with its passwd entry's group, if it has one). */
static int resolve_user(const char *user, struct identity *id)
{
	struct passwd *pw = getpwnam(user);
	unsigned long v;
	char *end;

	if (!pw) {
		errno = 0;
		v = strtoul(user, &end, 10);
		if (errno || end == user || *end || v > 0x7fffffff) {
			fprintf(stderr, PROG ": --user: no such user: '%s'\n", user);
			return -1;
		}
		pw = getpwuid(v);
		if (!pw) {
			*id = (struct identity){ NULL, v, v };
			return 0;
		}
	}
	*id = (struct identity){ pw->pw_name, pw->pw_uid, pw->pw_gid };
	return 0;
}

static int become(const struct identity *id)
{
	if (id->name ? initgroups(id->name, id->gid) : setgroups(0, NULL))
		return -1;
	return setgid(id->gid) || setuid(id->uid) ? -1 : 0;
}

/* The child: wait for the go, become @id, enable tracking, exec. */
static void child(const struct fj_record_opts *o, const struct identity *id, int go,
		  int errp, const sigset_t *mask)
{
	struct child_error e;
	char c;

	sigprocmask(SIG_SETMASK, mask, NULL);
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	if (read(go, &c, 1) != 1)
		_exit(FJ_EXIT_FAIL);	/* the recorder gave up */
	if (id && become(id)) {
		e = (struct child_error){ CHILD_USER, errno };
	} else if (prctl(PR_FLOWJIT, FLOWJIT_OP_ENABLE, FLOWJIT_F_INHERIT | o->flags, 0, 0)) {
		e = (struct child_error){ CHILD_PRCTL, errno };
	} else {
		execvp(o->argv[0], o->argv);
		e = (struct child_error){ CHILD_EXEC, errno };
	}
	if (write(errp, &e, sizeof(e)) < 0)
		_exit(FJ_EXIT_FAIL);
	_exit(e.stage != CHILD_EXEC ? FJ_EXIT_FAIL :
	      e.err == ENOENT ? FJ_EXIT_NOENT : FJ_EXIT_NOEXEC);
}

static int exit_status(int status)
{
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}

/* Tell why the child did not get to run the command, if it did not. */
static int child_started(const struct fj_record_opts *o, int errp)
{
	struct child_error e;
	ssize_t n;

	do
		n = read(errp, &e, sizeof(e));
	while (n < 0 && errno == EINTR);
	if (n != sizeof(e))
		return 1;	/* exec closed the pipe */
	if (e.stage == CHILD_USER)
		jifl_perror(PROG, jifl_err_errno(e.err), "--user: cannot run as '%s'", o->user);
	else if (e.stage == CHILD_PRCTL)
		jifl_perror(PROG, jifl_err_errno(e.err), "cannot enable FlowJIT (prctl PR_FLOWJIT)");
	else
		jifl_perror(PROG, jifl_err_errno(e.err), "cannot run '%s'", o->argv[0]);
	return 0;
}

static int record_command(struct recording *r)
{
	const struct fj_record_opts *o = r->o;
	int go[2], errp[2], status, ret, started;
	struct identity id;
	sigset_t mask;
	size_t len;
	char *cmdline;
	pid_t pid;

	if (o->user && resolve_user(o->user, &id))
		return FJ_EXIT_FAIL;
	if (prctl(PR_SET_CHILD_SUBREAPER, 1)) {
		jifl_perror(PROG, jifl_err_errno(errno), "prctl PR_SET_CHILD_SUBREAPER");
		return FJ_EXIT_FAIL;
	}
	if (pipe2(go, O_CLOEXEC) || pipe2(errp, O_CLOEXEC)) {
		jifl_perror(PROG, jifl_err_errno(errno), "pipe");
		return FJ_EXIT_FAIL;
	}
	catch_stop_signals(&mask);
	pid = fork();
	if (pid < 0) {
		jifl_perror(PROG, jifl_err_errno(errno), "fork");
		return FJ_EXIT_FAIL;
	}
	if (pid == 0) {
		close(go[1]);
		close(errp[0]);
		child(o, o->user ? &id : NULL, go[0], errp[1], &mask);
	}
	close(go[0]);
	close(errp[1]);
	cmdline = join_argv(o->argv, &len);
	ret = cmdline ? setup(r, pid, cmdline, len) : -jifl_err_nomem;
	free(cmdline);
	/* The child runs the command only once the stream is ours. */
	if (!ret && write(go[1], "g", 1) != 1)
		ret = jifl_err_errno(errno);
	close(go[1]);
	started = !ret && child_started(o, errp[0]);
	close(errp[0]);
	if (started)
		ret = stream_until_exit(r, pid, 0);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (started && !ret)
		ret = stream_until_orphans_exit(r);
	/* finish() says why it failed */
	if (started && finish(r))
		return FJ_EXIT_FAIL;
	/* Without a start, the child's status says why (125, 126, 127). */
	if (ret)
		return FJ_EXIT_FAIL;
	return exit_status(status);
}

static int record_pid(struct recording *r)
{
	const struct fj_record_opts *o = r->o;
	pid_t pid = o->pid;
	char cmd[64], *cmdline;
	size_t len, i;
	int ret;

	if (kill(pid, 0) && errno == ESRCH) {
		jifl_perror(PROG, jifl_err_errno(errno), "-p: no process %d", (int)pid);
		return FJ_EXIT_FAIL;
	}
	cmdline = read_cmdline(pid, &len);
	ret = cmdline ? setup(r, pid, cmdline, len) : -jifl_err_nomem;
	free(cmdline);
	if (ret)
		return FJ_EXIT_FAIL;
	catch_stop_signals(NULL);
	snprintf(cmd, sizeof(cmd), "track %d inherit%s", (int)pid,
		 o->flags & FLOWJIT_F_ALL_EXEC ? " all-exec" : "");
	if (jifl_fjproc_control(cmd)) {
		jifl_perror(PROG, jifl_err_errno(errno), "-p: cannot track process %d", (int)pid);
		return FJ_EXIT_FAIL;
	}
	ret = stream_until_exit(r, pid, 1);
	/* Stopped by a signal: leave the processes as we found them. */
	for (i = 0; i < r->npids; i++) {
		snprintf(cmd, sizeof(cmd), "untrack %d", (int)r->pids[i]);
		jifl_fjproc_control(cmd);
	}
	if (!ret)
		ret = drain(r, 0);
	return finish(r) || ret ? FJ_EXIT_FAIL : 0;
}

int fj_record(const struct fj_record_opts *o)
{
	struct recording r = { .o = o };
	int status;

	status = o->pid ? record_pid(&r) : record_command(&r);
	cleanup(&r);
	return status;
}
