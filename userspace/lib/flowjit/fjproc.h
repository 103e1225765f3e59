/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel side of FlowJIT as user space sees it: /proc/flowjit/stream
 * (binary records, one consumer at a time) and /proc/flowjit/control.
 */
#ifndef JIFL_FJPROC_H
#define JIFL_FJPROC_H

#include <stddef.h>
#include <linux/flowjit.h>

#define JIFL_FJPROC_STREAM	"/proc/flowjit/stream"
#define JIFL_FJPROC_CONTROL	"/proc/flowjit/control"

struct jifl_fjproc;

/*
 * Open the stream (non-blocking, close-on-exec). Returns 0 and the
 * consumer in @pp, or a system error (errcode.h; EBUSY: another
 * consumer has it; ENOENT: a kernel without FlowJIT), -jifl_err_nomem.
 */
int jifl_fjproc_open(struct jifl_fjproc **pp);

/* The stream's file descriptor, for poll(). */
int jifl_fjproc_fd(const struct jifl_fjproc *p);

/*
 * Read what the stream holds now into the consumer's buffer. Returns 1
 * when records were read, 0 when there were none (EAGAIN), or a
 * negative jifl_error_code (a system error;
 * -jifl_err_format: the kernel sent a record that is not whole).
 */
int jifl_fjproc_read(struct jifl_fjproc *p);

/*
 * The next record of the last read, payload following it, or NULL when
 * all were returned. Valid until the next jifl_fjproc_read().
 */
const struct flowjit_event *jifl_fjproc_next(struct jifl_fjproc *p);

void jifl_fjproc_close(struct jifl_fjproc *p);

/*
 * Write one command to /proc/flowjit/control ("track PID inherit",
 * "bufsize BYTES", ...). Returns 0 or a system error.
 */
int jifl_fjproc_control(const char *cmd);

#endif /* JIFL_FJPROC_H */
