/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the decoding of one queue hands out, in trace order, kept until
 * the merge of the queues (merge.c) takes it: instructions (or counts of
 * them), gaps, and the places where tracing was disabled, each with its
 * thread and its decoder time. A queue is decoded on only when all it
 * handed out was taken, so little is kept.
 */
#ifndef JIFL_DECODE_ITEMS_H
#define JIFL_DECODE_ITEMS_H

#include <stddef.h>
#include <stdint.h>
#include <intel-pt.h>

#include "decoder.h"
#include "threads.h"

enum jifl_item_kind {
	JIFL_ITEM_INSN,
	JIFL_ITEM_COUNT,	/* instructions counted, not listed */
	JIFL_ITEM_GAP,
	JIFL_ITEM_DISABLED,	/* tracing disabled: the thread left user space */
};

struct jifl_item {
	enum jifl_item_kind kind;
	/*
	 * INSN, COUNT: the first of the thread since tracing was enabled
	 * again (a TIP.PGE), at decoder time @enabled_tsc and trace offset
	 * @enabled_offset; not after a synchronisation point.
	 */
	int enabled;
	uint64_t enabled_tsc, enabled_offset;
	struct jifl_thread *thread;
	struct jifl_process *proc;
	uint64_t tsc;			/* decoder time: the order of the merge */
	union {
		struct {
			struct pt_insn insn;
			const struct jifl_jit_version *jit;
		} insn;
		struct {
			uint64_t first;		/* the first one's address */
			uint64_t n, jit;
		} count;
		struct jifl_gap gap;
		struct {
			uint64_t ip;		/* struct jifl_gap.ip of a restart */
			uint64_t resume_ip;	/* where it goes on without a jump; 0: unknown */
		} disabled;
	} u;
};

struct jifl_items {
	struct jifl_item *v;
	size_t head, nr, cap;
};

/* A new item at the end, not enabled, the rest unset; NULL: out of memory. */
struct jifl_item *jifl_items_push(struct jifl_items *q);

/* The first item, or NULL. */
static inline struct jifl_item *jifl_items_peek(struct jifl_items *q)
{
	return q->head < q->nr ? &q->v[q->head] : NULL;
}

static inline void jifl_items_pop(struct jifl_items *q)
{
	if (++q->head == q->nr)
		q->head = q->nr = 0;
}

void jifl_items_fini(struct jifl_items *q);

#endif /* JIFL_DECODE_ITEMS_H */
