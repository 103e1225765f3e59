/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A set of x86-64 system calls, as JIFL selects them: "all", "none", or
 * a comma-separated list of names, numbers and number ranges
 * ("read,write,39,100-110"). The names are those of the kernel's
 * <asm/unistd_64.h> at build time.
 */
#ifndef JIFL_SYSSET_H
#define JIFL_SYSSET_H

#include <stddef.h>
#include <stdint.h>

/* Above any x86-64 system-call number (the kernel checks its own limit). */
#define JIFL_SYSSET_MAX		1024

struct jifl_sysset {
	int all;	/* every system call the kernel has */
	uint64_t bits[JIFL_SYSSET_MAX / 64];
};

/* The number of system call @name, or -jifl_err_invalid if none has it. */
int jifl_sysset_number(const char *name);

/* The name of system call @nr, or NULL when it has none. */
const char *jifl_sysset_name(unsigned int nr);

/*
 * Parse @list into @set. Returns 0, or -jifl_err_invalid with the offset
 * in @list of the item that is no name, number or range in @bad (if not
 * NULL). An empty list is an empty set (the kernel shows "none" so).
 */
int jifl_sysset_parse(struct jifl_sysset *set, const char *list, size_t *bad);

/* Whether @nr is in @set (when set->all, only numbers below JIFL_SYSSET_MAX). */
int jifl_sysset_has(const struct jifl_sysset *set, unsigned int nr);

/* How many numbers @set holds, or -1 for "all". */
int jifl_sysset_count(const struct jifl_sysset *set);

/*
 * Write @set as the kernel takes it ("all", "none" or "0-3,39") into
 * @buf. Returns its length, or -jifl_err_invalid if it needs @size bytes
 * or more.
 */
int jifl_sysset_format(const struct jifl_sysset *set, char *buf, size_t size);

#endif /* JIFL_SYSSET_H */
