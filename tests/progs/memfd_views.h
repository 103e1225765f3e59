/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The double mapping of a W^X JIT (.NET's, libffi closures on hardened
 * systems) for the tests: one memfd of @len bytes mapped shared
 * read-write, where code is written, and shared read-execute, where it
 * runs.
 */
#ifndef JIFL_TESTS_MEMFD_VIEWS_H
#define JIFL_TESTS_MEMFD_VIEWS_H

#include <stddef.h>
#include <sys/mman.h>
#include <unistd.h>

/* Returns the memfd (views in *@rw and *@rx), or -1. */
static inline int memfd_views(const char *name, size_t len, unsigned char **rw,
			      unsigned char **rx)
{
	int fd = memfd_create(name, MFD_CLOEXEC);

	if (fd < 0)
		return -1;
	if (ftruncate(fd, len)) {
		close(fd);
		return -1;
	}
	*rw = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	*rx = mmap(NULL, len, PROT_READ | PROT_EXEC, MAP_SHARED, fd, 0);
	if (*rw == MAP_FAILED || *rx == MAP_FAILED) {
		close(fd);
		return -1;
	}
	return fd;
}

#endif /* JIFL_TESTS_MEMFD_VIEWS_H */
