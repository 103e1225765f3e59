/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Write a command to a /proc control file from a guest test.
 */
#ifndef JIFL_PROC_UTIL_H
#define JIFL_PROC_UTIL_H

#include <errno.h>
#include <fcntl.h>
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

static inline int jifl_control(const char *cmd)
{
	return proc_write("/proc/jifl/control", cmd);
}

#endif /* JIFL_PROC_UTIL_H */
