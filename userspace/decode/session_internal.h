/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Inside a decoding session (session.h), for the files that make it up:
 * session.c (opening the files, the queues' decoders, closing),
 * session_procs.c (the traced processes and the code they map) and
 * session_flowjit.c (the FlowJIT data, checked against the trace).
 */
#ifndef JIFL_DECODE_SESSION_INTERNAL_H
#define JIFL_DECODE_SESSION_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "session.h"
#include "vdso.h"

struct jifl_session {
	struct jifl_perf_reader *perf;		/* NULL in raw mode */
	struct jifl_jit_image *jit;		/* NULL without FlowJIT data */
	struct pt_config pt;			/* the processor (ptconfig.h) */
	/* Of every section; one for the sessions jifl_session_reopen() makes. */
	struct pt_image_section_cache *isc;
	int shares_isc;				/* the first session's */
	/* The JIT pages that are sections: the first session's, maybe its own. */
	const struct jifl_jit_file *jit_file;
	struct jifl_jit_file *own_jit_file;
	struct jifl_process **procs;		/* one per traced pid (or the raw one) */
	size_t nr_procs, cap_procs;
	struct jifl_threads *threads;
	struct jifl_cpu_threads *cpus;		/* per CPU: what ran where when */
	uint8_t *raw_pt;			/* raw mode trace */
	size_t raw_size;
	struct jifl_rawmem *rawmem;		/* raw mode memory */
	char buildid_dir[4096];			/* perf's build-id cache */
	char *perf_path, *fj_path;		/* to open it again (parallel.c) */
	struct jifl_vdso vdso;			/* the vDSO's image */
	int vdso_looked;			/* for it, once */
	char **warnings;
	size_t nr_warnings, cap_warnings;
};

/* What printf() would say, into @msg (@len bytes). */
void jifl_session_say(char *msg, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Keep a warning for jifl_session_warning(); without memory, none. */
void jifl_session_warn(struct jifl_session *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* A new process @pid in *@pp. Returns 0 or a negative jifl_error_code. */
int jifl_session_new_process(struct jifl_session *s, uint32_t pid, struct jifl_process **pp);

/*
 * A process for every traced pid, with the code its MMAP2 records name.
 * Returns 0 or -jifl_err_nomem (a file that cannot be read is a warning).
 */
int jifl_session_make_procs(struct jifl_session *s);

/*
 * Read the FlowJIT file @path into the session's JIT image (made), its
 * pages that are sections added to the processes. Returns 0, or a
 * negative jifl_error_code with a message in @msg.
 */
int jifl_session_load_flowjit(struct jifl_session *s, const char *path, char *msg, size_t len);

#endif /* JIFL_DECODE_SESSION_INTERNAL_H */
