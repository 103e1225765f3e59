// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer harness: the input is a FlowJIT data file (flowjit.data). It
 * is read record by record into a JIT image, as jifl-decode does, and
 * the image is then asked about the pages and times its records name:
 * versions found, walked and read across page ends.
 */
#include <stdint.h>
#include <unistd.h>

#include "flowjit/fjreader.h"
#include "fuzz_file.h"
#include "flowjit/jit_image.h"

#define QUERIES	16

static uint64_t fuzz_sum;

static int visit(const struct jifl_jit_version *v, void *ctx)
{
	uint64_t *sum = ctx;

	*sum += v->page + v->start + v->end + v->bytes[v->exec_ip & 4095];
	return 0;
}

static void query(const struct jifl_jit_image *img, const struct flowjit_event *q, uint64_t *sum)
{
	const uint64_t addrs[] = { q->addr, q->ip, q->addr + q->len - 1, q->aux };
	const uint64_t tscs[] = { q->tsc, q->tsc - 1, q->tsc + 1, JIFL_JIT_NO_END };
	const struct jifl_jit_version *v;
	uint8_t buf[64];
	size_t i, j;

	for (i = 0; i < sizeof(addrs) / sizeof(addrs[0]); i++) {
		for (j = 0; j < sizeof(tscs) / sizeof(tscs[0]); j++) {
			v = jifl_jit_image_find(img, q->pid, addrs[i], tscs[j]);
			if (v)
				*sum += v->number;
			v = jifl_jit_image_last(img, q->pid, addrs[i], tscs[j]);
			for (; v; v = jifl_jit_image_next(img, q->pid, addrs[i], v))
				*sum += v->start;
			/* A read that starts near a page's end goes on into the next. */
			if (jifl_jit_image_read(img, q->pid, addrs[i] | 4064, tscs[j], buf,
						sizeof(buf), &v) > 0)
				*sum += buf[0] + buf[sizeof(buf) - 1];
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct flowjit_event ev, queries[QUERIES];
	struct jifl_jit_image_stats st;
	const struct jifl_fj_info *info;
	struct jifl_jit_image *img;
	struct jifl_fjreader *r;
	size_t i, nq = 0;
	const void *page;
	uint64_t sum = 0;
	char path[64];
	int fd, ret;

	fd = fuzz_file(data, size, path, sizeof(path));
	if (jifl_fjreader_open(&r, path))
		goto out;
	info = jifl_fjreader_info(r);
	sum += info->pid + info->tsc_hz + info->cmdline_len +
	       (info->cmdline_len ? (uint8_t)info->cmdline[info->cmdline_len - 1] : 0);
	if (jifl_jit_image_new(&img))
		goto close;
	while ((ret = jifl_fjreader_next(r, &ev, &page)) > 0) {
		if (page)
			sum += ((const uint8_t *)page)[4095];
		sum += jifl_fjreader_offset(r) + jifl_fjfile_type_name(ev.type)[0];
		if (nq < QUERIES)
			queries[nq++] = ev;
		if (jifl_jit_image_add_event(img, &ev, page))
			break;
	}
	for (i = 0; i < nq; i++)
		query(img, &queries[i], &sum);
	jifl_jit_image_for_each(img, visit, &sum);
	jifl_jit_image_stats(img, &st);
	sum += st.pages + st.versions + st.lost;
	jifl_jit_image_free(img);
close:
	jifl_fjreader_close(r);
out:
	close(fd);
	fuzz_sum += sum;
	return 0;
}
