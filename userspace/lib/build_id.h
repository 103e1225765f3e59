/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The GNU build ID of an ELF file (its NT_GNU_BUILD_ID note), as perf
 * records it for every DSO a trace needs.
 */
#ifndef JIFL_BUILD_ID_H
#define JIFL_BUILD_ID_H

#include <stddef.h>
#include <stdint.h>

#define JIFL_BUILD_ID_MAX	20

/*
 * Read the build ID of the 64-bit ELF file @path into @id; returns its
 * size (1..20), or -jifl_err_format when there is none, -jifl_err_io.
 */
int jifl_build_id_read(const char *path, uint8_t id[JIFL_BUILD_ID_MAX]);

#endif /* JIFL_BUILD_ID_H */
