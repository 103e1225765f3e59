// SPDX-License-Identifier: GPL-2.0
/*
 * jiflctl bbcount: the bbcount tool's counts, most run first; reset
 * them; or run a command with the tool counting for its system calls
 * alone (--syscalls: a per-system-call view), then print its counts.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jifl/bbcount.h"
#include "ctl.h"
#include "common/errcode.h"
#include "jifl/jiflproc.h"
#include "report.h"

#define NOT_BBCOUNT	"the active tool is not bbcount (" PROG " tool bbcount)"

static int bbcount_reset(void)
{
	int err = jifl_proc_tool_command("reset");

	if (err == jifl_err_errno(EINVAL))
		fprintf(stderr, PROG ": bbcount: " NOT_BBCOUNT "\n");
	else if (err)
		ctl_file_error(JIFL_PROC_TOOL, err);
	return err ? 1 : 0;
}

/* Say what is wrong with the listing @bc was parsed from. */
static void bbcount_error(const struct jifl_bbcount *bc, int err)
{
	char path[PATH_MAX];

	/* it was read: the path fits */
	jifl_proc_path(JIFL_PROC_TOOL, path, sizeof(path));
	if (err != -jifl_err_format)
		jifl_perror(PROG, err, "%s", path);
	else if (!bc->bad_line)
		fprintf(stderr, PROG ": %s: line %zu: the listing ends before its '# blocks' line\n",
			path, bc->bad_nr);
	else
		fprintf(stderr, PROG ": %s: line %zu: not a bbcount line: '%.80s'\n", path,
			bc->bad_nr, bc->bad_line);
}

/* The tool's counts, the @top most run first. */
static int bbcount_print(unsigned int top)
{
	struct jifl_bbcount bc = { 0 };
	char *text;
	int err;

	if (ctl_read_tool(&text))
		return 1;
	if (!jifl_bbcount_is(text)) {
		fprintf(stderr, PROG ": bbcount: " NOT_BBCOUNT "\n");
		free(text);
		return 1;
	}
	err = jifl_bbcount_parse(&bc, text);
	if (err) {
		bbcount_error(&bc, err);
	} else {
		jifl_bbcount_sort(&bc);
		report_bbcount(stdout, &bc, top);
	}
	jifl_bbcount_free(&bc);
	free(text);
	return err ? 1 : 0;
}

/*
 * Run o->argv (and, unless --no-children, the processes it creates)
 * with bbcount counting from zero for o->syscalls, then print the
 * counts; the tool chosen before is set back. The counts stay until the
 * next reset, for a later "jiflctl bbcount" while bbcount is active.
 */
static int bbcount_run(const struct ctl_opts *o)
{
	struct jifl_proc_control saved;
	int status, ret = 1;
	pid_t pid;

	if (run_tool_switch("bbcount", &saved))
		return 1;
	if (!bbcount_reset() && !run_command(o, "bbcount", o->tree, NULL, NULL, &pid, &status) &&
	    !bbcount_print(o->top)) {
		run_report_exit(o, pid, status);
		ret = run_exit_code(status);
	}
	if (run_tool_restore("bbcount", &saved))
		ret = 1;
	return ret;
}

int ctl_bbcount(const struct ctl_opts *o)
{
	if (o->argv && o->argv[0])
		return bbcount_run(o);
	if (o->reset)
		return bbcount_reset();
	return bbcount_print(o->top);
}
