// SPDX-License-Identifier: GPL-2.0
#include <stdlib.h>
#include <string.h>
#include <Zydis/Zydis.h>

#include "common/array.h"
#include "block_walk.h"
#include "common/branch.h"
#include "common/errcode.h"
#include "ild.h"

/* The instructions from a block start in a file section, as far as seen. */
struct entry {
	uint64_t ip;
	int isid;			/* 0: a free slot */
	uint32_t n;
	struct pt_insn *v;
	uint64_t next;			/* where v[n - 1] leads */
};

struct jifl_walk_cache {
	ZydisDecoder zd;
	struct jifl_ild *ild;		/* for what Zydis refuses; NULL until then */
	struct entry *tab;		/* open addressing, a power of two */
	size_t size, used;
	/* JIT blocks, walked every time. */
	struct pt_insn *insns;
	const struct jifl_jit_version **jit;
	size_t cap;
};

int jifl_walk_cache_new(struct jifl_walk_cache **cp)
{
	struct jifl_walk_cache *c = calloc(1, sizeof(*c));

	if (!c)
		return -jifl_err_nomem;
	ZydisDecoderInit(&c->zd, ZYDIS_MACHINE_MODE_LONG_64, ZYDIS_STACK_WIDTH_64);
	*cp = c;
	return 0;
}

void jifl_walk_cache_free(struct jifl_walk_cache *c)
{
	size_t i;

	if (!c)
		return;
	for (i = 0; i < c->size; i++)
		free(c->tab[i].v);
	free(c->tab);
	jifl_ild_free(c->ild);
	free(c->insns);
	free(c->jit);
	free(c);
}

/* libipt's class of an instruction, from Zydis' decoding of it. */
static enum pt_insn_class classify(const ZydisDecodedInstruction *z)
{
	static const enum pt_insn_class class[] = {
		[jifl_branch_none] = ptic_other,
		[jifl_branch_cond] = ptic_cond_jump,
		[jifl_branch_jump] = ptic_jump,
		[jifl_branch_call] = ptic_call,
		[jifl_branch_return] = ptic_return,
		[jifl_branch_far_jump] = ptic_far_jump,
		[jifl_branch_far_call] = ptic_far_call,
		[jifl_branch_far_return] = ptic_far_return,
		[jifl_branch_trap] = ptic_far_call,
		[jifl_branch_sysret] = ptic_far_return,
	};

	return class[jifl_branch_classify(z)];
}

/*
 * Bytes Zydis refuses but libipt went through (an instruction newer than
 * Zydis, or one invalid in 64-bit mode): libipt's size and class, as its
 * instruction flow decoder gives them.
 */
static int decode_libipt(struct jifl_walk_cache *c, struct pt_insn *insn, const uint8_t *raw,
			 size_t len, uint64_t *next)
{
	int err = c->ild ? 0 : jifl_ild_new(&c->ild);

	return err ? err : jifl_ild_decode(c->ild, insn, raw, len, next);
}

/* Decode @insn (its ip set) from @len bytes at @raw; the address it leads to in @next. */
static int decode(struct jifl_walk_cache *c, struct pt_insn *insn, const uint8_t *raw,
		  size_t len, uint64_t *next)
{
	ZydisDecodedInstruction z;

	if (!ZYAN_SUCCESS(ZydisDecoderDecodeInstruction(&c->zd, NULL, raw, len, &z)))
		return decode_libipt(c, insn, raw, len, next);
	insn->size = z.length;
	memcpy(insn->raw, raw, z.length);
	insn->iclass = classify(&z);
	*next = insn->ip + z.length;
	/* Straight-line code goes on at the target of a direct jump or call. */
	if ((z.attributes & ZYDIS_ATTRIB_IS_RELATIVE) &&
	    (insn->iclass == ptic_jump || insn->iclass == ptic_call))
		*next += z.raw.imm[0].value.s;
	return 0;
}

static void init_insn(struct pt_insn *insn, const struct pt_block *b, uint64_t ip)
{
	memset(insn, 0, sizeof(*insn));
	insn->ip = ip;
	insn->isid = b->isid;
	insn->mode = b->mode;
	insn->speculative = b->speculative;
}

static struct entry *slot(const struct jifl_walk_cache *c, int isid, uint64_t ip)
{
	size_t i = ((ip ^ (uint64_t)isid << 48) * 0x9e3779b97f4a7c15ull) >> 20;

	for (i &= c->size - 1; c->tab[i].isid; i = (i + 1) & (c->size - 1))
		if (c->tab[i].ip == ip && c->tab[i].isid == isid)
			break;
	return &c->tab[i];
}

/* The cache entry of the block starting at @ip in section @isid. */
static struct entry *lookup(struct jifl_walk_cache *c, int isid, uint64_t ip)
{
	struct entry *old = c->tab, *e;
	size_t i, n = c->size;

