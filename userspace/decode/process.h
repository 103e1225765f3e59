/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One traced process as the decoder sees it: a libipt image of its
 * file-backed code (sections shared through one image section cache),
 * its function symbols, and its run-time code. A JIT page in its last
 * version (one that no later record replaces or ends) is a section of
 * the FlowJIT file, whose snapshot it is, from the time that version
 * started on: libipt reads it like file code, from its block cache.
 * Other versions are read from the versioned JIT image at the decoder's
 * current time through the image's read callback, which libipt calls
 * for what no section holds (Documentation/decode.rst, "Decoders").
 */
#ifndef JIFL_DECODE_PROCESS_H
#define JIFL_DECODE_PROCESS_H

#include <stdint.h>
#include <intel-pt.h>

#include "adopted.h"
#include "jit_file.h"
#include "flowjit/jit_image.h"
#include "perf/perf_data.h"
#include "common/symtab.h"
#include "tsc_index.h"

/* One read of JIT memory by the decoder: an instruction's bytes. */
struct jifl_jit_read {
	uint64_t ip;
	const struct jifl_jit_version *v;
	uint8_t raw[pt_max_insn_size];
	uint8_t size;
};

/* The decoder's time (its last TSC); libipt has one such call per decoder. */
typedef uint64_t (*jifl_decoder_time_fn)(void *dec);

struct jifl_walk_cache;

/* Code of a file, which a JIT section never covers: the file's comes first. */
struct jifl_file_range {
	uint64_t addr, size;
};

/* Adjacent JIT pages in their last version: a section of the JIT file. */
struct jifl_jit_section {
	uint64_t page, offset;		/* the first one's address, its file offset */
	size_t n;			/* pages */
	uint64_t start;			/* when the last of them started */
	const struct jifl_jit_version **v;	/* each page's */
	int isid;
};

struct jifl_process {
	uint32_t pid;
	struct pt_image *image;
	struct pt_image_section_cache *isc;	/* of the image's sections */
	struct jifl_walk_cache *walks;		/* the block decoder's, or NULL */
	struct jifl_symtab *syms;
	const struct jifl_jit_image *jit;	/* NULL without FlowJIT data */
	void *dec;				/* the decoder using the image now */
	jifl_decoder_time_fn time;		/* its time */
	const struct jifl_tsc_index *tscs;	/* the TSC packets of its trace */
	/* Versions their EXEC record's IP placed ahead of the TSC; the thread's. */
	struct jifl_adopted_table *adopted;
	/* What the read callback returned last. */
	uint64_t last_ip;
	const struct jifl_jit_version *last_ver;
	/* Every read since jifl_process_reads_reset(), if logging them. */
	struct jifl_jit_read *reads;
	size_t nr_reads, cap_reads;
	int log_reads;
	struct jifl_file_range *files;	/* what add_file() mapped */
	size_t nr_files, cap_files;
	/* By start time; the first jit_mapped of them are in the image. */
	const char *jit_path;
	struct jifl_jit_section *jit_secs;
	size_t nr_jit_secs, jit_mapped;
	const struct jifl_jit_version **jit_pages;	/* the sections' v */
	/* The JIT section isid, at [isid - isid_lo]; NULL: a file's. */
	const struct jifl_jit_section **by_isid;
	int isid_lo, isid_hi;
};

int jifl_process_new(struct jifl_process **pp, uint32_t pid,
		     const struct jifl_jit_image *jit);
void jifl_process_free(struct jifl_process *p);

/*
 * Map the code of @m (an executable file mapping) into @p. Returns 0,
 * 1 when @m names no file (anonymous memory, [vdso], ...) or is a shared
 * mapping whose code comes from FlowJIT's snapshots, or a negative
 * jifl_error_code: a system error (the file cannot be opened),
 * -jifl_err_format (libipt or libelf refused it), -jifl_err_nomem.
 */
int jifl_process_add_map(struct jifl_process *p, struct pt_image_section_cache *isc,
			 const struct jifl_perf_mmap2 *m);

/* Map @size bytes of @path at file offset @offset to @addr (raw mode). */
int jifl_process_add_file(struct jifl_process *p, struct pt_image_section_cache *isc,
			  const char *path, uint64_t offset, uint64_t size,
			  uint64_t addr);

/*
 * Make the JIT pages of @p in their last version sections of @f into
 * @isc, a run of adjacent ones one section; the image maps each from
 * the time its last page started on (jifl_process_jit_sync()). Returns 0
 * or -jifl_err_nomem.
 */
int jifl_process_add_jit(struct jifl_process *p, struct pt_image_section_cache *isc,
			 const struct jifl_jit_file *f);

void jifl_process_jit_sync_slow(struct jifl_process *p, uint64_t tsc);

/*
 * Bring the JIT sections of @p's image to its decoder's time, before the
 * decoder goes on: exactly those that started by then are mapped (one
 * that started later is taken out when another thread's decoder, behind
 * in time, takes the image). Time only grows within a decoder call, and
 * a last version stays: what the read callback would choose for its
 * page at any time from its start on (Documentation/decode.rst).
 */
static inline void jifl_process_jit_sync(struct jifl_process *p)
{
	size_t n = p->jit_mapped;
	uint64_t tsc;

	if (!p->nr_jit_secs || !p->dec)
		return;
	tsc = p->time(p->dec);
	if ((n && p->jit_secs[n - 1].start > tsc) ||
	    (n < p->nr_jit_secs && p->jit_secs[n].start <= tsc))
		jifl_process_jit_sync_slow(p, tsc);
}

/* The JIT version at @ip of section @isid, or NULL (a file's, or none). */
static inline const struct jifl_jit_version *
jifl_process_jit_section(const struct jifl_process *p, int isid, uint64_t ip)
{
	const struct jifl_jit_section *s;

	if (isid < p->isid_lo || isid > p->isid_hi || !p->by_isid)
		return NULL;
	s = p->by_isid[isid - p->isid_lo];
	return s ? s->v[(ip - s->page) / FLOWJIT_PAGE_SIZE] : NULL;
}

/*
 * Decode on in @p with @dec, whose time @time gives and whose TSC
 * packets are @tscs, for the thread whose versions chosen ahead of time
 * are @adopted; NULL, NULL, NULL, NULL when it ends. With @log_reads,
 * every read of JIT memory is kept until jifl_process_reads_reset() (the
 * block decoder reads a whole block before handing it out).
 */
void jifl_process_attach(struct jifl_process *p, void *dec, jifl_decoder_time_fn time,
			 const struct jifl_tsc_index *tscs,
			 struct jifl_adopted_table *adopted, int log_reads);

static inline void jifl_process_reads_reset(struct jifl_process *p)
{
	p->last_ver = NULL;
	p->nr_reads = 0;
}

/*
 * The JIT version the instruction at @ip of section @isid was read from:
 * that of a JIT section, or, for 0, of the last read of JIT memory if it
 * was of @ip; else NULL.
 */
const struct jifl_jit_version *jifl_process_jit_version(const struct jifl_process *p,
							 uint64_t ip, int isid);

#endif /* JIFL_DECODE_PROCESS_H */
