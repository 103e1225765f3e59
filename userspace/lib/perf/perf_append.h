/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Copy a perf.data file with records added at the end of its data
 * section. What follows the data (the feature sections and their table)
 * moves up by the size added, its offsets with it; everything before
 * stays where it was, so the AUXTRACE index still points at its records.
 * perf orders records by their time, not by their place in the file: a
 * record added at the end takes effect at its time.
 */
#ifndef JIFL_PERF_APPEND_H
#define JIFL_PERF_APPEND_H

#include <stddef.h>
#include <stdint.h>

#include "perf_reader.h"

/*
 * Write @out: @in with the @size bytes of whole records at @records
 * added to its data. Returns 0 or a negative jifl_error_code:
 * a system error (errcode.h), -jifl_err_format (not a perf.data file
 * whose header and sections make sense), -jifl_err_truncated (a file
 * the recorder did not finish: data size 0), -jifl_err_nosupp (event
 * attributes or ids after the data, as perf never writes them),
 * -jifl_err_invalid (@out is @in).
 */
int jifl_perf_append(const char *in, const char *out, const void *records, size_t size);

/*
 * Encode an MMAP2 record of @m at perf time @time into @buf (@size
 * bytes) as the kernel writes it for events like @info's: the
 * sample_id_all trailer of their sample_type, with the side-band
 * event's id and CPU 0. Returns the record's size, or -jifl_err_invalid
 * when it does not fit.
 */
int jifl_perf_append_encode_mmap2(void *buf, size_t size, const struct jifl_perf_mmap2 *m,
				  uint64_t time, const struct jifl_perf_info *info);

#endif /* JIFL_PERF_APPEND_H */