	if (2 * (c->used + 1) > c->size) {
		c->tab = calloc(n ? 2 * n : 1024, sizeof(*c->tab));
		if (!c->tab) {
			c->tab = old;
			return NULL;
		}
		c->size = n ? 2 * n : 1024;
		for (i = 0; i < n; i++)
			if (old[i].isid)
				*slot(c, old[i].isid, old[i].ip) = old[i];
		free(old);
	}
	e = slot(c, isid, ip);
	if (!e->isid) {
		e->isid = isid;
		e->ip = ip;
		c->used++;
	}
	return e;
}

/* Extend @e to @n instructions, read from the section's file. */
static int extend(struct jifl_walk_cache *c, struct pt_image_section_cache *isc,
		  const struct pt_block *b, struct entry *e, uint32_t n)
{
	uint8_t raw[pt_max_insn_size];
	uint64_t ip, next;
	size_t cap = e->n;
	int len, err;

	if (e->n >= n)
		return 0;
	/* Entries grow to exactly what was seen; straight-line code is the same. */
	err = jifl_array_grow(&e->v, &cap, n, sizeof(*e->v));
	if (err)
		return err;
	ip = e->n ? e->next : b->ip;
	while (e->n < n) {
		len = pt_iscache_read(isc, raw, sizeof(raw), b->isid, ip);
		if (len <= 0)
			return -jifl_err_format;
		init_insn(&e->v[e->n], b, ip);
		err = decode(c, &e->v[e->n], raw, len, &next);
		if (err)
			return err;
		e->n++;
		e->next = ip = next;
	}
	return 0;
}

/* JIT code: the bytes the decoder read, in order, each with its version. */
static int walk_jit(struct jifl_walk_cache *c, const struct jifl_process *p,
		    const struct pt_block *b, uint64_t *next)
{
	size_t cap = c->cap, r = 0;
	uint64_t ip = b->ip;
	uint16_t i;
	int err;

	err = jifl_array_grow(&c->insns, &c->cap, b->ninsn, sizeof(*c->insns));
	if (!err)
		err = jifl_array_grow(&c->jit, &cap, b->ninsn, sizeof(*c->jit));
	if (err)
		return err;
	for (i = 0; i < b->ninsn; i++, r++) {
		while (r < p->nr_reads && p->reads[r].ip != ip)
			r++;
		if (r == p->nr_reads)
			return -jifl_err_format;
		init_insn(&c->insns[i], b, ip);
		err = decode(c, &c->insns[i], p->reads[r].raw, p->reads[r].size, &ip);
		if (err)
			return err;
		c->jit[i] = p->reads[r].v;
	}
	*next = ip;
	return 0;
}

/* File code that libipt does not give whole (truncated): walked every time. */
static int walk_file(struct jifl_walk_cache *c, struct pt_image_section_cache *isc,
		     const struct pt_block *b, struct jifl_walk *w)
{
	struct entry *e = lookup(c, b->isid, b->ip);
	int err;

	if (!e)
		return -jifl_err_nomem;
	err = extend(c, isc, b, e, b->ninsn - b->truncated);
	if (err)
		return err;
	w->insns = e->v;
	if (b->truncated) {
		init_insn(&w->last, b, b->end_ip);
		return decode(c, &w->last, b->raw, b->size, &w->next);
	}
	w->last = e->v[b->ninsn - 1];
	w->next = e->n > b->ninsn ? e->v[b->ninsn].ip : e->next;
	return 0;
}

/* JIT pages in their last version, mapped as a section: each one's version. */
static int jit_section(struct jifl_walk_cache *c, const struct jifl_process *p,
		       const struct pt_block *b, struct jifl_walk *w)
{
	size_t cap = c->cap;
	uint16_t i;
	int err;

	if (!jifl_process_jit_section(p, b->isid, b->ip))
		return 0;
	err = jifl_array_grow(&c->insns, &c->cap, b->ninsn, sizeof(*c->insns));
	if (!err)
		err = jifl_array_grow(&c->jit, &cap, b->ninsn, sizeof(*c->jit));
	if (err)
		return err;
	for (i = 0; i + 1 < b->ninsn; i++)
		c->jit[i] = jifl_process_jit_section(p, b->isid, w->insns[i].ip);
	c->jit[i] = jifl_process_jit_section(p, b->isid, w->last.ip);
	w->jit = c->jit;
	return 0;
}

int jifl_block_walk(struct jifl_walk_cache *c, struct pt_image_section_cache *isc,
		    const struct jifl_process *p, const struct pt_block *block,
		    struct jifl_walk *w)
{
	int err;

	memset(w, 0, sizeof(*w));
	if (!block->ninsn)
		return -jifl_err_invalid;
	if (block->isid > 0) {
		err = walk_file(c, isc, block, w);
		if (!err)
			err = jit_section(c, p, block, w);
	} else {
		err = walk_jit(c, p, block, &w->next);
		w->insns = c->insns;
		w->jit = c->jit;
		w->last = c->insns[block->ninsn - 1];
	}
	if (!err && block->iclass != ptic_error)
		w->last.iclass = block->iclass;
	return err;
}
