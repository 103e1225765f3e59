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
	int err;

	if (fd < 0)
		return jifl_err_errno(errno);
	n = write(fd, cmd, strlen(cmd));
	err = n < 0 ? jifl_err_errno(errno) : 0;
	close(fd);
	return err;
}
