// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "common/array.h"
#include "common/errcode.h"
#include "jit_file.h"

int jifl_jit_version_is_last(const struct jifl_jit_image *img,
			     const struct jifl_jit_version *v)
{
	return v->end == JIFL_JIT_NO_END && !jifl_jit_image_next(img, v->pid, v->page, v);
}

struct collect {
	const struct jifl_jit_image *img;
	const struct jifl_jit_version **v;
	size_t n, cap;
};

static int collect(const struct jifl_jit_version *v, void *ctx)
{
	struct collect *c = ctx;
	int err;

	if (!jifl_jit_version_is_last(c->img, v))
		return 0;
	err = jifl_array_room(c->v, c->n, c->cap);
	if (err)
		return err;
	c->v[c->n++] = v;
	return 0;
}

static int by_address(const void *a, const void *b)
{
	const struct jifl_jit_version *x = *(const struct jifl_jit_version *const *)a;
	const struct jifl_jit_version *y = *(const struct jifl_jit_version *const *)b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return x->page < y->page ? -1 : x->page > y->page;
}

/* All of @n bytes at @buf to @fd. */
static int write_all(int fd, const uint8_t *buf, size_t n)
{
	ssize_t done;

	for (; n; buf += done, n -= done) {
		done = write(fd, buf, n);
		if (done < 0 && errno != EINTR)
			return jifl_err_errno(errno);
		done = done < 0 ? 0 : done;
	}
	return 0;
}

int jifl_jit_file_new(struct jifl_jit_file **fp, const struct jifl_jit_image *img)
{
	struct collect c = { .img = img };
	struct jifl_jit_file *f = calloc(1, sizeof(*f));
	size_t i;
	int err;

	if (!f)
		return -jifl_err_nomem;
	f->fd = -1;
	err = jifl_jit_image_for_each(img, collect, &c);
	if (!err && c.n) {
		qsort(c.v, c.n, sizeof(*c.v), by_address);
		f->pages = malloc(c.n * sizeof(*f->pages));
		err = f->pages ? 0 : -jifl_err_nomem;
	}
	if (!err && c.n) {
		f->fd = memfd_create("jifl-jit", MFD_CLOEXEC);
		err = f->fd < 0 ? jifl_err_errno(errno) : 0;
	}
	for (i = 0; !err && i < c.n; i++) {
		f->pages[i] = (struct jifl_jit_file_page){ c.v[i]->pid, c.v[i]->page };
		err = write_all(f->fd, c.v[i]->bytes, FLOWJIT_PAGE_SIZE);
	}
	free(c.v);
	if (err) {
		jifl_jit_file_free(f);
		return err;
	}
	f->n = c.n;
	snprintf(f->path, sizeof(f->path), "/proc/self/fd/%d", f->fd);
	*fp = f;
	return 0;
}

void jifl_jit_file_free(struct jifl_jit_file *f)
{
	if (!f)
		return;
	if (f->fd >= 0)
		close(f->fd);
	free(f->pages);
	free(f);
}

size_t jifl_jit_file_first(const struct jifl_jit_file *f, uint32_t pid)
{
	size_t lo = 0, hi = f->n, mid;

	while (lo < hi) {
		mid = (lo + hi) / 2;
		if (f->pages[mid].pid < pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}
