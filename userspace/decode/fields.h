/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The columns of an instruction line (-F, --fields), named as perf
 * script -F names them, printed in the order given.
 */
#ifndef JIFL_DECODE_FIELDS_H
#define JIFL_DECODE_FIELDS_H

#include <stddef.h>

enum jifl_field {
	JIFL_FIELD_COMM,	/* the thread's command name */
	JIFL_FIELD_TID,
	JIFL_FIELD_PID,
	JIFL_FIELD_CPU,		/* [the CPU] whose queue it came from */
	JIFL_FIELD_TIME,
	JIFL_FIELD_IP,
	JIFL_FIELD_SYM,		/* symbol+0xoffset, [jit vN] or [unknown] */
	JIFL_FIELD_DSO,		/* (the mapped file) */
	JIFL_FIELD_INSN,	/* <TAB>disassembly */
	JIFL_NR_FIELDS,
};

struct jifl_fields {
	enum jifl_field v[JIFL_NR_FIELDS];
	size_t n;
};

/* The default columns: time,tid,ip,sym,insn. */
extern const struct jifl_fields jifl_fields_default;

/*
 * Parse "NAME[,NAME...]". Returns 0, or -jifl_err_invalid with the
 * offset of the unknown or repeated name in @bad.
 */
int jifl_fields_parse(struct jifl_fields *f, const char *list, size_t *bad);

/* Whether @f has @field. */
int jifl_fields_has(const struct jifl_fields *f, enum jifl_field field);

#endif /* JIFL_DECODE_FIELDS_H */
