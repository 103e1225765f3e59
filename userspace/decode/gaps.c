// SPDX-License-Identifier: GPL-2.0
#include <inttypes.h>
#include <stdlib.h>

#include "common/array.h"
#include "common/errcode.h"
#include "gaps.h"

struct jifl_gaps {
	struct jifl_gap *v;
	size_t nr, cap;
	int lost;		/* gaps not kept for lack of memory */
};

int jifl_gaps_new(struct jifl_gaps **gp)
{
	*gp = calloc(1, sizeof(**gp));
	return *gp ? 0 : -jifl_err_nomem;
}

void jifl_gaps_free(struct jifl_gaps *g)
{
	if (!g)
		return;
	free(g->v);
	free(g);
}

int jifl_gaps_add(struct jifl_gaps *g, const struct jifl_gap *gap)
{
	int err = jifl_array_room(g->v, g->nr, g->cap);

	if (err) {
		g->lost = 1;
		return err;
	}
	g->v[g->nr++] = *gap;
	return 0;
}

static void print_time(FILE *out, uint64_t ns)
{
	fprintf(out, "%" PRIu64 ".%09" PRIu64, ns / 1000000000, ns % 1000000000);
}

static int is_missing_code(const struct jifl_gap *gap)
{
	return gap->kind == JIFL_GAP_ERROR && pt_errcode(gap->code) == pte_nomap;
}

static const char *kind_name(const struct jifl_gap *gap)
{
	switch (gap->kind) {
	case JIFL_GAP_ERROR:
		return is_missing_code(gap) ? "missing code" : "decode error";
	case JIFL_GAP_OVERFLOW:
		return "overflow";
	case JIFL_GAP_STOP:
		return "trace stopped";
	case JIFL_GAP_RESTART:
		return "restarted elsewhere";
	case JIFL_GAP_LOST:
		return "trace data lost";
	case JIFL_GAP_LOOP:
		return "never-ending loop";
	}
	return "?";
}

const char *jifl_gap_message(const struct jifl_gap *gap)
{
	if (gap->kind == JIFL_GAP_ERROR || gap->kind == JIFL_GAP_OVERFLOW)
		return pt_errstr(pt_errcode(gap->code));
	return kind_name(gap);
}

/* "; resumed at ip 0x..., trace offset 0x..." or "; not resumed". */
static void print_resume(FILE *out, const struct jifl_gap *gap)
{
	if (!gap->resumed) {
		fputs("; not resumed", out);
		return;
	}
	fprintf(out, "; resumed at ip 0x%" PRIx64, gap->resume_ip);
	if (jifl_gap_resyncs(gap))
		fprintf(out, ", trace offset 0x%" PRIx64, gap->resume_offset);
}

void jifl_gap_print(FILE *out, const struct jifl_gap *gap)
{
	print_time(out, gap->time);
	fprintf(out, " %6u %s: %s", gap->tid, jifl_gap_is_error(gap) ? "error" : "gap",
		jifl_gap_message(gap));
	fprintf(out, " at ip 0x%" PRIx64 ", trace offset 0x%" PRIx64, gap->ip, gap->offset);
	print_resume(out, gap);
	fputc('\n', out);
}

static uint64_t bytes_skipped(const struct jifl_gap *gap)
{
	if (!jifl_gap_resyncs(gap) || gap->resume_offset < gap->offset)
		return 0;
	return gap->resume_offset - gap->offset;
}

static void print_stat_line(FILE *out, const struct jifl_gap *gap)
{
	fputs("  ", out);
	print_time(out, gap->time);
	fprintf(out, " %6u %s", gap->tid, kind_name(gap));
	if (gap->kind == JIFL_GAP_ERROR && !is_missing_code(gap))
		fprintf(out, " (%s)", pt_errstr(pt_errcode(gap->code)));
	fprintf(out, " at ip 0x%" PRIx64 " after %" PRIu64 " instructions, trace offset 0x%"
		PRIx64, gap->ip, gap->insns, gap->offset);
	print_resume(out, gap);
	if (gap->resumed) {
		fputs(", at ", out);
		print_time(out, gap->resume_time);
	}
	if (jifl_gap_resyncs(gap))
		fprintf(out, "; %" PRIu64 " trace bytes skipped", bytes_skipped(gap));
	fputc('\n', out);
}

void jifl_gaps_print(const struct jifl_gaps *g, FILE *out)
{
	uint64_t errors = 0, missing = 0, overflows = 0, stops = 0, restarts = 0, lost = 0;
	uint64_t loops = 0;
	uint64_t skipped = 0;
	size_t i;

	fprintf(out, "gaps: %zu%s\n", g->nr, g->lost ? " (more: out of memory)" : "");
	for (i = 0; i < g->nr; i++) {
		const struct jifl_gap *gap = &g->v[i];

		print_stat_line(out, gap);
		skipped += bytes_skipped(gap);
		switch (gap->kind) {
		case JIFL_GAP_ERROR:
			errors++;
			missing += is_missing_code(gap);
			break;
		case JIFL_GAP_OVERFLOW:
			overflows++;
			break;
		case JIFL_GAP_STOP:
			stops++;
			break;
		case JIFL_GAP_RESTART:
			restarts++;
			break;
		case JIFL_GAP_LOST:
			lost++;
			break;
		case JIFL_GAP_LOOP:
			loops++;
			break;
		}
	}
	fprintf(out, "gap totals: %" PRIu64 " decode errors (%" PRIu64 " missing code), %"
		PRIu64 " overflows, %" PRIu64 " trace stops, %" PRIu64
		" restarts elsewhere, %" PRIu64 " trace data lost, %" PRIu64
		" never-ending loops; %" PRIu64 " trace bytes skipped\n",
		errors, missing, overflows, stops, restarts, lost, loops, skipped);
}
