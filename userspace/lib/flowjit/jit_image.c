// SPDX-License-Identifier: GPL-2.0
/*
 * Versioned JIT image: an open-addressing hash table of (pid, page), each
 * entry holding the page's versions in order of their start TSC.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "common/array.h"
#include "common/errcode.h"
#include "jit_image.h"

#define PAGE_MASK	(~(uint64_t)(FLOWJIT_PAGE_SIZE - 1))

struct page_entry {
	int used;			/* page 0 is a page like any other */
	uint32_t pid;
	uint64_t page;
	struct jifl_jit_version *v;	/* by start TSC */
	size_t nr, cap;
};

struct jifl_jit_image {
	struct page_entry *tab;
	size_t size, used;		/* size is a power of two */
	struct jifl_jit_image_stats st;
};

static size_t hash(uint32_t pid, uint64_t page)
{
	uint64_t h = (page >> 12) * 0x9e3779b97f4a7c15ull ^ pid * 0xff51afd7ed558ccdull;

	return h ^ (h >> 29);
}

static struct page_entry *lookup(const struct jifl_jit_image *img, uint32_t pid,
				 uint64_t page)
{
	size_t i;

	if (!img->size)
		return NULL;
	for (i = hash(pid, page) & (img->size - 1);; i = (i + 1) & (img->size - 1)) {
		struct page_entry *e = &img->tab[i];

		if (!e->used)
			return NULL;
		if (e->page == page && e->pid == pid)
			return e;
	}
}

static int grow(struct jifl_jit_image *img)
{
	size_t size = img->size ? 2 * img->size : 1024, i, j;
	struct page_entry *tab = calloc(size, sizeof(*tab));

	if (!tab)
		return -jifl_err_nomem;
	for (i = 0; i < img->size; i++) {
		struct page_entry *e = &img->tab[i];

		if (!e->used)
			continue;
		for (j = hash(e->pid, e->page) & (size - 1); tab[j].used; j = (j + 1) & (size - 1))
			;
		tab[j] = *e;
	}
	free(img->tab);
	img->tab = tab;
	img->size = size;
	return 0;
}

static struct page_entry *insert(struct jifl_jit_image *img, uint32_t pid,
				 uint64_t page)
{
	struct page_entry *e = lookup(img, pid, page);
	size_t i;

	if (e)
		return e;
	if (2 * (img->used + 1) > img->size && grow(img))
		return NULL;
	for (i = hash(pid, page) & (img->size - 1); img->tab[i].used;
	     i = (i + 1) & (img->size - 1))
		;
	e = &img->tab[i];
	e->used = 1;
	e->pid = pid;
	e->page = page;
	img->used++;
	img->st.pages++;
	return e;
}

int jifl_jit_image_new(struct jifl_jit_image **imgp)
{
	*imgp = calloc(1, sizeof(**imgp));
	return *imgp ? 0 : -jifl_err_nomem;
}

void jifl_jit_image_free(struct jifl_jit_image *img)
{
	size_t i, j;

	if (!img)
		return;
	for (i = 0; i < img->size; i++) {
		for (j = 0; j < img->tab[i].nr; j++)
			free((void *)img->tab[i].v[j].bytes);
		free(img->tab[i].v);
	}
	free(img->tab);
	free(img);
}

/* Start a version of @page at @tsc with a copy of @bytes. */
static int add_version(struct jifl_jit_image *img, uint32_t pid, uint64_t page,
		       uint64_t tsc, uint64_t ip, const void *bytes)
{
	struct page_entry *e = insert(img, pid, page);
	struct jifl_jit_version *v;
	uint8_t *copy;
	size_t pos;

	if (!e)
		return -jifl_err_nomem;
	if (jifl_array_room(e->v, e->nr, e->cap))
		return -jifl_err_nomem;
	copy = malloc(FLOWJIT_PAGE_SIZE);
	if (!copy)
		return -jifl_err_nomem;
	memcpy(copy, bytes, FLOWJIT_PAGE_SIZE);
	/* Records of different CPUs may come slightly out of TSC order. */
	for (pos = e->nr; pos && e->v[pos - 1].start > tsc; pos--)
		;
	memmove(&e->v[pos + 1], &e->v[pos], (e->nr - pos) * sizeof(*e->v));
	if (pos && e->v[pos - 1].end > tsc)
		e->v[pos - 1].end = tsc;
	v = &e->v[pos];
	v->pid = pid;
	v->page = page;
	v->start = tsc;
	v->end = pos < e->nr ? e->v[pos + 1].start : JIFL_JIT_NO_END;
	v->exec_ip = ip;
	v->bytes = copy;
	e->nr++;
	for (; pos < e->nr; pos++)
		e->v[pos].number = pos + 1;
	img->st.versions++;
	return 0;
}

