/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The JIFL code cache as user space sees it: /proc/jifl/control (its
 * settings; commands written by root), /proc/jifl/stats (counters) and
 * /proc/jifl/tool (the active tool's output and commands, root only),
 * /proc/jifl/profile (lookups and exits by target, root only).
 * Errors are system errors (errcode.h), their errno in the code: ENOENT
 * when the kernel has no CONFIG_JIFL, EPERM for a command without
 * CAP_SYS_ADMIN, and the kernel's answer to a bad command (EINVAL,
 * ERANGE).
 *
 * The directory is $JIFL_PROC_DIR where that is set (tests give files
 * of their own; set-user-ID programs ignore it), else /proc/jifl.
 */
#ifndef JIFL_JIFLPROC_H
#define JIFL_JIFLPROC_H

#include <sys/types.h>

#include "sysset.h"

/* The files, by name in the directory. */
#define JIFL_PROC_CONTROL	"control"
#define JIFL_PROC_STATS		"stats"
#define JIFL_PROC_TOOL		"tool"
#define JIFL_PROC_PROFILE	"profile"

/* Longest command the kernel takes, its end of line not counted. */
#define JIFL_PROC_CMD_MAX	255

struct jifl_proc_control {
	int enabled;
	pid_t pid;			/* 0: every process */
	int tree;			/* and the processes it creates;
					 * -1: the kernel cannot ("tree" absent) */
	struct jifl_sysset syscalls;
	char list[1024];		/* syscalls as the kernel shows them */
	char tool[32];			/* instrumentation tool; "" if not shown */
};

#define JIFL_PROC_STATS_MAX	64

struct jifl_proc_stats {
	int n;
	struct {
		char key[32];
		unsigned long long value;
	} item[JIFL_PROC_STATS_MAX];	/* in the kernel's order */
};

/*
 * The path of file @name ("control") in @buf of @size bytes, for messages.
 * Returns 0, or the system error ENAMETOOLONG when it does not fit.
 */
int jifl_proc_path(const char *name, char *buf, size_t size);

/*
 * Read file @name whole into *@text, NUL-terminated, of any length (the
 * caller frees it). Returns 0, a system error or -jifl_err_nomem.
 */
int jifl_proc_read(const char *name, char **text);

/*
 * Read the settings. Returns 0, a system error, or -jifl_err_format when
 * the file does not hold the three expected lines.
 */
int jifl_proc_read_control(struct jifl_proc_control *c);

/*
 * Read the counters, whichever the kernel has. Returns 0, a system error,
 * or -jifl_err_format for a line that is not "key: number" (a key of
 * [a-z0-9_] only).
 */
int jifl_proc_read_stats(struct jifl_proc_stats *s);

/* Counter @key of @s, or -1 when @s has none of that name. */
long long jifl_proc_stat(const struct jifl_proc_stats *s, const char *key);

/*
 * Write one command ("enable", "pid 42", ...) to the control file.
 * Returns 0 or a system error (E2BIG: longer than JIFL_PROC_CMD_MAX).
 */
int jifl_proc_command(const char *cmd);

/* The commands, one call each. */
int jifl_proc_enable(int on);
/* Only process @pid (0: all); with @tree, also those it creates from now on. */
int jifl_proc_set_pid(pid_t pid, int tree);
int jifl_proc_set_syscalls(const struct jifl_sysset *set);
int jifl_proc_flush(void);

/* Instrument every block with the kernel's tool @name (flushes). */
int jifl_proc_set_tool(const char *name);

/*
 * Write command @cmd ("reset") to the active tool. Returns 0 or
 * a system error (EINVAL: the tool takes no such command).
 */
int jifl_proc_tool_command(const char *cmd);

/*
 * Write command @cmd ("on", "off", "reset") to the lookup profile.
 * Returns 0 or a system error (ENOENT: a kernel without the profile).
 */
int jifl_proc_profile_command(const char *cmd);

#endif /* JIFL_JIFLPROC_H */
