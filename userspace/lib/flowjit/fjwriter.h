/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Writer of FlowJIT data files (fjfile.h): the header, the kernel's
 * records as they come, and the end record with counts and checksum.
 */
#ifndef JIFL_FJWRITER_H
#define JIFL_FJWRITER_H

#include <stdint.h>

#include "fjfile.h"

struct jifl_fjwriter;

/*
 * Create @path (truncating it) and write the header from @info. Returns 0
 * and the writer in @wp, or a negative jifl_error_code (a system
 * error: errcode.h).
 */
int jifl_fjwriter_open(struct jifl_fjwriter **wp, const char *path,
		       const struct jifl_fj_info *info);

/*
 * The same into @fd, open for writing (the caller chose how to create
 * it); the writer owns @fd from then on, also when it fails.
 */
int jifl_fjwriter_fdopen(struct jifl_fjwriter **wp, int fd,
			 const struct jifl_fj_info *info);

/*
 * Append one record as read from /proc/flowjit/stream: @ev->size bytes,
 * its page included. Returns 0 or a negative jifl_error_code.
 */
int jifl_fjwriter_add(struct jifl_fjwriter *w, const struct flowjit_event *ev);

/* Records added so far. */
uint64_t jifl_fjwriter_count(const struct jifl_fjwriter *w);

/*
 * Write the end record, close the file and free @w. Returns 0 or a
 * negative jifl_error_code; @w is freed either way.
 */
int jifl_fjwriter_close(struct jifl_fjwriter *w);

#endif /* JIFL_FJWRITER_H */
