// SPDX-License-Identifier: GPL-2.0
#include <stdlib.h>
#include <string.h>

#include "common/array.h"
#include "bbcount.h"
#include "common/errcode.h"
#include "common/number.h"

int jifl_bbcount_is(const char *text)
{
	size_t len = strlen(JIFL_BBCOUNT_HEADER);

	return !strncmp(text, JIFL_BBCOUNT_HEADER, len) && text[len] == '\n';
}

/* Literal @lit at *@p; *@p moves past it. */
static int skip(const char **p, const char *lit)
{
	size_t len = strlen(lit);

	if (strncmp(*p, lit, len))
		return -1;
	*p += len;
	return 0;
}

/* A number in @base, at most @max, then literal @lit. */
static int field(const char **p, int base, uint64_t max, uint64_t *v, const char *lit)
{
	char *end;

	if (jifl_number_parse(*p, base, max, &end, v))
		return -1;
	*p = end;
	return skip(p, lit);
}

/* "COUNT 0xADDRESS BYTES INSNS END SYMBOL" */
static int parse_block(const char *line, struct jifl_bbcount_block *b)
{
	uint64_t bytes, insns;

	/* base 16 takes the "0x" */
	if (field(&line, 10, UINT64_MAX, &b->count, " ") || strncmp(line, "0x", 2) ||
	    field(&line, 16, UINT64_MAX, &b->addr, " ") ||
	    field(&line, 10, UINT32_MAX, &bytes, " ") ||
	    field(&line, 10, UINT32_MAX, &insns, " ") ||
	    !*line || !strchr(JIFL_BBCOUNT_ENDS, *line) || line[1] != ' ' || !line[2])
		return -1;
	b->bytes = bytes;
	b->insns = insns;
	b->end = *line;
	b->symbol = line + 2;
	return 0;
}

/* "# blocks N, not counted K (max_blocks X)" */
static int parse_trailer(const char *line, struct jifl_bbcount *bc)
{
	return skip(&line, "# blocks ") ||
	       field(&line, 10, UINT64_MAX, &bc->blocks, ", not counted ") ||
	       field(&line, 10, UINT64_MAX, &bc->not_counted, " (max_blocks ") ||
	       field(&line, 10, UINT64_MAX, &bc->max_blocks, ")") || *line;
}

int jifl_bbcount_parse(struct jifl_bbcount *bc, char *text)
{
	char *line = text, *end;
	size_t room = 0;
	int err, last = 0;

	memset(bc, 0, sizeof(*bc));
	for (bc->bad_nr = 1; *line; bc->bad_nr++, line = end) {
		end = strchrnul(line, '\n');
		if (*end)
			*end++ = '\0';
		bc->bad_line = line;
		if (last)
			return -jifl_err_format;
		if (bc->bad_nr == 1) {
			if (strcmp(line, JIFL_BBCOUNT_HEADER))
				return -jifl_err_format;
			continue;
		}
		if (*line == '#') {
			if (parse_trailer(line, bc))
				return -jifl_err_format;
			last = 1;
			continue;
		}
		err = jifl_array_room(bc->block, bc->n, room);
		if (err)
			return err;
		if (parse_block(line, &bc->block[bc->n]))
			return -jifl_err_format;
		bc->total += bc->block[bc->n].count;
		bc->insns += bc->block[bc->n].count * bc->block[bc->n].insns;
		bc->n++;
	}
	if (!last) {
		bc->bad_line = NULL;
		return -jifl_err_format;
	}
	bc->bad_nr = 0;
	bc->bad_line = NULL;
	return 0;
}

static int by_count(const void *a, const void *b)
{
	const struct jifl_bbcount_block *x = a, *y = b;

	if (x->count != y->count)
		return x->count < y->count ? 1 : -1;
	return (x->addr > y->addr) - (x->addr < y->addr);
}

void jifl_bbcount_sort(struct jifl_bbcount *bc)
{
	if (bc->n)
		qsort(bc->block, bc->n, sizeof(bc->block[0]), by_count);
}

void jifl_bbcount_free(struct jifl_bbcount *bc)
{
	free(bc->block);
	bc->block = NULL;
	bc->n = 0;
}
