// SPDX-License-Identifier: GPL-2.0
/*
 * JIFL cost in the guest, side by side in one run: system-call
 * microbenchmarks with every system call native, then from the code
 * cache (null tool), and a macro workload (a shell pipeline). Prints
 * ns per call and ratios (QEMU TCG numbers).
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static int control(const char *cmd)
{
	int fd = open("/proc/jifl/control", O_WRONLY);
	int ok;

	if (fd < 0)
		return -1;
	ok = write(fd, cmd, strlen(cmd)) == (ssize_t)strlen(cmd);
	close(fd);
	return ok ? 0 : -1;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int pipefd[2];
static char buf[64];

static void b_getpid(void) { syscall(SYS_getpid); }
static void b_pipe(void)
{
	if (write(pipefd[1], buf, 1) != 1 || read(pipefd[0], buf, 1) != 1)
		abort();
}
static void b_openclose(void) { close(open("/proc/self/stat", O_RDONLY)); }
static void b_stat(void) { struct stat st; stat("/tmp", &st); }
static void b_mmap(void)
{
	void *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	*(volatile char *)p = 1;
	munmap(p, 4096);
}
static void b_macro(void)
{
	if (system("ls -l /bin | sort | wc -l > /dev/null"))
		abort();
}

static const struct bench {
	const char *name;
	void (*fn)(void);
	int iters;
} benches[] = {
	{ "getpid", b_getpid, 20000 },
	{ "pipe write+read", b_pipe, 5000 },
	{ "open+close", b_openclose, 3000 },
	{ "stat", b_stat, 5000 },
	{ "mmap+touch+munmap", b_mmap, 3000 },
	{ "macro: ls|sort|wc", b_macro, 10 },
};

static double run(const struct bench *b)
{
	double best = 1e9;
	int round, i;

	for (round = 0; round < 3; round++) {
		double t0 = now();

		for (i = 0; i < b->iters; i++)
			b->fn();
		if ((now() - t0) / b->iters < best)
			best = (now() - t0) / b->iters;
	}
	return best;
}

int main(void)
{
	size_t i, n = sizeof(benches) / sizeof(benches[0]);
	double native[8], jifl[8];

	if (pipe(pipefd))
		return 1;
	if (control("syscalls all") || control("disable")) {
		perror("/proc/jifl/control");
		return 1;
	}
	for (i = 0; i < n; i++)
		native[i] = run(&benches[i]);
	control("enable");
	for (i = 0; i < n; i++)
		run(&benches[i]);	/* translate first */
	for (i = 0; i < n; i++)
		jifl[i] = run(&benches[i]);
	control("disable");
	printf("jifl-bench: best of 3, ns per call (QEMU TCG numbers, not hardware)\n");
	printf("  %-22s %12s %12s %8s\n", "benchmark", "native", "jifl-null", "ratio");
	for (i = 0; i < n; i++)
		printf("  %-22s %12.0f %12.0f %8.2f\n", benches[i].name,
		       native[i] * 1e9, jifl[i] * 1e9, jifl[i] / native[i]);
	return 0;
}
