// SPDX-License-Identifier: GPL-2.0
/*
 * flowjit jitdump. perf inject --jit looks, in the perf.data it reads,
 * for an MMAP record of a file named jit-PID.dump (a JIT agent maps its
 * jitdump so that perf record logs it), reads that file, and replaces
 * the record with an MMAP2 record for each code load, at the load's
 * time, each naming an ELF file it writes next to the jitdump. A
 * FlowJIT recording needs no agent: its snapshots become the code loads
 * (jit_loads.h says when each is mapped) and the marker is added to a
 * copy of the perf.data.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include "common/array.h"
#include "common/errcode.h"
#include "flowjit/fjreader.h"
#include "flowjit/jit_image.h"
#include "flowjit/jit_loads.h"
#include "jitdump.h"
#include "flowjit/jitdump_writer.h"
#include "perf/perf_append.h"
#include "perf/perf_reader.h"

#define PROG "flowjit: jitdump"
/* An MMAP2 record with a path and its trailer. */
#define MARKER_MAX	(sizeof(struct jifl_perf_mmap2_event) + PATH_MAX + 64)

struct jitdump {
	const struct fj_jitdump_opts *o;
	struct jifl_jit_image *img;
	struct jifl_perf_reader *perf;
	struct jifl_jit_load *loads;
	size_t nr_loads;
	char dir[PATH_MAX];
	uint8_t *markers;
	size_t markers_size, markers_cap;
	size_t pids, written, skipped_pids;
};

static int read_flowjit(struct jitdump *j)
{
	struct jifl_jit_image_stats st;
	struct jifl_fjreader *r;
	struct flowjit_event ev;
	const void *page;
	int ret;

	ret = jifl_jit_image_new(&j->img);
	if (!ret)
		ret = jifl_fjreader_open(&r, j->o->input);
	if (ret) {
		jifl_perror(PROG, ret, "cannot read '%s'", j->o->input);
		return ret;
	}
	while ((ret = jifl_fjreader_next(r, &ev, &page)) > 0) {
		ret = jifl_jit_image_add_event(j->img, &ev, page);
		if (ret)
			break;
	}
	if (ret < 0)
		jifl_perror(PROG, ret, "reading '%s' at byte %" PRIu64, j->o->input,
			    jifl_fjreader_offset(r));
	jifl_fjreader_close(r);
	if (ret < 0)
		return ret;
	jifl_jit_image_stats(j->img, &st);
	if (!st.versions) {
		fprintf(stderr, PROG ": '%s' has no code snapshots\n", j->o->input);
		return -jifl_err_invalid;
	}
	if (st.lost)
		jifl_warn(PROG, "the kernel dropped %" PRIu64 " records: JIT code may "
			  "decode wrongly or not at all", st.lost);
	return 0;
}

static int read_perf(struct jitdump *j)
{
	const struct jifl_perf_info *info;
	uint64_t off = 0;
	int ret;

	ret = jifl_perf_reader_open(&j->perf, j->o->perf_in, &off);
	if (ret) {
		if (ret == -jifl_err_format || ret == -jifl_err_truncated)
			jifl_perror(PROG, ret, "cannot read '%s' at byte %" PRIu64,
				    j->o->perf_in, off);
		else
			jifl_perror(PROG, ret, "cannot read '%s'", j->o->perf_in);
		return ret;
	}
	info = jifl_perf_reader_info(j->perf);
	if (info->use_clockid) {
		fprintf(stderr, PROG ": '%s' was recorded with a clock of its own "
			"(perf record -k): FlowJIT's TSC times need perf's TSC conversion\n",
			j->o->perf_in);
		return -jifl_err_nosupp;
	}
	if (!info->have_time_conv) {
		fprintf(stderr, PROG ": '%s' has no TSC conversion (TIME_CONV record)\n",
			j->o->perf_in);
		return -jifl_err_nosupp;
	}
	return 0;
}

