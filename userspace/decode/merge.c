// SPDX-License-Identifier: GPL-2.0
/*
 * Queues decoded together: what they hand out goes to the consumer in
 * time order, a merge of the queues on their decoder times (equal times
 * in queue order). Per thread, which may run in several queues (per
 * CPU), the merge keeps what must follow it from one to the next: its
 * instruction count, and where it left user space, to tell whether
 * tracing enabled again resumed there (a system call, an interrupt, a
 * context switch) or elsewhere (a signal: a gap, "restarted elsewhere").
 */
#include <stdlib.h>

#include "common/errcode.h"
#include "items.h"
#include "run.h"

struct merge {
	const struct jifl_decode_config *cfg;
	const struct jifl_tsc_conv *tc;
	uint64_t *done;			/* per queue: bytes decoded, as last reported */
	uint64_t sum;			/* of them */
};

static uint64_t merge_time(const struct merge *m, uint64_t tsc)
{
	return m->tc ? jifl_tsc_conv_to_time(m->tc, tsc) : 0;
}

/* Tracing was enabled at @it elsewhere than its thread left off. */
static void restart_gap(const struct merge *m, const struct jifl_item *it, uint64_t ip)
{
	struct jifl_thread *th = it->thread;
	struct jifl_gap g = {
		.kind = JIFL_GAP_RESTART,
		.pid = th->pid,
		.tid = th->tid,
		.thread = th,
		.time = merge_time(m, it->enabled_tsc),
		.ip = th->disabled_ip,
		.offset = it->enabled_offset,
		.insns = th->insns,
		.resumed = 1,
		.resume_ip = ip,
		.resume_time = merge_time(m, it->tsc),
	};

	m->cfg->ops->gap(m->cfg->ctx, &g);
}

/* @it's thread runs instructions from @ip on. */
static void thread_runs(const struct merge *m, const struct jifl_item *it, uint64_t ip)
{
	struct jifl_thread *th = it->thread;

	if (it->enabled && th->disabled && th->resume_ip != ip)
		restart_gap(m, it, ip);
	th->disabled = 0;
}

/* @it, from the queue of CPU @cpu (-1: a thread's queue). */
static void deliver(const struct merge *m, const struct jifl_item *it, int cpu)
{
	const struct jifl_decode_ops *ops = m->cfg->ops;
	struct jifl_thread *th = it->thread;
	struct jifl_decoded_insn di;
	struct jifl_gap gap;

	switch (it->kind) {
	case JIFL_ITEM_INSN:
		thread_runs(m, it, it->u.insn.insn.ip);
		th->insns++;
		if (!ops->insn) {
			ops->count(m->cfg->ctx, 1, !!it->u.insn.jit);
			break;
		}
		di.insn = &it->u.insn.insn;
		di.tsc = it->tsc;
		di.time = merge_time(m, it->tsc);
		di.tid = th->tid;
		di.thread = th;
		di.cpu = cpu;
		di.proc = it->proc;
		di.jit = it->u.insn.jit;
		ops->insn(m->cfg->ctx, &di);
		break;
	case JIFL_ITEM_COUNT:
		thread_runs(m, it, it->u.count.first);
		th->insns += it->u.count.n;
		ops->count(m->cfg->ctx, it->u.count.n, it->u.count.jit);
		break;
	case JIFL_ITEM_GAP:
		gap = it->u.gap;
		gap.insns = th->insns;
		ops->gap(m->cfg->ctx, &gap);
		break;
	case JIFL_ITEM_DISABLED:
		th->disabled = 1;
		th->disabled_ip = it->u.disabled.ip;
		th->resume_ip = it->u.disabled.resume_ip;
		break;
	}
}

/* Tell the consumer the bytes decoded, when queue @i's changed. */
static void progress(struct merge *m, const struct jifl_item_source *q, size_t i)
{
	uint64_t done;

	if (!m->cfg->progress)
		return;
	done = q->done(q->ctx);
	if (done == m->done[i])
		return;
	m->sum += done - m->done[i];
	m->done[i] = done;
	m->cfg->progress(m->cfg->progress_arg, m->sum);
}

/* Does (@tsc, queue @i) come before (@tsc2, queue @i2)? */
static int before(uint64_t tsc, size_t i, uint64_t tsc2, size_t i2)
{
	return tsc < tsc2 || (tsc == tsc2 && i < i2);
}

int jifl_decode_merged(const struct jifl_item_source *q, size_t n,
		       const struct jifl_tsc_conv *tc, const struct jifl_decode_config *cfg)
{
	struct merge m = { .cfg = cfg, .tc = tc };
	size_t i, best, next;
	struct jifl_item *it;
	uint64_t best_tsc = 0, next_tsc = 0;
	int err = 0;

	m.done = calloc(n ? n : 1, sizeof(*m.done));
	if (!m.done)
		return -jifl_err_nomem;
	for (;;) {
		/* The queue whose next item is first, and the one after it. */
		best = next = n;
		for (i = 0; i < n && !err; i++) {
			it = q[i].peek(q[i].ctx, &err);
			if (!it)
				continue;
			if (best == n || before(it->tsc, i, best_tsc, best)) {
				next = best;
				next_tsc = best_tsc;
				best = i;
				best_tsc = it->tsc;
			} else if (next == n || before(it->tsc, i, next_tsc, next)) {
				next = i;
				next_tsc = it->tsc;
			}
		}
		if (err || best == n)
			break;
		/* That queue's items, until the other one's comes first. */
		it = q[best].peek(q[best].ctx, &err);
		while (it && (next == n || before(it->tsc, best, next_tsc, next))) {
			deliver(&m, it, q[best].cpu);
			q[best].pop(q[best].ctx);
			it = q[best].peek(q[best].ctx, &err);
			progress(&m, &q[best], best);
		}
		if (err)
			break;
	}
	free(m.done);
	return err;
}
