// SPDX-License-Identifier: GPL-2.0
/*
 * Write seeds for the FlowJIT file harness (fuzz_flowjit.c) into DIR:
 * FlowJIT data files written with the project's own writer, with every
 * record type the kernel sends: code versions of reused pages, moves,
 * unmaps, a forked child, an execve, lost records, an EXEC without a
 * page.
 *
 * usage: seed_fj DIR
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "flowjit/fjwriter.h"

#define PID	100
#define PAGE_A	0x7f0000001000ull
#define PAGE_B	0x7f0000041000ull	/* 64 pages above PAGE_A */

struct rec {
	struct flowjit_event ev;
	uint8_t page[FLOWJIT_PAGE_SIZE];
};

static struct jifl_fjwriter *w;
static uint64_t tsc = 1000;

static void add(uint16_t type, uint32_t pid, uint64_t addr, uint64_t len, uint64_t aux)
{
	struct flowjit_event ev = {
		.type = type, .size = sizeof(ev), .tsc = tsc += 10, .pid = pid, .tid = pid,
		.ip = addr, .addr = addr, .len = len, .aux = aux,
	};

	if (jifl_fjwriter_add(w, &ev))
		exit(1);
}

/* An EXEC of @addr's page with a snapshot: a ret after @n nops. */
static void add_exec(uint32_t pid, uint64_t addr, unsigned int n)
{
	static struct rec r;

	memset(&r, 0, sizeof(r));
	r.ev.type = FLOWJIT_EV_EXEC;
	r.ev.flags = FLOWJIT_EVF_PAYLOAD;
	r.ev.size = sizeof(r);
	r.ev.tsc = tsc += 10;
	r.ev.pid = r.ev.tid = pid;
	r.ev.ip = addr;
	r.ev.addr = addr & ~4095ull;
	memset(r.page, 0x90, n % FLOWJIT_PAGE_SIZE);
	r.page[n % FLOWJIT_PAGE_SIZE] = 0xc3;
	if (jifl_fjwriter_add(w, &r.ev))
		exit(1);
}

static void open_seed(const char *dir, const char *name)
{
	static const char cmdline[] = "luajit\0hot.lua";
	struct jifl_fj_info info = {
		.tsc_hz = 2000000000, .start_ns = 1, .pid = PID,
		.cmdline = cmdline, .cmdline_len = sizeof(cmdline),
	};
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if (jifl_fjwriter_open(&w, path, &info)) {
		perror(path);
		exit(1);
	}
}

static void close_seed(void)
{
	if (jifl_fjwriter_close(w))
		exit(1);
}

int main(int argc, char **argv)
{
	unsigned int i;

	if (argc != 2) {
		fprintf(stderr, "usage: seed_fj DIR\n");
		return 2;
	}
	open_seed(argv[1], "seed-every-type");
	add(FLOWJIT_EV_TRACK, PID, 0, 0, 0);
	add_exec(PID, PAGE_A + 0x10, 16);
	add(FLOWJIT_EV_WRITE, PID, PAGE_A + 0x20, 8, 0);
	add_exec(PID, PAGE_A + 0x10, 32);
	add(FLOWJIT_EV_MPROTECT, PID, PAGE_A, 4096, PROT_READ | PROT_EXEC);
	add(FLOWJIT_EV_MREMAP, PID, PAGE_B, 4096, PAGE_A);
	add_exec(PID, PAGE_B, 4095);
	add(FLOWJIT_EV_FORK, PID + 1, 0, 0, PID);
	add_exec(PID + 1, PAGE_A + 0xff0, 4080);
	add(FLOWJIT_EV_EXECVE, PID + 1, 0, 0, 0);
	add(FLOWJIT_EV_LOST, PID, 0, 0, 3);
	add(FLOWJIT_EV_MUNMAP, PID, PAGE_B, 4096, 0);
	add(FLOWJIT_EV_UNTRACK, PID + 1, 0, 0, 0);
	close_seed();

	/* Two pages that share a slot of the decoder's table, rewritten in turn. */
	open_seed(argv[1], "seed-colliding-versions");
	add(FLOWJIT_EV_TRACK, PID, 0, 0, 0);
	for (i = 0; i < 6; i++) {
		add_exec(PID, (i & 1 ? PAGE_B : PAGE_A) + i, i);
		add(FLOWJIT_EV_WRITE, PID, i & 1 ? PAGE_B : PAGE_A, 8, 0);
	}
	add(FLOWJIT_EV_UNTRACK, PID, 0, 0, 0);
	close_seed();
	return 0;
}