static void end_entry(struct page_entry *e, uint64_t tsc)
{
	struct jifl_jit_version *last = e->nr ? &e->v[e->nr - 1] : NULL;

	if (last && last->end == JIFL_JIT_NO_END && last->start <= tsc)
		last->end = tsc;
}

/* End the live versions of @pid's pages in [addr, addr + len). */
static void end_range(struct jifl_jit_image *img, uint32_t pid, uint64_t addr,
		      uint64_t len, uint64_t tsc)
{
	uint64_t first = addr & PAGE_MASK, last = addr + len;
	size_t i;

	for (i = 0; i < img->size; i++) {
		struct page_entry *e = &img->tab[i];

		if (e->used && e->pid == pid && e->page >= first && e->page < last)
			end_entry(e, tsc);
	}
}

/* A live version, copied out of the table that add_version() may grow. */
struct live {
	uint64_t page, ip;
	const uint8_t *bytes;
};

/*
 * The versions of @pid's pages in [first, first + len) live at the end of
 * the records so far, into *@m (NULL if none); how many, or -errno.
 */
static ssize_t live_versions(const struct jifl_jit_image *img, uint32_t pid, uint64_t first,
			     uint64_t len, struct live **m)
{
	size_t i, n = 0;

	*m = NULL;
	if (!img->used)
		return 0;
	*m = malloc(img->used * sizeof(**m));
	if (!*m)
		return -jifl_err_nomem;
	for (i = 0; i < img->size; i++) {
		const struct page_entry *e = &img->tab[i];
		const struct jifl_jit_version *v = e->nr ? &e->v[e->nr - 1] : NULL;

		if (e->used && e->pid == pid && e->page >= first && e->page - first < len &&
		    v && v->end == JIFL_JIT_NO_END)
			(*m)[n++] = (struct live){ e->page, v->exec_ip, v->bytes };
	}
	return n;
}

/*
 * The pages of [old, old + len) now live at [addr, addr + len). The table
 * is walked, not the range: a move can span terabytes of reserved address
 * space. Every old version ends before a new one starts, since the two
 * ranges may overlap.
 */
static int move_range(struct jifl_jit_image *img, uint32_t pid, uint64_t old,
		      uint64_t addr, uint64_t len, uint64_t tsc)
{
	uint64_t first = old & PAGE_MASK;
	struct live *m;
	ssize_t i, n = live_versions(img, pid, first, len, &m);
	int err = n < 0 ? n : 0;

	for (i = 0; i < n; i++)
		end_entry(lookup(img, pid, m[i].page), tsc);
	for (i = 0; i < n && !err; i++)
		err = add_version(img, pid, (addr + (m[i].page - first)) & PAGE_MASK, tsc,
				  m[i].ip, m[i].bytes);
	free(m);
	return err;
}

/*
 * Process @child, a tracked copy of @parent (FLOWJIT_F_INHERIT), starts
 * at @tsc with the code its parent had then: the pages executable in the
 * parent are executable in the copy, and run there without a fault, so
 * without a snapshot of the child's own until it writes them.
 */
static int fork_image(struct jifl_jit_image *img, uint32_t parent, uint32_t child,
		      uint64_t tsc)
{
	struct live *m;
	ssize_t i, n = live_versions(img, parent, 0, UINT64_MAX, &m);
	int err = n < 0 ? n : 0;

	for (i = 0; i < n && !err; i++)
		err = add_version(img, child, m[i].page, tsc, m[i].ip, m[i].bytes);
	free(m);
	return err;
}

