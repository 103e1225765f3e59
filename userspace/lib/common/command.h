/* SPDX-License-Identifier: GPL-2.0 */
/* Commands to the kernel's control files (/proc/jifl, /proc/flowjit). */
#ifndef JIFL_COMMAND_H
#define JIFL_COMMAND_H

/*
 * Write @cmd to the file at @path in one write(), as the kernel takes
 * commands. Returns 0 or the system's error (errcode.h).
 */
int jifl_command_write(const char *path, const char *cmd);

#endif /* JIFL_COMMAND_H */
