// SPDX-License-Identifier: GPL-2.0
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/disasm.h"
#include "common/errcode.h"
#include "gaps.h"
#include "line.h"
#include "line_cache.h"
#include "printer.h"

#define ERROR_IPS	8	/* addresses kept per kind of error */
#define OUT_BUF		(64 << 10)	/* lines written at once */
#define NR_CODES	64	/* more than libipt's error codes */
#define KIND_LOST	NR_CODES	/* trace data lost (no libipt error) */
#define KIND_LOOP	(NR_CODES + 1)	/* never-ending loop (no libipt error) */
#define NR_KINDS	(NR_CODES + 2)

struct error_kind {
	const char *message;		/* jifl_gap_message() of the first */
	uint64_t count;
	uint64_t ip[ERROR_IPS];
};

/*
 * Per thread (its jifl_thread's priv): its previous instruction, for
 * branch targets (--branches, --calls), and its call depth. Threads
 * interleave in the listing.
 */
struct thread_state {
	struct pt_insn prev;
	struct jifl_decoded_insn prev_di;
	int have_prev;
	int depth;
	struct thread_state *next;	/* all of them, to free */
};

struct jifl_printer {
	FILE *out;
	enum jifl_print_mode mode;
	const struct jifl_filter *filter;	/* NULL: everything */
	struct jifl_fields fields;
	const struct jifl_session *session;	/* for comm and dso */
	uint64_t insns, jit_insns, errors;
	struct error_kind kinds[NR_KINDS];
	struct jifl_gaps *gaps;
	struct jifl_disasm *disasm;
	struct jifl_line line;		/* the lines not written yet */
	/* Fields [run_from, run_to) are the instruction's alone: kept by address. */
	size_t run_from, run_to;
	struct jifl_line_cache *cache;
	int each_line;			/* write each line (a terminal) */
	struct {			/* the last time printed, as text */
		uint64_t ns;
		size_t len;
		char text[32];
	} time;	/* 30 characters at most: its line never flushed */
	struct thread_state *states;
	struct thread_state lost;	/* of threads without one (out of memory) */
};

int jifl_printer_new(struct jifl_printer **pp, FILE *out, enum jifl_print_mode mode)
{
	struct jifl_printer *p = calloc(1, sizeof(*p));

	if (!p || jifl_gaps_new(&p->gaps)) {
		free(p);
		return -jifl_err_nomem;
	}
	if (jifl_disasm_new(&p->disasm)) {
		jifl_gaps_free(p->gaps);
		free(p);
		return -jifl_err_nomem;
	}
	p->line.buf = malloc(OUT_BUF);
	if (!p->line.buf || jifl_line_cache_new(&p->cache)) {
		free(p->line.buf);
		jifl_disasm_free(p->disasm);
		jifl_gaps_free(p->gaps);
		free(p);
		return -jifl_err_nomem;
	}
	p->line.size = OUT_BUF;
	p->out = out;
	p->line.out = out;
	p->each_line = isatty(fileno(out));
	p->mode = mode;
	jifl_printer_set_fields(p, &jifl_fields_default, NULL);
	*pp = p;
	return 0;
}

void jifl_printer_free(struct jifl_printer *p)
{
	struct thread_state *t;

	if (!p)
		return;
	while ((t = p->states)) {
		p->states = t->next;
		free(t);
	}
	jifl_line_flush(&p->line);
	free(p->line.buf);
	jifl_line_cache_free(p->cache);
	jifl_gaps_free(p->gaps);
	jifl_disasm_free(p->disasm);
	free(p);
}

/* @th's state, made the first time. */
static struct thread_state *state_of(struct jifl_printer *p, struct jifl_thread *th)
{
	struct thread_state *t = th->priv;

	if (t)
		return t;
	t = calloc(1, sizeof(*t));
	if (!t) {
		/* Branches across threads may show; nothing else is lost. */
		return &p->lost;
	}
	t->next = p->states;
	p->states = t;
	th->priv = t;
	return t;
}

void jifl_printer_set_filter(struct jifl_printer *p, const struct jifl_filter *f)
{
	p->filter = jifl_filter_active(f) ? f : NULL;
}

