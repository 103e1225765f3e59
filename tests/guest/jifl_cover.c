// SPDX-License-Identifier: GPL-2.0
/*
 * JIFL's cover tool: kcov's interface on /proc/jifl/cover, filled from
 * translated code. The example program of the kernel's
 * Documentation/dev-tools/kcov.rst, with only its path changed, gets
 * addresses of read()'s functions; getpid()'s first block is recorded
 * once per call; other tasks, a full buffer and misuse of the ioctls
 * behave as with kcov; the module unloads while a task collects.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "guest_harness.h"
#include "jifl_module.h"
#include "proc_util.h"

/* from Documentation/dev-tools/kcov.rst */
#define KCOV_INIT_TRACE			_IOR('c', 1, unsigned long)
#define KCOV_ENABLE			_IO('c', 100)
#define KCOV_DISABLE			_IO('c', 101)
#define COVER_SIZE			(64 << 10)

#define KCOV_TRACE_PC  0
#define KCOV_TRACE_CMP 1

/* getpid() runs some 20 blocks, 250 on a KASAN + lockdep kernel */
#define CALLS				200
#define CALLS_SIZE			(1 << 18)

#define COVER_FILE "/proc/jifl/cover"
#define MODULE "jifl_cover"
/* where vmlinux links _text (CONFIG_PHYSICAL_START 16 MiB) */
#define START_KERNEL 0xffffffff81000000ul

struct ksym {
	unsigned long addr;
	char name[128];
};

static struct ksym syms[200000];
static int nr_syms;

