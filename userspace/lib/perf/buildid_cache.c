// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/build_id.h"
#include "buildid_cache.h"
#include "common/errcode.h"

#define VDSO_NAME	"[vdso]"
#define VDSO_FILE	"vdso"

static int __attribute__((format(printf, 3, 4)))
path_fmt(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, len, fmt, ap);
	va_end(ap);
	return n < 0 || (size_t)n >= len ? -jifl_err_invalid : 0;
}

int jifl_buildid_cache_dir(const char *dir, char *buf, size_t len)
{
	const char *home;

	if (!dir)
		dir = getenv("PERF_BUILDID_DIR");
	if (dir && *dir)
		return path_fmt(buf, len, "%s", dir);
	home = getenv("HOME");
	return home ? path_fmt(buf, len, "%s/.debug", home) : path_fmt(buf, len, ".debug");
}

/* mkdir -p @path, mode 0755. */
static int mkdir_p(char *path)
{
	char *p = path;

	for (;;) {
		p = strchr(p + 1, '/');
		if (p)
			*p = '\0';
		if (mkdir(path, 0755) && errno != EEXIST) {
			if (p)
				*p = '/';
			return jifl_err_errno(errno);
		}
		if (!p)
			return 0;
		*p = '/';
	}
}

/* Write @size bytes to @path through a new file renamed into place. */
static int write_new(const char *path, const void *image, size_t size)
{
	char tmp[4096];
	ssize_t done;
	int fd, err;

	err = path_fmt(tmp, sizeof(tmp), "%s.XXXXXX", path);
	if (err)
		return err;
	fd = mkstemp(tmp);
	if (fd < 0)
		return jifl_err_errno(errno);
	done = write(fd, image, size);
	if (done >= 0 && (size_t)done != size) {
		errno = ENOSPC;
		done = -1;
	}
	if (done < 0 || fchmod(fd, 0644)) {
		err = jifl_err_errno(errno);
		close(fd);
		goto fail;
	}
	if (close(fd) || rename(tmp, path)) {
		err = jifl_err_errno(errno);
		goto fail;
	}
	return 0;
fail:
	unlink(tmp);
	return err;
}

int jifl_buildid_cache_add_vdso(const char *dir, const uint8_t *id, size_t n,
				const void *image, size_t size)
{
	char hex[JIFL_BUILD_ID_STR], path[4096], target[128];
	int err;

	if (!n || n > JIFL_BUILD_ID_MAX)
		return -jifl_err_invalid;
	jifl_build_id_str(id, n, hex);
	err = path_fmt(path, sizeof(path), "%s/" VDSO_NAME "/%s", dir, hex);
	if (!err)
		err = mkdir_p(path);
	if (!err)
		err = path_fmt(path, sizeof(path), "%s/" VDSO_NAME "/%s/" VDSO_FILE, dir, hex);
	if (!err && access(path, F_OK))
		err = write_new(path, image, size);
	if (!err)
		err = path_fmt(path, sizeof(path), "%s/.build-id/%.2s", dir, hex);
	if (!err)
		err = mkdir_p(path);
	if (!err)
		err = path_fmt(path, sizeof(path), "%s/.build-id/%.2s/%s", dir, hex, hex + 2);
	/* Relative, as perf makes it: the cache may move as a whole. */
	if (!err)
		err = path_fmt(target, sizeof(target), "../../" VDSO_NAME "/%s", hex);
	if (!err && symlink(target, path) && errno != EEXIST)
		err = jifl_err_errno(errno);
	return err;
}

int jifl_buildid_cache_find_vdso(const char *dir, const uint8_t *id, size_t n,
				 char *buf, size_t len)
{
	char hex[JIFL_BUILD_ID_STR];
	struct stat st;
	int err;

	if (!n || n > JIFL_BUILD_ID_MAX)
		return -jifl_err_invalid;
	jifl_build_id_str(id, n, hex);
	err = path_fmt(buf, len, "%s/.build-id/%.2s/%s", dir, hex, hex + 2);
	if (err)
		return err;
	if (stat(buf, &st))
		return jifl_err_errno(errno);
	/* Old caches keep the file itself under the link's name. */
	if (!S_ISREG(st.st_mode))
		err = path_fmt(buf + strlen(buf), len - strlen(buf), "/" VDSO_FILE);
	if (!err && access(buf, R_OK))
		err = jifl_err_errno(errno);
	return err;
}
