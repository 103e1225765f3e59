/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The vDSO's code for the decoder. The perf.data names the build ID of
 * the vDSO that ran ("[vdso]" in its BUILD_ID feature); the image is
 * where "perf record" and jifl-swtrace put it, and where perf script
 * looks, in the build-id cache (lib/perf/buildid_cache.h). Where the cache
 * lacks it, this system's own vDSO stands in if it has that build ID, or
 * if the file names none (as perf script does then), through a
 * temporary copy, since libipt reads code from files.
 */
#ifndef JIFL_DECODE_VDSO_H
#define JIFL_DECODE_VDSO_H

#include <stddef.h>

#include "perf/perf_reader.h"

struct jifl_vdso {
	char path[4096];	/* the image to decode with; "" if none */
	int temporary;		/* @path is our own vDSO's copy, removed by _fini */
};

/*
 * Find the image of the vDSO of the trace @r in the cache @cache_dir.
 * Returns 0 with v->path set, 1 with v->path set and a warning in @msg
 * (this system's vDSO stands in for one the file names no build ID
 * for), or 2 with v->path empty and the reason in @msg.
 */
int jifl_vdso_find(struct jifl_vdso *v, const struct jifl_perf_reader *r,
		   const char *cache_dir, char *msg, size_t len);

/* Remove the temporary copy, if any. */
void jifl_vdso_fini(struct jifl_vdso *v);

#endif /* JIFL_DECODE_VDSO_H */
