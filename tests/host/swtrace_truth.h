/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Reader of jifl-swtrace's ground truth for tests, written from the
 * format's documentation (Documentation/swtrace.rst), independent of the
 * tool's writer.
 */
#ifndef JIFL_TESTS_SWTRACE_TRUTH_H
#define JIFL_TESTS_SWTRACE_TRUTH_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Executed instructions: thread, position in the input, address. */
struct step {
	uint32_t tid;
	uint32_t seq;
	uint64_t ip;
};

struct ipseq {
	struct step *v;
	size_t n, cap;
};

static inline int ipseq_push(struct ipseq *s, uint32_t tid, uint64_t ip)
{
	if (s->n == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 4096;
		struct step *v = realloc(s->v, cap * sizeof(*v));

		if (!v)
			return -1;
		s->v = v;
		s->cap = cap;
	}
	s->v[s->n].tid = tid;
	s->v[s->n].seq = s->n;
	s->v[s->n].ip = ip;
	s->n++;
	return 0;
}

/* Documentation/swtrace.rst, "Ground truth"; returns 0 or -1. */
static inline int truth_read(const char *path, struct ipseq *s)
{
	unsigned char hdr[16], magic[8];
	FILE *f = fopen(path, "r");
	uint32_t tid, count, i;
	uint64_t ip, z;
	int c, shift;

	if (!f || fread(magic, 8, 1, f) != 1 || memcmp(magic, "JIFLTRU1", 8))
		goto fail;
	while (fread(hdr, sizeof(hdr), 1, f) == 1) {
		memcpy(&tid, hdr, 4);
		memcpy(&count, hdr + 4, 4);
		if (!count || count > 256)
			goto fail;
		ip = 0;
		for (i = 0; i < count; i++) {
			z = 0;
			shift = 0;
			do {
				c = fgetc(f);
				if (c == EOF || shift > 63)
					goto fail;
				z |= (uint64_t)(c & 0x7f) << shift;
				shift += 7;
			} while (c & 0x80);
			ip += (z >> 1) ^ -(z & 1);
			if (ipseq_push(s, tid, ip))
				goto fail;
		}
	}
	if (!feof(f))
		goto fail;
	fclose(f);
	return 0;
fail:
	if (f)
		fclose(f);
	return -1;
}

#endif /* JIFL_TESTS_SWTRACE_TRUTH_H */
