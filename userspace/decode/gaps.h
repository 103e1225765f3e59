/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The gaps of a decode (places where the trace lost the instruction
 * flow): one line per gap for the listings as they happen, and the list
 * with totals for --stats (Documentation/decode.rst, "Gaps").
 */
#ifndef JIFL_DECODE_GAPS_H
#define JIFL_DECODE_GAPS_H

#include <stdio.h>

#include "decoder.h"

struct jifl_gaps;

int jifl_gaps_new(struct jifl_gaps **gp);
void jifl_gaps_free(struct jifl_gaps *g);

/* Keep @gap for the statistics. Returns 0 or -jifl_err_nomem. */
int jifl_gaps_add(struct jifl_gaps *g, const struct jifl_gap *gap);

/* libipt's message for errors and overflows, else what kind of gap. */
const char *jifl_gap_message(const struct jifl_gap *gap);

/* Print @gap as a line of the listings. */
void jifl_gap_print(FILE *out, const struct jifl_gap *gap);

/* Print every gap kept, then the totals by kind. */
void jifl_gaps_print(const struct jifl_gaps *g, FILE *out);

#endif /* JIFL_DECODE_GAPS_H */
