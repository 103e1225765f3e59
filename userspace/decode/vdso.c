// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/build_id.h"
#include "perf/buildid_cache.h"
#include "common/errcode.h"
#include "vdso.h"

#define VDSO_NAME	"[vdso]"

static void say(char *msg, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, len, fmt, ap);
	va_end(ap);
}

/* The build ID the file records for the host's user-space vDSO, or NULL. */
static const struct jifl_perf_build_id *recorded(const struct jifl_perf_reader *r)
{
	const struct jifl_perf_build_id *b;
	size_t i;

	for (i = 0; (b = jifl_perf_reader_build_id(r, i)); i++)
		if (!strcmp(b->filename, VDSO_NAME) && b->pid == -1 &&
		    b->cpumode == PERF_RECORD_MISC_USER)
			return b;
	return NULL;
}

/* The cached image with @b's build ID, as libelf reads it. */
static int from_cache(struct jifl_vdso *v, const char *cache_dir,
		      const struct jifl_perf_build_id *b)
{
	uint8_t id[JIFL_BUILD_ID_MAX];
	int n;

	n = jifl_buildid_cache_find_vdso(cache_dir, b->id, b->size, v->path, sizeof(v->path));
	if (!n)
		n = jifl_build_id_read(v->path, id);
	if (n < 0)
		return n;
	return n == b->size && !memcmp(id, b->id, n) ? 0 : -jifl_err_mismatch;
}

/* This process's vDSO, where /proc/self/maps says it is (as perf finds it). */
static int own_vdso(const uint8_t **image, size_t *size)
{
	unsigned long start, end;
	char line[512];
	int found = 0;
	FILE *f;

	f = fopen("/proc/self/maps", "re");
	if (!f)
		return jifl_err_errno(errno);
	while (!found && fgets(line, sizeof(line), f))
		found = strstr(line, " " VDSO_NAME "\n") &&
			sscanf(line, "%lx-%lx", &start, &end) == 2 && end > start;
	fclose(f);
	if (!found)
		return -jifl_err_nosupp;
	*image = (const uint8_t *)start;
	*size = end - start;
	return 0;
}

/* Copy our vDSO to a temporary file for libipt. */
static int own_copy(struct jifl_vdso *v, const uint8_t *image, size_t size)
{
	const char *dir = getenv("TMPDIR");
	int fd, err;

	if (snprintf(v->path, sizeof(v->path), "%s/jifl-vdso-XXXXXX",
		     dir && *dir ? dir : "/tmp") >= (int)sizeof(v->path))
		return -jifl_err_invalid;
	fd = mkstemp(v->path);
	if (fd < 0)
		return jifl_err_errno(errno);
	v->temporary = 1;
	if (write(fd, image, size) == (ssize_t)size && !close(fd))
		return 0;
	err = jifl_err_errno(errno);
	close(fd);
	return err;
}

int jifl_vdso_find(struct jifl_vdso *v, const struct jifl_perf_reader *r,
		   const char *cache_dir, char *msg, size_t len)
{
	const struct jifl_perf_build_id *b = recorded(r);
	char hex[JIFL_BUILD_ID_STR], why[256] = "";
	uint8_t id[JIFL_BUILD_ID_MAX];
	const uint8_t *own = NULL;
	size_t size = 0;
	int n, err;

	memset(v, 0, sizeof(*v));
	if (b) {
		jifl_build_id_str(b->id, b->size, hex);
		err = from_cache(v, cache_dir, b);
		if (!err)
			return 0;
		snprintf(why, sizeof(why), "%s", err == jifl_err_errno(ENOENT) ? "not there" :
			 err == -jifl_err_mismatch ? "another build ID there" :
			 jifl_strerror(err));
	}
	n = own_vdso(&own, &size);
	if (!n)
		n = jifl_build_id_mem(own, size, id);
	if (b && (n != b->size || memcmp(id, b->id, n))) {
		v->path[0] = '\0';
		say(msg, len, "the vDSO (build ID %s) is not in the build-id cache '%s' (%s), "
		    "and this system's is another: its code cannot be decoded", hex,
		    cache_dir, why);
		return 2;
	}
	err = own ? own_copy(v, own, size) : -jifl_err_nosupp;
	if (err) {
		say(msg, len, "this system's vDSO cannot stand in for the trace's: %s; its code "
		    "cannot be decoded", jifl_strerror(err));
		jifl_vdso_fini(v);
		return 2;
	}
	if (b)
		return 0;
	say(msg, len, "no build ID of the vDSO in the perf.data: decoding its code with "
	    "this system's, which may not be the one that ran");
	return 1;
}

void jifl_vdso_fini(struct jifl_vdso *v)
{
	if (v->temporary)
		unlink(v->path);
	v->temporary = 0;
	v->path[0] = '\0';
}
