// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "common/array.h"
#include "common/errcode.h"
#include "flowjit/fjfile.h"
#include "flowjit/fjreader.h"
#include "report.h"

#define PROG "flowjit"
#define MAX_PAGE_LINES 32

/* One code snapshot (EXEC record), for counting versions per page. */
struct snap {
	uint32_t pid;
	uint64_t addr;
	uint64_t seq;
	uint64_t hash;		/* of the page, 0 without payload */
};

struct summary {
	uint64_t records;
	uint64_t by_type[FLOWJIT_EV_MAX];
	uint64_t lost;
	uint64_t pinned;	/* EXEC snapshots of pinned pages */
	uint64_t first_tsc, last_tsc, first_ns, last_ns;
	uint32_t *pids;
	size_t npids, maxpids;
	struct snap *snaps;
	size_t nsnaps, maxsnaps;
};

static int cmp_snap(const void *a, const void *b)
{
	const struct snap *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static void print_cmdline(FILE *out, const struct jifl_fj_info *info)
{
	size_t i;

	for (i = 0; i + 1 < info->cmdline_len; i++)
		fputc(info->cmdline[i] ? info->cmdline[i] : ' ', out);
	fputc('\n', out);
}

static void print_event(FILE *out, const struct flowjit_event *ev)
{
	fprintf(out, "%8" PRIu64 " %-8s %7u %7u %3u %20" PRIu64 " %10" PRIu64 ".%09" PRIu64
		" %18" PRIx64 " %18" PRIx64, (uint64_t)ev->seq, jifl_fjfile_type_name(ev->type),
		ev->pid, ev->tid, ev->cpu, (uint64_t)ev->tsc,
		(uint64_t)ev->time_ns / 1000000000, (uint64_t)ev->time_ns % 1000000000,
		(uint64_t)ev->ip, (uint64_t)ev->addr);
	switch (ev->type) {
	case FLOWJIT_EV_EXEC:
		fprintf(out, " %s%s%s", ev->flags & FLOWJIT_EVF_PAYLOAD ? "snapshot" : "no-page",
			ev->flags & FLOWJIT_EVF_STEP ? " step" : "",
			ev->flags & FLOWJIT_EVF_PINNED ? " pinned" : "");
		break;
	case FLOWJIT_EV_WRITE:
		fprintf(out, " %s%s", ev->flags & FLOWJIT_EVF_KERNEL ? "by-kernel" : "by-user",
			ev->flags & FLOWJIT_EVF_ALIAS ? " alias" : "");
		if (ev->flags & FLOWJIT_EVF_REMOTE)
			fprintf(out, " writer=%" PRIu64, (uint64_t)ev->aux);
		break;
	case FLOWJIT_EV_UNTRACK:
		if (ev->aux == FLOWJIT_UNTRACK_SECUREEXEC)
			fputs(" secureexec", out);
		break;
	case FLOWJIT_EV_MPROTECT:
		fprintf(out, " len=%" PRIx64 " prot=%c%c%c", (uint64_t)ev->len,
			ev->aux & PROT_READ ? 'r' : '-', ev->aux & PROT_WRITE ? 'w' : '-',
			ev->aux & PROT_EXEC ? 'x' : '-');
		break;
	case FLOWJIT_EV_MUNMAP:
		fprintf(out, " len=%" PRIx64, (uint64_t)ev->len);
		break;
	case FLOWJIT_EV_MREMAP:
		fprintf(out, " len=%" PRIx64 " from=%" PRIx64, (uint64_t)ev->len,
			(uint64_t)ev->aux);
		break;
	case FLOWJIT_EV_TRACK:
	case FLOWJIT_EV_EXECVE:
		fprintf(out, " flags=%" PRIx64, (uint64_t)ev->aux);
		break;
	case FLOWJIT_EV_FORK:
		fprintf(out, " parent=%" PRIu64, (uint64_t)ev->aux);
		break;
	case FLOWJIT_EV_LOST:
		fprintf(out, " dropped=%" PRIu64, (uint64_t)ev->aux);
		break;
	}
	fputc('\n', out);
}

static int add_pid(struct summary *s, uint32_t pid)
{
	size_t i;

	for (i = 0; i < s->npids; i++)
		if (s->pids[i] == pid)
			return 0;
	if (jifl_array_room(s->pids, s->npids, s->maxpids))
		return -jifl_err_nomem;
	s->pids[s->npids++] = pid;
	return 0;
}

static int add_snap(struct summary *s, const struct flowjit_event *ev, const void *page)
{
	struct snap *sn;

	if (jifl_array_room(s->snaps, s->nsnaps, s->maxsnaps))
		return -jifl_err_nomem;
	sn = &s->snaps[s->nsnaps++];
	sn->pid = ev->pid;
	sn->addr = ev->addr;
	sn->seq = ev->seq;
	sn->hash = page ? jifl_fjfile_checksum(JIFL_FJ_CHECKSUM_INIT, page,
					       FLOWJIT_PAGE_SIZE) : 0;
	return 0;
}

static int account(struct summary *s, const struct flowjit_event *ev, const void *page)
{
	if (!s->records++) {
		s->first_tsc = ev->tsc;
		s->first_ns = ev->time_ns;
	}
	s->last_tsc = ev->tsc;
	s->last_ns = ev->time_ns;
	s->by_type[ev->type]++;
	if (ev->type == FLOWJIT_EV_LOST) {
		s->lost += ev->aux;
		return 0;
	}
	s->pinned += ev->type == FLOWJIT_EV_EXEC && (ev->flags & FLOWJIT_EVF_PINNED);
	if (ev->type == FLOWJIT_EV_EXEC && add_snap(s, ev, page))
		return -jifl_err_nomem;
	return add_pid(s, ev->pid);
}

/* Pages with snapshots: versions (snapshots) and distinct contents. */
static void print_pages(FILE *out, struct summary *s)
{
	size_t i, j, pages = 0, lines = 0;

	qsort(s->snaps, s->nsnaps, sizeof(*s->snaps), cmp_snap);
	for (i = 0; i < s->nsnaps; i = j)
		for (pages++, j = i + 1; j < s->nsnaps && s->snaps[j].pid == s->snaps[i].pid &&
		     s->snaps[j].addr == s->snaps[i].addr; j++)
			;
	fprintf(out, "code pages:   %zu (%zu versions)\n", pages, s->nsnaps);
	if (!pages)
		return;
	fprintf(out, "  %7s %18s %9s %9s\n", "PID", "PAGE", "VERSIONS", "CHANGES");
	for (i = 0; i < s->nsnaps; i = j) {
		size_t changes = 0;

		/* a change: content differs from the page's snapshot before */
		for (j = i + 1; j < s->nsnaps && s->snaps[j].pid == s->snaps[i].pid &&
		     s->snaps[j].addr == s->snaps[i].addr; j++)
			changes += s->snaps[j].hash != s->snaps[j - 1].hash;
		if (lines++ < MAX_PAGE_LINES)
			fprintf(out, "  %7u %18" PRIx64 " %9zu %9zu\n", s->snaps[i].pid,
				s->snaps[i].addr, j - i, changes);
	}
	if (lines > MAX_PAGE_LINES)
		fprintf(out, "  ... %zu more pages\n", lines - MAX_PAGE_LINES);
}

static void print_summary(FILE *out, const char *path, const struct jifl_fj_info *info,
			  struct summary *s)
{
	uint64_t dtsc = s->last_tsc - s->first_tsc, dns = s->last_ns - s->first_ns;
	unsigned int t;

	fprintf(out, "file:         %s (FlowJIT data, format version %u)\n", path, info->version);
	fprintf(out, "command:      ");
	print_cmdline(out, info);
	fprintf(out, "pid:          %u (%s)\n", info->pid,
		info->flags & JIFL_FJ_F_ATTACHED ? "attached with -p" : "started by flowjit record");
	fprintf(out, "tracking:     %s%s\n", info->flags & FLOWJIT_F_INHERIT ? "inherit" : "",
		info->flags & FLOWJIT_F_ALL_EXEC ? " all-exec" : "");
	if (info->tsc_hz)
		fprintf(out, "tsc:          %.3f MHz\n", info->tsc_hz / 1e6);
	else
		fprintf(out, "tsc:          frequency unknown\n");
	fprintf(out, "records:      %" PRIu64 "\n", s->records);
	fprintf(out, "processes:    %zu\n", s->npids);
	fprintf(out, "events:\n");
	for (t = 1; t < FLOWJIT_EV_MAX; t++)
		fprintf(out, "  %-10s %12" PRIu64 "\n", jifl_fjfile_type_name(t), s->by_type[t]);
	print_pages(out, s);
	if (s->records)
		fprintf(out, "time span:    %" PRIu64 " TSC ticks (%" PRIu64 " .. %" PRIu64
			"), %" PRIu64 " ns (%.6f s)\n", dtsc, s->first_tsc, s->last_tsc,
			dns, dns / 1e9);
	if (s->lost)
		fprintf(out, "drops:        %" PRIu64 " events lost (ring full): "
			"the recording is INCOMPLETE\n", s->lost);
	else
		fprintf(out, "drops:        none\n");
	if (s->pinned)
		fprintf(out, "pinned:       %" PRIu64 " snapshots of pages pinned for DMA or "
			"kernel access: writes through the pin are not recorded\n", s->pinned);
}

int fj_report(const char *path, int events, FILE *out)
{
	struct summary s = { .records = 0 };
	struct jifl_fjreader *r;
	struct flowjit_event ev;
	const void *page;
	int ret;

	ret = jifl_fjreader_open(&r, path);
	if (ret) {
		jifl_perror(PROG, ret, "report: cannot read '%s'", path);
		return 1;
	}
	if (events)
		fprintf(out, "%8s %-8s %7s %7s %3s %20s %20s %18s %18s %s\n", "SEQ", "TYPE",
			"PID", "TID", "CPU", "TSC", "TIME", "IP", "ADDR", "DETAIL");
	while ((ret = jifl_fjreader_next(r, &ev, &page)) > 0) {
		if (events)
			print_event(out, &ev);
		else if ((ret = account(&s, &ev, page)))
			break;
	}
	if (ret < 0)
		jifl_perror(PROG, ret, "report: reading '%s' at byte %" PRIu64, path,
			    jifl_fjreader_offset(r));
	else if (!events)
		print_summary(out, path, jifl_fjreader_info(r), &s);
	jifl_fjreader_close(r);
	free(s.pids);
	free(s.snaps);
	return ret < 0;
}
