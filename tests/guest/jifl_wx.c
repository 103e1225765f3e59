// SPDX-License-Identifier: GPL-2.0
/*
 * No kernel page is ever writable and executable because of JIFL
 * (issue 11, item 2): not after enable, nor while system calls run
 * translated, nor after a flush or disable. Read from the kernel page
 * tables in debugfs (CONFIG_PTDUMP_DEBUGFS), where a leaf entry shows
 * "RW" and "x" (no "NX") for such a page.
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
	blocks = jifl_stat("blocks");
	work();
	/* the code was translated, and the cache written, meanwhile */
	EXPECT_LT(blocks + 10, jifl_stat("blocks"));
	EXPECT_NO_WX("after translating");
	sleep(1);			/* late links and predictions: text_poke */
	work();
	EXPECT_NO_WX("after linking");
	ASSERT_EQ(0, jifl_control("flush"));
	work();
	EXPECT_NO_WX("after a flush");
	ASSERT_EQ(0, jifl_control("disable"));
	EXPECT_NO_WX("after disable");
}

TEST_HARNESS_MAIN
