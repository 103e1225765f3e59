// SPDX-License-Identifier: GPL-2.0
#include <elf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/errcode.h"
#include "jitdump_writer.h"

struct jifl_jitdump {
	FILE *f;
	uint32_t pid;
	uint64_t index;		/* of the last code load */
};

static int put(struct jifl_jitdump *j, const void *p, size_t n)
{
	return fwrite(p, 1, n, j->f) == n ? 0 : jifl_err_errno(errno);
}

int jifl_jitdump_open(struct jifl_jitdump **jp, const char *path, uint32_t pid,
		      uint64_t tsc)
{
	struct jifl_jitdump_header h = {
		.magic = JIFL_JITDUMP_MAGIC,
		.version = JIFL_JITDUMP_VERSION,
		.total_size = sizeof(h),
		.elf_mach = EM_X86_64,
		.pid = pid,
		.timestamp = tsc,
		.flags = JIFL_JITDUMP_ARCH_TIMESTAMP,
	};
	struct jifl_jitdump *j = calloc(1, sizeof(*j));
	int err;

	if (!j)
		return -jifl_err_nomem;
	j->pid = pid;
	j->f = fopen(path, "we");
	err = j->f ? put(j, &h, sizeof(h)) : jifl_err_errno(errno);
	if (err) {
		if (j->f)
			fclose(j->f);
		free(j);
		return err;
	}
	*jp = j;
	return 0;
}

int jifl_jitdump_code_load(struct jifl_jitdump *j, uint32_t tid, uint64_t addr,
			   const char *name, const void *code, size_t size, uint64_t tsc)
{
	size_t name_size = strlen(name) + 1;
	struct jifl_jitdump_code_load r = {
		.p = {
			.id = JIFL_JITDUMP_CODE_LOAD,
			.total_size = sizeof(r) + name_size + size,
			.timestamp = tsc,
		},
		.pid = j->pid,
		.tid = tid,
		.vma = addr,
		.code_addr = addr,
		.code_size = size,
		.code_index = ++j->index,
	};

	int err = put(j, &r, sizeof(r));

	if (!err)
		err = put(j, name, name_size);
	return err ? err : put(j, code, size);
}

int jifl_jitdump_close(struct jifl_jitdump *j, uint64_t tsc)
{
	struct jifl_jitdump_prefix close_rec = {
		.id = JIFL_JITDUMP_CODE_CLOSE,
		.total_size = sizeof(close_rec),
		.timestamp = tsc,
	};
	int err = put(j, &close_rec, sizeof(close_rec));

	if (fclose(j->f) && !err)
		err = jifl_err_errno(errno);
	free(j);
	return err;
}
