// SPDX-License-Identifier: GPL-2.0
#include <inttypes.h>
#include <stdlib.h>
#include <time.h>

#include "common/errcode.h"
#include "progress.h"

#define INTERVAL_NS	250000000ull	/* at most 4 updates a second */
#define ERASE		"\r\033[K"	/* carriage return, erase to end of line */

struct jifl_progress {
	FILE *out;
	uint64_t total;
	uint64_t next_ns;		/* the next update is due then */
	int shown;
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

int jifl_progress_new(struct jifl_progress **pp, FILE *out, uint64_t total)
{
	struct jifl_progress *p = calloc(1, sizeof(*p));

	if (!p)
		return -jifl_err_nomem;
	p->out = out;
	p->total = total;
	*pp = p;
	return 0;
}

void jifl_progress_update(struct jifl_progress *p, uint64_t done)
{
	uint64_t now = now_ns();

	if (now < p->next_ns)
		return;
	p->next_ns = now + INTERVAL_NS;
	if (done > p->total)
		done = p->total;
	fprintf(p->out, ERASE "jifl-decode: %3" PRIu64 "%% of %.1f %s of trace decoded",
		p->total ? done * 100 / p->total : 100,
		p->total < 1048576 ? p->total / 1024.0 : p->total / 1048576.0,
		p->total < 1048576 ? "KiB" : "MiB");
	fflush(p->out);
	p->shown = 1;
}

void jifl_progress_end(struct jifl_progress *p)
{
	if (!p)
		return;
	if (p->shown) {
		fputs(ERASE, p->out);
		fflush(p->out);
	}
	free(p);
}