static int ksym_cmp(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* The kernel's text symbols, sorted; 0 or -1. */
static int ksyms_load(void)
{
	char line[256], name[128], type;
	unsigned long addr;
	FILE *f = fopen("/proc/kallsyms", "r");

	if (!f)
		return -1;
	nr_syms = 0;
	while (nr_syms < (int)(sizeof(syms) / sizeof(syms[0])) && fgets(line, sizeof(line), f))
		if (sscanf(line, "%lx %c %127s", &addr, &type, name) == 3 &&
		    (type == 't' || type == 'T') && !strchr(line, '[')) {
			syms[nr_syms].addr = addr;
			snprintf(syms[nr_syms].name, sizeof(syms[0].name), "%s", name);
			nr_syms++;
		}
	fclose(f);
	qsort(syms, nr_syms, sizeof(syms[0]), ksym_cmp);
	return nr_syms ? 0 : -1;
}

/* The symbol containing @addr (a run-time address), or NULL. */
static const char *ksym_of(unsigned long addr)
{
	int i = 0;

	/* a scan, not a search: few addresses, and independent of jiflctl's */
	while (i < nr_syms && syms[i].addr <= addr)
		i++;
	return i ? syms[i - 1].name : NULL;
}

/* What kcov and cover take away from run-time addresses (KASLR). */
static unsigned long kaslr_offset(void)
{
	return kallsyms_addr("_text") - START_KERNEL;
}

/* Translate system calls of this process with the cover tool. */
static int cover_on(void)
{
	char pid[32];
	int ret = jifl_module_load(MODULE);

	if (ret && ret != -EEXIST)
		return ret;
	snprintf(pid, sizeof(pid), "pid %d", (int)getpid());
	if (jifl_control("tool cover") || jifl_control(pid) ||
	    jifl_control("syscalls all") || jifl_control("enable"))
		return -1;
	return 0;
}

/* A buffer of @size words, mapped; the fd, or -errno. */
static int cover_open(unsigned long size, unsigned long **cover)
{
	int fd = open(COVER_FILE, O_RDWR);

	if (fd < 0)
		return -errno;
	if (ioctl(fd, KCOV_INIT_TRACE, size))
		goto err;
	*cover = mmap(NULL, size * sizeof(unsigned long), PROT_READ | PROT_WRITE,
		      MAP_SHARED, fd, 0);
	if (*cover == MAP_FAILED)
		goto err;
	return fd;
err:
	close(fd);
	return -errno;
}

/* @func's start as cover records it (canonical), or 0. */
static unsigned long cover_addr(const char *func)
{
	unsigned long a = kallsyms_addr(func);

	return a ? a - kaslr_offset() : 0;
}

/* How many of the first @n recorded addresses are @addr. */
static long count_of(const unsigned long *cover, unsigned long n, unsigned long addr)
{
	unsigned long i;
	long found = 0;

	for (i = 0; i < n; i++)
		found += cover[i + 1] == addr;
	return found;
}

FIXTURE(cover) {
	int unused;
};

FIXTURE_SETUP(cover)
{
	ASSERT_EQ(0, access("/proc/jifl/control", F_OK));
}

FIXTURE_TEARDOWN(cover)
{
	jifl_control("disable");
	jifl_control("pid 0");
	jifl_control("tool null");
	jifl_module_unload(MODULE);
}

/*
 * kcov.rst's example, its path changed: read(-1, NULL, 0) records
 * addresses that all fall in kernel text and symbolize to read()'s
 * path, its entry and the file lookup that fails.
 */
TEST_F(cover, kcov_example_program)
{
	int fd;
	unsigned long *cover, n, i, off;
	int in_text = 0, sys_read = 0, ksys_read = 0, fdget = 0;

	ASSERT_EQ(0, cover_on());
	ASSERT_EQ(0, ksyms_load());
	off = kaslr_offset();

	/* the example, as kcov.rst has it */
	fd = open(COVER_FILE, O_RDWR);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, ioctl(fd, KCOV_INIT_TRACE, COVER_SIZE));
	cover = (unsigned long *)mmap(NULL, COVER_SIZE * sizeof(unsigned long),
				      PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	ASSERT_NE(MAP_FAILED, cover);
	ASSERT_EQ(0, ioctl(fd, KCOV_ENABLE, KCOV_TRACE_PC));
	__atomic_store_n(&cover[0], 0, __ATOMIC_RELAXED);
	read(-1, NULL, 0);
	n = __atomic_load_n(&cover[0], __ATOMIC_RELAXED);
	for (i = 0; i < n; i++) {
		const char *sym = ksym_of(cover[i + 1] + off);

		if (i < 40)
			TH_LOG("0x%lx %s", cover[i + 1], sym ? sym : "?");
		if (!sym)
			continue;
		in_text++;
		sys_read += !strcmp(sym, "__x64_sys_read");
		ksys_read += !strcmp(sym, "ksys_read");
		fdget += !strncmp(sym, "__fdget", 7) || !strncmp(sym, "__fget", 6);
	}
	ASSERT_EQ(0, ioctl(fd, KCOV_DISABLE, 0));
	ASSERT_EQ(0, munmap(cover, COVER_SIZE * sizeof(unsigned long)));
	ASSERT_EQ(0, close(fd));

	TH_LOG("%lu addresses: __x64_sys_read %d, ksys_read %d, fd lookup %d",
	       n, sys_read, ksys_read, fdget);
	EXPECT_LT(3, n);
	EXPECT_GT(1000, n);
	EXPECT_EQ(n, in_text);
	EXPECT_LE(1, sys_read);
	EXPECT_LE(1, ksys_read);
	EXPECT_LE(1, fdget);
}

/* getpid()'s first block is recorded once per call, exactly. */
TEST_F(cover, getpid_recorded_once_per_call)
{
	unsigned long *cover, n, first;
	char tool[512];
	const char *p;
	long got;
	int fd, i;

	/* before collecting: reading /proc/kallsyms runs many blocks */
	first = cover_addr("__x64_sys_getpid");
	if (!first)
		first = cover_addr("__do_sys_getpid");
	ASSERT_NE(0, first);
	ASSERT_EQ(0, cover_on());
	fd = cover_open(CALLS_SIZE, &cover);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, ioctl(fd, KCOV_ENABLE, KCOV_TRACE_PC));
	syscall(SYS_getpid);
	__atomic_store_n(&cover[0], 0, __ATOMIC_RELAXED);
	for (i = 0; i < CALLS; i++)
		syscall(SYS_getpid);
	n = __atomic_load_n(&cover[0], __ATOMIC_RELAXED);
	got = count_of(cover, n, first);
	ASSERT_EQ(0, ioctl(fd, KCOV_DISABLE, 0));
	TH_LOG("getpid's first block: %ld of %lu records, %d calls", got, n, CALLS);
	EXPECT_GT(CALLS_SIZE - 1, n);		/* none lost */
	EXPECT_EQ(CALLS, got);
	/* the tool's own count, over every CPU, has them all */
	file_read("/proc/jifl/tool", tool, sizeof(tool));
	p = strstr(tool, "blocks recorded ");
	ASSERT_NE(NULL, p);
	EXPECT_LE(n, strtoul(p + strlen("blocks recorded "), NULL, 10));
	/* nothing after KCOV_DISABLE */
	__atomic_store_n(&cover[0], 0, __ATOMIC_RELAXED);
	syscall(SYS_getpid);
	EXPECT_EQ(0, cover[0]);
	close(fd);
}

