/* SPDX-License-Identifier: GPL-2.0 */
/* Unsigned numbers in options and files, checked as strtoull() does not. */
#ifndef JIFL_NUMBER_H
#define JIFL_NUMBER_H

#include <stdint.h>

/*
 * The number at @s in @base (0: C syntax, 0x... or 0... or decimal), at
 * most @max; *@end is set past it. It must start with a digit: no sign,
 * no blanks. Returns 0 or -jifl_err_invalid.
 */
int jifl_number_parse(const char *s, int base, uint64_t max, char **end, uint64_t *v);

/* The same, for a number that must be all of @s. */
int jifl_number_whole(const char *s, int base, uint64_t max, uint64_t *v);

#endif /* JIFL_NUMBER_H */
