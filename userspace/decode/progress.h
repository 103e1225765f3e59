/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A progress line for long decodes: the share of the trace bytes decoded
 * so far, rewritten in place (carriage return, erase to end of line) at
 * most a few times a second, erased at the end.
 */
#ifndef JIFL_DECODE_PROGRESS_H
#define JIFL_DECODE_PROGRESS_H

#include <stdint.h>
#include <stdio.h>

struct jifl_progress;

/* A progress line on @out for @total bytes of trace. 0 or -jifl_err_nomem. */
int jifl_progress_new(struct jifl_progress **pp, FILE *out, uint64_t total);

/* @done bytes decoded: print if the line is due (the first call, then every 250 ms). */
void jifl_progress_update(struct jifl_progress *p, uint64_t done);

/* Erase the line if one was printed; free @p. */
void jifl_progress_end(struct jifl_progress *p);

#endif /* JIFL_DECODE_PROGRESS_H */
