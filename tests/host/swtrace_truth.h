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
#include <sys/wait.h>

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

/* Order steps by thread, then by position: per-thread comparison. */
static inline int step_cmp(const void *a, const void *b)
{
	const struct step *x = a, *y = b;

	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Index of the first difference of @a and @b (sorted alike, by thread). */
static inline size_t ipseq_first_diff(const struct ipseq *a, const struct ipseq *b)
{
	size_t i;

	for (i = 0; i < a->n && i < b->n; i++)
		if (a->v[i].tid != b->v[i].tid || a->v[i].ip != b->v[i].ip)
			break;
	return i;
}

/*
 * Steps of @a and @b (both sorted by step_cmp) that differ at the same
 * position, thread by thread, plus the difference of their lengths; the
 * position of the first in @first (SIZE_MAX: none).
 */
static inline size_t ipseq_diffs(const struct ipseq *a, const struct ipseq *b, size_t *first)
{
	size_t i, n = 0;

	*first = SIZE_MAX;
	for (i = 0; i < a->n && i < b->n; i++) {
		if (a->v[i].tid == b->v[i].tid && a->v[i].ip == b->v[i].ip)
			continue;
		if (!n++)
			*first = i;
	}
	return n + (a->n > b->n ? a->n - b->n : b->n - a->n);
}

/*
 * Run @cmd; its lines "... TID IP ..." (TID in column @tid_col) go to
 * @s, lines containing @error_mark are counted in @errors and shown
 * (the first few). Returns the exit status, or -1.
 */
static inline int read_ips(const char *cmd, int tid_col, const char *error_mark,
		    struct ipseq *s, long *errors)
{
	char line[1024], *save, *tok, *end;
	unsigned long tid;
	uint64_t ip;
	FILE *f = popen(cmd, "r");
	int col, st;

	if (!f)
		return -1;
	*errors = 0;
	while (fgets(line, sizeof(line), f)) {
		if (strstr(line, error_mark)) {
			if ((*errors)++ < 5)
				fprintf(stderr, "# %s", line);
			continue;
		}
		tok = strtok_r(line, " \t\n", &save);
		for (col = 0; tok && col < tid_col; col++)
			tok = strtok_r(NULL, " \t\n", &save);
		if (!tok)
			continue;
		tid = strtoul(tok, &end, 10);
		tok = *end ? NULL : strtok_r(NULL, " \t\n", &save);
		if (!tok)
			continue;
		ip = strtoull(tok, &end, 16);
		if (!*end && ipseq_push(s, tid, ip))
			break;
	}
	st = pclose(f);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

#endif /* JIFL_TESTS_SWTRACE_TRUTH_H */