static int plan(struct jitdump *j)
{
	struct jifl_jit_barrier *b;
	size_t nr;
	int ret;

	ret = jifl_jit_loads_barriers(j->perf, &b, &nr);
	if (!ret)
		ret = jifl_jit_loads_plan(j->img, b, nr, &jifl_perf_reader_info(j->perf)->tc,
					  &j->loads, &j->nr_loads);
	free(b);
	if (ret)
		jifl_perror(PROG, ret, "cannot plan the code loads in '%s'", j->o->perf_in);
	return ret;
}

/* Does the perf.data know process @pid? */
static int traced(const struct jifl_perf_reader *r, uint32_t pid)
{
	const struct jifl_perf_task *t;
	const struct jifl_perf_map *m;
	size_t i;

	for (i = 0; (t = jifl_perf_reader_task(r, i)); i++)
		if (t->pid == pid)
			return 1;
	for (i = 0; (m = jifl_perf_reader_map(r, i)); i++)
		if (m->m.pid == pid)
			return 1;
	return 0;
}

/*
 * The marker's time: when process @pid began in the perf.data. perf
 * inject forgets that a process has a jitdump when a FORK record makes
 * it anew, and drops its anonymous mappings only from the marker on:
 * after its FORK, else at its first record (a record added to the file
 * comes after those of the same time).
 */
static uint64_t marker_time(const struct jifl_perf_reader *r, uint32_t pid)
{
	const struct jifl_perf_task *t;
	const struct jifl_perf_map *m;
	uint64_t first = UINT64_MAX;
	size_t i;

	for (i = 0; (t = jifl_perf_reader_task(r, i)); i++) {
		if (t->pid != pid)
			continue;
		if (t->type == PERF_RECORD_FORK && t->tid == pid)
			return t->time;
		if (t->time < first)
			first = t->time;
	}
	for (i = 0; (m = jifl_perf_reader_map(r, i)); i++)
		if (m->m.pid == pid && m->time < first)
			first = m->time;
	return first == UINT64_MAX ? 0 : first;
}

static int add_marker(struct jitdump *j, uint32_t pid, const char *path)
{
	struct jifl_perf_mmap2 m = {
		.pid = pid, .tid = pid,
		/* Page 0, where no process maps anything: perf script keeps it apart. */
		.addr = 0, .len = FLOWJIT_PAGE_SIZE,
		.prot = PROT_READ | PROT_EXEC, .flags = MAP_PRIVATE,
		.filename = path,
	};
	int n = jifl_array_grow(&j->markers, &j->markers_cap, j->markers_size + MARKER_MAX, 1);

	if (n)
		return n;
	n = jifl_perf_append_encode_mmap2(j->markers + j->markers_size, MARKER_MAX, &m,
					  marker_time(j->perf, pid),
					  jifl_perf_reader_info(j->perf));
	if (n < 0)
		return n;
	j->markers_size += n;
	return 0;
}

/* jit-PID.dump of the @n loads at @l, all of process @pid. */
static int write_dump(struct jitdump *j, const struct jifl_jit_load *l, size_t n, uint32_t pid)
{
	uint8_t code[FLOWJIT_PAGE_SIZE + JIFL_JIT_LOAD_TAIL];
	char path[PATH_MAX], name[64];
	struct jifl_jitdump *w = NULL;
	size_t i;
	int ret;

	if ((size_t)snprintf(path, sizeof(path), "%s/jit-%" PRIu32 ".dump", j->dir, pid) >=
	    sizeof(path)) {
		fprintf(stderr, PROG ": '%s': path too long\n", j->dir);
		return -jifl_err_invalid;
	}
	ret = jifl_jitdump_open(&w, path, pid, l[0].tsc);
	for (i = 0; !ret && i < n; i++) {
		memcpy(code, l[i].v->bytes, FLOWJIT_PAGE_SIZE);
		memcpy(code + FLOWJIT_PAGE_SIZE, l[i].tail, l[i].tail_size);
		snprintf(name, sizeof(name), "jit-%" PRIx64 "-v%" PRIu32, l[i].v->page,
			 l[i].v->number);
		if (l[i].reload)
			snprintf(name + strlen(name), sizeof(name) - strlen(name), ".%u",
				 l[i].reload);
		ret = jifl_jitdump_code_load(w, pid, l[i].v->page, name, code,
					     FLOWJIT_PAGE_SIZE + l[i].tail_size, l[i].tsc);
	}
	if (w) {
		int err = jifl_jitdump_close(w, l[n - 1].tsc);

		if (!ret)
			ret = err;
	}
	if (!ret)
		ret = add_marker(j, pid, path);
	if (ret)
		jifl_perror(PROG, ret, "cannot write '%s'", path);
	return ret;
}

