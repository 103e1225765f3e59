/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Files of the guest tests: write a command to a /proc control file,
 * read a file whole, read a JIFL counter.
 */
#ifndef JIFL_PROC_UTIL_H
#define JIFL_PROC_UTIL_H

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* Returns 0, or -errno of the open() or write(). */
static inline int proc_write(const char *path, const char *cmd)
{
	int fd = open(path, O_WRONLY);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = write(fd, cmd, strlen(cmd));
	n = n < 0 ? -errno : 0;
	close(fd);
	return n;
}

/* Read up to @size - 1 bytes of @path into @buf, NUL-terminated ("" on error). */
static inline void file_read(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY);
	ssize_t n = fd < 0 ? 0 : read(fd, buf, size - 1);

	buf[n > 0 ? n : 0] = '\0';
	if (fd >= 0)
		close(fd);
}

static inline int jifl_control(const char *cmd)
{
	return proc_write("/proc/jifl/control", cmd);
}

/* A counter of /proc/jifl/stats, or -1 if there is none of that name. */
static inline long long jifl_stat(const char *name)
{
	char line[128], key[64];
	long long v, found = -1;
	FILE *f = fopen("/proc/jifl/stats", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%63[^:]: %lld", key, &v) == 2 && !strcmp(key, name))
			found = v;
	fclose(f);
	return found;
}

#endif /* JIFL_PROC_UTIL_H */