/* Whether @field's text depends on nothing but jifl_line_key's. */
static int instruction_only(enum jifl_field field)
{
	return field == JIFL_FIELD_TID || field == JIFL_FIELD_PID || field == JIFL_FIELD_IP ||
	       field == JIFL_FIELD_SYM || field == JIFL_FIELD_INSN;
}

void jifl_printer_set_fields(struct jifl_printer *p, const struct jifl_fields *fields,
			     const struct jifl_session *s)
{
	size_t i, from;

	p->fields = *fields;
	p->session = s;
	/* The longest run of such fields; the default's is tid,ip,sym,insn. */
	p->run_from = p->run_to = 0;
	for (i = 0; i < fields->n; i = from + 1) {
		for (from = i; from < fields->n && instruction_only(fields->v[from]); from++)
			;
		if (from - i > p->run_to - p->run_from) {
			p->run_from = i;
			p->run_to = from;
		}
	}
}

/*
 * Perf time as perf script prints it: seconds.nanoseconds. Instructions
 * between two timing packets share their time (seven a time in
 * make bench's trace): the text of the last one is kept.
 */
static void put_time(struct jifl_printer *p, uint64_t ns)
{
	struct jifl_line t = { .size = sizeof(p->time.text), .buf = p->time.text };

	if (!p->time.len || p->time.ns != ns) {
		jifl_line_num(&t, ns / 1000000000, 10, 0, ' ');
		jifl_line_char(&t, '.');
		jifl_line_num(&t, ns % 1000000000, 10, 9, '0');
		p->time.len = t.len;
		p->time.ns = ns;
	}
	jifl_line_mem(&p->line, p->time.text, p->time.len);
}

/* "sym+0xoff", "[jit v3]" or "[unknown]". */
static void put_where(struct jifl_line *l, const struct jifl_decoded_insn *di, uint64_t ip)
{
	const char *name;
	uint64_t off;

	if (di->jit && di->insn->ip == ip) {
		jifl_line_str(l, "[jit v");
		jifl_line_num(l, di->jit->number, 10, 0, ' ');
		jifl_line_char(l, ']');
		return;
	}
	name = jifl_symtab_lookup(di->proc->syms, ip, &off);
	if (!name) {
		jifl_line_str(l, "[unknown]");
		return;
	}
	jifl_line_str(l, name);
	jifl_line_str(l, "+0x");
	jifl_line_num(l, off, 16, 0, ' ');
}

static void put_field(struct jifl_printer *p, const struct jifl_decoded_insn *di,
		      enum jifl_field field)
{
	struct jifl_line *l = &p->line;
	const char *text;
	char cpu[16];
	size_t n;

	switch (field) {
	case JIFL_FIELD_COMM:
		text = jifl_session_comm(p->session, di->proc->pid, di->tid, di->time);
		jifl_line_str_right(l, text, strlen(text), 16);
		break;
	case JIFL_FIELD_TID:
		jifl_line_num(l, di->tid, 10, 6, ' ');
		break;
	case JIFL_FIELD_PID:
		jifl_line_num(l, di->proc->pid, 10, 6, ' ');
		break;
	case JIFL_FIELD_CPU:
		snprintf(cpu, sizeof(cpu), "[%03d]", di->cpu);
		jifl_line_str(l, cpu);
		break;
	case JIFL_FIELD_TIME:
		put_time(p, di->time);
		break;
	case JIFL_FIELD_IP:
		jifl_line_num(l, di->insn->ip, 16, 16, ' ');
		break;
	case JIFL_FIELD_SYM:
		put_where(l, di, di->insn->ip);
		break;
	case JIFL_FIELD_DSO:
		text = jifl_session_dso(p->session, di->proc->pid, di->insn->ip, di->time);
		jifl_line_char(l, '(');
		jifl_line_str(l, text ? text : "[unknown]");
		jifl_line_char(l, ')');
		break;
	case JIFL_FIELD_INSN:
		text = jifl_disasm(p->disasm, di->insn, di->proc->syms, &n);
		jifl_line_mem(l, text, n);
		break;
	case JIFL_NR_FIELDS:
		break;
	}
}

