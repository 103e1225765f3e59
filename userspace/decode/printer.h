/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What jifl-decode prints: every instruction, the branches or the calls
 * and returns (perf-script-like lines), and the decoding statistics.
 */
#ifndef JIFL_DECODE_PRINTER_H
#define JIFL_DECODE_PRINTER_H

#include <stdio.h>

#include "decoder.h"
#include "fields.h"
#include "filter.h"
#include "session.h"

enum jifl_print_mode {
	JIFL_PRINT_INSN,
	JIFL_PRINT_BRANCHES,
	JIFL_PRINT_CALLS,
	JIFL_PRINT_NONE,	/* statistics only */
};

struct jifl_printer;

/* Returns 0 or -jifl_err_nomem. */
int jifl_printer_new(struct jifl_printer **pp, FILE *out, enum jifl_print_mode mode);
void jifl_printer_free(struct jifl_printer *p);

/*
 * Print and count only what passes @f (kept by reference; call before
 * jifl_printer_ops()). A branch passes when its source and its target do.
 */
void jifl_printer_set_filter(struct jifl_printer *p, const struct jifl_filter *f);

/* The columns of --insn lines; comm and dso are looked up in @s. */
void jifl_printer_set_fields(struct jifl_printer *p, const struct jifl_fields *fields,
			     const struct jifl_session *s);

/*
 * The callbacks to decode with, the printer as context: every
 * instruction for the listings, only counts for the statistics alone.
 */
const struct jifl_decode_ops *jifl_printer_ops(const struct jifl_printer *p);

/*
 * Print the statistics: instructions (total, JIT), errors by kind with
 * IPs, every gap and the gap totals.
 */
void jifl_printer_stats(struct jifl_printer *p, FILE *out);

uint64_t jifl_printer_insns(const struct jifl_printer *p);
uint64_t jifl_printer_errors(const struct jifl_printer *p);

#endif /* JIFL_DECODE_PRINTER_H */
