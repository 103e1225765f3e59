/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Run a shell command from a host test and keep its output.
 */
#ifndef JIFL_TESTS_CMD_H
#define JIFL_TESTS_CMD_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#ifndef JIFL_TOP
#error "JIFL_TOP must name the project's top directory"
#endif

/*
 * Run "sh -c CMD" (printf-style) with stderr merged into stdout; store
 * up to @len - 1 bytes of output in @out. Returns the exit status, or
 * 128 + signal, or -1 if the command could not be run.
 */
static inline int cmd_run(char *out, size_t len, const char *fmt, ...)
{
	char cmd[4096];
	size_t n = 0, r;
	va_list ap;
	FILE *f;
	int st;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd) - 8, fmt, ap);
	va_end(ap);
	strcat(cmd, " 2>&1");
	f = popen(cmd, "r");
	if (!f)
		return -1;
	out[0] = '\0';
	while (n + 1 < len && (r = fread(out + n, 1, len - 1 - n, f)) > 0)
		n += r;
	out[n] = '\0';
	/* Drain what did not fit so the command never blocks on a pipe. */
	while (fread(cmd, 1, sizeof(cmd), f) > 0)
		;
	st = pclose(f);
	if (st == -1)
		return -1;
	if (WIFEXITED(st))
		return WEXITSTATUS(st);
	return 128 + WTERMSIG(st);
}

#endif /* JIFL_TESTS_CMD_H */
