// SPDX-License-Identifier: GPL-2.0
/*
 * kcov against JIFL's cover tool, on a kernel built with CONFIG_KCOV
 * (make kcov-compare). For each system call below, one call after a
 * warm-up is recorded three ways:
 *
 *   kcov   /sys/kernel/debug/kcov, JIFL off: the compiler's coverage
 *   both   the same, JIFL on with the cover tool (is kcov unchanged
 *          when the call runs translated?)
 *   jifl   /proc/jifl/cover in the same run as "both"
 *
 * Output, one line per recording, addresses as the tools give them
 * (without the KASLR offset):
 *
 *   NAME kcov|both|jifl N ADDR...
 *
 * scripts/kcov-compare.sh turns them into functions and a table.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#define KCOV_INIT_TRACE	_IOR('c', 1, unsigned long)
#define KCOV_ENABLE	_IO('c', 100)
#define KCOV_DISABLE	_IO('c', 101)
#define KCOV_TRACE_PC	0
#define WORDS		(64 << 10)

struct cov {
	int fd;
	unsigned long *area;
};

static int pipefd[2];

static void do_read(void) { char c; if (read(-1, &c, 0) != -1) exit(2); }
static void do_getpid(void) { syscall(SYS_getpid); }
static void do_open(void) { close(open("/dev/null", O_RDONLY)); }
static void do_stat(void) { struct stat st; stat("/proc", &st); }
static void do_pipe(void)
{
	char c = 'x';

	if (write(pipefd[1], &c, 1) != 1 || read(pipefd[0], &c, 1) != 1)
		exit(2);
}
static void do_mmap(void)
{
	void *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);

	if (p == MAP_FAILED)
		exit(2);
	munmap(p, 4096);
}

static const struct {
	const char *name;
	void (*fn)(void);
} calls[] = {
	{ "read", do_read }, { "getpid", do_getpid }, { "open+close", do_open },
	{ "stat", do_stat }, { "pipe-rw", do_pipe }, { "mmap+munmap", do_mmap },
};

static void die(const char *what)
{
	fprintf(stderr, "kcov_compare: %s: %s\n", what, strerror(errno));
	exit(1);
}

static void cov_open(struct cov *c, const char *path)
{
	c->fd = open(path, O_RDWR);
	if (c->fd < 0)
		die(path);
	if (ioctl(c->fd, KCOV_INIT_TRACE, WORDS))
		die("KCOV_INIT_TRACE");
	c->area = mmap(NULL, WORDS * sizeof(long), PROT_READ | PROT_WRITE,
		       MAP_SHARED, c->fd, 0);
	if (c->area == MAP_FAILED)
		die("mmap");
}

static void cov_start(struct cov *c)
{
	if (ioctl(c->fd, KCOV_ENABLE, KCOV_TRACE_PC))
		die("KCOV_ENABLE");
}

static void cov_zero(struct cov *c)
{
	__atomic_store_n(&c->area[0], 0, __ATOMIC_RELAXED);
}

static unsigned long cov_count(const struct cov *c)
{
	return __atomic_load_n(&c->area[0], __ATOMIC_RELAXED);
}

static void cov_stop(struct cov *c)
{
	if (ioctl(c->fd, KCOV_DISABLE, 0))
		die("KCOV_DISABLE");
}

/* The first @n addresses: the call's own, read before any other. */
static void cov_print(const struct cov *c, unsigned long n, const char *name,
		      const char *how)
{
	unsigned long i;

	printf("%s %s %lu", name, how, n);
	for (i = 0; i < n && i + 1 < WORDS; i++)
		printf(" %lx", c->area[i + 1]);
	printf("\n");
}

static void control(const char *cmd)
{
	int fd = open("/proc/jifl/control", O_WRONLY);

	if (fd < 0 || write(fd, cmd, strlen(cmd)) < 0)
		die(cmd);
	close(fd);
}

int main(void)
{
	struct cov kcov, cover;
	unsigned long nk, nc;
	char pid[32];
	unsigned int i;

	if (pipe(pipefd))
		die("pipe");
	cov_open(&kcov, "/sys/kernel/debug/kcov");
	for (i = 0; i < sizeof(calls) / sizeof(calls[0]); i++) {
		calls[i].fn();
		cov_start(&kcov);
		cov_zero(&kcov);
		calls[i].fn();
		nk = cov_count(&kcov);
		cov_stop(&kcov);
		cov_print(&kcov, nk, calls[i].name, "kcov");
	}

	snprintf(pid, sizeof(pid), "pid %d", (int)getpid());
	control("tool cover");
	control(pid);
	control("syscalls all");
	control("enable");
	cov_open(&cover, "/proc/jifl/cover");
	for (i = 0; i < sizeof(calls) / sizeof(calls[0]); i++) {
		/* twice: translated, and returns predicted */
		calls[i].fn();
		usleep(50000);
		calls[i].fn();
		cov_start(&kcov);
		cov_start(&cover);
		cov_zero(&kcov);
		cov_zero(&cover);
		calls[i].fn();
		nk = cov_count(&kcov);
		nc = cov_count(&cover);
		cov_stop(&cover);
		cov_stop(&kcov);
		cov_print(&kcov, nk, calls[i].name, "both");
		cov_print(&cover, nc, calls[i].name, "jifl");
	}
	control("disable");
	return 0;
}
