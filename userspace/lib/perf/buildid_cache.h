/* SPDX-License-Identifier: GPL-2.0 */
/*
 * perf's build-id cache (tools/perf/util/build-id.c): a directory where
 * "perf record" keeps a copy of each DSO of a recording under its build
 * ID, and where "perf script" and "perf report" look for them. JIFL keeps
 * the vDSO there, laid out as perf lays it out:
 *
 *   DIR/[vdso]/BUILDID/vdso                  the image
 *   DIR/.build-id/BU/ILDID -> ../../[vdso]/BUILDID
 *
 * (BUILDID in lower-case hex; BU its first two digits, ILDID the rest).
 */
#ifndef JIFL_BUILDID_CACHE_H
#define JIFL_BUILDID_CACHE_H

#include <stddef.h>
#include <stdint.h>

/*
 * The cache directory, in @buf: @dir when not NULL (--buildid-dir),
 * else $PERF_BUILDID_DIR (perf passes it to the commands it runs), else
 * $HOME/.debug as for perf. Returns 0 or -jifl_err_invalid (too long).
 */
int jifl_buildid_cache_dir(const char *dir, char *buf, size_t len);

/*
 * Put the vDSO image @image (@size bytes) with build ID @id (@n bytes)
 * into the cache @dir, creating the directories it needs; an image that
 * is there already is kept. Returns 0, a system error (errcode.h)
 * or -jifl_err_invalid.
 */
int jifl_buildid_cache_add_vdso(const char *dir, const uint8_t *id, size_t n,
				const void *image, size_t size);

/*
 * The path of the cached vDSO with build ID @id, in @buf, found as perf
 * finds it: through the .build-id link. Returns 0, a system error
 * (ENOENT: not in the cache) or -jifl_err_invalid.
 */
int jifl_buildid_cache_find_vdso(const char *dir, const uint8_t *id, size_t n,
				 char *buf, size_t len);

#endif /* JIFL_BUILDID_CACHE_H */
