/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The threads of a decoding session. A thread's trace may be spread over
 * several queues (per CPU, it runs on several CPUs); what is kept per
 * thread follows it from one to the next: the instructions so far and
 * where tracing was last disabled (merge.c), and the consumer's own
 * state (@priv, the printer's).
 */
#ifndef JIFL_DECODE_THREADS_H
#define JIFL_DECODE_THREADS_H

#include <stdint.h>

struct jifl_thread {
	uint32_t pid, tid;
	uint64_t insns;			/* handed out so far */
	int disabled;			/* tracing disabled, not enabled since */
	uint64_t disabled_ip;		/* where: the gap's ip, if one follows */
	uint64_t resume_ip;		/* where it goes on without a jump; 0: unknown */
	void *priv;			/* the consumer's */
};

struct jifl_threads;

/* Returns 0 or -jifl_err_nomem. */
int jifl_threads_new(struct jifl_threads **tp);
void jifl_threads_free(struct jifl_threads *t);

/*
 * Thread @tid of process @pid, made the first time; its address stays.
 * NULL: out of memory.
 */
struct jifl_thread *jifl_threads_get(struct jifl_threads *t, uint32_t pid, uint32_t tid);

#endif /* JIFL_DECODE_THREADS_H */
