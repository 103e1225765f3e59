// SPDX-License-Identifier: GPL-2.0
#include <string.h>

#include "common/errcode.h"
#include "truth.h"

int jifl_truth_open(struct jifl_truth *t, const char *path)
{
	memset(t, 0, sizeof(*t));
	t->f = fopen(path, "we");
	if (!t->f)
		return jifl_err_errno(errno);
	if (fwrite(JIFL_TRUTH_MAGIC, 8, 1, t->f) != 1)
		return jifl_err_errno(errno);
	return 0;
}

static int truth_put_group(struct jifl_truth *t)
{
	struct {
		uint32_t tid, count;
		uint64_t tsc;
	} __attribute__((packed)) hdr = { t->tid, t->count, t->tsc };

	if (!t->count)
		return 0;
	if (fwrite(&hdr, sizeof(hdr), 1, t->f) != 1 ||
	    fwrite(t->buf, t->len, 1, t->f) != 1)
		return jifl_err_errno(errno);
	t->count = 0;
	t->len = 0;
	t->prev_ip = 0;
	return 0;
}

int jifl_truth_add(struct jifl_truth *t, uint32_t tid, uint64_t ip, uint64_t tsc)
{
	int64_t delta;
	uint64_t z;
	int err;

	if (t->count == JIFL_TRUTH_GROUP_MAX || (t->count && tid != t->tid)) {
		err = truth_put_group(t);
		if (err)
			return err;
	}
	if (!t->count) {
		t->tid = tid;
		t->tsc = tsc;
	}
	delta = (int64_t)(ip - t->prev_ip);
	z = ((uint64_t)delta << 1) ^ (uint64_t)(delta >> 63);
	do {
		t->buf[t->len++] = (z & 0x7f) | (z > 0x7f ? 0x80 : 0);
		z >>= 7;
	} while (z);
	t->prev_ip = ip;
	t->count++;
	return 0;
}

int jifl_truth_close(struct jifl_truth *t)
{
	int err;

	if (!t->f)
		return 0;
	err = truth_put_group(t);
	if (fclose(t->f) && !err)
		err = jifl_err_errno(errno);
	t->f = NULL;
	return err;
}
