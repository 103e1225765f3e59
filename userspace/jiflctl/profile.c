// SPDX-License-Identifier: GPL-2.0
/*
 * jiflctl profile: the kernel's lookup profile (/proc/jifl/profile), the
 * transfers of translated code that went through the lookup and the
 * exits to native code, by target, most first; reset it; or run a
 * command with the profile on for its system calls alone, then print it.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctl.h"
#include "common/errcode.h"
#include "jifl/jiflproc.h"

#define PROFILE_HEADER	"# profile: "

static int profile_command(const char *cmd)
{
	int err = jifl_proc_profile_command(cmd);

	if (err)
		ctl_file_error(JIFL_PROC_PROFILE, err);
	return err ? 1 : 0;
}

/* The kernel's listing: its '#' lines, then the @top first rows (0: all). */
static int profile_print(unsigned int top)
{
	char path[PATH_MAX], *text, *p, *end;
	unsigned int rows = 0;
	int err;

	err = jifl_proc_read(JIFL_PROC_PROFILE, &text);
	if (err) {
		ctl_file_error(JIFL_PROC_PROFILE, err);
		return 1;
	}
	if (strncmp(text, PROFILE_HEADER, strlen(PROFILE_HEADER))) {
		/* it was read: the path fits */
		jifl_proc_path(JIFL_PROC_PROFILE, path, sizeof(path));
		fprintf(stderr, PROG ": %s: not a JIFL lookup profile (no '%s' line)\n",
			path, PROFILE_HEADER);
		free(text);
		return 1;
	}
	for (p = text; *p; p = end) {
		end = strchr(p, '\n');
		end = end ? end + 1 : p + strlen(p);
		if (*p != '#' && top && rows++ == top)
			break;
		fwrite(p, 1, end - p, stdout);
	}
	free(text);
	if (fflush(stdout)) {
		jifl_perror(PROG, jifl_err_errno(errno), "profile: writing the listing");
		return 1;
	}
	return 0;
}

/*
 * Run o->argv (and, unless --no-children, the processes it creates)
 * with the profile on from zero for o->syscalls, turn it off, print it.
 * The counts stay until the next "on" or reset.
 */
static int profile_run(const struct ctl_opts *o)
{
	int status, ran, ret = 1;
	pid_t pid;

	if (profile_command("on"))
		return 1;
	ran = !run_command(o, "profile", o->tree, NULL, NULL, &pid, &status);
	if (profile_command("off") || !ran)
		return 1;
	if (!profile_print(o->top)) {
		run_report_exit(o, pid, status);
		ret = run_exit_code(status);
	}
	return ret;
}

int ctl_profile(const struct ctl_opts *o)
{
	if (o->argv && o->argv[0])
		return profile_run(o);
	if (o->reset)
		return profile_command("reset");
	return profile_print(o->top);
}
