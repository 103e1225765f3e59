// SPDX-License-Identifier: GPL-2.0
#include <stdlib.h>
#include <string.h>

#include "common/array.h"
#include "items.h"

struct jifl_item *jifl_items_push(struct jifl_items *q)
{
	struct jifl_item *v;

	if (jifl_array_room(q->v, q->nr, q->cap))
		return NULL;
	/* The header only: the caller fills the part of its kind. */
	v = &q->v[q->nr++];
	v->enabled = 0;
	return v;
}

void jifl_items_fini(struct jifl_items *q)
{
	free(q->v);
	memset(q, 0, sizeof(*q));
}
