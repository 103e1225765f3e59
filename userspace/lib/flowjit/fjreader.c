// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/errcode.h"
#include "fjreader.h"

struct jifl_fjreader {
	FILE *f;
	struct jifl_fj_info info;
	char *cmdline;
	uint64_t offset;	/* of the record last read */
	uint64_t pos;		/* bytes read */
	uint64_t count;		/* records read */
	uint64_t bytes;		/* record bytes read */
	uint64_t sum;		/* checksum of what was read */
	int state;		/* 1 reading, else what next() returns from now on */
	unsigned char page[FLOWJIT_PAGE_SIZE];
};

/* Read exactly @len bytes; a short read is a truncated file. */
static int get(struct jifl_fjreader *r, void *buf, size_t len)
{
	size_t n = fread(buf, 1, len, r->f);

	r->pos += n;
	if (n == len)
		return 0;
	return ferror(r->f) ? jifl_err_errno(errno) : -jifl_err_truncated;
}

static int check_header(const struct jifl_fj_header *h)
{
	if (memcmp(h->magic, JIFL_FJ_MAGIC, sizeof(h->magic)))
		return -jifl_err_format;
	if (h->version != JIFL_FJ_VERSION)
		return -jifl_err_version;
	if (h->record_size != sizeof(struct flowjit_event) ||
	    h->page_size != FLOWJIT_PAGE_SIZE || h->reserved ||
	    h->header_size % 8 || h->header_size > JIFL_FJ_HEADER_MAX ||
	    h->header_size < sizeof(*h) + h->cmdline_len ||
	    h->header_size - sizeof(*h) - h->cmdline_len >= 8)
		return -jifl_err_format;
	return 0;
}

static int read_header(struct jifl_fjreader *r)
{
	struct jifl_fj_header h;
	size_t rest;
	int ret;

	ret = get(r, &h, sizeof(h));
	if (jifl_err_is_errno(ret))
		return ret;
	/* Without our magic number the file is foreign, whatever its size. */
	if (r->pos < sizeof(h.magic) || memcmp(h.magic, JIFL_FJ_MAGIC, sizeof(h.magic)))
		return -jifl_err_format;
	if (ret)
		return ret;
	ret = check_header(&h);
	if (ret)
		return ret;
	rest = h.header_size - sizeof(h);
	r->cmdline = calloc(1, rest + 1);
	if (!r->cmdline)
		return -jifl_err_nomem;
	ret = get(r, r->cmdline, rest);
	if (ret)
		return ret;
	/* The command line is a list of strings: it ends with '\0'. */
	if (h.cmdline_len && r->cmdline[h.cmdline_len - 1])
		return -jifl_err_format;
	r->sum = jifl_fjfile_checksum(JIFL_FJ_CHECKSUM_INIT, &h, sizeof(h));
	r->sum = jifl_fjfile_checksum(r->sum, r->cmdline, rest);
	r->info.version = h.version;
	r->info.tsc_hz = h.tsc_hz;
	r->info.start_ns = h.start_ns;
	r->info.pid = h.pid;
	r->info.flags = h.flags;
	r->info.cmdline = r->cmdline;
	r->info.cmdline_len = h.cmdline_len;
	return 0;
}

int jifl_fjreader_open(struct jifl_fjreader **rp, const char *path)
{
	struct jifl_fjreader *r;
	int ret;

	if (!rp || !path)
		return -jifl_err_invalid;
	r = calloc(1, sizeof(*r));
	if (!r)
		return -jifl_err_nomem;
	r->state = 1;
	r->f = fopen(path, "re");
	if (!r->f) {
		free(r);
		return jifl_err_errno(errno);
	}
	ret = read_header(r);
	if (ret) {
		jifl_fjreader_close(r);
		return ret;
	}
	*rp = r;
	return 0;
}

const struct jifl_fj_info *jifl_fjreader_info(const struct jifl_fjreader *r)
{
	return &r->info;
}

uint64_t jifl_fjreader_offset(const struct jifl_fjreader *r)
{
	return r->offset;
}

/* The end record must account for everything before it, and be last. */
static int check_end(struct jifl_fjreader *r, const struct flowjit_event *ev)
{
	if (ev->seq != r->count || ev->len != r->bytes || ev->flags || ev->tsc ||
	    ev->time_ns || ev->pid || ev->tid || ev->cpu || ev->reserved || ev->ip ||
	    ev->addr)
		return -jifl_err_format;
	if (ev->aux != r->sum)
		return -jifl_err_checksum;
	if (fgetc(r->f) != EOF)
		return -jifl_err_format;
	return ferror(r->f) ? jifl_err_errno(errno) : 0;
}

static int read_record(struct jifl_fjreader *r, struct flowjit_event *ev,
		       const void **page)
{
	int ret;

	r->offset = r->pos;
	ret = get(r, ev, sizeof(*ev));
	/* Records end only with the end record. */
	if (ret)
		return ret;
	if (jifl_fjfile_check_record(ev))
		return -jifl_err_format;
	if (ev->type == JIFL_FJ_END)
		return check_end(r, ev);
	r->sum = jifl_fjfile_checksum(r->sum, ev, sizeof(*ev));
	*page = NULL;
	if (ev->flags & FLOWJIT_EVF_PAYLOAD) {
		ret = get(r, r->page, sizeof(r->page));
		if (ret)
			return ret;
		r->sum = jifl_fjfile_checksum(r->sum, r->page, sizeof(r->page));
		*page = r->page;
	}
	r->count++;
	r->bytes += ev->size;
	return 1;
}

int jifl_fjreader_next(struct jifl_fjreader *r, struct flowjit_event *ev,
		       const void **page)
{
	int ret;

	if (r->state != 1)
		return r->state;
	ret = read_record(r, ev, page);
	if (ret <= 0)
		r->state = ret;
	return ret;
}

void jifl_fjreader_close(struct jifl_fjreader *r)
{
	if (!r)
		return;
	if (r->f)
		fclose(r->f);
	free(r->cmdline);
	free(r);
}
