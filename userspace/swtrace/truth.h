/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Ground truth: every executed user instruction address, in order.
 *
 * File format (little-endian, byte-packed; see Documentation/swtrace.rst):
 *
 *   "JIFLTRU1"                      8-byte magic
 *   group*                          until the end of the file
 *
 *   group:  u32 tid                 thread that ran the instructions
 *           u32 count               1 .. JIFL_TRUTH_GROUP_MAX
 *           u64 tsc                 TSC when the first one had executed
 *           count x uleb128(zigzag(ip[i] - ip[i-1])), ip[-1] = 0
 */
#ifndef JIFL_TRUTH_H
#define JIFL_TRUTH_H

#include <stdint.h>
#include <stdio.h>

#define JIFL_TRUTH_MAGIC	"JIFLTRU1"
#define JIFL_TRUTH_GROUP_MAX	256

struct jifl_truth {
	FILE *f;
	uint32_t tid;
	uint32_t count;
	uint64_t tsc;
	uint64_t prev_ip;
	uint8_t buf[JIFL_TRUTH_GROUP_MAX * 10];
	size_t len;
};

int jifl_truth_open(struct jifl_truth *t, const char *path);
int jifl_truth_add(struct jifl_truth *t, uint32_t tid, uint64_t ip, uint64_t tsc);
int jifl_truth_close(struct jifl_truth *t);

#endif /* JIFL_TRUTH_H */
