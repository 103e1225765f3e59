// SPDX-License-Identifier: GPL-2.0
#include <string.h>
#include <Zydis/Zydis.h>

#include "run.h"

/* Instructions between two progress reports (a power of two). */
#define PROGRESS_EVERY	(1 << 16)

static uint64_t run_time(const struct jifl_run *r, uint64_t tsc)
{
	return r->tc ? jifl_tsc_conv_to_time(r->tc, tsc) : 0;
}

uint64_t jifl_run_offset(const struct jifl_run *r)
{
	uint64_t offset = 0;

	r->be->offset(r->dec, &offset);
	return r->base + offset;
}

void jifl_run_attach(struct jifl_run *r)
{
	jifl_process_attach(r->proc, r->dec, r->be->time, r->tscs, &r->adopted,
			    r->be->log_reads);
}

int jifl_run_thread_at(struct jifl_run *r, uint64_t tsc)
{
	const struct jifl_run_source *src = r->src;
	uint32_t pid = src->pid, tid = src->tid;
	struct jifl_process *p = NULL;
	struct jifl_thread *th;

	if (src->cpus)
		jifl_cpu_threads_at(src->cpus, src->cpu, run_time(r, tsc), &pid, &tid);
	if (r->thread && r->thread->pid == pid && r->thread->tid == tid)
		return 0;
	th = jifl_threads_get(src->threads, pid, tid);
	if (!th) {
		r->nomem = 1;
		return -pte_nomem;
	}
	if (src->proc)
		p = src->proc(src->ctx, pid);
	/* A process the trace has no maps of: decode on in the one before. */
	if (p && p != r->proc) {
		if (r->be->set_image(r->dec, p->image) < 0)
			return -pte_internal;
		r->proc = p;
	}
	r->thread = th;
	/* Versions chosen ahead are one thread's (Documentation/decode.rst). */
	jifl_adopted_clear(&r->adopted);
	jifl_run_attach(r);
	return 0;
}

static struct jifl_item *push(struct jifl_run *r, enum jifl_item_kind kind, uint64_t tsc)
{
	struct jifl_item *it = jifl_items_push(r->items);

	if (!it) {
		r->nomem = 1;
		return NULL;
	}
	it->kind = kind;
	it->thread = r->thread;
	it->proc = r->proc;
	it->tsc = tsc;
	return it;
}

void jifl_run_gap_close(struct jifl_run *r, int resumed, uint64_t ip, uint64_t tsc)
{
	struct jifl_item *it;

	if (!r->in_gap)
		return;
	r->in_gap = 0;
	if (resumed) {
		r->gap.resumed = 1;
		r->gap.resume_ip = ip;
		r->gap.resume_time = run_time(r, tsc);
	} else {
		tsc = r->be->time(r->dec);
	}
	/* Just before the instruction it resumed at. */
	it = push(r, JIFL_ITEM_GAP, tsc);
	if (it)
		it->u.gap = r->gap;
}

void jifl_run_gap_open(struct jifl_run *r, enum jifl_gap_kind kind, int code, uint64_t ip)
{
	struct jifl_gap *g = &r->gap;

	jifl_run_gap_close(r, 0, 0, 0);
	memset(g, 0, sizeof(*g));
	g->kind = kind;
	g->code = code;
	g->pid = r->thread->pid;
	g->tid = r->thread->tid;
	g->thread = r->thread;
	g->time = run_time(r, r->be->time(r->dec));
	g->ip = ip;
	g->offset = jifl_run_offset(r);
	/* Until a PSB says otherwise, an error skips the rest of the buffer. */
	g->resume_offset = kind == JIFL_GAP_ERROR ? r->base + r->size : 0;
	r->in_gap = 1;
}

/*
 * The size of the last instruction, counted not listed: read from its
 * file section @r->ip_isid, or from JIT memory; 0 if unknown.
 */
static uint8_t insn_size(const struct jifl_run *r)
{
	uint8_t buf[ZYDIS_MAX_INSTRUCTION_LENGTH];
	const struct jifl_jit_version *v;
	ZydisDecodedInstruction insn;
	ZydisDecoder dec;
	int n;

	if (r->ip_isid > 0)
		n = pt_iscache_read(r->proc->isc, buf, sizeof(buf), r->ip_isid, r->ip);
	else if (r->proc->jit)
		n = jifl_jit_image_read(r->proc->jit, r->proc->pid, r->ip, r->be->time(r->dec),
					buf, sizeof(buf), &v);
	else
		n = 0;
	if (n <= 0 || !ZYAN_SUCCESS(ZydisDecoderInit(&dec, ZYDIS_MACHINE_MODE_LONG_64,
						     ZYDIS_STACK_WIDTH_64)) ||
	    !ZYAN_SUCCESS(ZydisDecoderDecodeInstruction(&dec, NULL, buf, n, &insn)))
		return 0;
	return insn.length;
}

