// SPDX-License-Identifier: GPL-2.0
#include <intel-pt.h>
#include <stdlib.h>
#include <string.h>

#include "common/errcode.h"
#include "pt_stream.h"

/* Room kept free for the largest packet group (a PSB+ is 16+8+2+9+2). */
#define PT_STREAM_SLACK	64
#define TNT_8_MAX	6

static int stream_drain(struct jifl_pt_stream *s)
{
	uint64_t off;
	int err;

	if (pt_enc_get_offset(s->enc, &off) < 0)
		return -jifl_err_internal;
	if (!off)
		return 0;
	err = s->flush(s->ctx, s->buf, off);
	if (err)
		return err;
	return pt_enc_sync_set(s->enc, 0) < 0 ? -jifl_err_internal : 0;
}

static int stream_put(struct jifl_pt_stream *s, const struct pt_packet *p)
{
	uint64_t off;
	int n, err;

	if (pt_enc_get_offset(s->enc, &off) < 0)
		return -jifl_err_internal;
	if (off + PT_STREAM_SLACK > s->cap) {
		err = stream_drain(s);
		if (err)
			return err;
	}
	n = pt_enc_next(s->enc, p);
	if (n < 0)
		return -jifl_err_internal;
	s->bytes += n;
	s->since_psb += n;
	return 0;
}

static int stream_put_tnt(struct jifl_pt_stream *s);

/* Any packet but TNT: pending TNT bits are for branches that ran before. */
static int stream_put_after_tnt(struct jifl_pt_stream *s, const struct pt_packet *p)
{
	int err = stream_put_tnt(s);

	return err ? err : stream_put(s, p);
}

static int stream_put_tnt(struct jifl_pt_stream *s)
{
	struct pt_packet p;
	int err;

	if (!s->tnt_bits)
		return 0;
	memset(&p, 0, sizeof(p));
	p.type = ppt_tnt_8;
	p.payload.tnt.bit_size = s->tnt_bits;
	p.payload.tnt.payload = s->tnt;
	err = stream_put(s, &p);
	s->tnt = 0;
	s->tnt_bits = 0;
	return err;
}

/* Smallest IP compression the last IP allows (IA32 SDM "IP Compression"). */
static enum pt_ip_compression stream_ipc(const struct jifl_pt_stream *s,
					 uint64_t ip)
{
	if (s->last_ip && (ip >> 16) == (s->last_ip >> 16))
		return pt_ipc_update_16;
	if (s->last_ip && (ip >> 32) == (s->last_ip >> 32))
		return pt_ipc_update_32;
	if ((uint64_t)((int64_t)(ip << 16) >> 16) == ip)
		return pt_ipc_sext_48;
	return pt_ipc_full;
}

static int stream_put_ip(struct jifl_pt_stream *s, enum pt_packet_type type,
			 uint64_t ip, bool suppress)
{
	struct pt_packet p;

	memset(&p, 0, sizeof(p));
	p.type = type;
	if (suppress) {
		p.payload.ip.ipc = pt_ipc_suppressed;
	} else {
		p.payload.ip.ipc = stream_ipc(s, ip);
		p.payload.ip.ip = ip;
		s->last_ip = ip;
	}
	return stream_put_after_tnt(s, &p);
}

static int stream_put_simple(struct jifl_pt_stream *s, enum pt_packet_type type)
{
	struct pt_packet p;

	memset(&p, 0, sizeof(p));
	p.type = type;
	return stream_put(s, &p);
}

int jifl_pt_stream_init(struct jifl_pt_stream *s, size_t cap,
			uint64_t psb_period, jifl_pt_flush_fn flush, void *ctx)
{
	struct pt_config cfg;

	memset(s, 0, sizeof(*s));
	if (cap < 4 * PT_STREAM_SLACK)
		return -jifl_err_invalid;
	s->buf = malloc(cap);
	if (!s->buf)
		return -jifl_err_nomem;
	pt_config_init(&cfg);
	cfg.begin = s->buf;
	cfg.end = s->buf + cap;
	s->enc = pt_alloc_encoder(&cfg);
	if (!s->enc) {
		free(s->buf);
		return -jifl_err_nomem;
	}
	s->cap = cap;
	s->psb_period = psb_period;
	s->flush = flush;
	s->ctx = ctx;
	return 0;
}