/* One jitdump per process of the perf.data. */
static int write_dumps(struct jitdump *j)
{
	size_t i, k;
	uint32_t pid;
	int ret;

	if (mkdir(j->o->dir, 0755) && errno != EEXIST) {
		ret = jifl_err_errno(errno);
		jifl_perror(PROG, ret, "cannot create '%s'", j->o->dir);
		return ret;
	}
	if (!realpath(j->o->dir, j->dir)) {
		ret = jifl_err_errno(errno);
		jifl_perror(PROG, ret, "'%s'", j->o->dir);
		return ret;
	}
	for (i = 0; i < j->nr_loads; i = k) {
		pid = j->loads[i].v->pid;
		for (k = i + 1; k < j->nr_loads && j->loads[k].v->pid == pid; k++)
			;
		j->pids++;
		if (!traced(j->perf, pid)) {
			if (!j->o->quiet)
				fprintf(stderr, PROG ": process %" PRIu32 " is not in '%s': "
					"its %zu code loads left out\n", pid, j->o->perf_in, k - i);
			j->skipped_pids++;
			continue;
		}
		ret = write_dump(j, &j->loads[i], k - i, pid);
		if (ret)
			return ret;
		j->written += k - i;
	}
	return 0;
}

static void summary(const struct jitdump *j)
{
	struct jifl_jit_image_stats st;

	jifl_jit_image_stats(j->img, &st);
	fprintf(stderr, PROG ": %zu code loads of %" PRIu64 " versions in %s/jit-PID.dump "
		"for %zu processes;\n'%s' is '%s' with their markers, for\n"
		"  perf inject --jit -i %s -o OUTPUT\n", j->written, st.versions, j->dir,
		j->pids - j->skipped_pids, j->o->perf_out, j->o->perf_in, j->o->perf_out);
}

int fj_jitdump(const struct fj_jitdump_opts *o)
{
	struct jitdump j = { .o = o };
	int ret;

	ret = read_flowjit(&j);
	if (!ret)
		ret = read_perf(&j);
	if (!ret)
		ret = plan(&j);
	if (!ret)
		ret = write_dumps(&j);
	if (!ret && j.pids == j.skipped_pids) {
		fprintf(stderr, PROG ": '%s' is not from the run of '%s': none of its %zu "
			"processes with code snapshots is in it\n", o->input, o->perf_in, j.pids);
		ret = -jifl_err_mismatch;
	}
	if (!ret) {
		ret = jifl_perf_append(o->perf_in, o->perf_out, j.markers, j.markers_size);
		if (ret == -jifl_err_invalid)
			fprintf(stderr, PROG ": cannot copy '%s' to '%s': the same file\n",
				o->perf_in, o->perf_out);
		else if (ret == -jifl_err_truncated)
			fprintf(stderr, PROG ": cannot copy '%s': unfinished (data size 0 in its "
				"header)\n", o->perf_in);
		else if (ret)
			jifl_perror(PROG, ret, "cannot copy '%s' to '%s'", o->perf_in, o->perf_out);
	}
	if (!ret && !o->quiet)
		summary(&j);
	free(j.markers);
	free(j.loads);
	if (j.perf)
		jifl_perf_reader_close(j.perf);
	jifl_jit_image_free(j.img);
	return ret ? 1 : 0;
}
