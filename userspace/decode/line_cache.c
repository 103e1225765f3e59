// SPDX-License-Identifier: GPL-2.0
#include <stdlib.h>
#include <string.h>

#include "common/errcode.h"
#include "line_cache.h"

#define SLOTS		4096	/* a power of two; about 1 MiB */
#define SLOT_TEXT	200	/* longer text is not kept */

struct slot {
	struct jifl_line_key key;
	size_t len;		/* 0: empty */
	char text[SLOT_TEXT];
};

struct jifl_line_cache {
	struct slot slot[SLOTS];
};

int jifl_line_cache_new(struct jifl_line_cache **cp)
{
	*cp = calloc(1, sizeof(**cp));
	return *cp ? 0 : -jifl_err_nomem;
}

void jifl_line_cache_free(struct jifl_line_cache *c)
{
	free(c);
}

/* Instructions are a few bytes apart: the low bits, folded with the rest. */
static size_t slot_of(const struct jifl_line_key *key)
{
	return (key->ip ^ (key->ip >> 12) ^ key->tid) & (SLOTS - 1);
}

static int same(const struct jifl_line_key *a, const struct jifl_line_key *b)
{
	return a->ip == b->ip && a->syms == b->syms && a->jit == b->jit &&
	       a->pid == b->pid && a->tid == b->tid && a->mode == b->mode &&
	       a->size == b->size && !memcmp(a->raw, b->raw, sizeof(a->raw));
}

const char *jifl_line_cache_get(const struct jifl_line_cache *c,
				const struct jifl_line_key *key, size_t *len)
{
	const struct slot *s = &c->slot[slot_of(key)];

	if (!s->len || !same(&s->key, key))
		return NULL;
	*len = s->len;
	return s->text;
}

void jifl_line_cache_put(struct jifl_line_cache *c, const struct jifl_line_key *key,
			 const char *text, size_t len)
{
	struct slot *s = &c->slot[slot_of(key)];

	if (!len || len > SLOT_TEXT)
		return;
	s->key = *key;
	memcpy(s->text, text, len);
	s->len = len;
}
