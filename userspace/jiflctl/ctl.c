// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctl.h"
#include "common/errcode.h"
#include "jifl/jiflproc.h"
#include "report.h"

/* The first line of the probe tool's listing, /proc/jifl/tool. */
#define PROBES_HEADER	"# hits address symbol handler\n"

void ctl_error(const char *what, int err)
{
	int e = jifl_err_to_errno(err);

	jifl_perror_hint(PROG, err, e == ENOENT ? "is the kernel built with CONFIG_JIFL?" :
			 e == EPERM || e == EACCES ? "needs root" :
			 e == E2BIG ? "longer than the kernel takes: use ranges" : NULL,
			 "%s", what);
}

void ctl_file_error(const char *name, int err)
{
	char path[PATH_MAX];

	/* a path too long for PATH_MAX is shown cut */
	jifl_proc_path(name, path, sizeof(path));
	ctl_error(path, err);
}

int ctl_read_tool(char **text)
{
	int err = jifl_proc_read(JIFL_PROC_TOOL, text);

	if (err)
		ctl_file_error(JIFL_PROC_TOOL, err);
	return err ? -1 : 0;
}

int ctl_read(struct jifl_proc_control *c, struct jifl_proc_stats *s)
{
	int err = jifl_proc_read_control(c);

	if (err) {
		ctl_file_error(JIFL_PROC_CONTROL, err);
		return err;
	}
	err = jifl_proc_read_stats(s);
	if (err)
		ctl_file_error(JIFL_PROC_STATS, err);
	return err;
}

int ctl_status(const struct ctl_opts *o __attribute__((unused)))
{
	struct jifl_proc_control c;
	struct jifl_proc_stats s;

	if (ctl_read(&c, &s))
		return 1;
	report_status(stdout, &c, &s);
	return 0;
}

int ctl_stats(const struct ctl_opts *o)
{
	struct jifl_proc_stats s;
	int err = jifl_proc_read_stats(&s);

	if (err) {
		ctl_file_error(JIFL_PROC_STATS, err);
		return 1;
	}
	report_stats(stdout, &s, o->json);
	return 0;
}

/* Choose the system calls (the kernel checks its own limit: ERANGE). */
static int set_syscalls(const struct jifl_sysset *set)
{
	char list[JIFL_PROC_CMD_MAX + 1], what[JIFL_PROC_CMD_MAX + 32];
	int err = jifl_proc_set_syscalls(set);

	if (err) {
		if (jifl_sysset_format(set, list, sizeof(list)) < 0)
			strcpy(list, "...");
		snprintf(what, sizeof(what), "syscalls %s", list);
		ctl_error(what, err);
	}
	return err;
}

int ctl_apply(const struct jifl_sysset *set, pid_t pid, int tree, int enable)
{
	int err;

	if (!enable) {
		err = jifl_proc_enable(0);
		if (err) {
			ctl_error("disable", err);
			return err;
		}
	}
	err = set_syscalls(set);
	if (err)
		return err;
	err = jifl_proc_set_pid(pid, tree);
	if (err) {
		ctl_error(tree ? "tree" : "pid", err);
		return err;
	}
	if (enable) {
		err = jifl_proc_enable(1);
		if (err)
			ctl_error("enable", err);
	}
	return err;
}

int ctl_enable(const struct ctl_opts *o)
{
	if (o->pid && kill(o->pid, 0) && errno == ESRCH) {
		fprintf(stderr, PROG ": --pid: no process %d\n", (int)o->pid);
		return 1;
	}
	return ctl_apply(&o->syscalls, o->pid, o->tree > 0, 1) ? 1 : 0;
}

int ctl_disable(const struct ctl_opts *o __attribute__((unused)))
{
	int err = jifl_proc_enable(0);

	if (err)
		ctl_error("disable", err);
	return err ? 1 : 0;
}

int ctl_tool(const struct ctl_opts *o)
{
	char what[64];
	int err = jifl_proc_set_tool(o->argv[0]);

	if (!err)
		return 0;
	snprintf(what, sizeof(what), "tool %.40s", o->argv[0]);
	if (err == jifl_err_errno(EINVAL))
		fprintf(stderr, PROG ": %s: the kernel has no such tool\n", what);
	else
		ctl_error(what, err);
	return 1;
}

int ctl_flush(const struct ctl_opts *o __attribute__((unused)))
{
	int err = jifl_proc_flush();

	if (err)
		ctl_error("flush", err);
	return err ? 1 : 0;
}

/*
 * The probe tool's listing as the kernel writes it: a line per probe
 * (hits, address, symbol, handler), then "# probes N, not emitted M".
 */
int ctl_probes(const struct ctl_opts *o __attribute__((unused)))
{
	char *text;

	if (ctl_read_tool(&text))
		return 1;
	if (strncmp(text, PROBES_HEADER, strlen(PROBES_HEADER))) {
		fprintf(stderr, PROG ": probes: the active tool is not probe (" PROG
			" tool probe)\n");
		free(text);
		return 1;
	}
	fputs(text, stdout);
	free(text);
	return 0;
}
