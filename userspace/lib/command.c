// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "command.h"
#include "errcode.h"

int jifl_command_write(const char *path, const char *cmd)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t n;
	int saved;

	if (fd < 0)
		return -jifl_err_io;
	n = write(fd, cmd, strlen(cmd));
	saved = errno;
	close(fd);
	errno = saved;
	return n < 0 ? -jifl_err_io : 0;
}
