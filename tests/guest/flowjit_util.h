/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers for the FlowJIT guest tests: control file, draining the stream.
 */
#ifndef JIFL_FLOWJIT_UTIL_H
#define JIFL_FLOWJIT_UTIL_H

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <linux/flowjit.h>
#include <linux/prctl.h>

#include "proc_util.h"

#define FJ_MAX_EVENTS 4096

struct fj_rec {
	struct flowjit_event ev;
	unsigned char page[FLOWJIT_PAGE_SIZE];
};

/* Write a command to /proc/flowjit/control; returns 0 or -errno. */
static inline int fj_control(const char *cmd)
{
	return proc_write("/proc/flowjit/control", cmd);
}

static inline int fj_enable(unsigned long flags)
{
	return prctl(PR_FLOWJIT, FLOWJIT_OP_ENABLE, flags, 0, 0) ? -errno : 0;
}

static inline int fj_disable(void)
{
	return prctl(PR_FLOWJIT, FLOWJIT_OP_DISABLE, 0, 0, 0) ? -errno : 0;
}

/*
 * Read every record now in the stream (non-blocking) into @recs (at most
 * @max); returns how many, or -errno. LOST records are kept too.
 */
static inline int fj_drain(struct fj_rec *recs, int max)
{
	static char buf[1 << 20];
	int fd = open("/proc/flowjit/stream", O_RDONLY | O_NONBLOCK);
	int n = 0;

	if (fd < 0)
		return -errno;
	for (;;) {
		ssize_t len = read(fd, buf, sizeof(buf));
		ssize_t off = 0;

		if (len < 0) {
			if (errno == EAGAIN)
				break;
			n = -errno;
			break;
		}
		while (off < len) {
			struct flowjit_event *ev = (void *)(buf + off);

			if (n < max) {
				memcpy(&recs[n].ev, ev, sizeof(*ev));
				if (ev->flags & FLOWJIT_EVF_PAYLOAD)
					memcpy(recs[n].page, ev + 1, FLOWJIT_PAGE_SIZE);
				n++;
			}
			off += ev->size;
		}
	}
	close(fd);
	return n;
}

/* JIT code for the tests: mov eax, imm32; ret */
static inline void emit_ret_imm(unsigned char *p, uint32_t v)
{
	p[0] = 0xb8;
	memcpy(p + 1, &v, 4);
	p[5] = 0xc3;
}

/* Wait for child @pid: its exit code, or -1 if it did not exit normally. */
static inline int wait_exit_code(pid_t pid)
{
	int status;

	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

/* Empty the ring and zero its counters. */
static inline int fj_reset(void)
{
	return fj_control("clear");
}

#endif /* JIFL_FLOWJIT_UTIL_H */
