// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/errcode.h"
#include "fjwriter.h"

struct jifl_fjwriter {
	FILE *f;
	uint64_t count;		/* records */
	uint64_t bytes;		/* record bytes */
	uint64_t sum;		/* checksum of everything written */
	int err;		/* first error; sticky */
};

static int put(struct jifl_fjwriter *w, const void *buf, size_t len)
{
	if (w->err)
		return w->err;
	if (fwrite(buf, 1, len, w->f) != len) {
		w->err = jifl_err_errno(errno);
		return w->err;
	}
	w->sum = jifl_fjfile_checksum(w->sum, buf, len);
	return 0;
}

/* The header in one piece: the checksum folds whole 8-byte words. */
static int put_header(struct jifl_fjwriter *w, const struct jifl_fj_info *info)
{
	size_t size = sizeof(struct jifl_fj_header) + (info->cmdline_len + 7) / 8 * 8;
	struct jifl_fj_header *h = calloc(1, size);
	int ret;

	if (!h)
		return -jifl_err_nomem;
	memcpy(h->magic, JIFL_FJ_MAGIC, sizeof(h->magic));
	h->version = JIFL_FJ_VERSION;
	h->header_size = size;
	h->record_size = sizeof(struct flowjit_event);
	h->page_size = FLOWJIT_PAGE_SIZE;
	h->tsc_hz = info->tsc_hz;
	h->start_ns = info->start_ns;
	h->pid = info->pid;
	h->flags = info->flags;
	h->cmdline_len = info->cmdline_len;
	if (info->cmdline_len)
		memcpy(h + 1, info->cmdline, info->cmdline_len);
	ret = put(w, h, size);
	free(h);
	return ret;
}

int jifl_fjwriter_open(struct jifl_fjwriter **wp, const char *path,
		       const struct jifl_fj_info *info)
{
	int fd;

	if (!path)
		return -jifl_err_invalid;
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
	if (fd < 0)
		return jifl_err_errno(errno);
	return jifl_fjwriter_fdopen(wp, fd, info);
}

int jifl_fjwriter_fdopen(struct jifl_fjwriter **wp, int fd,
			 const struct jifl_fj_info *info)
{
	struct jifl_fjwriter *w;
	int ret;

	if (!wp || !info ||
	    info->cmdline_len > JIFL_FJ_HEADER_MAX - sizeof(struct jifl_fj_header) - 8) {
		close(fd);
		return -jifl_err_invalid;
	}
	w = calloc(1, sizeof(*w));
	if (!w) {
		close(fd);
		return -jifl_err_nomem;
	}
	w->sum = JIFL_FJ_CHECKSUM_INIT;
	w->f = fdopen(fd, "w");
	if (!w->f) {
		ret = jifl_err_errno(errno);
		close(fd);
		free(w);
		return ret;
	}
	/* Snapshots come in 4 KiB pieces: write them out in big ones. */
	setvbuf(w->f, NULL, _IOFBF, 1 << 20);
	ret = put_header(w, info);
	if (ret) {
		fclose(w->f);
		free(w);
		return ret;
	}
	*wp = w;
	return 0;
}

int jifl_fjwriter_add(struct jifl_fjwriter *w, const struct flowjit_event *ev)
{
	int ret;

	if (ev->type == JIFL_FJ_END || jifl_fjfile_check_record(ev))
		return -jifl_err_format;
	ret = put(w, ev, ev->size);
	if (ret)
		return ret;
	w->count++;
	w->bytes += ev->size;
	return 0;
}

uint64_t jifl_fjwriter_count(const struct jifl_fjwriter *w)
{
	return w->count;
}

int jifl_fjwriter_close(struct jifl_fjwriter *w)
{
	struct flowjit_event end;
	int ret;

	memset(&end, 0, sizeof(end));
	end.type = JIFL_FJ_END;
	end.size = sizeof(end);
	end.seq = w->count;
	end.len = w->bytes;
	end.aux = w->sum;
	ret = put(w, &end, sizeof(end));
	if (fclose(w->f) && !ret)
		ret = jifl_err_errno(errno);
	free(w);
	return ret;
}