int jifl_jit_image_add_event(struct jifl_jit_image *img,
			     const struct flowjit_event *ev, const void *page)
{
	struct page_entry *e;

	switch (ev->type) {
	case FLOWJIT_EV_EXEC:
		if (!page) {
			/* bytes not known (no struct page: DAX): the last version ends */
			img->st.no_payload++;
			e = lookup(img, ev->pid, ev->addr & PAGE_MASK);
			if (e && ev->tsc)
				end_entry(e, ev->tsc - 1);
			return 0;
		}
		img->st.pinned += !!(ev->flags & FLOWJIT_EVF_PINNED);
		return add_version(img, ev->pid, ev->addr & PAGE_MASK, ev->tsc, ev->ip, page);
	case FLOWJIT_EV_WRITE:
		e = lookup(img, ev->pid, ev->addr & PAGE_MASK);
		if (e)
			end_entry(e, ev->tsc);
		return 0;
	case FLOWJIT_EV_MPROTECT:
		if (!(ev->aux & PROT_EXEC))
			end_range(img, ev->pid, ev->addr, ev->len, ev->tsc);
		return 0;
	case FLOWJIT_EV_MUNMAP:
		end_range(img, ev->pid, ev->addr, ev->len, ev->tsc);
		return 0;
	case FLOWJIT_EV_MREMAP:
		return move_range(img, ev->pid, ev->aux, ev->addr, ev->len, ev->tsc);
	case FLOWJIT_EV_FORK:
		return fork_image(img, ev->aux, ev->pid, ev->tsc);
	case FLOWJIT_EV_EXECVE:
		end_range(img, ev->pid, 0, UINT64_MAX, ev->tsc);
		return 0;
	case FLOWJIT_EV_LOST:
		img->st.lost += ev->aux;
		return 0;
	}
	return 0;
}

const struct jifl_jit_version *jifl_jit_image_last(const struct jifl_jit_image *img,
						   uint32_t pid, uint64_t addr,
						   uint64_t tsc)
{
	const struct page_entry *e = lookup(img, pid, addr & PAGE_MASK);
	size_t lo = 0, hi, mid;

	if (!e)
		return NULL;
	/* The last version that started at or before @tsc. */
	hi = e->nr;
	while (lo < hi) {
		mid = (lo + hi) / 2;
		if (e->v[mid].start <= tsc)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? &e->v[lo - 1] : NULL;
}

const struct jifl_jit_version *jifl_jit_image_find(const struct jifl_jit_image *img,
						   uint32_t pid, uint64_t addr,
						   uint64_t tsc)
{
	const struct jifl_jit_version *v = jifl_jit_image_last(img, pid, addr, tsc);

	return v && jifl_jit_version_live(v, tsc) ? v : NULL;
}

const struct jifl_jit_version *jifl_jit_image_next(const struct jifl_jit_image *img,
						   uint32_t pid, uint64_t addr,
						   const struct jifl_jit_version *v)
{
	const struct page_entry *e = lookup(img, pid, addr & PAGE_MASK);
	size_t i = v ? v->number : 0;

	return e && i < e->nr ? &e->v[i] : NULL;
}

int jifl_jit_image_read(const struct jifl_jit_image *img, uint32_t pid,
			uint64_t addr, uint64_t tsc, void *buf, size_t size,
			const struct jifl_jit_version **ver)
{
	const struct jifl_jit_version *v = jifl_jit_image_find(img, pid, addr, tsc);
	size_t done = 0, n;

	if (!v)
		return -jifl_err_nomap;
	*ver = v;
	while (v && done < size) {
		uint64_t off = (addr + done) & ~PAGE_MASK;

		n = FLOWJIT_PAGE_SIZE - off;
		if (n > size - done)
			n = size - done;
		memcpy((uint8_t *)buf + done, v->bytes + off, n);
		done += n;
		if (done < size)
			v = jifl_jit_image_find(img, pid, addr + done, tsc);
	}
	return done;
}

void jifl_jit_image_stats(const struct jifl_jit_image *img,
			  struct jifl_jit_image_stats *st)
{
	*st = img->st;
}

int jifl_jit_image_for_each(const struct jifl_jit_image *img,
			    int (*fn)(const struct jifl_jit_version *v, void *ctx),
			    void *ctx)
{
	size_t i, j;
	int ret;

	for (i = 0; i < img->size; i++)
		for (j = 0; j < img->tab[i].nr; j++) {
			ret = fn(&img->tab[i].v[j], ctx);
			if (ret)
				return ret;
		}
	return 0;
}
