// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "common/array.h"
#include "block_walk.h"
#include "common/errcode.h"
#include "process.h"

#define PAGE_MASK	(~(uint64_t)(FLOWJIT_PAGE_SIZE - 1))
/*
 * JIT sections a process gets at most: libipt looks an address up among
 * all sections of an image, one by one (its cache holds 65535 in all).
 */
#define MAX_JIT_SECTIONS	1024

/*
 * The version of @ip's page that ran @ip at decoder time @tsc, in *@vp
 * (NULL: none). The last version started at or before @tsc is live for
 * sure, unless it had ended; one that started later, but before the
 * next TSC packet of the trace, is live from the fetch its EXEC record
 * names on: FlowJIT logs the fetch that faulted, so reaching that IP is
 * reaching the start of the version, whatever the time resolution
 * (Documentation/decode.rst, "Which code version"). One version is
 * adopted per fetch: each fetch faulted at most once. Returns 0 or
 * -pte_nomem.
 */
static int choose(struct jifl_process *p, uint64_t ip, uint64_t tsc,
		  const struct jifl_jit_version **vp)
{
	uint64_t page = ip & PAGE_MASK;
	const struct jifl_jit_version *v, *a, *next;

	v = jifl_jit_image_last(p->jit, p->pid, ip, tsc);
	a = p->adopted ? jifl_adopted_get(p->adopted, page) : NULL;
	if (a && (!v || a->number > v->number))
		v = a;
	next = jifl_jit_image_next(p->jit, p->pid, ip, v);
	if (next && next->exec_ip == ip && p->tscs && p->adopted &&
	    next->start <= jifl_tsc_index_next(p->tscs, tsc)) {
		if (jifl_adopted_put(p->adopted, page, next))
			return -pte_nomem;
		*vp = next;
		return 0;
	}
	/* Not one that ended before @tsc (an adopted one starts after it). */
	*vp = v && v->end >= tsc ? v : NULL;
	return 0;
}

/* Keep a read for the block decoder; a failure only loses its version. */
static void log_read(struct jifl_process *p, uint64_t ip, const struct jifl_jit_version *v,
		     const uint8_t *buf, size_t n)
{
	struct jifl_jit_read *r;

	if (jifl_array_room(p->reads, p->nr_reads, p->cap_reads))
		return;
	r = &p->reads[p->nr_reads++];
	r->ip = ip;
	r->v = v;
	r->size = n < sizeof(r->raw) ? n : sizeof(r->raw);
	memcpy(r->raw, buf, r->size);
}

/* libipt reads code it has no section for here: JIT pages. */
static int read_jit(uint8_t *buf, size_t size, const struct pt_asid *asid,
		    uint64_t ip, void *ctx)
{
	struct jifl_process *p = ctx;
	const struct jifl_jit_version *v, *rest;
	uint64_t tsc, off = ip & ~PAGE_MASK;
	size_t n;
	int more, err;

	(void)asid;
	if (!p->jit || !p->dec)
		return -pte_nomap;
	/* No TSC seen yet leaves @tsc zero: only a version from time 0 fits. */
	tsc = p->time(p->dec);
	err = choose(p, ip, tsc, &v);
	if (err)
		return err;
	if (!v)
		return -pte_nomap;
	n = FLOWJIT_PAGE_SIZE - off < size ? FLOWJIT_PAGE_SIZE - off : size;
	memcpy(buf, v->bytes + off, n);
	/* An instruction across the page end: the next page as of @tsc. */
	if (n < size) {
		more = jifl_jit_image_read(p->jit, p->pid, ip + n, tsc, buf + n, size - n,
					   &rest);
		n += more > 0 ? more : 0;
	}
	p->last_ip = ip;
	p->last_ver = v;
	if (p->log_reads)
		log_read(p, ip, v, buf, n);
	return n;
}

