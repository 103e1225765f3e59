/* SPDX-License-Identifier: GPL-2.0 */
/* A decoding session's queues decoded, in one thread or several. */
#ifndef JIFL_DECODE_SESSION_DECODE_H
#define JIFL_DECODE_SESSION_DECODE_H

#include "decoder.h"
#include "session.h"

/*
 * Decode every queue's trace, all together, and hand what they give to
 * cfg->ops in time order, with the session's processor (cfg->pt is
 * ignored). Per CPU, an instruction is the thread's that the trace says
 * ran on its CPU at its time. cfg->progress, if set, is told the trace
 * bytes decoded so far, counted over all queues (of
 * jifl_session_trace_size()).
 */
int jifl_session_decode(struct jifl_session *s, const struct jifl_decode_config *cfg);

#endif /* JIFL_DECODE_SESSION_DECODE_H */
