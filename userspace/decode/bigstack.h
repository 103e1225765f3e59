/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Threads for libipt's decoders, with a stack of their own size.
 *
 * libipt 2.0.5's block decoder follows chains of its block cache's
 * "again" entries (trampolines) by recursion, which ends only when the
 * block's 16-bit instruction count would overflow: code that jumps in a
 * circle of them recurses 65,535 deep, more than the 8 MiB of a default
 * stack (found by fuzz_raw: a segmentation fault in jifl-decode). 64 MiB
 * hold it, sanitizers included; only the pages used are ever allocated.
 */
#ifndef JIFL_DECODE_BIGSTACK_H
#define JIFL_DECODE_BIGSTACK_H

#include <pthread.h>

#define JIFL_DECODE_STACK	(64u << 20)

/* pthread_create() with a JIFL_DECODE_STACK stack. Returns 0 or an errno. */
int jifl_bigstack_create(pthread_t *t, void *(*fn)(void *), void *arg);

/* @fn(@arg) on such a thread, waited for; returns what @fn returned, or -jifl_err_nomem. */
int jifl_bigstack_call(int (*fn)(void *), void *arg);

#endif /* JIFL_DECODE_BIGSTACK_H */
