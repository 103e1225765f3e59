/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The GNU build ID of an ELF file (its NT_GNU_BUILD_ID note), as perf
 * records it for every DSO a trace needs. Read with libelf.
 */
#ifndef JIFL_BUILD_ID_H
#define JIFL_BUILD_ID_H

#include <stddef.h>
#include <stdint.h>

#define JIFL_BUILD_ID_MAX	20
#define JIFL_BUILD_ID_STR	(2 * JIFL_BUILD_ID_MAX + 1)

/*
 * Read the build ID of the 64-bit ELF file @path into @id; returns its
 * size (1..20), or -jifl_err_format when there is none, or a system error (errcode.h).
 */
int jifl_build_id_read(const char *path, uint8_t id[JIFL_BUILD_ID_MAX]);

/* The same for an ELF image in memory (@size bytes at @image). */
int jifl_build_id_mem(const void *image, size_t size, uint8_t id[JIFL_BUILD_ID_MAX]);

/* @size bytes of @id as lower-case hex, as perf names them; returns @buf. */
char *jifl_build_id_str(const uint8_t *id, size_t size, char buf[JIFL_BUILD_ID_STR]);

#endif /* JIFL_BUILD_ID_H */
