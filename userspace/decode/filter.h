/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Which instructions and gaps jifl-decode prints and counts: those of
 * some processes (--pid), some threads (--tid), inside a time span
 * (--time FROM,TO, perf script's convention).
 */
#ifndef JIFL_DECODE_FILTER_H
#define JIFL_DECODE_FILTER_H

#include <stddef.h>
#include <stdint.h>

struct jifl_id_list {
	uint32_t *v;
	size_t n, cap;
};

struct jifl_filter {
	struct jifl_id_list pids, tids;		/* empty: any */
	uint64_t from, to;			/* perf time, ns, both included */
};

/* Everything passes. */
#define JIFL_FILTER_ALL	((struct jifl_filter){ .to = UINT64_MAX })

/*
 * Add the ids of "ID[,ID...]" (decimal, not negative) to @l. Returns 0,
 * -jifl_err_invalid or -jifl_err_nomem.
 */
int jifl_filter_add_ids(struct jifl_id_list *l, const char *list);

/*
 * "FROM,TO" in seconds with up to nine decimals, either end empty (no
 * bound). Returns 0 or -jifl_err_invalid; FROM after TO is the caller's
 * to refuse.
 */
int jifl_filter_set_time(struct jifl_filter *f, const char *span);

/* Whether anything is filtered out. */
int jifl_filter_active(const struct jifl_filter *f);

int jifl_filter_match(const struct jifl_filter *f, uint32_t pid, uint32_t tid,
		      uint64_t time);

void jifl_filter_free(struct jifl_filter *f);

#endif /* JIFL_DECODE_FILTER_H */