int jifl_process_new(struct jifl_process **pp, uint32_t pid,
		     const struct jifl_jit_image *jit)
{
	struct jifl_process *p = calloc(1, sizeof(*p));
	int err;

	if (!p)
		return -jifl_err_nomem;
	p->pid = pid;
	p->jit = jit;
	p->image = pt_image_alloc(NULL);
	err = jifl_symtab_new(&p->syms);
	if (!p->image || err) {
		jifl_process_free(p);
		return -jifl_err_nomem;
	}
	pt_image_set_callback(p->image, read_jit, p);
	*pp = p;
	return 0;
}

void jifl_process_free(struct jifl_process *p)
{
	if (!p)
		return;
	pt_image_free(p->image);
	jifl_symtab_free(p->syms);
	free(p->reads);
	free(p->files);
	free(p->jit_secs);
	free(p->jit_pages);
	free(p->by_isid);
	jifl_walk_cache_free(p->walks);
	free(p);
}

int jifl_process_add_file(struct jifl_process *p, struct pt_image_section_cache *isc,
			  const char *path, uint64_t offset, uint64_t size,
			  uint64_t addr)
{
	int fd, isid;

	/* Say why a file is missing with errno, not libipt's "bad file". */
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return jifl_err_errno(errno);
	close(fd);
	if (jifl_array_room(p->files, p->nr_files, p->cap_files))
		return -jifl_err_nomem;
	isid = pt_iscache_add_file(isc, path, offset, size, addr);
	if (isid < 0 || pt_image_add_cached(p->image, isc, isid, NULL) < 0)
		return -jifl_err_format;
	p->files[p->nr_files++] = (struct jifl_file_range){ addr, size };
	p->isc = isc;
	/* Symbols are a convenience: a file without them still decodes. */
	jifl_symtab_add_elf(p->syms, path, addr, size, offset);
	return 0;
}

int jifl_process_add_map(struct jifl_process *p, struct pt_image_section_cache *isc,
			 const struct jifl_perf_mmap2 *m)
{
	const char *f = m->filename;

	if (!(m->prot & PROT_EXEC) || f[0] != '/' || !strcmp(f, "//anon"))
		return 1;
	/*
	 * A shared mapping's code changes when its file is written through
	 * another mapping (a double-mapped JIT's read-write view) or by
	 * write(2): with FlowJIT's snapshots, they are its code.
	 */
	if (p->jit && (m->flags & MAP_SHARED))
		return 1;
	return jifl_process_add_file(p, isc, f, m->pgoff, m->len, m->addr);
}

/* Is @page code of a file of @p's? */
static int in_file(const struct jifl_process *p, uint64_t page)
{
	size_t i;

	for (i = 0; i < p->nr_files; i++)
		if (page + FLOWJIT_PAGE_SIZE > p->files[i].addr &&
		    page < p->files[i].addr + p->files[i].size)
			return 1;
	return 0;
}

/* Pages of one run of adjacent ones, in the file and in memory. */
static size_t run_length(const struct jifl_process *p, const struct jifl_jit_file *f,
			 size_t i)
{
	size_t n = 1;

	while (i + n < f->n && f->pages[i + n].pid == p->pid &&
	       f->pages[i + n].page == f->pages[i].page + n * FLOWJIT_PAGE_SIZE &&
	       !in_file(p, f->pages[i + n].page))
		n++;
	return n;
}

static int by_start(const void *a, const void *b)
{
	const struct jifl_jit_section *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->page < y->page ? -1 : x->page > y->page;
}

/*
 * The runs of @p's pages in @f (none inside a file's code) into p->jit_secs,
 * each page's version into p->jit_pages. A run maps from the time its
 * last page started on.
 */
