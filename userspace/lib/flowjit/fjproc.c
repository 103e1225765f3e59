// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include "common/command.h"
#include "common/errcode.h"
#include "fjproc.h"

/* Many records per read(): the kernel ring drains fast. */
#define FJPROC_BUF	(1 << 20)

struct jifl_fjproc {
	int fd;
	size_t len;	/* bytes of the last read */
	size_t off;	/* of the next record */
	char *buf;
};

int jifl_fjproc_open(struct jifl_fjproc **pp)
{
	struct jifl_fjproc *p = calloc(1, sizeof(*p));

	if (!p)
		return -jifl_err_nomem;
	p->buf = malloc(FJPROC_BUF);
	if (!p->buf) {
		free(p);
		return -jifl_err_nomem;
	}
	p->fd = open(JIFL_FJPROC_STREAM, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (p->fd < 0) {
		int err = jifl_err_errno(errno);

		free(p->buf);
		free(p);
		return err;
	}
	*pp = p;
	return 0;
}

int jifl_fjproc_fd(const struct jifl_fjproc *p)
{
	return p->fd;
}

/* The kernel returns whole records only: check that it did. */
static int check_records(const char *buf, size_t len)
{
	const struct flowjit_event *ev;
	size_t off;

	for (off = 0; off < len; off += ev->size) {
		ev = (const void *)(buf + off);
		if (len - off < sizeof(*ev) || ev->size < sizeof(*ev) ||
		    ev->size % 8 || ev->size > len - off)
			return -jifl_err_format;
	}
	return 0;
}

int jifl_fjproc_read(struct jifl_fjproc *p)
{
	ssize_t n;

	p->len = p->off = 0;
	do
		n = read(p->fd, p->buf, FJPROC_BUF);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return errno == EAGAIN ? 0 : jifl_err_errno(errno);
	if (check_records(p->buf, n))
		return -jifl_err_format;
	p->len = n;
	return n > 0;
}

const struct flowjit_event *jifl_fjproc_next(struct jifl_fjproc *p)
{
	const struct flowjit_event *ev;

	if (p->off >= p->len)
		return NULL;
	ev = (const void *)(p->buf + p->off);
	p->off += ev->size;
	return ev;
}

void jifl_fjproc_close(struct jifl_fjproc *p)
{
	if (!p)
		return;
	close(p->fd);
	free(p->buf);
	free(p);
}

int jifl_fjproc_control(const char *cmd)
{
	return jifl_command_write(JIFL_FJPROC_CONTROL, cmd);
}
