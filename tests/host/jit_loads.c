// SPDX-License-Identifier: GPL-2.0
/*
 * When flowjit jitdump has perf map each version (lib/flowjit/jit_loads.c):
 * FlowJIT records and perf.data barriers in, the planned loads out, one
 * table row each. Perf time is the TSC here, so a load "just after" a
 * time is one tick later.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kselftest_harness.h"
#include "flowjit/jit_loads.h"

#define PAGE0	0x7f0000000000ull
#define ADDR(p)	(PAGE0 + (uint64_t)(p) * FLOWJIT_PAGE_SIZE)
#define ALL	-1
#define MAX	8

struct rec {
	uint16_t type;		/* 0: none */
	uint64_t tsc;
	int page;
	uint8_t fill;		/* EXEC: the page's bytes */
};

struct bar {
	uint64_t time;		/* 0: none */
	int page;		/* ALL: the whole address space */
	int untracked;
};

struct want {
	uint64_t tsc;		/* 0: none */
	int page;
	unsigned int version, reload;
	size_t tail_size;
	uint8_t tail;		/* its bytes */
};

static const struct plan_case {
	const char *name;
	struct rec recs[MAX];
	struct bar bars[MAX];
	struct want loads[MAX];
} cases[] = {
	{ "a first version: at its start",
	  { { FLOWJIT_EV_EXEC, 1000, 0, 1 } }, { { 0 } },
	  { { 1000, 0, 1 } } },
	{ "after an anonymous mapping: just after it",
	  { { FLOWJIT_EV_EXEC, 1000, 0, 1 } }, { { 500, 0, 0 } },
	  { { 501, 0, 1 } } },
	{ "after an execve: just after it",
	  { { FLOWJIT_EV_EXEC, 1000, 0, 1 } }, { { 500, ALL, 0 } },
	  { { 501, 0, 1 } } },
	{ "after a file mapping: at its start",
	  { { FLOWJIT_EV_EXEC, 1000, 0, 1 } }, { { 500, 0, 1 } },
	  { { 1000, 0, 1 } } },
	{ "after a fork: at its start",
	  { { FLOWJIT_EV_EXEC, 1000, 0, 1 } }, { { 500, ALL, 1 } },
	  { { 1000, 0, 1 } } },
	{ "a file mapping at its very start: after it",
	  { { FLOWJIT_EV_EXEC, 1000, 0, 1 } }, { { 1000, 0, 1 } },
	  { { 1001, 0, 1 } } },
	{ "another page's mapping: no matter",
	  { { FLOWJIT_EV_EXEC, 1000, 0, 1 } }, { { 500, 1, 0 } },
	  { { 1000, 0, 1 } } },
	{ "a mapping after its start: no matter",
	  { { FLOWJIT_EV_EXEC, 1000, 0, 1 } }, { { 1500, 0, 0 } },
	  { { 1000, 0, 1 } } },
	{ "rewritten: just after the previous version ended",
	  { { FLOWJIT_EV_EXEC, 1000, 0, 1 }, { FLOWJIT_EV_WRITE, 1200, 0 },
	    { FLOWJIT_EV_EXEC, 2000, 0, 2 } }, { { 0 } },
	  { { 1000, 0, 1 }, { 1201, 0, 2 } } },
	{ "made non-executable, then executable: just after it ended",
	  { { FLOWJIT_EV_EXEC, 1000, 0, 1 }, { FLOWJIT_EV_MPROTECT, 1200, 0 },
	    { FLOWJIT_EV_EXEC, 2000, 0, 2 } }, { { 0 } },
	  { { 1000, 0, 1 }, { 1201, 0, 2 } } },
	{ "the previous version ran until it started: at its start",
	  { { FLOWJIT_EV_EXEC, 1000, 0, 1 }, { FLOWJIT_EV_EXEC, 2000, 0, 2 } }, { { 0 } },
	  { { 1000, 0, 1 }, { 2000, 0, 2 } } },
	{ "unmapped, then a file mapped: at its start",
	  { { FLOWJIT_EV_EXEC, 1000, 0, 1 }, { FLOWJIT_EV_MUNMAP, 1200, 0 },
	    { FLOWJIT_EV_EXEC, 2000, 0, 2 } }, { { 1500, 0, 1 } },
	  { { 1000, 0, 1 }, { 2000, 0, 2 } } },
	{ "unmapped, then anonymous memory mapped: just after that",
	  { { FLOWJIT_EV_EXEC, 1000, 0, 1 }, { FLOWJIT_EV_MUNMAP, 1200, 0 },
	    { FLOWJIT_EV_EXEC, 2000, 0, 2 } }, { { 1500, 0, 0 } },
	  { { 1000, 0, 1 }, { 1501, 0, 2 } } },
	{ "the same bytes again: no load",
	  { { FLOWJIT_EV_EXEC, 1000, 0, 1 }, { FLOWJIT_EV_WRITE, 1200, 0 },
	    { FLOWJIT_EV_EXEC, 2000, 0, 1 } }, { { 0 } },
	  { { 1000, 0, 1 } } },
	{ "the same bytes after a mapping: loaded again",
	  { { FLOWJIT_EV_EXEC, 1000, 0, 1 }, { FLOWJIT_EV_WRITE, 1200, 0 },
	    { FLOWJIT_EV_EXEC, 2000, 0, 1 } }, { { 1500, 0, 0 } },
	  { { 1000, 0, 1 }, { 1501, 0, 2 } } },
	{ "the next page live: its first bytes",
	  { { FLOWJIT_EV_EXEC, 900, 1, 7 }, { FLOWJIT_EV_EXEC, 1000, 0, 1 } }, { { 0 } },
	  { { 900, 1, 1 }, { 1000, 0, 1, 0, JIFL_JIT_LOAD_TAIL, 7 } } },
	{ "the next page ended: none of its bytes",
	  { { FLOWJIT_EV_EXEC, 900, 1, 7 }, { FLOWJIT_EV_WRITE, 950, 1 },
	    { FLOWJIT_EV_EXEC, 1000, 0, 1 } }, { { 0 } },
	  { { 900, 1, 1 }, { 1000, 0, 1 } } },
	{ "the next page's version while it runs: loaded again after both",
	  { { FLOWJIT_EV_EXEC, 1000, 0, 1 }, { FLOWJIT_EV_EXEC, 1500, 1, 7 },
	    { FLOWJIT_EV_WRITE, 1700, 1 }, { FLOWJIT_EV_EXEC, 1800, 1, 8 } }, { { 0 } },
	  { { 1000, 0, 1 }, { 1500, 0, 1, 1, JIFL_JIT_LOAD_TAIL, 7 }, { 1500, 1, 1 },
	    { 1701, 0, 1, 2, JIFL_JIT_LOAD_TAIL, 8 }, { 1701, 1, 2 } } },
	{ "the next page's version with the same first bytes: no load again",
	  { { FLOWJIT_EV_EXEC, 900, 1, 7 }, { FLOWJIT_EV_EXEC, 1000, 0, 1 },
	    { FLOWJIT_EV_WRITE, 1100, 1 }, { FLOWJIT_EV_EXEC, 1200, 1, 7 } }, { { 0 } },
	  { { 900, 1, 1 }, { 1000, 0, 1, 0, JIFL_JIT_LOAD_TAIL, 7 } } },
	{ "the next page's version after it ended: no load again",
	  { { FLOWJIT_EV_EXEC, 1000, 0, 1 }, { FLOWJIT_EV_WRITE, 1100, 0 },
	    { FLOWJIT_EV_EXEC, 1500, 1, 7 } }, { { 0 } },
	  { { 1000, 0, 1 }, { 1500, 1, 1 } } },
};

