// SPDX-License-Identifier: GPL-2.0
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "common/array.h"
#include "common/errcode.h"
#include "maps.h"

void jifl_maps_init(struct jifl_maps *m, int pid)
{
	memset(m, 0, sizeof(*m));
	m->pid = pid;
}

static void maps_clear(struct jifl_perf_mmap2 *v, size_t nr)
{
	size_t i;

	for (i = 0; i < nr; i++)
		free((char *)v[i].filename);
}

void jifl_maps_fini(struct jifl_maps *m)
{
	maps_clear(m->v, m->nr);
	free(m->v);
	memset(m, 0, sizeof(*m));
}

/* Parse one /proc/PID/maps line; returns 1 for an executable mapping. */
static int maps_parse(const char *line, int pid, struct jifl_perf_mmap2 *e)
{
	char perms[5], path[4096];
	uint64_t start, end, off, ino;
	unsigned int maj, min;
	int n;

	path[0] = '\0';
	n = sscanf(line, "%" SCNx64 "-%" SCNx64 " %4s %" SCNx64 " %x:%x %" SCNu64 " %4095[^\n]",
		   &start, &end, perms, &off, &maj, &min, &ino, path);
	if (n < 7)
		return -jifl_err_format;
	/* [vsyscall] is no mapping of the process; the kernel reports none. */
	if (perms[2] != 'x' || start >= (1ULL << 47))
		return 0;
	memset(e, 0, sizeof(*e));
	e->pid = pid;
	e->tid = pid;
	e->addr = start;
	e->len = end - start;
	e->pgoff = off;
	e->maj = maj;
	e->min = min;
	e->ino = ino;
	e->prot = (perms[0] == 'r' ? PROT_READ : 0) |
		  (perms[1] == 'w' ? PROT_WRITE : 0) | PROT_EXEC;
	e->flags = perms[3] == 's' ? MAP_SHARED : MAP_PRIVATE;
	/* The kernel names anonymous memory "//anon" in MMAP2 records. */
	e->filename = strdup(path[0] ? path : "//anon");
	return e->filename ? 1 : -jifl_err_nomem;
}

static bool maps_same(const struct jifl_perf_mmap2 *a,
		      const struct jifl_perf_mmap2 *b)
{
	return a->addr == b->addr && a->len == b->len && a->pgoff == b->pgoff &&
	       a->ino == b->ino && a->prot == b->prot &&
	       !strcmp(a->filename, b->filename);
}

static bool maps_known(const struct jifl_maps *m, const struct jifl_perf_mmap2 *e)
{
	size_t i;

	for (i = 0; i < m->nr; i++)
		if (maps_same(&m->v[i], e))
			return true;
	return false;
}

int jifl_maps_scan(struct jifl_maps *m, jifl_maps_new_fn fn, void *ctx)
{
	struct jifl_perf_mmap2 *v = NULL, e;
	size_t nr = 0, cap = 0, i, len = 0;
	char path[64], *line = NULL;
	int err = 0, r;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/maps", m->pid);
	f = fopen(path, "re");
	if (!f)
		return jifl_err_errno(errno);
	while (!err && getline(&line, &len, f) > 0) {
		r = maps_parse(line, m->pid, &e);
		if (r <= 0) {
			err = r;
			continue;
		}
		err = jifl_array_room(v, nr, cap);
		if (err) {
			free((char *)e.filename);
			continue;
		}
		v[nr++] = e;
	}
	free(line);
	fclose(f);

	for (i = 0; i < nr && !err; i++)
		if (!maps_known(m, &v[i]))
			err = fn(ctx, &v[i]);
	if (err) {
		maps_clear(v, nr);
		free(v);
		return err;
	}
	maps_clear(m->v, m->nr);
	free(m->v);
	m->v = v;
	m->nr = nr;
	m->cap = cap;
	m->hint = 0;
	return 0;
}

bool jifl_maps_cacheable(struct jifl_maps *m, uint64_t ip)
{
	const struct jifl_perf_mmap2 *e;
	size_t i;

	if (m->hint < m->nr) {
		e = &m->v[m->hint];
		if (ip - e->addr < e->len)
			goto found;
	}
	for (i = 0; i < m->nr; i++) {
		if (ip - m->v[i].addr < m->v[i].len) {
			m->hint = i;
			e = &m->v[i];
			goto found;
		}
	}
	return false;
found:
	/* a shared mapping changes when another mapping of its file is written */
	return !(e->prot & PROT_WRITE) && !(e->flags & MAP_SHARED) && e->filename[0] == '/';
}
