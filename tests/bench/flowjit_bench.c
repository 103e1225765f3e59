// SPDX-License-Identifier: GPL-2.0
/*
 * FlowJIT cost in the guest, measured side by side in one run:
 *   - one EXEC+WRITE flip pair handled by FlowJIT (rewrite + run an RWX
 *     page, tracked) vs the same loop untracked,
 *   - vs a minor fault the kernel handles anyway (MADV_DONTNEED + touch),
 *   - vs mprotect-based flipping (RW -> RX -> RW per version, untracked),
 *   - and a double-mapped JIT (a memfd written through its read-write
 *     view, run through its read-execute view), untracked and tracked:
 *     the flip pair of code written through another mapping.
 * Prints medians in TSC cycles and ratios, and writes every sample
 * (cycles per version, tracked and untracked) to argv[1] for the
 * histogram. With --icount first (a guest under QEMU -icount shift=0,
 * whose TSC advances by one per instruction) the medians are labelled
 * as instructions.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <linux/flowjit.h>
#include <linux/prctl.h>
#include <x86intrin.h>

#include "../guest/flowjit_util.h"
#include "../progs/memfd_views.h"

#define PAGE 4096
#define N 20000

typedef int (*jit_fn)(void);

static int cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static uint64_t median(uint64_t *s, int n)
{
	qsort(s, n, sizeof(*s), cmp);
	return s[n / 2];
}

/* Rewrite and run an RWX page N times; cycles per version. */
static void rwx_loop(uint64_t *s)
{
	unsigned char *code = mmap(NULL, PAGE, PROT_READ | PROT_WRITE | PROT_EXEC,
				   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	int i;

	if (code == MAP_FAILED) {
		perror("mmap");
		exit(1);
	}
	for (i = 0; i < N; i++) {
		uint64_t t0 = __rdtsc();

		emit_ret_imm(code, i);
		if (((jit_fn)code)() != i)
			abort();
		s[i] = __rdtsc() - t0;
	}
	munmap(code, PAGE);
}

/* The same with W^X by mprotect, untracked. */
static void mprotect_loop(uint64_t *s)
{
	unsigned char *code = mmap(NULL, PAGE, PROT_READ | PROT_WRITE,
				   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	int i;

	for (i = 0; i < N; i++) {
		uint64_t t0 = __rdtsc();

		mprotect(code, PAGE, PROT_READ | PROT_WRITE);
		emit_ret_imm(code, i);
		mprotect(code, PAGE, PROT_READ | PROT_EXEC);
		if (((jit_fn)code)() != i)
			abort();
		s[i] = __rdtsc() - t0;
	}
	munmap(code, PAGE);
}

/* Write through a memfd's read-write view, run its read-execute view. */
static void alias_loop(uint64_t *s)
{
	unsigned char *rw, *rx;
	int fd = memfd_views("bench", PAGE, &rw, &rx), i;

	if (fd < 0)
		abort();
	for (i = 0; i < N; i++) {
		uint64_t t0 = __rdtsc();

		emit_ret_imm(rw, i);
		if (((jit_fn)rx)() != i)
			abort();
		s[i] = __rdtsc() - t0;
	}
	munmap(rw, PAGE);
	munmap(rx, PAGE);
	close(fd);
}

/* A minor fault per iteration: drop the page, touch it again. */
static void minor_fault_loop(uint64_t *s)
{
	volatile char *p = mmap(NULL, PAGE, PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	int i;

	for (i = 0; i < N; i++) {
		madvise((void *)p, PAGE, MADV_DONTNEED);
		uint64_t t0 = __rdtsc();

		p[0] = 1;
		s[i] = __rdtsc() - t0;
	}
}

int main(int argc, char **argv)
{
	static uint64_t off[N], on[N], mp[N], minor[N], al_off[N], al_on[N];
	uint64_t m_off, m_on, m_mp, m_minor, m_al_off, m_al_on;
	const char *unit = "TSC cycles", *where = "QEMU TCG numbers, not hardware";
	FILE *f;
	int i;

	/* --icount: under QEMU -icount shift=0 a TSC tick is an instruction */
	if (argc > 1 && !strcmp(argv[1], "--icount")) {
		unit = "instructions";
		where = "QEMU -icount, one TSC tick per instruction";
		argc--;
		argv++;
	}
	rwx_loop(off);
	mprotect_loop(mp);
	minor_fault_loop(minor);
	alias_loop(al_off);
	if (prctl(PR_FLOWJIT, FLOWJIT_OP_ENABLE, 0, 0, 0)) {
		perror("prctl(PR_FLOWJIT)");
		return 1;
	}
	rwx_loop(on);
	alias_loop(al_on);
	prctl(PR_FLOWJIT, FLOWJIT_OP_DISABLE, 0, 0, 0);
	if (argc > 1 && (f = fopen(argv[1], "w"))) {
		for (i = 0; i < N; i++)
			fprintf(f, "%llu %llu\n", (unsigned long long)on[i],
				(unsigned long long)off[i]);
		fclose(f);
	}
	m_off = median(off, N);
	m_on = median(on, N);
	m_mp = median(mp, N);
	m_minor = median(minor, N);
	m_al_off = median(al_off, N);
	m_al_on = median(al_on, N);
	printf("flowjit-bench: medians in %s over %d versions (%s)\n", unit, N, where);
	printf("  rewrite+run RWX page, untracked         %8llu\n", (unsigned long long)m_off);
	printf("  rewrite+run RWX page, FlowJIT tracked   %8llu  (one WRITE + one EXEC event with snapshot)\n", (unsigned long long)m_on);
	printf("  rewrite+run with mprotect W^X flips     %8llu\n", (unsigned long long)m_mp);
	printf("  minor fault (MADV_DONTNEED + touch)     %8llu\n", (unsigned long long)m_minor);
	printf("  double-mapped memfd JIT, untracked      %8llu\n", (unsigned long long)m_al_off);
	printf("  double-mapped memfd JIT, FlowJIT tracked %7llu  (WRITE through the other view + EXEC)\n",
	       (unsigned long long)m_al_on);
	printf("ratio tracked/untracked RWX loop:          %.2f\n", (double)m_on / m_off);
	printf("ratio FlowJIT flip pair / minor fault:     %.2f\n", (double)(m_on - m_off) / m_minor);
	printf("ratio FlowJIT flip pair / mprotect flips:  %.2f\n", (double)(m_on - m_off) / (m_mp - m_off));
	printf("ratio double-mapped flip pair / RWX pair:  %.2f\n",
	       (double)(m_al_on - m_al_off) / (m_on - m_off));
	return 0;
}
