// SPDX-License-Identifier: GPL-2.0
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/errcode.h"
#include "common/number.h"
#include "sysset.h"

/* Indexed by number; generated from <asm/unistd_64.h> (userspace/Makefile). */
static const char *const names[] = {
#include "syscall_names.h"
};

#define NR_NAMES	(sizeof(names) / sizeof(names[0]))

int jifl_sysset_number(const char *name)
{
	size_t i;

	for (i = 0; i < NR_NAMES; i++)
		if (names[i] && !strcmp(names[i], name))
			return i;
	return -jifl_err_invalid;
}

const char *jifl_sysset_name(unsigned int nr)
{
	return nr < NR_NAMES ? names[nr] : NULL;
}

static void add(struct jifl_sysset *set, unsigned int nr)
{
	set->bits[nr / 64] |= 1ULL << (nr % 64);
}

int jifl_sysset_has(const struct jifl_sysset *set, unsigned int nr)
{
	if (nr >= JIFL_SYSSET_MAX)
		return 0;
	return set->all || (set->bits[nr / 64] >> (nr % 64) & 1);
}

/* A decimal number below JIFL_SYSSET_MAX, all of @s; else -jifl_err_invalid. */
static int number(const char *s)
{
	uint64_t v;
	int err = jifl_number_whole(s, 10, JIFL_SYSSET_MAX - 1, &v);

	return err ? err : (int)v;
}

/* Add one item ("read", "39" or "100-110") to @set. */
static int add_item(struct jifl_sysset *set, char *item)
{
	char *dash = strchr(item, '-');
	int lo, hi;

	if (isalpha((unsigned char)*item) || *item == '_') {
		lo = jifl_sysset_number(item);
		if (lo < 0)
			return lo;
		add(set, lo);
		return 0;
	}
	if (dash)
		*dash = '\0';
	lo = number(item);
	hi = dash ? number(dash + 1) : lo;
	if (lo < 0 || hi < lo)
		return -jifl_err_invalid;
	for (; lo <= hi; lo++)
		add(set, lo);
	return 0;
}

int jifl_sysset_parse(struct jifl_sysset *set, const char *list, size_t *bad)
{
	char *copy, *item, *next;
	int err = 0;

	memset(set, 0, sizeof(*set));
	if (!strcmp(list, "all")) {
		set->all = 1;
		return 0;
	}
	if (!*list || !strcmp(list, "none"))
		return 0;
	copy = strdup(list);
	if (!copy)
		return -jifl_err_nomem;
	for (item = copy; item && !err; item = next) {
		next = strchr(item, ',');
		if (next)
			*next++ = '\0';
		err = add_item(set, item);
		if (err && bad)
			*bad = item - copy;
	}
	free(copy);
	return err;
}

int jifl_sysset_count(const struct jifl_sysset *set)
{
	int n = 0;
	size_t i;

	if (set->all)
		return -1;
	for (i = 0; i < JIFL_SYSSET_MAX / 64; i++)
		n += __builtin_popcountll(set->bits[i]);
	return n;
}

int jifl_sysset_format(const struct jifl_sysset *set, char *buf, size_t size)
{
	size_t len = 0;
	char item[32];
	int lo, hi, n;

	if (set->all || !jifl_sysset_count(set)) {
		n = snprintf(buf, size, "%s", set->all ? "all" : "none");
		return (size_t)n < size ? n : -jifl_err_invalid;
	}
	if (size)
		buf[0] = '\0';
	for (lo = 0; lo < JIFL_SYSSET_MAX; lo = hi + 1) {
		hi = lo;
		if (!jifl_sysset_has(set, lo))
			continue;
		while (hi + 1 < JIFL_SYSSET_MAX && jifl_sysset_has(set, hi + 1))
			hi++;
		n = snprintf(item, sizeof(item), lo == hi ? "%s%d" : "%s%d-%d",
			     len ? "," : "", lo, hi);
		if (len + n < size)
			memcpy(buf + len, item, n + 1);
		len += n;
	}
	return len < size ? (int)len : -jifl_err_invalid;
}