void jifl_pt_stream_fini(struct jifl_pt_stream *s)
{
	pt_free_encoder(s->enc);
	free(s->buf);
	s->enc = NULL;
	s->buf = NULL;
}

int jifl_pt_stream_tsc(struct jifl_pt_stream *s, uint64_t tsc)
{
	struct pt_packet p;

	memset(&p, 0, sizeof(p));
	p.type = ppt_tsc;
	p.payload.tsc.tsc = tsc & ((1ULL << 56) - 1);
	s->last_tsc = tsc;
	return stream_put_after_tnt(s, &p);
}

int jifl_pt_stream_psb(struct jifl_pt_stream *s, uint64_t tsc, uint64_t ip)
{
	struct pt_packet p;
	int err;

	err = stream_put_tnt(s);
	if (!err)
		err = stream_put_simple(s, ppt_psb);
	s->since_psb = 0;
	s->last_ip = 0;
	s->ret_depth = 0;	/* decoders forget their call stack at PSB */
	if (!err)
		err = jifl_pt_stream_tsc(s, tsc);
	if (err)
		return err;
	memset(&p, 0, sizeof(p));
	p.type = ppt_mode;
	p.payload.mode.leaf = pt_mol_exec;
	p.payload.mode.bits.exec = pt_set_exec_mode(ptem_64bit);
	err = stream_put(s, &p);
	if (!err && s->enabled)
		err = stream_put_ip(s, ppt_fup, ip, false);
	if (!err)
		err = stream_put_simple(s, ppt_psbend);
	return err;
}

int jifl_pt_stream_psb_due(struct jifl_pt_stream *s, uint64_t tsc, uint64_t ip)
{
	if (s->since_psb < s->psb_period)
		return 0;
	return jifl_pt_stream_psb(s, tsc, ip);
}

int jifl_pt_stream_tnt(struct jifl_pt_stream *s, bool taken)
{
	s->tnt = (s->tnt << 1) | taken;
	if (++s->tnt_bits < TNT_8_MAX)
		return 0;
	return stream_put_tnt(s);
}

int jifl_pt_stream_tip(struct jifl_pt_stream *s, uint64_t ip)
{
	return stream_put_ip(s, ppt_tip, ip, false);
}

void jifl_pt_stream_call(struct jifl_pt_stream *s, uint64_t ret_ip)
{
	s->ret_stack[s->ret_top] = ret_ip;
	s->ret_top = (s->ret_top + 1) % JIFL_PT_RET_STACK;
	if (s->ret_depth < JIFL_PT_RET_STACK)
		s->ret_depth++;
}

void jifl_pt_stream_forget_calls(struct jifl_pt_stream *s)
{
	s->ret_depth = 0;
}

/*
 * Every return pops, compressed or not, as decoders do. When the stack
 * overflowed, the oldest addresses are gone: such returns get a TIP
 * (the decoder, whose stack is deeper, then ignores its own entry).
 */
int jifl_pt_stream_ret(struct jifl_pt_stream *s, uint64_t ip)
{
	uint64_t expect = 0;

	if (s->ret_depth) {
		s->ret_top = (s->ret_top + JIFL_PT_RET_STACK - 1) % JIFL_PT_RET_STACK;
		s->ret_depth--;
		expect = s->ret_stack[s->ret_top];
	}
	if (s->ret_compression && expect == ip && ip)
		return jifl_pt_stream_tnt(s, true);
	return jifl_pt_stream_tip(s, ip);
}

int jifl_pt_stream_pge(struct jifl_pt_stream *s, uint64_t ip)
{
	s->enabled = true;
	return stream_put_ip(s, ppt_tip_pge, ip, false);
}

int jifl_pt_stream_pgd(struct jifl_pt_stream *s)
{
	s->enabled = false;
	return stream_put_ip(s, ppt_tip_pgd, 0, true);
}

int jifl_pt_stream_fup_pgd(struct jifl_pt_stream *s, uint64_t ip)
{
	int err;

	err = stream_put_ip(s, ppt_fup, ip, false);
	if (err)
		return err;
	return jifl_pt_stream_pgd(s);
}

int jifl_pt_stream_flush(struct jifl_pt_stream *s)
{
	int err = stream_put_tnt(s);

	return err ? err : stream_drain(s);
}
