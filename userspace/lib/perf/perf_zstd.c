// SPDX-License-Identifier: GPL-2.0
#include <stdlib.h>
#include <zstd.h>

#include "common/array.h"
#include "common/errcode.h"
#include "perf_zstd.h"

struct jifl_perf_zstd {
	ZSTD_CStream *c;	/* NULL: decompresses */
	ZSTD_DStream *d;
};

int jifl_perf_zstd_new(struct jifl_perf_zstd **zp, int level)
{
	struct jifl_perf_zstd *z = calloc(1, sizeof(*z));

	if (!z)
		return -jifl_err_nomem;
	if (level > 0) {
		z->c = ZSTD_createCStream();
		if (z->c && ZSTD_isError(ZSTD_initCStream(z->c, level))) {
			jifl_perf_zstd_free(z);
			return -jifl_err_internal;
		}
	} else {
		z->d = ZSTD_createDStream();
		if (z->d && ZSTD_isError(ZSTD_initDStream(z->d))) {
			jifl_perf_zstd_free(z);
			return -jifl_err_internal;
		}
	}
	if (!z->c && !z->d) {
		free(z);
		return -jifl_err_nomem;
	}
	*zp = z;
	return 0;
}

void jifl_perf_zstd_free(struct jifl_perf_zstd *z)
{
	if (!z)
		return;
	ZSTD_freeCStream(z->c);
	ZSTD_freeDStream(z->d);
	free(z);
}

int jifl_perf_zstd_compress(struct jifl_perf_zstd *z, const void *src, size_t size,
			    uint8_t **out, size_t *len)
{
	ZSTD_inBuffer in = { src, size, 0 };
	ZSTD_outBuffer o;
	size_t cap = *len, left = 1;

	if (!z->c)
		return -jifl_err_invalid;
	/* Whatever is left in the compressor after the input: flush it. */
	while (in.pos < in.size || left) {
		if (jifl_array_grow(out, &cap, *len + ZSTD_CStreamOutSize(), 1))
			return -jifl_err_nomem;
		o = (ZSTD_outBuffer){ *out, cap, *len };
		if (in.pos < in.size)
			left = ZSTD_compressStream(z->c, &o, &in);
		else
			left = ZSTD_flushStream(z->c, &o);
		if (ZSTD_isError(left))
			return -jifl_err_internal;
		*len = o.pos;
		if (in.pos < in.size)
			left = 1;
	}
	return 0;
}

int jifl_perf_zstd_decompress(struct jifl_perf_zstd *z, const void *src, size_t size,
			      uint8_t **out, size_t *len)
{
	ZSTD_inBuffer in = { src, size, 0 };
	ZSTD_outBuffer o;
	size_t cap = *len, ret;

	if (!z->d)
		return -jifl_err_invalid;
	/* Until all input is read and the output did not fill the buffer. */
	do {
		if (jifl_array_grow(out, &cap, *len + ZSTD_DStreamOutSize(), 1))
			return -jifl_err_nomem;
		o = (ZSTD_outBuffer){ *out, cap, *len };
		ret = ZSTD_decompressStream(z->d, &o, &in);
		if (ZSTD_isError(ret))
			return -jifl_err_format;
		*len = o.pos;
	} while (in.pos < in.size || o.pos == o.size);
	return 0;
}
