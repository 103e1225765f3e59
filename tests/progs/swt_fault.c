// SPDX-License-Identifier: GPL-2.0
/*
 * Page faults at known instructions for jifl-swtrace tests.
 * "swt_fault [PAGES [DIR]]" stores to each page of a fresh anonymous mapping
 * at the instruction swt_store (one fault per page), then, with DIR,
 * writes a file of PAGES pages there, drops it from the page cache and
 * loads from each page of a mapping of it at the instruction swt_load:
 * faults that wait for the disk, so the thread sleeps and is scheduled
 * in again inside the faulting step. It prints the sum of the bytes loaded.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define PAGE	4096

/*
 * long store_pages(char *p, long pages), long load_pages(const char *p,
 * long pages): one access per page, at swt_store and swt_load; the
 * instruction before each in its first iteration is the xor, in the
 * others the jnz. Tests look at [store_pages, swt_fault_end).
 */
asm(".pushsection .text\n"
    ".globl store_pages, swt_store, load_pages, swt_load, swt_fault_end\n"
    ".type store_pages, @function\n"
    "store_pages:\n"
    "	xor %eax, %eax\n"
    "swt_store:\n"
    "	movb $1, (%rdi)\n"
    "	add $4096, %rdi\n"
    "	dec %rsi\n"
    "	jnz swt_store\n"
    "	ret\n"
    ".size store_pages, .-store_pages\n"
    ".type load_pages, @function\n"
    "load_pages:\n"
    "	xor %eax, %eax\n"
    "swt_load:\n"
    "	movzbl (%rdi), %ecx\n"
    "	add %rcx, %rax\n"
    "	add $4096, %rdi\n"
    "	dec %rsi\n"
    "	jnz swt_load\n"
    "	ret\n"
    ".size load_pages, .-load_pages\n"
    "swt_fault_end:\n"
    ".popsection");

long store_pages(char *p, long pages);
long load_pages(const char *p, long pages);

/* A file of @pages pages of 1s in @dir, on disk and out of the page cache. */
static int cold_file(const char *dir, long pages)
{
	char path[4096], buf[PAGE];
	int fd;
	long i;

	snprintf(path, sizeof(path), "%s/swt_fault.data", dir);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (fd < 0)
		return -1;
	unlink(path);
	memset(buf, 1, sizeof(buf));
	for (i = 0; i < pages; i++)
		if (write(fd, buf, sizeof(buf)) != sizeof(buf))
			return -1;
	if (fsync(fd) || posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED))
		return -1;
	return fd;
}

int main(int argc, char **argv)
{
	long pages = argc > 1 ? atol(argv[1]) : 64, sum = 0;
	char *p;
	int fd;

	if (pages <= 0)
		return 1;
	p = mmap(NULL, pages * PAGE, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	/* One fault per page: no huge page may cover several. */
	if (p == MAP_FAILED || madvise(p, pages * PAGE, MADV_NOHUGEPAGE))
		return 1;
	store_pages(p, pages);
	if (argc > 2) {
		fd = cold_file(argv[2], pages);
		if (fd < 0)
			return 1;
		p = mmap(NULL, pages * PAGE, PROT_READ, MAP_PRIVATE, fd, 0);
		/* No read-ahead: each page is read by its own fault. */
		if (p == MAP_FAILED || madvise(p, pages * PAGE, MADV_RANDOM))
			return 1;
		sum = load_pages(p, pages);
	}
	printf("%ld\n", sum);
	return 0;
}
