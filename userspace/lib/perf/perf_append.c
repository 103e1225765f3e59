// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include "common/errcode.h"
#include "perf_append.h"
#include "perf_data.h"
#include "perf_sample_id.h"

static int in_file(const struct jifl_perf_section *s, size_t file_size)
{
	return s->offset <= file_size && s->size <= file_size - s->offset;
}

static int nr_features(const struct jifl_perf_file_header *h)
{
	int i, n = 0;

	for (i = 0; i < JIFL_PERF_FEAT_BITS; i++)
		n += !!(h->features[i / 64] & (1ULL << (i % 64)));
	return n;
}

/* Attributes and their ids must lie before the data: nothing there moves. */
static int check_attrs(const uint8_t *map, size_t map_size,
		       const struct jifl_perf_file_header *h)
{
	struct jifl_perf_section ids;
	uint64_t i;

	if (h->attr_size < sizeof(ids) || !in_file(&h->attrs, map_size))
		return -jifl_err_format;
	if (h->attrs.offset + h->attrs.size > h->data.offset)
		return -jifl_err_nosupp;
	for (i = 0; i < h->attrs.size / h->attr_size; i++) {
		memcpy(&ids, map + h->attrs.offset + (i + 1) * h->attr_size - sizeof(ids),
		       sizeof(ids));
		if (!in_file(&ids, map_size))
			return -jifl_err_format;
		if (ids.size && ids.offset + ids.size > h->data.offset)
			return -jifl_err_nosupp;
	}
	return 0;
}

static int write_all(int fd, struct iovec *iov, int n)
{
	ssize_t w;

	while (n) {
		w = writev(fd, iov, n);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			return jifl_err_errno(errno);
		}
		while (n && (size_t)w >= iov->iov_len) {
			w -= iov->iov_len;
			iov++;
			n--;
		}
		if (n) {
			iov->iov_base = (uint8_t *)iov->iov_base + w;
			iov->iov_len -= w;
		}
	}
	return 0;
}

static int copy_with(const uint8_t *map, size_t map_size, const char *out,
		     const void *records, size_t size)
{
	struct jifl_perf_file_header h;
	struct jifl_perf_section *feat;
	uint64_t data_end, table_end;
	struct iovec iov[5];
	int i, n, fd, err;

	if (map_size < sizeof(h))
		return -jifl_err_format;
	memcpy(&h, map, sizeof(h));
	if (h.magic != JIFL_PERF_MAGIC || h.size != sizeof(h))
		return -jifl_err_format;
	if (!h.data.size)
		return -jifl_err_truncated;
	if (h.data.offset < sizeof(h) || !in_file(&h.data, map_size))
		return -jifl_err_format;
	data_end = h.data.offset + h.data.size;
	err = check_attrs(map, map_size, &h);
	if (err)
		return err;
	n = nr_features(&h);
	table_end = data_end + n * sizeof(*feat);
	if (table_end > map_size)
		return -jifl_err_format;
	feat = malloc(n * sizeof(*feat) + 1);
	if (!feat)
		return -jifl_err_nomem;
	memcpy(feat, map + data_end, n * sizeof(*feat));
	for (i = 0; i < n; i++)
		if (feat[i].offset >= data_end)
			feat[i].offset += size;
	h.data.size += size;

	iov[0] = (struct iovec){ &h, sizeof(h) };
	iov[1] = (struct iovec){ (void *)(map + sizeof(h)), data_end - sizeof(h) };
	iov[2] = (struct iovec){ (void *)records, size };
	iov[3] = (struct iovec){ feat, n * sizeof(*feat) };
	iov[4] = (struct iovec){ (void *)(map + table_end), map_size - table_end };
	fd = open(out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0) {
		err = jifl_err_errno(errno);
	} else {
		err = write_all(fd, iov, 5);
		if (close(fd) && !err)
			err = jifl_err_errno(errno);
	}
	free(feat);
	return err;
}

int jifl_perf_append(const char *in, const char *out, const void *records, size_t size)
{
	const uint8_t *map;
	struct stat st, st_out;
	int fd, err;

	fd = open(in, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return jifl_err_errno(errno);
	if (fstat(fd, &st)) {
		err = jifl_err_errno(errno);
		close(fd);
		return err;
	}
	/* Writing the file being read would cut it under the copy. */
	if (!stat(out, &st_out) && st_out.st_dev == st.st_dev && st_out.st_ino == st.st_ino) {
		close(fd);
		return -jifl_err_invalid;
	}
	if ((size_t)st.st_size < sizeof(struct jifl_perf_file_header)) {
		close(fd);
		return st.st_size ? -jifl_err_format : -jifl_err_truncated;
	}
	map = mmap(NULL, st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	err = map == MAP_FAILED ? jifl_err_errno(errno) : 0;
	close(fd);
	if (err)
		return err;
	err = copy_with(map, st.st_size, out, records, size);
	munmap((void *)map, st.st_size);
	return err;
}

int jifl_perf_append_encode_mmap2(void *buf, size_t size, const struct jifl_perf_mmap2 *m,
				  uint64_t time, const struct jifl_perf_info *info)
{
	struct jifl_perf_mmap2_event e = {
		.header = { .type = PERF_RECORD_MMAP2, .misc = PERF_RECORD_MISC_USER },
		.pid = m->pid, .tid = m->tid,
		.addr = m->addr, .len = m->len, .pgoff = m->pgoff,
		.maj = m->maj, .min = m->min, .ino = m->ino,
		.prot = m->prot, .flags = m->flags,
	};
	struct jifl_perf_sample_id sid = {
		.pid = m->pid, .tid = m->tid, .time = time, .id = info->sideband_id,
	};
	size_t name = (strlen(m->filename) + 8) & ~(size_t)7;	/* '\0'-padded */
	size_t trailer = info->sample_id_all ?
			 jifl_perf_sample_id_size(info->sample_type, NULL) : 0;
	uint8_t *p = buf;

	if (size < sizeof(e) + name + trailer || sizeof(e) + name + trailer > UINT16_MAX)
		return -jifl_err_invalid;
	e.header.size = sizeof(e) + name + trailer;
	memcpy(p, &e, sizeof(e));
	memset(p + sizeof(e), 0, name);
	memcpy(p + sizeof(e), m->filename, strlen(m->filename));
	if (trailer)
		jifl_perf_sample_id_put(p + sizeof(e) + name, info->sample_type, &sid);
	return e.header.size;
}
