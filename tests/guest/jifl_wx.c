// SPDX-License-Identifier: GPL-2.0
/*
 * No kernel page is ever writable and executable because of JIFL: not
 * after enable, nor while system calls run translated, nor after a
 * flush or disable. Read from the kernel page tables in debugfs
 * (CONFIG_PTDUMP_DEBUGFS), where a leaf entry shows "RW" and "x" (no
 * "NX") for such a page. Nor is the cache writable through another
 * mapping of its pages (CONFIG_JIFL_TEST's debugfs jifl/wx). Both
 * checks first find what the test kernel plants for them.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "guest_harness.h"
#include "proc_util.h"

#define PTDUMP "/sys/kernel/debug/page_tables/kernel"
#define JIFL_WX "/sys/kernel/debug/jifl/wx"

/* Kernel mappings that write a page of the cache: "writable N", or -1. */
static long cache_writable(char *first)
{
	char buf[256] = "";
	long pages, n;

	file_read(JIFL_WX, buf, sizeof(buf));
	if (sscanf(buf, "pages %ld writable %ld first %63s", &pages, &n, first) != 3)
		return -1;
	return pages > 0 ? n : -1;
}

/*
 * KiB of writable and executable kernel mappings; the first such range
 * goes to @first. -1 if the page tables cannot be read.
 */
static long wx_kib(char *first, size_t size)
{
	char line[256], sz[16];
	FILE *f = fopen(PTDUMP, "r");
	long kib = 0, n;
	char unit;

	if (!f)
		return -1;
	first[0] = '\0';
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, "0x", 2) || !strstr(line, " RW ") ||
		    !strstr(line, " x  "))
			continue;
		if (sscanf(line, "%*s %15s", sz) != 1 ||
		    sscanf(sz, "%ld%c", &n, &unit) != 2)
			continue;
		switch (unit) {
		case 'K': kib += n; break;
		case 'M': kib += n << 10; break;
		case 'G': kib += n << 20; break;
		default: continue;
		}
		if (!first[0]) {
			line[strcspn(line, "\n")] = '\0';
			snprintf(first, size, "%s", line);
		}
	}
	fclose(f);
	return kib;
}

/* System calls that run translated: files, pipes, memory. */
static void work(void)
{
	char buf[4096];
	int p[2], i;

	for (i = 0; i < 200; i++) {
		int fd = open("/proc/self/status", O_RDONLY);

		if (fd >= 0) {
			while (read(fd, buf, sizeof(buf)) > 0)
				;
			close(fd);
		}
		getppid();
	}
	if (!pipe(p)) {
		for (i = 0; i < 100; i++)
			if (write(p[1], buf, 512) == 512 && read(p[0], buf, 512) < 0)
				break;
		close(p[0]);
		close(p[1]);
	}
}

FIXTURE(wx) {
	char first[256];
};

FIXTURE_SETUP(wx)
{
	if (access(PTDUMP, R_OK))
		SKIP(return, "no %s (CONFIG_PTDUMP_DEBUGFS)", PTDUMP);
}

FIXTURE_TEARDOWN(wx)
{
	jifl_control("disable");
	jifl_control("pid 0");
}

#define EXPECT_NO_WX(when)						\
	do {								\
		long kib = wx_kib(self->first, sizeof(self->first));	\
		ASSERT_LE(0, kib);					\
		EXPECT_EQ(0, kib) TH_LOG("%s: %ld KiB W+X, first: %s",	\
					 when, kib, self->first);	\
	} while (0)

#define EXPECT_NO_ALIAS(when)						\
	do {								\
		long n = cache_writable(self->first); \
		ASSERT_LE(0, n) TH_LOG("no cache, or no %s", JIFL_WX);	\
		EXPECT_EQ(0, n) TH_LOG("%s: %ld writable mappings of the " \
				       "cache, first at %s", when, n,	\
				       self->first);			\
	} while (0)

TEST_F(wx, no_writable_executable_cache)
{
	long long blocks;
	char cmd[64];

	EXPECT_NO_WX("before JIFL");
	snprintf(cmd, sizeof(cmd), "pid %d", getpid());
	ASSERT_EQ(0, jifl_control(cmd));
	ASSERT_EQ(0, jifl_control("syscalls all"));
	ASSERT_EQ(0, jifl_control("enable"));
	EXPECT_NO_WX("after enable");
	EXPECT_NO_ALIAS("after enable");
	blocks = jifl_stat("blocks");
	work();
	/* the code was translated, and the cache written, meanwhile */
	EXPECT_LT(blocks + 10, jifl_stat("blocks"));
	EXPECT_NO_WX("after translating");
	EXPECT_NO_ALIAS("after translating");
	sleep(1);			/* late links and predictions: text_poke */
	work();
	EXPECT_NO_WX("after linking");
	EXPECT_NO_ALIAS("after linking");
	ASSERT_EQ(0, jifl_control("flush"));
	work();
	EXPECT_NO_WX("after a flush");
	EXPECT_NO_ALIAS("after a flush");
	ASSERT_EQ(0, jifl_control("disable"));
	EXPECT_NO_WX("after disable");
}

/*
 * The positive controls: a W+X page and a writable alias of the cache,
 * which the test kernel maps on "plant", must be found, and be gone on
 * "unplant".
 */
TEST_F(wx, finds_what_is_planted)
{
	long kib, n, before;
	char cmd[64];

	snprintf(cmd, sizeof(cmd), "pid %d", getpid());
	ASSERT_EQ(0, jifl_control(cmd));
	ASSERT_EQ(0, jifl_control("syscalls all"));
	ASSERT_EQ(0, jifl_control("enable"));	/* the cache exists */
	work();
	ASSERT_EQ(0, jifl_control("disable"));
	before = cache_writable(self->first);
	ASSERT_LE(0, before);
	ASSERT_EQ(0, proc_write(JIFL_WX, "plant"));
	kib = wx_kib(self->first, sizeof(self->first));
	n = cache_writable(self->first);
	ASSERT_EQ(0, proc_write(JIFL_WX, "unplant"));
	TH_LOG("planted: %ld KiB W+X; %ld writable mappings of the cache (%ld before)",
	       kib, n, before);
	EXPECT_LE(4, kib);
	EXPECT_EQ(before + 1, n);
	EXPECT_EQ(before, cache_writable(self->first));
}

TEST_HARNESS_MAIN
