/* SPDX-License-Identifier: GPL-2.0 */
/*
 * flowjit report: what a FlowJIT data file holds, as a summary or as one
 * line per record.
 */
#ifndef FLOWJIT_REPORT_H
#define FLOWJIT_REPORT_H

#include <stdio.h>

/* Print the report of @path to @out; returns the exit status. */
int fj_report(const char *path, int events, FILE *out);

#endif /* FLOWJIT_REPORT_H */
