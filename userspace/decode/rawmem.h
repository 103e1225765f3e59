/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Raw mode memory (jifl-decode --pt): the code of ELF files (--elf) and
 * of flat files (--raw) at the addresses the user gives, put into the one
 * raw-mode process. Ranges may not overlap: libipt would silently let a
 * later file hide part of an earlier one.
 */
#ifndef JIFL_DECODE_RAWMEM_H
#define JIFL_DECODE_RAWMEM_H

#include <stddef.h>
#include <stdint.h>
#include <intel-pt.h>

#include "process.h"

struct jifl_rawmem;

int jifl_rawmem_new(struct jifl_rawmem **rmp, struct jifl_process *p,
		    struct pt_image_section_cache *isc);
void jifl_rawmem_free(struct jifl_rawmem *rm);

/*
 * The loadable segments of the ELF file @path, as ptxed's --elf
 * FILE[:BASE] loads them: at their link addresses when @base is 0, else
 * all moved by one amount so that the lowest one starts at @base.
 * Returns 0, or a negative jifl_error_code with a message naming the
 * file in @msg.
 */
int jifl_rawmem_add_elf(struct jifl_rawmem *rm, const char *path, uint64_t base,
			char *msg, size_t len);

/*
 * Bytes @from to @to (not included; 0: the end of the file) of the file
 * @path at address @base, as ptxed's --raw FILE[:FROM[-TO]]:BASE; they
 * must be in the file. As jifl_rawmem_add_elf().
 */
int jifl_rawmem_add_raw(struct jifl_rawmem *rm, const char *path, uint64_t from,
			uint64_t to, uint64_t base, char *msg, size_t len);

#endif /* JIFL_DECODE_RAWMEM_H */