/*
 * Only the task that enabled collection is recorded: a child that
 * inherits the file neither adds to the buffer nor can take it over.
 * The child starts its system calls once the parent has emptied the
 * buffer after fork(): fork() and wait4() filled all 64K entries on the
 * KASAN and lockdep kernel, and a full buffer could not show the
 * child's records.
 */
TEST_F(cover, other_tasks_are_not_recorded)
{
	unsigned long *cover, n, first = cover_addr("__x64_sys_getpid");
	int fd, status, i, go[2];
	pid_t child;
	char c = 0;

	ASSERT_NE(0, first);
	ASSERT_EQ(0, cover_on());
	ASSERT_EQ(0, jifl_control("pid 0"));	/* every task translated */
	fd = cover_open(COVER_SIZE, &cover);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, pipe(go));
	ASSERT_EQ(0, ioctl(fd, KCOV_ENABLE, KCOV_TRACE_PC));
	child = fork();
	ASSERT_LE(0, child);
	if (!child) {
		int busy = ioctl(fd, KCOV_ENABLE, KCOV_TRACE_PC) ? errno : 0;

		if (read(go[0], &c, 1) != 1)
			_exit(2);
		for (i = 0; i < 1000; i++)
			syscall(SYS_getpid);
		_exit(busy == EBUSY ? 0 : 1);
	}
	__atomic_store_n(&cover[0], 0, __ATOMIC_RELAXED);
	ASSERT_EQ(1, write(go[1], &c, 1));
	ASSERT_EQ(child, waitpid(child, &status, 0));
	n = __atomic_load_n(&cover[0], __ATOMIC_RELAXED);
	EXPECT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status));
	TH_LOG("parent's records while the child ran: %lu", n);
	EXPECT_GT(COVER_SIZE - 1, n);
	EXPECT_EQ(0, count_of(cover, n, first));
	EXPECT_LT(0, n);		/* write() and wait4() themselves */
	ASSERT_EQ(0, ioctl(fd, KCOV_DISABLE, 0));
	close(go[0]);
	close(go[1]);
	close(fd);
}

/* A full buffer keeps its count, as kcov does. */
TEST_F(cover, full_buffer_stops_recording)
{
	unsigned long *cover;
	int fd, i;

	ASSERT_EQ(0, cover_on());
	fd = cover_open(512, &cover);	/* a count and 511 addresses: a page */
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, ioctl(fd, KCOV_ENABLE, KCOV_TRACE_PC));
	for (i = 0; i < 100; i++)
		syscall(SYS_getpid);
	EXPECT_EQ(511, cover[0]);
	ASSERT_EQ(0, ioctl(fd, KCOV_DISABLE, 0));
	close(fd);
}

