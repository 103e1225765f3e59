// SPDX-License-Identifier: GPL-2.0
/*
 * JIFL cost in the guest, side by side in one run: system-call
 * microbenchmarks with every system call native, then from the code
 * cache (null tool), and a macro workload (a shell pipeline). Prints
 * TSC ticks per call and ratios (QEMU TCG numbers).
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

/*
 * Time in TSC ticks: the guest's clocksource may be jiffies under TCG,
 * far too coarse for one system call.
 */
static double now(void)
{
	return __builtin_ia32_rdtsc();
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

/* Ticks per call of @b, the best of one round of @b->iters calls. */
static double run(const struct bench *b)
{
	double t0 = now();
	int i;

	for (i = 0; i < b->iters; i++)
		b->fn();
	return (now() - t0) / b->iters;
}

#define ROUNDS	5

/*
 * With --icount the guest runs under QEMU's -icount shift=0, where the
 * TSC advances by one per executed instruction: the ticks are
 * instructions, reproducible to about 1%.
 */
int main(int argc, char **argv)
{
	int icount = argc > 1 && !strcmp(argv[1], "--icount");
	size_t i, n = sizeof(benches) / sizeof(benches[0]);
	double native[8], jifl[8], t;
	int round;

	if (pipe(pipefd))
		return 1;
	if (control("syscalls all") || control("disable")) {
		perror("/proc/jifl/control");
		return 1;
	}
	/*
	 * Native and JIFL rounds alternate, so that both see the same
	 * machine; the first round of each warms up (QEMU translates the
	 * kernel's code, JIFL fills its cache) and is not counted.
	 */
	for (i = 0; i < n; i++)
		native[i] = jifl[i] = 1e300;
	for (round = 0; round <= ROUNDS; round++) {
		for (i = 0; i < n; i++) {
			control("disable");
			t = run(&benches[i]);
			if (round && t < native[i])
				native[i] = t;
			control("enable");
			t = run(&benches[i]);
			if (round && t < jifl[i])
				jifl[i] = t;
		}
	}
	control("disable");
	printf("jifl-bench: best of %d alternating rounds, %s\n", ROUNDS,
	       icount ? "instructions per call (QEMU -icount shift=0, one vCPU)" :
			"TSC ticks per call (QEMU TCG, not hardware)");
	printf("  %-22s %12s %12s %8s\n", "benchmark", "native", "jifl-null", "ratio");
	for (i = 0; i < n; i++)
		printf("  %-22s %12.0f %12.0f %8.2f\n", benches[i].name,
		       native[i], jifl[i], jifl[i] / native[i]);
	return 0;
}