static int make_runs(struct jifl_process *p, const struct jifl_jit_file *f)
{
	size_t first = jifl_jit_file_first(f, p->pid), i, j, n, len;
	struct jifl_jit_section *s;
	const struct jifl_jit_version *v;

	for (n = 0; first + n < f->n && f->pages[first + n].pid == p->pid; n++)
		;
	if (!n)
		return 0;
	p->jit_pages = calloc(n, sizeof(*p->jit_pages));
	p->jit_secs = calloc(n, sizeof(*p->jit_secs));
	if (!p->jit_pages || !p->jit_secs)
		return -jifl_err_nomem;
	for (i = first; i < first + n; i += len) {
		len = 1;
		if (in_file(p, f->pages[i].page))
			continue;
		len = run_length(p, f, i);
		s = &p->jit_secs[p->nr_jit_secs++];
		*s = (struct jifl_jit_section){
			.page = f->pages[i].page,
			.offset = i * FLOWJIT_PAGE_SIZE,
			.n = len,
			.v = &p->jit_pages[i - first],
		};
		for (j = 0; j < len; j++) {
			v = jifl_jit_image_last(p->jit, p->pid, s->page + j * FLOWJIT_PAGE_SIZE,
						UINT64_MAX);
			if (!v || !jifl_jit_version_is_last(p->jit, v))
				return -jifl_err_internal;
			s->v[j] = v;
			s->start = v->start > s->start ? v->start : s->start;
		}
	}
	qsort(p->jit_secs, p->nr_jit_secs, sizeof(*p->jit_secs), by_start);
	return 0;
}

int jifl_process_add_jit(struct jifl_process *p, struct pt_image_section_cache *isc,
			 const struct jifl_jit_file *f)
{
	int err = p->jit ? make_runs(p, f) : 0, lo = INT_MAX, hi = 0;
	struct jifl_jit_section *s;
	size_t i;

	if (p->nr_jit_secs > MAX_JIT_SECTIONS)
		p->nr_jit_secs = MAX_JIT_SECTIONS;
	/* Pages libipt takes no more of stay with the read callback. */
	for (i = 0; !err && i < p->nr_jit_secs; i++) {
		s = &p->jit_secs[i];
		s->isid = pt_iscache_add_file(isc, f->path, s->offset, s->n * FLOWJIT_PAGE_SIZE,
					      s->page);
		if (s->isid <= 0)
			break;
		lo = s->isid < lo ? s->isid : lo;
		hi = s->isid > hi ? s->isid : hi;
	}
	if (!err)
		p->nr_jit_secs = i;
	if (!err && p->nr_jit_secs) {
		p->by_isid = calloc(hi - lo + 1, sizeof(*p->by_isid));
		err = p->by_isid ? 0 : -jifl_err_nomem;
	}
	if (err || !p->nr_jit_secs)
		return err;
	for (i = 0; i < p->nr_jit_secs; i++)
		p->by_isid[p->jit_secs[i].isid - lo] = &p->jit_secs[i];
	p->isid_lo = lo;
	p->isid_hi = hi;
	p->jit_path = f->path;
	p->isc = isc;
	return 0;
}

void jifl_process_jit_sync_slow(struct jifl_process *p, uint64_t tsc)
{
	struct jifl_jit_section *s = p->jit_secs;

	if (p->jit_mapped && s[p->jit_mapped - 1].start > tsc) {
		pt_image_remove_by_filename(p->image, p->jit_path, NULL);
		p->jit_mapped = 0;
	}
	/* One that fails to map leaves its pages to the read callback, which reads the same. */
	for (; p->jit_mapped < p->nr_jit_secs && s[p->jit_mapped].start <= tsc; p->jit_mapped++)
		pt_image_add_cached(p->image, p->isc, s[p->jit_mapped].isid, NULL);
}

void jifl_process_attach(struct jifl_process *p, void *dec, jifl_decoder_time_fn time,
			 const struct jifl_tsc_index *tscs,
			 struct jifl_adopted_table *adopted, int log_reads)
{
	p->dec = dec;
	p->time = time;
	p->tscs = tscs;
	p->adopted = adopted;
	p->log_reads = log_reads;
	jifl_process_reads_reset(p);
	jifl_process_jit_sync(p);
}

const struct jifl_jit_version *jifl_process_jit_version(const struct jifl_process *p,
							 uint64_t ip, int isid)
{
	if (isid)
		return jifl_process_jit_section(p, isid, ip);
	if (!p->last_ver || p->last_ip != ip)
		return NULL;
	return p->last_ver;
}
