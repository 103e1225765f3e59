// SPDX-License-Identifier: GPL-2.0
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "common/array.h"
#include "common/errcode.h"
#include "filter.h"
#include "common/number.h"

#define NS_PER_SEC	1000000000ull

/* A decimal number at *@s, all digits, at most @max; *@s moves past it. */
static int number(const char **s, uint64_t max, uint64_t *v)
{
	char *end;
	int err = jifl_number_parse(*s, 10, max, &end, v);

	if (!err)
		*s = end;
	return err;
}

int jifl_filter_add_ids(struct jifl_id_list *l, const char *list)
{
	const char *s = list;
	uint64_t id;

	for (;;) {
		if (number(&s, UINT32_MAX, &id) || (*s && *s != ','))
			return -jifl_err_invalid;
		if (jifl_array_room(l->v, l->n, l->cap))
			return -jifl_err_nomem;
		l->v[l->n++] = id;
		if (!*s)
			return 0;
		s++;
	}
}

/* Seconds with up to nine decimals ("1234", "1234.5"), ending at @stop. */
static int seconds(const char *s, char stop, uint64_t *ns)
{
	uint64_t sec, frac = 0, scale = NS_PER_SEC;

	if (number(&s, UINT64_MAX / NS_PER_SEC - 1, &sec))
		return -jifl_err_invalid;
	if (*s == '.') {
		for (s++; isdigit((unsigned char)*s) && scale > 1; s++) {
			scale /= 10;
			frac += (uint64_t)(*s - '0') * scale;
		}
	}
	if (*s != stop)
		return -jifl_err_invalid;
	*ns = sec * NS_PER_SEC + frac;
	return 0;
}

int jifl_filter_set_time(struct jifl_filter *f, const char *span)
{
	const char *comma = strchr(span, ',');
	uint64_t from = 0, to = UINT64_MAX;

	if (!comma || strchr(comma + 1, ','))
		return -jifl_err_invalid;
	if (comma != span && seconds(span, ',', &from))
		return -jifl_err_invalid;
	if (comma[1] && seconds(comma + 1, '\0', &to))
		return -jifl_err_invalid;
	f->from = from;
	f->to = to;
	return 0;
}

int jifl_filter_active(const struct jifl_filter *f)
{
	return f->pids.n || f->tids.n || f->from || f->to != UINT64_MAX;
}

static int has(const struct jifl_id_list *l, uint32_t id)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		if (l->v[i] == id)
			return 1;
	return !l->n;
}

int jifl_filter_match(const struct jifl_filter *f, uint32_t pid, uint32_t tid,
		      uint64_t time)
{
	return time >= f->from && time <= f->to && has(&f->pids, pid) && has(&f->tids, tid);
}

void jifl_filter_free(struct jifl_filter *f)
{
	free(f->pids.v);
	free(f->tids.v);
}
