/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A decoding session: the perf.data trace, the FlowJIT data of the same
 * run (optional), one process image per traced process, its threads,
 * and per CPU which thread ran where when; its queues (a thread's trace
 * each, or a CPU's) decoded together in time order. Nothing here
 * prints: problems come back as text.
 */
#ifndef JIFL_DECODE_SESSION_H
#define JIFL_DECODE_SESSION_H

#include <stddef.h>

#include "decoder.h"

struct jifl_session;

/*
 * Open @perf_path and, unless NULL, @fj_path; check that they belong to
 * the same run. The vDSO's image comes from perf's build-id cache
 * @buildid_dir (NULL: $PERF_BUILDID_DIR, else ~/.debug). Returns 0, or a
 * negative jifl_error_code with a message in @msg (it names the file
 * and, for format errors, the offset).
 */
int jifl_session_open(struct jifl_session **sp, const char *perf_path,
		      const char *fj_path, const char *buildid_dir, char *msg, size_t len);

/*
 * Raw mode: a PT file without perf.data, recorded on the processor @pt
 * describes (ptconfig.h; its begin and end unused); memory from files
 * given later.
 */
int jifl_session_open_raw(struct jifl_session **sp, const char *pt_path,
			  const struct pt_config *pt, char *msg, size_t len);

/*
 * Raw mode memory, as ptxed's --elf and --raw: an ELF file's loadable
 * segments (jifl_rawmem_add_elf()), or bytes @from to @to of a file at
 * @base (jifl_rawmem_add_raw()).
 */
int jifl_session_add_elf(struct jifl_session *s, const char *path, uint64_t base,
			 char *msg, size_t len);
int jifl_session_add_raw(struct jifl_session *s, const char *path, uint64_t from,
			 uint64_t to, uint64_t base, char *msg, size_t len);

/* Warnings found while opening (missing binaries, lost FlowJIT records). */
/* The perf.data's header and counts of lost data; NULL in raw mode. */
const struct jifl_perf_info *jifl_session_perf_info(const struct jifl_session *s);

size_t jifl_session_nr_warnings(const struct jifl_session *s);
const char *jifl_session_warning(const struct jifl_session *s, size_t i);

/* Bytes of trace data in the session. */
size_t jifl_session_trace_size(const struct jifl_session *s);

/*
 * The command name of thread @tid of process @pid at perf time @time: the
 * thread's COMM record, else its process's (a new thread inherits it);
 * "" if unknown.
 */
const char *jifl_session_comm(const struct jifl_session *s, uint32_t pid, uint32_t tid,
			      uint64_t time);

/*
 * The file mapped at @ip in process @pid at perf time @time, as its
 * MMAP2 record names it ("//anon" for anonymous memory); NULL if none
 * (and in raw mode).
 */
const char *jifl_session_dso(const struct jifl_session *s, uint32_t pid, uint64_t ip,
			     uint64_t time);

void jifl_session_close(struct jifl_session *s);

/* For decoding a session's queues (session_decode.c, parallel.c). */

size_t jifl_session_nr_queues(const struct jifl_session *s);

/* perf time from TSC; NULL in raw mode. */
const struct jifl_tsc_conv *jifl_session_tsc_conv(const struct jifl_session *s);

struct jifl_run_source;

/*
 * The decoder of queue @i, with @s's threads and processes, as @cfg says
 * (cfg->pt: the session's processor); @src (filled in) and @cfg are kept
 * by reference. Returns 0 or -jifl_err_nomem.
 */
int jifl_session_queue_decoder(struct jifl_session *s, size_t i, struct jifl_run_source *src,
			       const struct jifl_decode_config *cfg, struct jifl_qdec **qd);

/* The processor of @s, as decoders need it. */
const struct pt_config *jifl_session_pt(const struct jifl_session *s);

/*
 * The same files opened again (not in raw mode): a session of its own
 * for another thread, whose sections are @s's (one image section cache);
 * closed before @s. Returns 0 or a negative jifl_error_code.
 */
int jifl_session_reopen(const struct jifl_session *s, struct jifl_session **copy);

/* Thread @tid of process @pid (made the first time; NULL: out of memory). */
struct jifl_thread *jifl_session_thread(struct jifl_session *s, uint32_t pid, uint32_t tid);

/* Process @pid, or NULL when the trace has none of it. */
struct jifl_process *jifl_session_process(struct jifl_session *s, uint32_t pid);

#endif /* JIFL_DECODE_SESSION_H */
