/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The readers under fuzzing take a path: give them the input as a memfd,
 * named by its /proc/self/fd path.
 */
#ifndef JIFL_FUZZ_FILE_H
#define JIFL_FUZZ_FILE_H

#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

/* A file holding @size bytes of @data; its fd, its path in @path. Aborts on failure. */
static inline int fuzz_file(const void *data, size_t size, char *path, size_t len)
{
	int fd = memfd_create("fuzz", MFD_CLOEXEC);

	if (fd < 0 || (size && write(fd, data, size) != (ssize_t)size)) {
		perror("fuzz: memfd");
		abort();
	}
	snprintf(path, len, "/proc/self/fd/%d", fd);
	return fd;
}

#endif /* JIFL_FUZZ_FILE_H */
