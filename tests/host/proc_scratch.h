/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A scratch directory that stands for /proc/jifl in host tests of
 * jiflctl (JIFL_PROC_DIR): its files hold what a test writes there.
 */
#ifndef JIFL_TESTS_PROC_SCRATCH_H
#define JIFL_TESTS_PROC_SCRATCH_H

#include <stdio.h>

/* File @name of directory @dir holds @text; 0, or -1 if it could not be written. */
static inline int scratch_put(const char *dir, const char *name, const char *text)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (!f)
		return -1;
	fputs(text, f);
	return fclose(f) ? -1 : 0;
}

#endif /* JIFL_TESTS_PROC_SCRATCH_H */
