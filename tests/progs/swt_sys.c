// SPDX-License-Identifier: GPL-2.0
/*
 * System calls for jifl-swtrace tests, and code run from a mapping made
 * after the start: the program maps its own file again, executable, and
 * calls a function through that second mapping (an MMAP2 record must come
 * before the decoder needs it).
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

__attribute__((noinline)) int fortytwo(void)
{
	return 42;
}

/* File offset of @addr in the executable, from /proc/self/maps. */
static long file_offset(uintptr_t addr)
{
	unsigned long start, end, off;
	char line[512];
	long ret = -1;
	FILE *f = fopen("/proc/self/maps", "r");

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "%lx-%lx %*s %lx", &start, &end, &off) == 3 &&
		    addr >= start && addr < end)
			ret = addr - start + off;
	if (f)
		fclose(f);
	return ret;
}

int main(void)
{
	long off = file_offset((uintptr_t)fortytwo);
	char buf[64];
	int fd, i, (*fn)(void);
	void *p;

	for (i = 0; i < 5; i++)
		getppid();
	fd = open("/proc/self/exe", O_RDONLY);
	if (fd < 0 || off < 0 || read(fd, buf, sizeof(buf)) < 0)
		return 1;
	p = mmap(NULL, 8192, PROT_READ, MAP_PRIVATE, fd, off & ~4095L);
	if (p == MAP_FAILED || mprotect(p, 8192, PROT_READ | PROT_EXEC))
		return 1;
	close(fd);
	fn = (int (*)(void))((char *)p + (off & 4095));
	printf("%d %d\n", fortytwo(), fn());
	return 0;
}