struct exec_rec {
	struct flowjit_event ev;
	uint8_t page[FLOWJIT_PAGE_SIZE];
};

static void build(struct __test_metadata *_metadata, const struct plan_case *c,
		  struct jifl_jit_image *img, struct jifl_jit_barrier *b, size_t *nr_b)
{
	static struct exec_rec r;
	size_t i;

	for (i = 0; i < MAX && c->recs[i].type; i++) {
		memset(&r, 0, sizeof(r));
		r.ev.type = c->recs[i].type;
		r.ev.tsc = c->recs[i].tsc;
		r.ev.pid = r.ev.tid = 1;
		r.ev.addr = r.ev.ip = ADDR(c->recs[i].page);
		r.ev.len = FLOWJIT_PAGE_SIZE;
		memset(r.page, c->recs[i].fill, sizeof(r.page));
		ASSERT_EQ(0, jifl_jit_image_add_event(img, &r.ev, r.ev.type == FLOWJIT_EV_EXEC ?
							       r.page : NULL));
	}
	for (*nr_b = 0; *nr_b < MAX && c->bars[*nr_b].time; (*nr_b)++) {
		const struct bar *s = &c->bars[*nr_b];

		b[*nr_b] = (struct jifl_jit_barrier){
			.pid = 1, .untracked = s->untracked, .time = s->time,
			.start = s->page == ALL ? 0 : ADDR(s->page),
			.end = s->page == ALL ? UINT64_MAX : ADDR(s->page + 1),
		};
	}
}

TEST(plan)
{
	const struct jifl_tsc_conv tc = { .time_shift = 0, .time_mult = 1 };
	struct jifl_jit_barrier b[MAX];
	struct jifl_jit_image *img;
	struct jifl_jit_load *l;
	uint8_t tail[JIFL_JIT_LOAD_TAIL];
	size_t c, i, n, nr_b, want_n;

	for (c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		const struct plan_case *pc = &cases[c];

		ASSERT_EQ(0, jifl_jit_image_new(&img));
		build(_metadata, pc, img, b, &nr_b);
		ASSERT_EQ(0, jifl_jit_loads_plan(img, b, nr_b, &tc, &l, &n));
		for (want_n = 0; want_n < MAX && pc->loads[want_n].tsc; want_n++)
			;
		EXPECT_EQ(want_n, n) TH_LOG("%s", pc->name);
		for (i = 0; i < n && i < want_n; i++) {
			const struct want *w = &pc->loads[i];

			EXPECT_EQ(w->tsc, l[i].tsc) TH_LOG("%s: load %zu", pc->name, i);
			EXPECT_EQ(ADDR(w->page), l[i].v->page) TH_LOG("%s: load %zu", pc->name, i);
			EXPECT_EQ(w->version, l[i].v->number) TH_LOG("%s: load %zu", pc->name, i);
			EXPECT_EQ(w->reload, l[i].reload) TH_LOG("%s: load %zu", pc->name, i);
			ASSERT_EQ(w->tail_size, l[i].tail_size) TH_LOG("%s: load %zu", pc->name, i);
			memset(tail, w->tail, sizeof(tail));
			EXPECT_EQ(0, memcmp(tail, l[i].tail, w->tail_size))
				TH_LOG("%s: load %zu", pc->name, i);
		}
		free(l);
		jifl_jit_image_free(img);
	}
}

TEST_HARNESS_MAIN