/* Field @i and the space or tab before it. */
static void put_nth_field(struct jifl_printer *p, const struct jifl_decoded_insn *di, size_t i)
{
	if (i)
		jifl_line_char(&p->line, p->fields.v[i] == JIFL_FIELD_INSN ? '\t' : ' ');
	put_field(p, di, p->fields.v[i]);
}

/* Fields [run_from, run_to): kept text if the cache has it, else made and kept. */
static void put_run(struct jifl_printer *p, const struct jifl_decoded_insn *di)
{
	const struct pt_insn *insn = di->insn;
	struct jifl_line *l = &p->line;
	struct jifl_line_key key;
	unsigned long flushes;
	const char *text;
	size_t i, start, n;

	memset(&key, 0, sizeof(key));
	key.ip = insn->ip;
	key.syms = jifl_symtab_stamp(di->proc->syms);
	key.jit = di->jit ? di->jit->number : 0;
	key.pid = di->proc->pid;
	key.tid = di->tid;
	key.mode = insn->mode;
	key.size = insn->size;
	memcpy(key.raw, insn->raw, insn->size < sizeof(key.raw) ? insn->size : sizeof(key.raw));
	text = jifl_line_cache_get(p->cache, &key, &n);
	if (text) {
		jifl_line_mem(l, text, n);
		return;
	}
	start = l->len;
	flushes = l->flushes;
	for (i = p->run_from; i < p->run_to; i++)
		put_nth_field(p, di, i);
	/* A flush in between took the start of the text away. */
	if (l->flushes == flushes)
		jifl_line_cache_put(p->cache, &key, l->buf + start, l->len - start);
}

/* The fields in their order, a space apart; a tab before the disassembly. */
static void print_insn(struct jifl_printer *p, const struct jifl_decoded_insn *di)
{
	size_t i;

	for (i = 0; i < p->fields.n; i++) {
		if (i == p->run_from && p->run_to > i) {
			put_run(p, di);
			i = p->run_to - 1;
			continue;
		}
		put_nth_field(p, di, i);
	}
	jifl_line_char(&p->line, '\n');
	if (p->each_line)
		jifl_line_flush(&p->line);
}

static int is_call(enum pt_insn_class c)
{
	return c == ptic_call || c == ptic_far_call;
}

static int is_return(enum pt_insn_class c)
{
	return c == ptic_return || c == ptic_far_return;
}

/* The thread's previous instruction was a branch and @di is where it went. */
static void print_branch(struct jifl_printer *p, struct thread_state *t,
			 const struct jifl_decoded_insn *di)
{
	const struct jifl_decoded_insn *from = &t->prev_di;
	enum pt_insn_class c = t->prev.iclass;
	struct jifl_line *l = &p->line;
	const char *kind;
	int pad;

	if (p->mode == JIFL_PRINT_CALLS) {
		if (!is_call(c) && !is_return(c))
			return;
		if (is_return(c) && t->depth > 0)
			t->depth--;
	}
	kind = is_call(c) ? "call" : is_return(c) ? "return" : c == ptic_cond_jump ? "jcc" : "jmp";
	put_time(p, from->time);
	jifl_line_char(l, ' ');
	jifl_line_num(l, from->tid, 10, 6, ' ');
	jifl_line_char(l, ' ');
	/* "%*s%-6s": the call depth's indent, the kind left-aligned in 6. */
	for (pad = p->mode == JIFL_PRINT_CALLS ? 2 * t->depth : 0; pad > 0; pad--)
		jifl_line_char(l, ' ');
	jifl_line_str(l, kind);
	for (pad = 6 - (int)strlen(kind); pad > 0; pad--)
		jifl_line_char(l, ' ');
	jifl_line_char(l, ' ');
	jifl_line_num(l, t->prev.ip, 16, 16, ' ');
	jifl_line_char(l, ' ');
	put_where(l, from, t->prev.ip);
	jifl_line_str(l, " => ");
	jifl_line_num(l, di->insn->ip, 16, 16, ' ');
	jifl_line_char(l, ' ');
	put_where(l, di, di->insn->ip);
	jifl_line_char(l, '\n');
	if (p->each_line)
		jifl_line_flush(l);
	if (p->mode == JIFL_PRINT_CALLS && is_call(c))
		t->depth++;
}