/* kcov's errors for misuse, and ENODEV while another tool is chosen. */
TEST_F(cover, ioctl_errors)
{
	unsigned long *cover, *map;
	int fd, fd2;

	ASSERT_EQ(0, cover_on());
	fd = open(COVER_FILE, O_RDWR);
	ASSERT_LE(0, fd);
	errno = 0;
	EXPECT_EQ(-1, ioctl(fd, KCOV_ENABLE, KCOV_TRACE_PC));
	EXPECT_EQ(EINVAL, errno);		/* no buffer yet */
	EXPECT_EQ(-1, ioctl(fd, KCOV_INIT_TRACE, 1));
	EXPECT_EQ(EINVAL, errno);		/* no room for one address */
	ASSERT_EQ(0, ioctl(fd, KCOV_INIT_TRACE, 512));
	EXPECT_EQ(-1, ioctl(fd, KCOV_INIT_TRACE, 512));
	EXPECT_EQ(EBUSY, errno);
	map = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	EXPECT_EQ(MAP_FAILED, map);		/* not the buffer's size */
	EXPECT_EQ(EINVAL, errno);
	map = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 4096);
	EXPECT_EQ(MAP_FAILED, map);		/* not from its start */
	EXPECT_EQ(-1, ioctl(fd, KCOV_ENABLE, KCOV_TRACE_CMP));
	EXPECT_EQ(EOPNOTSUPP, errno);
	EXPECT_EQ(-1, ioctl(fd, KCOV_ENABLE, 7));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, ioctl(fd, KCOV_DISABLE, 0));
	EXPECT_EQ(EINVAL, errno);		/* not enabled */
	EXPECT_EQ(-1, ioctl(fd, _IO('c', 200), 0));
	EXPECT_EQ(ENOTTY, errno);
	ASSERT_EQ(0, ioctl(fd, KCOV_ENABLE, KCOV_TRACE_PC));
	EXPECT_EQ(-1, ioctl(fd, KCOV_DISABLE, 1));
	EXPECT_EQ(EINVAL, errno);		/* kcov wants 0 */
	/* one task, one buffer at a time */
	fd2 = cover_open(512, &cover);
	ASSERT_LE(0, fd2);
	EXPECT_EQ(-1, ioctl(fd2, KCOV_ENABLE, KCOV_TRACE_PC));
	EXPECT_EQ(EBUSY, errno);
	ASSERT_EQ(0, ioctl(fd, KCOV_DISABLE, 0));
	/* a tool other than cover: nothing would be recorded */
	ASSERT_EQ(0, jifl_control("tool null"));
	EXPECT_EQ(-1, ioctl(fd2, KCOV_ENABLE, KCOV_TRACE_PC));
	EXPECT_EQ(ENODEV, errno);
	close(fd2);
	close(fd);
}

/*
 * rmmod while a task collects, its buffer mapped: the task goes on,
 * its mapping stays readable, the file answers errors, nothing oopses.
 */
TEST_F(cover, unload_while_collecting)
{
	unsigned long *cover, n;
	int fd, i;

	ASSERT_EQ(0, cover_on());
	fd = cover_open(COVER_SIZE, &cover);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, ioctl(fd, KCOV_ENABLE, KCOV_TRACE_PC));
	for (i = 0; i < 100; i++)
		syscall(SYS_getpid);
	ASSERT_EQ(0, jifl_module_unload(MODULE));
	n = cover[0];
	EXPECT_LT(100, n);
	for (i = 0; i < 100; i++)
		syscall(SYS_getpid);
	EXPECT_EQ(n, cover[0]);
	EXPECT_EQ(-1, ioctl(fd, KCOV_DISABLE, 0));
	EXPECT_EQ(0, munmap(cover, COVER_SIZE * sizeof(unsigned long)));
	EXPECT_EQ(0, close(fd));
	/* and loads again */
	EXPECT_EQ(0, jifl_module_load(MODULE));
}

TEST_HARNESS_MAIN
