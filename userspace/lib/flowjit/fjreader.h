/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Reader of FlowJIT data files (fjfile.h). Every header field, record
 * size and type is checked as it is read; the end record's counts and
 * checksum are checked against what was read, so a truncated or
 * corrupted file always ends in an error, never in a silent short read.
 */
#ifndef JIFL_FJREADER_H
#define JIFL_FJREADER_H

#include <stdint.h>

#include "fjfile.h"

struct jifl_fjreader;

/*
 * Open @path and read its header. Returns 0 and the reader in @rp, or a
 * negative jifl_error_code: a system error (errcode.h),
 * -jifl_err_format (not a FlowJIT file, or a bad header),
 * -jifl_err_version, -jifl_err_truncated, -jifl_err_nomem.
 */
int jifl_fjreader_open(struct jifl_fjreader **rp, const char *path);

/* The header. Valid until jifl_fjreader_close(). */
const struct jifl_fj_info *jifl_fjreader_info(const struct jifl_fjreader *r);

/*
 * Read the next record into @ev and, when it has FLOWJIT_EVF_PAYLOAD,
 * point @page at its 4 KiB (else NULL; valid until the next call).
 * Returns 1 for a record, 0 at the end of a complete and intact file, or
 * a negative jifl_error_code: -jifl_err_truncated, -jifl_err_format,
 * -jifl_err_checksum, a system error. After 0 or an error, it stays so.
 */
int jifl_fjreader_next(struct jifl_fjreader *r, struct flowjit_event *ev,
		       const void **page);

/* File offset of the record last read, or of the failure. */
uint64_t jifl_fjreader_offset(const struct jifl_fjreader *r);

void jifl_fjreader_close(struct jifl_fjreader *r);

#endif /* JIFL_FJREADER_H */