static void on_insn(void *ctx, const struct jifl_decoded_insn *di)
{
	struct jifl_printer *p = ctx;
	const struct pt_insn *insn = di->insn;
	struct thread_state *t;

	if (p->filter && !jifl_filter_match(p->filter, di->proc->pid, di->tid, di->time)) {
		/* Not a branch target: the source may pass, the target does not. */
		state_of(p, di->thread)->have_prev = 0;
		return;
	}
	p->insns++;
	p->jit_insns += !!di->jit;
	switch (p->mode) {
	case JIFL_PRINT_INSN:
		print_insn(p, di);
		break;
	case JIFL_PRINT_BRANCHES:
	case JIFL_PRINT_CALLS:
		t = state_of(p, di->thread);
		/* A branch not taken falls through: only taken ones are shown. */
		if (t->have_prev && t->prev.iclass != ptic_other &&
		    t->prev.ip + t->prev.size != insn->ip)
			print_branch(p, t, di);
		t->prev = *insn;
		t->prev_di = *di;
		t->prev_di.insn = &t->prev;
		t->have_prev = 1;
		break;
	case JIFL_PRINT_NONE:	/* count_ops */
		break;
	}
}

static void on_gap(void *ctx, const struct jifl_gap *gap)
{
	struct jifl_printer *p = ctx;
	enum pt_error_code code = pt_errcode(gap->code);
	struct error_kind *k = &p->kinds[gap->kind == JIFL_GAP_LOST ? KIND_LOST :
					 gap->kind == JIFL_GAP_LOOP ? KIND_LOOP :
					 code < NR_CODES ? code : NR_CODES - 1];

	/* What went before a gap is no branch source for what follows. */
	state_of(p, gap->thread)->have_prev = 0;
	if (p->filter && !jifl_filter_match(p->filter, gap->pid, gap->tid, gap->time))
		return;
	jifl_gaps_add(p->gaps, gap);
	if (jifl_gap_is_error(gap)) {
		if (!k->count)
			k->message = jifl_gap_message(gap);
		if (k->count < ERROR_IPS)
			k->ip[k->count] = gap->ip;
		k->count++;
		p->errors++;
	}
	if (p->mode != JIFL_PRINT_NONE) {
		jifl_line_flush(&p->line);
		jifl_gap_print(p->out, gap);
	}
}

static void on_count(void *ctx, uint64_t n, uint64_t jit)
{
	struct jifl_printer *p = ctx;

	p->insns += n;
	p->jit_insns += jit;
}

static const struct jifl_decode_ops listing_ops = {
	.insn = on_insn,
	.gap = on_gap,
};

static const struct jifl_decode_ops count_ops = {
	.count = on_count,
	.gap = on_gap,
};

const struct jifl_decode_ops *jifl_printer_ops(const struct jifl_printer *p)
{
	/* Counts come without threads or times: a filter needs every instruction. */
	return p->mode == JIFL_PRINT_NONE && !p->filter ? &count_ops : &listing_ops;
}

void jifl_printer_stats(struct jifl_printer *p, FILE *out)
{
	int i;
	uint64_t j;

	jifl_line_flush(&p->line);
	fprintf(out, "instructions: %" PRIu64 "\n", p->insns);
	fprintf(out, "jit instructions: %" PRIu64 "\n", p->jit_insns);
	fprintf(out, "errors: %" PRIu64 "\n", p->errors);
	for (i = 0; i < NR_KINDS; i++) {
		const struct error_kind *k = &p->kinds[i];

		if (!k->count)
			continue;
		fprintf(out, "  %" PRIu64 " x %s at", k->count, k->message);
		for (j = 0; j < k->count && j < ERROR_IPS; j++)
			fprintf(out, " 0x%" PRIx64, k->ip[j]);
		fputs(k->count > ERROR_IPS ? " ...\n" : "\n", out);
	}
	jifl_gaps_print(p->gaps, out);
}

uint64_t jifl_printer_insns(const struct jifl_printer *p)
{
	return p->insns;
}

uint64_t jifl_printer_errors(const struct jifl_printer *p)
{
	return p->errors;
}
