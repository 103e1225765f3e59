/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The zstd stream of "perf record -z": one stream runs through all the
 * PERF_RECORD_COMPRESSED records of a file, each holding what the
 * compressor gave when flushed, so that each record's output
 * decompresses at once (perf's util/zstd.c). libzstd does the work.
 */
#ifndef JIFL_PERF_ZSTD_H
#define JIFL_PERF_ZSTD_H

#include <stddef.h>
#include <stdint.h>

struct jifl_perf_zstd;

/* A stream that compresses at zstd @level (> 0), or decompresses (0). */
int jifl_perf_zstd_new(struct jifl_perf_zstd **zp, int level);
void jifl_perf_zstd_free(struct jifl_perf_zstd *z);

/*
 * Compress @size bytes of @src and flush: the compressed bytes are
 * appended to *@out (realloc'd; *@len bytes used). Returns 0 or
 * -jifl_err_nomem, -jifl_err_internal (libzstd failed).
 */
int jifl_perf_zstd_compress(struct jifl_perf_zstd *z, const void *src, size_t size,
			    uint8_t **out, size_t *len);

/*
 * Decompress @size bytes of @src, the data of one COMPRESSED record,
 * appending to *@out (realloc'd; *@len bytes used). Returns 0 or
 * -jifl_err_nomem, -jifl_err_format (not zstd data of this stream).
 */
int jifl_perf_zstd_decompress(struct jifl_perf_zstd *z, const void *src, size_t size,
			      uint8_t **out, size_t *len);

#endif /* JIFL_PERF_ZSTD_H */
