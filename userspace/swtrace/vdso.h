/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The vDSO of a traced process, kept as "perf record" keeps it: its
 * build ID in the BUILD_ID feature of the perf.data under the name
 * "[vdso]", its image in the build-id cache (lib/perf/buildid_cache.h), where
 * perf script and jifl-decode look for it.
 */
#ifndef JIFL_SWTRACE_VDSO_H
#define JIFL_SWTRACE_VDSO_H

#include "perf/perf_writer.h"

#define JIFL_VDSO_NAME	"[vdso]"

/*
 * Read the vDSO that @m maps in process @pid, name its build ID in @w,
 * and put it into the cache @cache_dir unless that is NULL. Returns 0,
 * a system error (errcode.h), -jifl_err_format (no ELF image with a build
 * ID), -jifl_err_invalid (a path too long), -jifl_err_nomem.
 */
int jifl_vdso_record(struct jifl_perf_writer *w, const char *cache_dir, int pid,
		     const struct jifl_perf_mmap2 *m);

#endif /* JIFL_SWTRACE_VDSO_H */