/*
 * The thread left user space: where it would resume without a jump. A
 * far branch to the kernel (a system call) returns after itself; an
 * interrupt, a fault come back to the instruction they stopped.
 */
static void on_disabled(struct jifl_run *r, const struct pt_event *ev)
{
	struct jifl_item *it;

	r->disabled = 1;
	r->disabled_ip = ev->type == ptev_async_disabled ? ev->variant.async_disabled.at :
			 r->ip;
	it = push(r, JIFL_ITEM_DISABLED, r->be->time(r->dec));
	if (!it)
		return;
	it->u.disabled.ip = r->disabled_ip;
	it->u.disabled.resume_ip = 0;
	if (ev->type == ptev_async_disabled)
		it->u.disabled.resume_ip = ev->variant.async_disabled.at;
	else if (!ev->ip_suppressed)
		it->u.disabled.resume_ip = ev->variant.disabled.ip;
	else if (r->ip && (r->ip_size || (r->ip_size = insn_size(r))))
		it->u.disabled.resume_ip = r->ip + r->ip_size;
}

/*
 * Events that lose the flow open a gap. Whether tracing enabled again
 * resumes where the thread left off (a system call, an interrupt in a
 * user-only trace) or elsewhere (a signal) is for the merge to say: the
 * thread may have left off in another CPU's trace.
 */
static int on_event(struct jifl_run *r, const struct pt_event *ev)
{
	switch (ev->type) {
	case ptev_overflow:
		jifl_run_gap_open(r, JIFL_GAP_OVERFLOW, -pte_overflow, r->ip);
		r->disabled = 0;
		return jifl_run_thread_at(r, r->be->time(r->dec));
	case ptev_stop:
		jifl_run_gap_open(r, JIFL_GAP_STOP, 0, r->disabled ? r->disabled_ip : r->ip);
		break;
	case ptev_disabled:
	case ptev_async_disabled:
		on_disabled(r, ev);
		break;
	case ptev_enabled:
		r->enabled = r->disabled && !r->in_gap;
		r->enabled_tsc = r->be->time(r->dec);
		r->enabled_offset = jifl_run_offset(r);
		r->disabled = 0;
		return jifl_run_thread_at(r, r->enabled_tsc);
	default:
		break;
	}
	return 0;
}

/* Process the pending events (@status says if any); returns the new status. */
static int run_events(struct jifl_run *r, int status)
{
	struct pt_event ev;
	int err;

	while (status >= 0 && (status & pts_event_pending)) {
		status = r->be->event(r->dec, &ev);
		if (status < 0)
			break;
		err = on_event(r, &ev);
		if (err)
			return err;
	}
	return status;
}

int jifl_run_step_begin(struct jifl_run *r, int status)
{
	r->fail_ip = r->ip;
	status = run_events(r, status);
	if (status >= 0 && (status & pts_eos))
		return -pte_eos;
	jifl_process_reads_reset(r->proc);
	jifl_process_jit_sync(r->proc);
	return status;
}

/* Tell the progress callback where we are when @before..r->insns crossed a mark. */
static void progress(struct jifl_run *r, uint64_t before)
{
	if (r->cfg->progress && before / PROGRESS_EVERY != r->insns / PROGRESS_EVERY)
		r->cfg->progress(r->cfg->progress_arg, jifl_run_offset(r));
}

/* The first instruction after tracing was enabled says so. */
static void take_enabled(struct jifl_run *r, struct jifl_item *it)
{
	if (!r->enabled)
		return;
	it->enabled = 1;
	it->enabled_tsc = r->enabled_tsc;
	it->enabled_offset = r->enabled_offset;
	r->enabled = 0;
}

void jifl_run_insn(struct jifl_run *r, const struct pt_insn *insn, uint64_t tsc,
		   const struct jifl_jit_version *jit)
{
	struct jifl_item *it;

	r->ip = insn->ip;
	r->ip_size = insn->size;
	r->insns++;
	jifl_run_gap_close(r, 1, insn->ip, tsc);
	it = push(r, JIFL_ITEM_INSN, tsc);
	if (it) {
		it->u.insn.insn = *insn;
		it->u.insn.jit = jit;
		take_enabled(r, it);
	}
	progress(r, r->insns - 1);
}

void jifl_run_count(struct jifl_run *r, uint64_t first, uint64_t last, int isid,
		    uint64_t tsc, uint64_t n, uint64_t jit)
{
	struct jifl_item *it;

	r->ip = last;
	r->ip_size = 0;
	r->ip_isid = isid;
	r->insns += n;
	jifl_run_gap_close(r, 1, first, tsc);
	it = push(r, JIFL_ITEM_COUNT, tsc);
	if (it) {
		it->u.count.first = first;
		it->u.count.n = n;
		it->u.count.jit = jit;
		take_enabled(r, it);
	}
	progress(r, r->insns - n);
}
