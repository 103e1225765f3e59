/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Intel PT packet stream of one thread, as the hardware would emit it for
 * user-only tracing with TSC packets and return compression disabled.
 * Packets are encoded with libipt's encoder into a buffer that is handed
 * to a flush callback whenever it fills, always at a packet boundary.
 */
#ifndef JIFL_PT_STREAM_H
#define JIFL_PT_STREAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct pt_encoder;

/* Depth of the return-address stack for RET compression, as the hardware's. */
#define JIFL_PT_RET_STACK	64

typedef int (*jifl_pt_flush_fn)(void *ctx, const uint8_t *data, size_t size);

struct jifl_pt_stream {
	struct pt_encoder *enc;
	uint8_t *buf;
	size_t cap;
	jifl_pt_flush_fn flush;
	void *ctx;

	uint64_t last_ip;	/* for IP compression; 0 after a PSB */
	uint64_t tnt;		/* pending TNT bits, oldest highest */
	unsigned int tnt_bits;
	bool enabled;		/* PacketEn: between TIP.PGE and TIP.PGD */
	uint64_t psb_period;	/* bytes between PSB+ */
	uint64_t since_psb;	/* bytes since the last PSB */
	uint64_t last_tsc;	/* value of the last TSC packet */
	uint64_t bytes;		/* total bytes emitted */

	/* Return compression: the hardware's stack of return addresses. */
	bool ret_compression;
	uint64_t ret_stack[JIFL_PT_RET_STACK];
	unsigned int ret_top;	/* index of the next push, modulo the size */
	unsigned int ret_depth;
};

int jifl_pt_stream_init(struct jifl_pt_stream *s, size_t cap,
			uint64_t psb_period, jifl_pt_flush_fn flush, void *ctx);
void jifl_pt_stream_fini(struct jifl_pt_stream *s);

/* Synchronization point: PSB, TSC, MODE.Exec, FUP @ip if enabled, PSBEND. */
int jifl_pt_stream_psb(struct jifl_pt_stream *s, uint64_t tsc, uint64_t ip);
/* A PSB+ if psb_period bytes have passed since the last one. */
int jifl_pt_stream_psb_due(struct jifl_pt_stream *s, uint64_t tsc, uint64_t ip);

int jifl_pt_stream_tsc(struct jifl_pt_stream *s, uint64_t tsc);
/* One conditional branch outcome, packed into short TNT packets. */
int jifl_pt_stream_tnt(struct jifl_pt_stream *s, bool taken);
/* Indirect branch (jmp/call through register or memory, ret) to @ip. */
int jifl_pt_stream_tip(struct jifl_pt_stream *s, uint64_t ip);
/* A call that returns to @ret_ip: remembered for return compression. */
void jifl_pt_stream_call(struct jifl_pt_stream *s, uint64_t ret_ip);
/* Forget the calls remembered: none of their returns is compressed. */
void jifl_pt_stream_forget_calls(struct jifl_pt_stream *s);
/*
 * A return to @ip: a taken TNT bit when return compression is on and @ip
 * is the innermost remembered return address, else TIP.
 */
int jifl_pt_stream_ret(struct jifl_pt_stream *s, uint64_t ip);
/* Tracing resumes at @ip (TIP.PGE). */
int jifl_pt_stream_pge(struct jifl_pt_stream *s, uint64_t ip);
/* Far branch out of user space (syscall): TIP.PGD, target suppressed. */
int jifl_pt_stream_pgd(struct jifl_pt_stream *s);
/* Asynchronous exit (fault, signal) before @ip runs: FUP @ip, TIP.PGD. */
int jifl_pt_stream_fup_pgd(struct jifl_pt_stream *s, uint64_t ip);
/* Emit pending TNT bits and hand all buffered bytes to the flush callback. */
int jifl_pt_stream_flush(struct jifl_pt_stream *s);

#endif /* JIFL_PT_STREAM_H */
