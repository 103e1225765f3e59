/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One traced process as the decoder sees it: a libipt image of its
 * file-backed code (sections shared through one image section cache),
 * its function symbols, and its run-time code, read from the versioned
 * JIT image at the decoder's current time through the image's read
 * callback.
 */
#ifndef JIFL_DECODE_PROCESS_H
#define JIFL_DECODE_PROCESS_H

#include <stdint.h>
#include <intel-pt.h>

#include "jit_image.h"
#include "perf_data.h"
#include "symtab.h"
#include "tsc_index.h"

#define JIFL_ADOPTED	64	/* pages with a version chosen ahead of time */

/* A JIT page version that its EXEC record's IP placed ahead of the TSC. */
struct jifl_adopted {
	uint64_t page;
	const struct jifl_jit_version *v;
};

struct jifl_process {
	uint32_t pid;
	struct pt_image *image;
	struct jifl_symtab *syms;
	const struct jifl_jit_image *jit;	/* NULL without FlowJIT data */
	struct pt_insn_decoder *dec;		/* the decoder using the image now */
	const struct jifl_tsc_index *tscs;	/* the TSC packets of its trace */
	struct jifl_adopted adopted[JIFL_ADOPTED];	/* by page hash; per thread */
	/* What the read callback returned last. */
	uint64_t last_ip;
	const struct jifl_jit_version *last_ver;
};

int jifl_process_new(struct jifl_process **pp, uint32_t pid,
		     const struct jifl_jit_image *jit);
void jifl_process_free(struct jifl_process *p);

/*
 * Map the code of @m (an executable file mapping) into @p. Returns 0,
 * 1 when @m names no file (anonymous memory, [vdso], ...), or a negative
 * jifl_error_code: -jifl_err_io (the file cannot be opened; errno),
 * -jifl_err_format (libipt or libelf refused it), -jifl_err_nomem.
 */
int jifl_process_add_map(struct jifl_process *p, struct pt_image_section_cache *isc,
			 const struct jifl_perf_mmap2 *m);

/* Map @size bytes of @path at file offset @offset to @addr (raw mode). */
int jifl_process_add_file(struct jifl_process *p, struct pt_image_section_cache *isc,
			  const char *path, uint64_t offset, uint64_t size,
			  uint64_t addr);

/*
 * Start decoding a thread's trace (@dec, whose TSC packets are @tscs) in
 * @p; NULL, NULL when it ends. Forgets the versions chosen ahead of time.
 */
void jifl_process_attach(struct jifl_process *p, struct pt_insn_decoder *dec,
			 const struct jifl_tsc_index *tscs);

/*
 * The JIT version the instruction at @ip was read from, when the last
 * read of the image was of @ip from JIT memory; else NULL.
 */
const struct jifl_jit_version *jifl_process_jit_version(const struct jifl_process *p,
							 uint64_t ip, int isid);

#endif /* JIFL_DECODE_PROCESS_H */
