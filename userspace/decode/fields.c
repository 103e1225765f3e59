// SPDX-License-Identifier: GPL-2.0
#include <string.h>

#include "common/errcode.h"
#include "fields.h"

static const char *const names[JIFL_NR_FIELDS] = {
	[JIFL_FIELD_COMM] = "comm",
	[JIFL_FIELD_TID] = "tid",
	[JIFL_FIELD_PID] = "pid",
	[JIFL_FIELD_CPU] = "cpu",
	[JIFL_FIELD_TIME] = "time",
	[JIFL_FIELD_IP] = "ip",
	[JIFL_FIELD_SYM] = "sym",
	[JIFL_FIELD_DSO] = "dso",
	[JIFL_FIELD_INSN] = "insn",
};

const struct jifl_fields jifl_fields_default = {
	.v = { JIFL_FIELD_TIME, JIFL_FIELD_TID, JIFL_FIELD_IP, JIFL_FIELD_SYM,
	       JIFL_FIELD_INSN },
	.n = 5,
};

/* The field named by the @len bytes at @s; -1 if none. */
static int lookup(const char *s, size_t len)
{
	int i;

	for (i = 0; i < JIFL_NR_FIELDS; i++)
		if (strlen(names[i]) == len && !strncmp(names[i], s, len))
			return i;
	return -1;
}

int jifl_fields_has(const struct jifl_fields *f, enum jifl_field field)
{
	size_t i;

	for (i = 0; i < f->n; i++)
		if (f->v[i] == field)
			return 1;
	return 0;
}

int jifl_fields_parse(struct jifl_fields *f, const char *list, size_t *bad)
{
	const char *s = list;
	size_t len;
	int field;

	f->n = 0;
	for (;;) {
		len = strcspn(s, ",");
		field = lookup(s, len);
		if (field < 0 || jifl_fields_has(f, field)) {
			*bad = s - list;
			return -jifl_err_invalid;
		}
		f->v[f->n++] = field;
		if (!s[len])
			return 0;
		s += len + 1;
	}
}
