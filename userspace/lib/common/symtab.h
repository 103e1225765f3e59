/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Function symbols of the ELF files mapped into a process (.symtab, else
 * .dynsym, read with libelf), at the addresses where they were mapped.
 */
#ifndef JIFL_SYMTAB_H
#define JIFL_SYMTAB_H

#include <stdint.h>

struct jifl_symtab;

int jifl_symtab_new(struct jifl_symtab **stp);
void jifl_symtab_free(struct jifl_symtab *st);

/*
 * Add the symbols of @path, whose file offset @pgoff is mapped at @addr
 * for @len bytes; only symbols inside that mapping are kept. Returns the
 * number of symbols added, or a system error (errcode.h), -jifl_err_format (not
 * a 64-bit ELF file), -jifl_err_nomem.
 */
int jifl_symtab_add_elf(struct jifl_symtab *st, const char *path, uint64_t addr,
			uint64_t len, uint64_t pgoff);

/*
 * The function containing @ip (or, for symbols without a size, the
 * nearest one before it in the same mapping) and @ip's offset in it;
 * NULL if none.
 */
const char *jifl_symtab_lookup(struct jifl_symtab *st, uint64_t ip, uint64_t *offset);

/*
 * A number that names @st's contents: it changes whenever a symbol is
 * added, and no other table, now or later, has the same one. What was
 * made from lookups (a listing's text) stays true while it is the same.
 */
uint64_t jifl_symtab_stamp(const struct jifl_symtab *st);

#endif /* JIFL_SYMTAB_H */
