// SPDX-License-Identifier: GPL-2.0
#include <stdlib.h>
#include <string.h>
#include <Zydis/Zydis.h>

#include "disasm.h"
#include "errcode.h"

#define SLOTS	4096	/* direct-mapped, by address */
#define TEXT	96	/* Zydis' own ZydisDisassembledInstruction.text */

struct slot {
	uint64_t ip;
	uint8_t size;		/* 0: empty */
	uint8_t raw[pt_max_insn_size];
	uint8_t len;
	char text[TEXT];
};

struct jifl_disasm {
	ZydisDecoder decoder;
	ZydisFormatter formatter;
	struct slot slots[SLOTS];
};

int jifl_disasm_new(struct jifl_disasm **dp)
{
	struct jifl_disasm *d = calloc(1, sizeof(*d));

	if (!d)
		return -jifl_err_nomem;
	if (!ZYAN_SUCCESS(ZydisDecoderInit(&d->decoder, ZYDIS_MACHINE_MODE_LONG_64,
					   ZYDIS_STACK_WIDTH_64)) ||
	    !ZYAN_SUCCESS(ZydisFormatterInit(&d->formatter, ZYDIS_FORMATTER_STYLE_INTEL))) {
		free(d);
		return -jifl_err_nomem;
	}
	*dp = d;
	return 0;
}

void jifl_disasm_free(struct jifl_disasm *d)
{
	free(d);
}

static void format(struct jifl_disasm *d, struct slot *s, const struct pt_insn *insn)
{
	ZydisDecodedOperand ops[ZYDIS_MAX_OPERAND_COUNT];
	ZydisDecodedInstruction zi;

	if (!ZYAN_SUCCESS(ZydisDecoderDecodeFull(&d->decoder, insn->raw, insn->size, &zi, ops)) ||
	    !ZYAN_SUCCESS(ZydisFormatterFormatInstruction(&d->formatter, &zi, ops,
							  zi.operand_count_visible, s->text,
							  sizeof(s->text), insn->ip, NULL)))
		strcpy(s->text, "(bad)");
	s->len = strlen(s->text);
}

const char *jifl_disasm(struct jifl_disasm *d, const struct pt_insn *insn, size_t *len)
{
	struct slot *s = &d->slots[(insn->ip ^ insn->ip >> 12) % SLOTS];

	if (s->ip != insn->ip || s->size != insn->size || memcmp(s->raw, insn->raw, insn->size)) {
		s->ip = insn->ip;
		s->size = insn->size;
		memcpy(s->raw, insn->raw, insn->size);
		format(d, s, insn);
	}
	*len = s->len;
	return s->text;
}
