// SPDX-License-Identifier: GPL-2.0
/*
 * FlowJIT in user space, for host tests on a kernel without it. Preloaded
 * (LD_PRELOAD) into a JIT that gets its executable memory from mmap and
 * mprotect, it does to that memory what the kernel's FlowJIT does to a
 * tracked page: a page the program made executable is kept either
 * writable and not executable, or executable and read-only. A fetch
 * from it faults (SIGSEGV): that is the EXEC event, with a snapshot of
 * the page, and the page becomes executable; a store to it faults: the
 * WRITE event, and it becomes writable again. mprotect and munmap of
 * tracked memory are logged too. The records are the kernel's (struct
 * flowjit_event, an EXEC followed by its page), appended to the file
 * that JIFL_FJ_PRELOAD names, as /proc/flowjit/stream gives them; the
 * test turns them into a FlowJIT data file.
 *
 * Only anonymous memory is tracked, by one thread at a time (the
 * programs tested are single-threaded), and the program must not
 * handle SIGSEGV itself.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>
#include <x86intrin.h>
#include <linux/flowjit.h>

#define PAGE		4096UL
#define MAX_PAGES	4096
#define PF_WRITE	0x2	/* page fault error code bits */
#define PF_INSTR	0x10

/* A tracked page: the protection the program asked for, and whether it now runs. */
static struct tracked {
	uintptr_t page;
	int prot;
	int exec;
} pages[MAX_PAGES];
static size_t nr_pages;
static int out_fd = -1;
static uint64_t seq;

static long sys_mprotect(uintptr_t addr, size_t len, int prot)
{
	return syscall(SYS_mprotect, addr, len, prot);
}

static void emit(uint16_t type, uint64_t ip, uint64_t addr, uint64_t len, uint64_t aux,
		 const void *page)
{
	struct flowjit_event ev = {
		.type = type,
		.flags = page ? FLOWJIT_EVF_PAYLOAD : 0,
		.size = sizeof(ev) + (page ? FLOWJIT_PAGE_SIZE : 0),
		.seq = seq++,
		.pid = getpid(),
		.tid = syscall(SYS_gettid),
		.ip = ip,
		.addr = addr,
		.len = len,
		.aux = aux,
	};
	struct iovec iov[2] = { { &ev, sizeof(ev) }, { (void *)page, FLOWJIT_PAGE_SIZE } };
	struct timespec ts;
	unsigned int cpu = 0;

	if (out_fd < 0)
		return;
	syscall(SYS_getcpu, &cpu, NULL, NULL);
	ev.cpu = cpu;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	ev.time_ns = (uint64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
	ev.tsc = __rdtsc();
	if (writev(out_fd, iov, page ? 2 : 1) != (ssize_t)ev.size)
		abort();
}

static struct tracked *find(uintptr_t page)
{
	size_t i;

	for (i = 0; i < nr_pages; i++)
		if (pages[i].page == page)
			return &pages[i];
	return NULL;
}

/* The protection a tracked page has now: never writable and executable at once. */
static int now_prot(const struct tracked *t)
{
	if (t->exec)
		return (t->prot & ~PROT_WRITE) | PROT_READ;
	return t->prot & ~PROT_EXEC;
}

/* Track [addr, addr + len) with @prot (executable), or stop tracking it. */
static void track(uintptr_t addr, size_t len, int prot)
{
	uintptr_t p;
	struct tracked *t;

	for (p = addr & ~(PAGE - 1); p < addr + len; p += PAGE) {
		t = find(p);
		if (!(prot & PROT_EXEC)) {
			if (t)
				*t = pages[--nr_pages];
			continue;
		}
		if (!t) {
			if (nr_pages == MAX_PAGES)
				abort();
			t = &pages[nr_pages++];
			t->page = p;
		}
		t->prot = prot;
		t->exec = 0;
		sys_mprotect(p, PAGE, now_prot(t));
	}
}

static int tracked_in(uintptr_t addr, size_t len)
{
	size_t i;

	for (i = 0; i < nr_pages; i++)
		if (pages[i].page + PAGE > addr && pages[i].page < addr + len)
			return 1;
	return 0;
}

static void on_segv(int sig, siginfo_t *si, void *ctx)
{
	ucontext_t *uc = ctx;
	uint64_t err = uc->uc_mcontext.gregs[REG_ERR];
	uint64_t ip = uc->uc_mcontext.gregs[REG_RIP];
	uintptr_t page = (uintptr_t)si->si_addr & ~(PAGE - 1);
	struct tracked *t = si->si_code == SEGV_ACCERR ? find(page) : NULL;

	if (t && (err & PF_INSTR) && (t->prot & PROT_EXEC) && !t->exec) {
		t->exec = 1;
		sys_mprotect(page, PAGE, now_prot(t));
		emit(FLOWJIT_EV_EXEC, ip, page, 0, 0, (const void *)page);
		return;
	}
	if (t && (err & PF_WRITE) && (t->prot & PROT_WRITE) && t->exec) {
		emit(FLOWJIT_EV_WRITE, ip, page, 0, 0, NULL);
		t->exec = 0;
		sys_mprotect(page, PAGE, now_prot(t));
		return;
	}
	/* Not ours: fault again with the default action. */
	signal(sig, SIG_DFL);
}

int mprotect(void *addr, size_t len, int prot)
{
	uintptr_t a = (uintptr_t)addr;

	if (out_fd >= 0 && ((prot & PROT_EXEC) || tracked_in(a, len))) {
		emit(FLOWJIT_EV_MPROTECT, 0, a, len, prot, NULL);
		if (sys_mprotect(a, len, prot & ~PROT_EXEC))
			return -1;
		track(a, len, prot);
		return 0;
	}
	return sys_mprotect(a, len, prot);
}

void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	void *p = (void *)syscall(SYS_mmap, addr, len,
				  out_fd >= 0 && (flags & MAP_ANONYMOUS) ? prot & ~PROT_EXEC : prot,
				  flags, fd, off);

	if (p != MAP_FAILED && out_fd >= 0 && (flags & MAP_ANONYMOUS) &&
	    ((prot & PROT_EXEC) || tracked_in((uintptr_t)p, len))) {
		/* A mapping that replaces tracked pages unmaps them first. */
		if (tracked_in((uintptr_t)p, len))
			emit(FLOWJIT_EV_MUNMAP, 0, (uintptr_t)p, len, 0, NULL);
		track((uintptr_t)p, len, prot);
	}
	return p;
}

void *mmap64(void *addr, size_t len, int prot, int flags, int fd, off_t off)
	__attribute__((alias("mmap")));

int munmap(void *addr, size_t len)
{
	uintptr_t a = (uintptr_t)addr;

	if (out_fd >= 0 && tracked_in(a, len)) {
		emit(FLOWJIT_EV_MUNMAP, 0, a, len, 0, NULL);
		track(a, len, 0);
	}
	return syscall(SYS_munmap, addr, len);
}

__attribute__((constructor)) static void fj_preload_init(void)
{
	const char *path = getenv("JIFL_FJ_PRELOAD");
	struct sigaction sa = { .sa_sigaction = on_segv, .sa_flags = SA_SIGINFO };

	if (!path)
		return;
	out_fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
	if (out_fd < 0)
		return;
	sigaction(SIGSEGV, &sa, NULL);
	emit(FLOWJIT_EV_TRACK, 0, 0, 0, 0, NULL);
}
