/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A host test's scratch directory, /tmp/jifl-NAME-XXXXXX: made by its
 * fixture's setup, removed with all it holds by the teardown. A fixture
 * that records a trace there holds TMPDIR_TRACE_MEMBERS, which
 * TMPDIR_TRACE_SETUP() and TMPDIR_TRACE_TEARDOWN() set up and free (in
 * FIXTURE_SETUP and FIXTURE_TEARDOWN, where self is the fixture).
 */
#ifndef JIFL_TESTS_TMPDIR_H
#define JIFL_TESTS_TMPDIR_H

#include <stdio.h>
#include <stdlib.h>

#include "cmd.h"
#include "swtrace_truth.h"

/* Make /tmp/jifl-@name-XXXXXX, its name in @dir (@size bytes); 0 or -1. */
static inline int tmpdir_make(char *dir, size_t size, const char *name)
{
	if (snprintf(dir, size, "/tmp/jifl-%s-XXXXXX", name) >= (int)size)
		return -1;
	return mkdtemp(dir) ? 0 : -1;
}

/* Remove @dir and all it holds. */
static inline void tmpdir_remove(const char *dir)
{
	char out[256];

	cmd_run(out, sizeof(out), "rm -rf %s", dir);
}

/* A recording in the directory, and the instructions compared. */
#define TMPDIR_TRACE_MEMBERS						\
	char dir[64];							\
	char data[128];		/* DIR/perf.data */			\
	char truth[128];	/* DIR/truth, jifl-swtrace's */		\
	struct ipseq want, got

#define TMPDIR_TRACE_SETUP(name) do {						\
	ASSERT_EQ(0, tmpdir_make(self->dir, sizeof(self->dir), name));		\
	snprintf(self->data, sizeof(self->data), "%s/perf.data", self->dir);	\
	snprintf(self->truth, sizeof(self->truth), "%s/truth", self->dir);	\
} while (0)

#define TMPDIR_TRACE_TEARDOWN() do {	\
	tmpdir_remove(self->dir);	\
	free(self->want.v);		\
	free(self->got.v);		\
} while (0)

#endif /* JIFL_TESTS_TMPDIR_H */
