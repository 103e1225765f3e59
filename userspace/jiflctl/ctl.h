/* SPDX-License-Identifier: GPL-2.0 */
/* jiflctl's commands: each drives /proc/jifl and reports like the tool. */
#ifndef JIFLCTL_CTL_H
#define JIFLCTL_CTL_H

#include <sys/types.h>

#include "jifl/jiflproc.h"

#define PROG		"jiflctl"
#define EXIT_USAGE	2

struct ctl_opts {
	struct jifl_sysset syscalls;
	pid_t pid;		/* 0: every process */
	int tree;		/* and the processes it creates; run: -1 unset */
	int json;
	int quiet;
	int reset;
	unsigned int top;	/* bbcount, profile: rows at most; 0: all */
	int raw;		/* cover: addresses, not functions */
	unsigned long size;	/* cover: buffer words */
	char *const *argv;	/* run: the command; tool: the name */
};

/* Print "jiflctl: @what: reason" for library error @err (a hint for ENOENT, EPERM). */
void ctl_error(const char *what, int err);

/* The same for file @name of /proc/jifl, named by its path. */
void ctl_file_error(const char *name, int err);

/* The active tool's listing, /proc/jifl/tool, into *@text (free() it); 0, or -1 after saying why. */
int ctl_read_tool(char **text);

/* Read both files, printing what failed. Returns 0 or the library's error. */
int ctl_read(struct jifl_proc_control *c, struct jifl_proc_stats *s);

/*
 * Set the system calls and the pid filter (with @tree, the processes
 * @pid creates too), then enable; or, with @enable 0, disable first.
 * Prints what failed.
 */
int ctl_apply(const struct jifl_sysset *set, pid_t pid, int tree, int enable);

/* The commands. They return the tool's exit status. */
int ctl_status(const struct ctl_opts *o);
int ctl_stats(const struct ctl_opts *o);
int ctl_enable(const struct ctl_opts *o);
int ctl_disable(const struct ctl_opts *o);
int ctl_flush(const struct ctl_opts *o);
int ctl_tool(const struct ctl_opts *o);
int ctl_bbcount(const struct ctl_opts *o);
int ctl_probes(const struct ctl_opts *o);
int ctl_profile(const struct ctl_opts *o);

/* Run o->argv with JIFL enabled for it alone (run.c). */
int ctl_run(const struct ctl_opts *o);

/*
 * Run o->argv with JIFL enabled (o->syscalls) for its process alone, or
 * with @tree the processes it creates too; the child calls @setup(@arg)
 * just before execvp() (non-zero: exit 126). Then the settings as they
 * were. Returns 0 with the child's pid and wait status, or -1 after
 * saying why; @what names the command in messages.
 */
int run_command(const struct ctl_opts *o, const char *what, int tree,
		int (*setup)(void *), void *arg, pid_t *pid, int *status);

/* A wait status as a shell's exit code. */
int run_exit_code(int status);

/* Unless o->quiet, "jiflctl: COMMAND (pid N) exit status S" (or signal) on stderr. */
void run_report_exit(const struct ctl_opts *o, pid_t pid, int status);

/*
 * Make @name the active tool, the settings before it into @saved; 0, or
 * -1 after saying why (with a hint at its module, jifl_@name).
 */
int run_tool_switch(const char *name, struct jifl_proc_control *saved);

/* Set back the tool of @saved if run_tool_switch() replaced it; 0, or -1 after saying so. */
int run_tool_restore(const char *name, const struct jifl_proc_control *saved);

/* Run o->argv with the cover tool collecting for it (cover.c). */
int ctl_cover(const struct ctl_opts *o);

#endif /* JIFLCTL_CTL_H */
