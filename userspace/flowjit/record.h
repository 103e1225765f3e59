/* SPDX-License-Identifier: GPL-2.0 */
/*
 * flowjit record: run a command (or attach to a process) with FlowJIT
 * tracking on and stream its events into a FlowJIT data file.
 */
#ifndef FLOWJIT_RECORD_H
#define FLOWJIT_RECORD_H

#include <sys/types.h>

/* Exit statuses of flowjit record itself (else the command's). */
#define FJ_EXIT_FAIL	125	/* flowjit could not record */
#define FJ_EXIT_NOEXEC	126	/* the command could not be run */
#define FJ_EXIT_NOENT	127	/* the command was not found */

struct fj_record_opts {
	const char *output;		/* data file */
	unsigned int flags;		/* FLOWJIT_F_* */
	unsigned long long bufsize;	/* kernel ring bytes, 0: leave it */
	pid_t pid;			/* attach to this process, or 0 */
	char **argv;			/* else run this command */
	const char *user;		/* as this user (name or uid), or NULL */
	int quiet;			/* no summary on stderr */
	int force;			/* replace an existing output file */
};

/* Record as @o says; returns the exit status for flowjit. */
int fj_record(const struct fj_record_opts *o);

#endif /* FLOWJIT_RECORD_H */
