// SPDX-License-Identifier: GPL-2.0
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "common/build_id.h"
#include "perf/buildid_cache.h"
#include "common/errcode.h"
#include "vdso.h"

/* The kernel maps a vDSO of a few pages; anything larger is not one. */
#define VDSO_MAX_SIZE	(1 << 20)

/*
 * The image as the process has it mapped. perf record copies its own
 * vDSO instead, the same on the same kernel; the process's own is the
 * one it ran, whatever its ABI.
 */
static int vdso_read(int pid, const struct jifl_perf_mmap2 *m, uint8_t **image)
{
	char path[64];
	ssize_t n;
	int fd, err;

	if (!m->len || m->len > VDSO_MAX_SIZE)
		return -jifl_err_format;
	*image = malloc(m->len);
	if (!*image)
		return -jifl_err_nomem;
	snprintf(path, sizeof(path), "/proc/%d/mem", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return jifl_err_errno(errno);
	n = pread(fd, *image, m->len, m->addr);
	err = n < 0 ? jifl_err_errno(errno) : (uint64_t)n == m->len ? 0 : -jifl_err_format;
	close(fd);
	return err;
}

int jifl_vdso_record(struct jifl_perf_writer *w, const char *cache_dir, int pid,
		     const struct jifl_perf_mmap2 *m)
{
	uint8_t id[JIFL_BUILD_ID_MAX], *image = NULL;
	int n, err;

	err = vdso_read(pid, m, &image);
	n = err ? err : jifl_build_id_mem(image, m->len, id);
	err = n < 0 ? n : jifl_perf_writer_build_id(w, JIFL_VDSO_NAME, id, n);
	if (!err && cache_dir)
		err = jifl_buildid_cache_add_vdso(cache_dir, id, n, image, m->len);
	free(image);
	return err;
}
