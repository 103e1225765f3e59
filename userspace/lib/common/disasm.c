// SPDX-License-Identifier: GPL-2.0
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include <Zydis/Zydis.h>

#include "disasm.h"
#include "errcode.h"

#define SLOTS	4096	/* direct-mapped, by address */
#define TEXT	256	/* an instruction and a branch target's symbol */

struct slot {
	uint64_t ip;
	struct jifl_symtab *syms;	/* whose symbols name its branch target */
	uint8_t size;		/* 0: empty */
	uint8_t raw[pt_max_insn_size];
	uint8_t len;
	char text[TEXT];
};

struct jifl_disasm {
	ZydisDecoder decoder;
	ZydisFormatter formatter;
	ZydisFormatterFunc print_address;	/* Zydis' own, which the hook calls */
	struct slot slots[SLOTS];
};

/* What the formatter's hook is handed (its user_data). */
struct hook_data {
	ZydisFormatterFunc print_address;	/* Zydis' own */
	struct jifl_symtab *syms;		/* NULL: no names */
};

/*
 * Append @text to the formatter's string. libZydis does not export
 * Zycore's string functions; its string is a fixed buffer without an
 * allocator, with the terminating NUL counted in its size, and Zydis'
 * own formatter appends to it as this does.
 */
static ZyanStatus append(ZyanString *string, const char *text)
{
	ZyanVector *v = &string->vector;
	size_t n = strlen(text);

	if (v->allocator || !v->size || v->size + n > v->capacity)
		return ZYAN_STATUS_INSUFFICIENT_BUFFER_SIZE;
	memcpy((char *)v->data + v->size - 1, text, n + 1);
	v->size += n;
	return ZYAN_STATUS_SUCCESS;
}

/*
 * The formatter's hook for absolute addresses: a branch target is
 * followed by its function, as objdump prints it ("call 0x401126
 * <main+0x10>").
 */
static ZyanStatus print_address(const ZydisFormatter *f, ZydisFormatterBuffer *buf,
				ZydisFormatterContext *context)
{
	const struct hook_data *h = context->user_data;
	ZyanString *string;
	const char *name;
	uint64_t target, off;
	char text[TEXT];

	ZYAN_CHECK(h->print_address(f, buf, context));
	if (!h->syms || context->operand->type != ZYDIS_OPERAND_TYPE_IMMEDIATE ||
	    !ZYAN_SUCCESS(ZydisCalcAbsoluteAddress(context->instruction, context->operand,
						   context->runtime_address, &target)))
		return ZYAN_STATUS_SUCCESS;
	name = jifl_symtab_lookup(h->syms, target, &off);
	if (!name)
		return ZYAN_STATUS_SUCCESS;
	ZYAN_CHECK(ZydisFormatterBufferAppend(buf, ZYDIS_TOKEN_SYMBOL));
	ZYAN_CHECK(ZydisFormatterBufferGetString(buf, &string));
	if (off)
		snprintf(text, sizeof(text), " <%s+0x%" PRIx64 ">", name, off);
	else
		snprintf(text, sizeof(text), " <%s>", name);
	return append(string, text);
}

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
	d->print_address = (ZydisFormatterFunc)&print_address;
	if (!ZYAN_SUCCESS(ZydisFormatterSetHook(&d->formatter,
						ZYDIS_FORMATTER_FUNC_PRINT_ADDRESS_ABS,
						(const void **)&d->print_address))) {
		free(d);
		return -jifl_err_internal;
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
	struct hook_data h = { d->print_address, s->syms };
	ZydisDecodedInstruction zi;
	int ok;

	ok = ZYAN_SUCCESS(ZydisDecoderDecodeFull(&d->decoder, insn->raw, insn->size, &zi, ops));
	if (ok && !ZYAN_SUCCESS(ZydisFormatterFormatInstruction(&d->formatter, &zi, ops,
								zi.operand_count_visible,
								s->text, sizeof(s->text),
								insn->ip, &h))) {
		/* A symbol too long for the text: the address alone. */
		h.syms = NULL;
		ok = ZYAN_SUCCESS(ZydisFormatterFormatInstruction(&d->formatter, &zi, ops,
								  zi.operand_count_visible,
								  s->text, sizeof(s->text),
								  insn->ip, &h));
	}
	if (!ok)
		strcpy(s->text, "(bad)");
	s->len = strlen(s->text);
}

const char *jifl_disasm(struct jifl_disasm *d, const struct pt_insn *insn,
			struct jifl_symtab *syms, size_t *len)
{
	struct slot *s = &d->slots[(insn->ip ^ insn->ip >> 12) % SLOTS];

	if (s->ip != insn->ip || s->syms != syms || s->size != insn->size ||
	    memcmp(s->raw, insn->raw, insn->size)) {
		s->ip = insn->ip;
		s->syms = syms;
		s->size = insn->size;
		memcpy(s->raw, insn->raw, insn->size);
		format(d, s, insn);
	}
	*len = s->len;
	return s->text;
}
