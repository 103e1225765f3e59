/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A session's queues (per CPU, or per thread) decoded by several threads
 * at once, the output in time order all the same. Each worker opens the
 * session's files again, a session of its own (processes, images,
 * threads: nothing is shared while decoding), and decodes every jobs-th
 * queue a few chunks of items ahead of the merge. The caller's thread
 * merges the queues as jifl_decode_merged() does, each item's thread
 * and process replaced by the caller's session's own.
 */
#ifndef JIFL_DECODE_PARALLEL_H
#define JIFL_DECODE_PARALLEL_H

#include "decoder.h"
#include "session.h"

/*
 * Decode @s with cfg->jobs threads (at most one per queue) and hand what
 * they give to cfg->ops in time order. Returns 0, or a negative
 * jifl_error_code.
 */
int jifl_decode_parallel(struct jifl_session *s, const struct jifl_decode_config *cfg);

#endif /* JIFL_DECODE_PARALLEL_H */
