/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The memory image of run-time generated code, versioned by time.
 *
 * Built from FlowJIT records: every EXEC record starts a new version of
 * its page (the 4 KiB snapshot taken when the page became executable);
 * WRITE, MUNMAP, MPROTECT without PROT_EXEC and EXECVE end the live
 * version; MREMAP moves it. A reader then asks for the bytes at an
 * address as they were at a TSC value: it gets the page version that
 * became live last at or before that time. Pages are kept per process.
 */
#ifndef JIFL_JIT_IMAGE_H
#define JIFL_JIT_IMAGE_H

#include <stddef.h>
#include <stdint.h>
#include <linux/flowjit.h>

#define JIFL_JIT_NO_END	UINT64_MAX

struct jifl_jit_image;

struct jifl_jit_version {
	uint32_t pid;
	uint32_t number;	/* 1 for the page's first version, 2, ... */
	uint64_t page;		/* page address */
	uint64_t start;		/* TSC of the EXEC record */
	uint64_t end;		/* TSC of the record that ended it, or JIFL_JIT_NO_END */
	uint64_t exec_ip;	/* the instruction whose fetch made it live */
	const uint8_t *bytes;	/* FLOWJIT_PAGE_SIZE bytes */
};

struct jifl_jit_image_stats {
	uint64_t pages;		/* distinct (pid, page) */
	uint64_t versions;
	uint64_t lost;		/* records the kernel dropped (LOST records) */
	uint64_t no_payload;	/* EXEC records without a snapshot */
	uint64_t pinned;	/* snapshots of pinned pages (FLOWJIT_EVF_PINNED) */
};

int jifl_jit_image_new(struct jifl_jit_image **imgp);
void jifl_jit_image_free(struct jifl_jit_image *img);

/*
 * Apply one FlowJIT record; @page is its payload (EXEC) or NULL.
 * Records must come in the order of the file. Returns 0 or
 * -jifl_err_nomem.
 */
int jifl_jit_image_add_event(struct jifl_jit_image *img,
			     const struct flowjit_event *ev, const void *page);

/* Had @v started at @tsc, and not yet ended? */
static inline int jifl_jit_version_live(const struct jifl_jit_version *v, uint64_t tsc)
{
	return v->start <= tsc && tsc <= v->end;
}

/*
 * The version of the page of @addr in process @pid live at @tsc, or NULL:
 * none had started, or the last one that had ended (WRITE, MUNMAP, ...).
 */
const struct jifl_jit_version *jifl_jit_image_find(const struct jifl_jit_image *img,
						   uint32_t pid, uint64_t addr,
						   uint64_t tsc);

/*
 * The version of the page of @addr in process @pid that started last at
 * or before @tsc, live or ended; NULL when none had started.
 */
const struct jifl_jit_version *jifl_jit_image_last(const struct jifl_jit_image *img,
						   uint32_t pid, uint64_t addr,
						   uint64_t tsc);

/*
 * The version of @v's page that follows @v, or the page's first version
 * of @addr when @v is NULL; NULL when there is none.
 */
const struct jifl_jit_version *jifl_jit_image_next(const struct jifl_jit_image *img,
						   uint32_t pid, uint64_t addr,
						   const struct jifl_jit_version *v);

/*
 * Copy up to @size bytes at @addr of @pid as they were at @tsc into @buf,
 * continuing into following pages while they are known. Returns the
 * number of bytes copied (> 0) and the version of @addr's page in @ver,
 * or -jifl_err_nomap when no version of @addr's page was live at @tsc.
 */
int jifl_jit_image_read(const struct jifl_jit_image *img, uint32_t pid,
			uint64_t addr, uint64_t tsc, void *buf, size_t size,
			const struct jifl_jit_version **ver);

void jifl_jit_image_stats(const struct jifl_jit_image *img,
			  struct jifl_jit_image_stats *st);

/*
 * Call @fn for every version, page by page (in no particular order of
 * pages, in time order within a page); stops at and returns a non-zero
 * return value of @fn.
 */
int jifl_jit_image_for_each(const struct jifl_jit_image *img,
			    int (*fn)(const struct jifl_jit_version *v, void *ctx),
			    void *ctx);

#endif /* JIFL_JIT_IMAGE_H */
