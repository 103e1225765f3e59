/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The JIT pages in their last version, the one no later record replaces
 * or ends, written once into a memory file that libipt maps sections of
 * by name (/proc/self/fd/N; it goes away with the process). A process's
 * pages lie in it in address order, so that adjacent pages make one
 * section, as a code file's do. Read-only once written: the sessions of
 * all -j threads map the same sections from one image section cache.
 */
#ifndef JIFL_DECODE_JIT_FILE_H
#define JIFL_DECODE_JIT_FILE_H

#include <stddef.h>
#include <stdint.h>

#include "flowjit/jit_image.h"

struct jifl_jit_file_page {
	uint32_t pid;
	uint64_t page;
};

struct jifl_jit_file {
	int fd;
	char path[32];
	struct jifl_jit_file_page *pages;	/* by pid and address; page i at i * 4 KiB */
	size_t n;
};

/*
 * Write the last versions of @img's pages. Returns 0, or a negative
 * jifl_error_code: -jifl_err_nomem, a system error (no memory file).
 */
int jifl_jit_file_new(struct jifl_jit_file **fp, const struct jifl_jit_image *img);
void jifl_jit_file_free(struct jifl_jit_file *f);

/*
 * Is @v the last version of its page: no record after its EXEC replaces
 * or ends it?
 */
int jifl_jit_version_is_last(const struct jifl_jit_image *img,
			     const struct jifl_jit_version *v);

/* The index of the first page of @pid in @f (f->n if none). */
size_t jifl_jit_file_first(const struct jifl_jit_file *f, uint32_t pid);

#endif /* JIFL_DECODE_JIT_FILE_H */
