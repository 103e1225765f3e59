// SPDX-License-Identifier: GPL-2.0
/* Open addressing with linear probing; at most half full. */
#include <stdlib.h>
#include <string.h>

#include "adopted.h"
#include "common/errcode.h"

static size_t slot_of(const struct jifl_adopted_table *t, uint64_t page)
{
	uint64_t h = (page >> 12) * 0x9e3779b97f4a7c15ull;

	return (h ^ (h >> 32)) & (t->size - 1);
}

static struct jifl_adopted *probe(const struct jifl_adopted_table *t, uint64_t page)
{
	size_t i;

	for (i = slot_of(t, page); t->slot[i].v; i = (i + 1) & (t->size - 1))
		if (t->slot[i].page == page)
			break;
	return &t->slot[i];
}

const struct jifl_jit_version *jifl_adopted_get(const struct jifl_adopted_table *t,
						uint64_t page)
{
	return t->size ? probe(t, page)->v : NULL;
}

static int grow(struct jifl_adopted_table *t)
{
	struct jifl_adopted_table bigger = { .size = t->size ? 2 * t->size : 64 };
	size_t i;

	bigger.slot = calloc(bigger.size, sizeof(*bigger.slot));
	if (!bigger.slot)
		return -jifl_err_nomem;
	for (i = 0; i < t->size; i++)
		if (t->slot[i].v)
			*probe(&bigger, t->slot[i].page) = t->slot[i];
	bigger.used = t->used;
	free(t->slot);
	*t = bigger;
	return 0;
}

int jifl_adopted_put(struct jifl_adopted_table *t, uint64_t page,
		     const struct jifl_jit_version *v)
{
	struct jifl_adopted *a = t->size ? probe(t, page) : NULL;
	int err;

	if (!a || !a->v) {
		if (2 * (t->used + 1) > t->size) {
			err = grow(t);
			if (err)
				return err;
			a = probe(t, page);
		}
		t->used++;
	}
	a->page = page;
	a->v = v;
	return 0;
}

void jifl_adopted_clear(struct jifl_adopted_table *t)
{
	if (t->size)
		memset(t->slot, 0, t->size * sizeof(*t->slot));
	t->used = 0;
}

void jifl_adopted_fini(struct jifl_adopted_table *t)
{
	free(t->slot);
	memset(t, 0, sizeof(*t));
}
