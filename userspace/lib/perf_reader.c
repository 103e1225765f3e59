// SPDX-License-Identifier: GPL-2.0
/*
 * perf.data reader. The file is mapped read-only; records are checked
 * one by one against the data section and the file size, and the
 * records a decoder needs are copied out (names point into the map).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "errcode.h"
#include "perf_reader.h"
#include "perf_sample_id.h"

struct aux_buffer {
	uint32_t idx, tid, cpu;
	uint64_t offset;		/* in the queue's stream */
	const uint8_t *data;
	uint64_t size;
};

struct jifl_perf_reader {
	const uint8_t *map;
	size_t map_size;
	int have_auxtrace_info;
	struct jifl_perf_info info;
	struct jifl_perf_map *maps;
	size_t nr_maps;
	struct jifl_perf_task *tasks;
	size_t nr_tasks;
	struct jifl_perf_switch_rec *switches;
	size_t nr_switches;
	struct aux_buffer *bufs;
	size_t nr_bufs;
	struct jifl_perf_queue *queues;
	size_t nr_queues;
	struct jifl_perf_build_id *bids;
	size_t nr_bids;
	uint64_t bad_offset;
};

/* Append one element of @size to a growing array. */
static void *array_push(void *pv, size_t *nr, size_t size)
{
	void **p = pv;
	size_t n = *nr;
	void *v;

	/* Capacity: 16, then doubled each time it is full. */
	if (!n || (n >= 16 && !(n & (n - 1)))) {
		v = realloc(*p, (n ? 2 * n : 16) * size);
		if (!v)
			return NULL;
		*p = v;
	}
	(*nr)++;
	v = (uint8_t *)*p + n * size;
	memset(v, 0, size);
	return v;
}

static int bad(struct jifl_perf_reader *r, uint64_t offset, int err)
{
	r->bad_offset = offset;
	return err;
}

/*
 * The sample id of a kernel side-band record in @sid (time 0 and cpu
 * (uint32_t)-1 when it carries none), and the size of its body.
 */
static void record_sample_id(const struct jifl_perf_reader *r,
			     const struct perf_event_header *h, size_t *body,
			     struct jifl_perf_sample_id *sid)
{
	size_t trailer = jifl_perf_sample_id_size(r->info.sample_type, NULL);

	*body = h->size;
	if (!r->info.sample_id_all || h->size < sizeof(*h) + trailer) {
		jifl_perf_sample_id_get(NULL, 0, sid);
		return;
	}
	*body = h->size - trailer;
	jifl_perf_sample_id_get((const uint8_t *)h + *body, r->info.sample_type, sid);
}

/* Perf time of a kernel side-band record (0 when it carries none). */
static uint64_t record_time(const struct jifl_perf_reader *r,
			    const struct perf_event_header *h, size_t *body)
{
	struct jifl_perf_sample_id sid;

	record_sample_id(r, h, body, &sid);
	return sid.time;
}

/*
 * The first id of the event whose attribute is at @off, in *@id (left
 * alone when it has none).
 */
static int read_first_id(struct jifl_perf_reader *r, const struct jifl_perf_file_header *h,
			 uint64_t off, uint64_t *id)
{
	struct jifl_perf_section ids;

	memcpy(&ids, r->map + off + h->attr_size - sizeof(ids), sizeof(ids));
	if (!ids.size)
		return 0;
	if (ids.offset > r->map_size || r->map_size - ids.offset < sizeof(*id))
		return bad(r, off, -jifl_err_truncated);
	memcpy(id, r->map + ids.offset, sizeof(*id));
	return 0;
}

static int read_attrs(struct jifl_perf_reader *r, const struct jifl_perf_file_header *h)
{
	struct perf_event_attr attr;
	uint64_t n, i, off;
	int err, tracking = 0;

	if (h->attr_size < PERF_ATTR_SIZE_VER0 + sizeof(struct jifl_perf_section) ||
	    h->attr_size > 4096 || !h->attrs.size || h->attrs.size % h->attr_size)
		return bad(r, offsetof(struct jifl_perf_file_header, attr_size),
			   -jifl_err_format);
	if (h->attrs.offset > r->map_size || h->attrs.size > r->map_size - h->attrs.offset)
		return bad(r, h->attrs.offset, -jifl_err_truncated);
	n = h->attrs.size / h->attr_size;
	for (i = 0; i < n; i++) {
		off = h->attrs.offset + i * h->attr_size;
		memset(&attr, 0, sizeof(attr));
		memcpy(&attr, r->map + off,
		       h->attr_size - sizeof(struct jifl_perf_section) < sizeof(attr) ?
		       h->attr_size - sizeof(struct jifl_perf_section) : sizeof(attr));
		/* One layout of sample ids for all events, as perf requires. */
		if (i && (attr.sample_type != r->info.sample_type ||
			  attr.sample_id_all != (unsigned int)r->info.sample_id_all))
			return bad(r, off, -jifl_err_format);
		r->info.sample_type = attr.sample_type;
		r->info.sample_id_all = attr.sample_id_all;
		r->info.use_clockid |= attr.use_clockid;
		if (attr.type > PERF_TYPE_BREAKPOINT)
			r->info.pt_config = attr.config;
		/* The tracking event, else the first: its id marks side-band records. */
		if (!i || (!tracking && (attr.mmap || attr.mmap2))) {
			tracking = attr.mmap || attr.mmap2;
			err = read_first_id(r, h, off, &r->info.sideband_id);
			if (err)
				return err;
		}
	}
	return 0;
}

static int read_mmap2(struct jifl_perf_reader *r, const struct perf_event_header *h,
		      uint64_t off)
{
	const struct jifl_perf_mmap2_event *e = (const void *)h;
	struct jifl_perf_map *m;
	size_t body;
	uint64_t t = record_time(r, h, &body);

	if (body <= sizeof(*e) || !memchr(e->filename, 0, body - sizeof(*e)))
		return bad(r, off, -jifl_err_format);
	m = array_push(&r->maps, &r->nr_maps, sizeof(*m));
	if (!m)
		return -jifl_err_nomem;
	m->m.pid = e->pid;
	m->m.tid = e->tid;
	m->m.addr = e->addr;
	m->m.len = e->len;
	m->m.pgoff = e->pgoff;
	m->m.maj = e->maj;
	m->m.min = e->min;
	m->m.ino = e->ino;
	m->m.prot = e->prot;
	m->m.flags = e->flags;
	m->m.filename = e->filename;
	m->time = t;
	return 0;
}

static int read_task(struct jifl_perf_reader *r, const struct perf_event_header *h,
		     uint64_t off)
{
	struct jifl_perf_sample_id sid;
	struct jifl_perf_task *t;
	size_t body;

	record_sample_id(r, h, &body, &sid);
	t = array_push(&r->tasks, &r->nr_tasks, sizeof(*t));
	if (!t)
		return -jifl_err_nomem;
	t->type = h->type;
	t->time = sid.time;
	t->cpu = sid.cpu;
	if (h->type == PERF_RECORD_COMM) {
		const struct jifl_perf_comm_event *e = (const void *)h;

		if (body <= sizeof(*e) || !memchr(e->comm, 0, body - sizeof(*e)))
			return bad(r, off, -jifl_err_format);
		t->pid = e->pid;
		t->tid = e->tid;
		t->comm = e->comm;
		t->exec = !!(h->misc & PERF_RECORD_MISC_COMM_EXEC);
	} else if (h->type == PERF_RECORD_ITRACE_START) {
		const struct jifl_perf_itrace_start_event *e = (const void *)h;

		if (body < sizeof(*e))
			return bad(r, off, -jifl_err_format);
		t->pid = e->pid;
		t->tid = e->tid;
	} else {
		const struct jifl_perf_task_event *e = (const void *)h;

		if (body < sizeof(*e))
			return bad(r, off, -jifl_err_format);
		t->pid = e->pid;
		t->tid = e->tid;
		t->time = e->time;
	}
	return 0;
}

/* PERF_RECORD_SWITCH (the header alone) and _SWITCH_CPU_WIDE. */
static int read_switch(struct jifl_perf_reader *r, const struct perf_event_header *h,
		       uint64_t off)
{
	const struct jifl_perf_switch_cpu_wide_event *e = (const void *)h;
	struct jifl_perf_switch_rec *s;
	struct jifl_perf_sample_id sid;
	size_t body;

	record_sample_id(r, h, &body, &sid);
	if (h->type == PERF_RECORD_SWITCH_CPU_WIDE && body < sizeof(*e))
		return bad(r, off, -jifl_err_format);
	s = array_push(&r->switches, &r->nr_switches, sizeof(*s));
	if (!s)
		return -jifl_err_nomem;
	s->sw.type = h->type;
	s->sw.misc = h->misc;
	s->sw.pid = sid.pid;
	s->sw.tid = sid.tid;
	if (h->type == PERF_RECORD_SWITCH_CPU_WIDE) {
		s->sw.next_prev_pid = e->next_prev_pid;
		s->sw.next_prev_tid = e->next_prev_tid;
	}
	s->cpu = sid.cpu;
	s->time = sid.time;
	return 0;
}

/* The size of an AUXTRACE_INFO record that has priv[@field]. */
static size_t need_info(enum jifl_intel_pt_info field)
{
	return offsetof(struct jifl_perf_auxtrace_info, priv) + (field + 1) * sizeof(uint64_t);
}

static int read_auxtrace_info(struct jifl_perf_reader *r,
			      const struct perf_event_header *h, uint64_t off)
{
	const struct jifl_perf_auxtrace_info *e = (const void *)h;
	size_t need = need_info(JIFL_INTEL_PT_TIME_ZERO);

	if (h->size < need || e->type != JIFL_PERF_AUXTRACE_INTEL_PT)
		return bad(r, off, h->size < need ? -jifl_err_format : -jifl_err_nosupp);
	r->have_auxtrace_info = 1;
	r->info.pt_pmu_type = e->priv[JIFL_INTEL_PT_PMU_TYPE];
	if (h->size >= need_info(JIFL_INTEL_PT_PER_CPU_MMAPS)) {
		r->info.have_sched_switch = e->priv[JIFL_INTEL_PT_HAVE_SCHED_SWITCH];
		r->info.per_cpu_mmaps = !!e->priv[JIFL_INTEL_PT_PER_CPU_MMAPS];
	}
	/* Older perf wrote fewer fields: perf reads MTC's with CYC_BIT. */
	if (h->size >= need_info(JIFL_INTEL_PT_CYC_BIT)) {
		r->info.mtc_bit = e->priv[JIFL_INTEL_PT_MTC_BIT];
		r->info.mtc_freq_bits = e->priv[JIFL_INTEL_PT_MTC_FREQ_BITS];
		r->info.tsc_ctc_n = e->priv[JIFL_INTEL_PT_TSC_CTC_N];
		r->info.tsc_ctc_d = e->priv[JIFL_INTEL_PT_TSC_CTC_D];
	}
	if (h->size >= need_info(JIFL_INTEL_PT_MAX_NONTURBO_RATIO))
		r->info.max_nonturbo_ratio = e->priv[JIFL_INTEL_PT_MAX_NONTURBO_RATIO];
	if (!r->info.have_time_conv) {
		r->info.tc.time_shift = e->priv[JIFL_INTEL_PT_TIME_SHIFT];
		r->info.tc.time_mult = e->priv[JIFL_INTEL_PT_TIME_MULT];
		r->info.tc.time_zero = e->priv[JIFL_INTEL_PT_TIME_ZERO];
		r->info.have_time_conv = 1;
		if (!jifl_tsc_conv_valid(&r->info.tc))
			return bad(r, off, -jifl_err_format);
	}
	return 0;
}

static int read_time_conv(struct jifl_perf_reader *r,
			  const struct perf_event_header *h, uint64_t off)
{
	const struct jifl_perf_time_conv *e = (const void *)h;

	if (h->size < offsetof(struct jifl_perf_time_conv, time_cycles))
		return bad(r, off, -jifl_err_format);
	memset(&r->info.tc, 0, sizeof(r->info.tc));
	r->info.tc.time_shift = e->time_shift;
	r->info.tc.time_mult = e->time_mult;
	r->info.tc.time_zero = e->time_zero;
	/* Newer perf adds these; a narrow TSC needs them. */
	if (h->size >= sizeof(*e) && e->cap_user_time_short) {
		r->info.tc.time_cycles = e->time_cycles;
		r->info.tc.time_mask = e->time_mask;
		r->info.tc.cap_user_time_short = 1;
	}
	r->info.have_time_conv = 1;
	return jifl_tsc_conv_valid(&r->info.tc) ? 0 : bad(r, off, -jifl_err_format);
}

/* Returns the bytes of trace data that follow the record, or an error. */
static int64_t read_auxtrace(struct jifl_perf_reader *r,
			     const struct perf_event_header *h, uint64_t off,
			     uint64_t end)
{
	const struct jifl_perf_auxtrace *e = (const void *)h;
	struct aux_buffer *b;

	uint64_t size = e->size;

	/* perf pads the trace to 8 bytes, so that the next record is aligned. */
	if (h->size < sizeof(*e) || size % 8)
		return bad(r, off, -jifl_err_format);
	if (size > end - off - h->size) {
		if (!r->info.unfinished)
			return bad(r, off, end < r->map_size ? -jifl_err_format :
				   -jifl_err_truncated);
		r->info.cut_at = off;
		size = end - off - h->size;
		if (!size)
			return 0;
	}
	b = array_push(&r->bufs, &r->nr_bufs, sizeof(*b));
	if (!b)
		return -jifl_err_nomem;
	b->idx = e->idx;
	b->tid = e->tid;
	b->cpu = e->cpu;
	b->offset = e->offset;
	b->data = (const uint8_t *)h + h->size;
	b->size = size;
	return size;
}

static int read_record(struct jifl_perf_reader *r, const struct perf_event_header *h,
		       uint64_t off)
{
	switch (h->type) {
	case PERF_RECORD_MMAP2:
		return read_mmap2(r, h, off);
	case PERF_RECORD_COMM:
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
	case PERF_RECORD_ITRACE_START:
		return read_task(r, h, off);
	case PERF_RECORD_SWITCH:
	case PERF_RECORD_SWITCH_CPU_WIDE:
		return read_switch(r, h, off);
	case JIFL_PERF_RECORD_AUXTRACE_INFO:
		return read_auxtrace_info(r, h, off);
	case JIFL_PERF_RECORD_TIME_CONV:
		return read_time_conv(r, h, off);
	}
	/* Other records (samples, rounds, lost, ...) carry nothing we use. */
	return 0;
}

static int read_data(struct jifl_perf_reader *r, const struct jifl_perf_file_header *fh)
{
	const struct perf_event_header *h;
	uint64_t off = fh->data.offset, end;
	int64_t extra;
	int err;

	if (off > r->map_size)
		return bad(r, off, -jifl_err_truncated);
	/* Records are 8-byte aligned, as perf writes them and reads them in place. */
	if (off % 8)
		return bad(r, off, -jifl_err_format);
	if (fh->data.size > r->map_size - off)
		return bad(r, r->map_size, -jifl_err_truncated);
	end = off + fh->data.size;
	/*
	 * perf writes the data size when it finishes the file: a recorder
	 * that was killed leaves 0. Its records run to the end of the
	 * file, where the last one may be cut off.
	 */
	if (!fh->data.size) {
		r->info.unfinished = 1;
		end = r->map_size;
	}
	while (off < end) {
		h = (const void *)(r->map + off);
		if (r->info.unfinished && (end - off < sizeof(*h) || h->size > end - off)) {
			r->info.cut_at = off;
			break;
		}
		if (end - off < sizeof(*h))
			return bad(r, off, -jifl_err_format);
		if (h->size < sizeof(*h) || h->size % 8 || h->size > end - off)
			return bad(r, off, -jifl_err_format);
		if (h->type == JIFL_PERF_RECORD_AUXTRACE) {
			extra = read_auxtrace(r, h, off, end);
			if (extra < 0)
				return extra;
		} else {
			extra = 0;
			err = read_record(r, h, off);
			if (err)
				return err;
		}
		off += h->size + extra;
	}
	return 0;
}

/*
 * The section of feature @bit: the sections follow the data, one for
 * each feature bit set, in bit order. Returns 1 and *@sec, 0 when the
 * file has none (perf writes them last: an unfinished file has none).
 */
static int feature_section(struct jifl_perf_reader *r, const struct jifl_perf_file_header *h,
			   int bit, struct jifl_perf_section *sec)
{
	uint64_t off = h->data.offset + h->data.size;
	int i;

	if (!h->data.size || !(h->features[bit / 64] & (1ULL << (bit % 64))))
		return 0;
	for (i = 0; i < bit; i++)
		if (h->features[i / 64] & (1ULL << (i % 64)))
			off += sizeof(*sec);
	if (off > r->map_size || r->map_size - off < sizeof(*sec))
		return bad(r, off, -jifl_err_truncated);
	memcpy(sec, r->map + off, sizeof(*sec));
	if (sec->offset > r->map_size || sec->size > r->map_size - sec->offset)
		return bad(r, off, -jifl_err_truncated);
	return 1;
}

static int read_build_ids(struct jifl_perf_reader *r, const struct jifl_perf_file_header *h)
{
	struct jifl_perf_build_id_event e;
	struct jifl_perf_section sec;
	struct jifl_perf_build_id *b;
	uint64_t off, end;
	int ret;

	ret = feature_section(r, h, JIFL_PERF_FEAT_BUILD_ID, &sec);
	if (ret <= 0)
		return ret;
	for (off = sec.offset, end = sec.offset + sec.size; off < end; off += e.header.size) {
		if (end - off < sizeof(e))
			return bad(r, off, -jifl_err_format);
		memcpy(&e, r->map + off, sizeof(e));
		if (e.header.size <= sizeof(e) || e.header.size > end - off ||
		    !memchr(r->map + off + sizeof(e), 0, e.header.size - sizeof(e)))
			return bad(r, off, -jifl_err_format);
		b = array_push(&r->bids, &r->nr_bids, sizeof(*b));
		if (!b)
			return -jifl_err_nomem;
		b->filename = (const char *)r->map + off + sizeof(e);
		b->pid = e.pid;
		b->cpumode = e.header.misc & PERF_RECORD_MISC_CPUMODE_MASK;
		b->size = e.header.misc & JIFL_PERF_MISC_BUILD_ID_SIZE ? e.size : sizeof(e.data);
		if (!b->size || b->size > sizeof(e.data))
			return bad(r, off, -jifl_err_format);
		memcpy(b->id, e.data, b->size);
	}
	return 0;
}

static int buf_cmp(const void *a, const void *b)
{
	const struct aux_buffer *x = a, *y = b;

	if (x->idx != y->idx)
		return x->idx < y->idx ? -1 : 1;
	return x->offset < y->offset ? -1 : x->offset > y->offset;
}

static uint32_t tid_pid(const struct jifl_perf_reader *r, uint32_t tid)
{
	size_t i;

	for (i = 0; i < r->nr_tasks; i++)
		if (r->tasks[i].tid == tid)
			return r->tasks[i].pid;
	return tid;
}

/* Join each queue's buffers into one stream, in offset order. */
static int make_queues(struct jifl_perf_reader *r)
{
	struct jifl_perf_queue *q = NULL;
	uint8_t *data;
	size_t i;

	if (r->nr_bufs)
		qsort(r->bufs, r->nr_bufs, sizeof(*r->bufs), buf_cmp);
	for (i = 0; i < r->nr_bufs; i++) {
		const struct aux_buffer *b = &r->bufs[i];

		if (!q || q->idx != b->idx) {
			q = array_push(&r->queues, &r->nr_queues, sizeof(*q));
			if (!q)
				return -jifl_err_nomem;
			q->idx = b->idx;
			q->tid = b->tid;
			q->pid = tid_pid(r, b->tid);
			q->cpu = b->cpu;
		} else if (b->offset != r->bufs[i - 1].offset + r->bufs[i - 1].size) {
			/* Not where the previous one ended: trace data was lost. */
			uint64_t *at = realloc((void *)q->gap_at, (q->gaps + 1) * sizeof(*at));

			if (!at)
				return -jifl_err_nomem;
			at[q->gaps++] = q->size;
			q->gap_at = at;
		}
		if (b->size > SIZE_MAX - q->size)
			return -jifl_err_nomem;
		data = realloc((void *)q->data, q->size + b->size);
		if (!data && q->size + b->size)
			return -jifl_err_nomem;
		memcpy(data + q->size, b->data, b->size);
		q->data = data;
		q->size += b->size;
		q->nr_buffers++;
	}
	return 0;
}

/* The CPUID feature: a u32 length and a '\0'-padded string. */
static int read_cpuid(struct jifl_perf_reader *r, const struct jifl_perf_file_header *h)
{
	struct jifl_perf_section sec;
	uint32_t len;
	int ret;

	ret = feature_section(r, h, JIFL_PERF_FEAT_CPUID, &sec);
	if (ret <= 0)
		return ret;
	if (sec.size < sizeof(len))
		return bad(r, sec.offset, -jifl_err_format);
	memcpy(&len, r->map + sec.offset, sizeof(len));
	if (len > sec.size - sizeof(len) || !memchr(r->map + sec.offset + sizeof(len), 0, len))
		return bad(r, sec.offset, -jifl_err_format);
	r->info.cpuid = (const char *)r->map + sec.offset + sizeof(len);
	return 0;
}

static int read_file(struct jifl_perf_reader *r)
{
	const struct jifl_perf_file_header *h = (const void *)r->map;
	int err;

	if (r->map_size < sizeof(h->magic) || h->magic != JIFL_PERF_MAGIC)
		return bad(r, 0, __builtin_bswap64(JIFL_PERF_MAGIC) == h->magic ?
			   -jifl_err_nosupp : -jifl_err_format);
	if (r->map_size < sizeof(*h))
		return bad(r, 0, -jifl_err_truncated);
	if (h->size != sizeof(*h))
		return bad(r, offsetof(struct jifl_perf_file_header, size), -jifl_err_format);
	err = read_attrs(r, h);
	if (!err)
		err = read_data(r, h);
	if (!err)
		err = read_cpuid(r, h);
	if (!err)
		err = read_build_ids(r, h);
	if (err)
		return err;
	if (!r->have_auxtrace_info)
		return bad(r, h->data.offset, -jifl_err_nosupp);
	return make_queues(r);
}

int jifl_perf_reader_open(struct jifl_perf_reader **rp, const char *path,
			  uint64_t *bad_offset)
{
	struct jifl_perf_reader *r;
	struct stat st;
	int fd, err, saved;

	r = calloc(1, sizeof(*r));
	if (!r)
		return -jifl_err_nomem;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st)) {
		err = -jifl_err_io;
		goto out;
	}
	r->map_size = st.st_size;
	if (!r->map_size) {
		err = bad(r, 0, -jifl_err_truncated);
		goto out;
	}
	r->map = mmap(NULL, r->map_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (r->map == MAP_FAILED) {
		r->map = NULL;
		err = -jifl_err_io;
		goto out;
	}
	err = read_file(r);
out:
	saved = errno;
	if (fd >= 0)
		close(fd);
	if (err) {
		if (bad_offset)
			*bad_offset = r->bad_offset;
		jifl_perf_reader_close(r);
		errno = saved;
		return err;
	}
	*rp = r;
	return 0;
}

const struct jifl_perf_info *jifl_perf_reader_info(const struct jifl_perf_reader *r)
{
	return &r->info;
}

size_t jifl_perf_reader_nr_maps(const struct jifl_perf_reader *r)
{
	return r->nr_maps;
}

const struct jifl_perf_map *jifl_perf_reader_map(const struct jifl_perf_reader *r,
						 size_t i)
{
	return i < r->nr_maps ? &r->maps[i] : NULL;
}

size_t jifl_perf_reader_nr_tasks(const struct jifl_perf_reader *r)
{
	return r->nr_tasks;
}

const struct jifl_perf_task *jifl_perf_reader_task(const struct jifl_perf_reader *r,
						   size_t i)
{
	return i < r->nr_tasks ? &r->tasks[i] : NULL;
}

size_t jifl_perf_reader_nr_switches(const struct jifl_perf_reader *r)
{
	return r->nr_switches;
}

const struct jifl_perf_switch_rec *jifl_perf_reader_switch(const struct jifl_perf_reader *r,
							   size_t i)
{
	return i < r->nr_switches ? &r->switches[i] : NULL;
}

size_t jifl_perf_reader_nr_build_ids(const struct jifl_perf_reader *r)
{
	return r->nr_bids;
}

const struct jifl_perf_build_id *jifl_perf_reader_build_id(const struct jifl_perf_reader *r,
							   size_t i)
{
	return i < r->nr_bids ? &r->bids[i] : NULL;
}

size_t jifl_perf_reader_nr_queues(const struct jifl_perf_reader *r)
{
	return r->nr_queues;
}

const struct jifl_perf_queue *jifl_perf_reader_queue(const struct jifl_perf_reader *r,
						     size_t i)
{
	return i < r->nr_queues ? &r->queues[i] : NULL;
}

const char *jifl_perf_reader_comm(const struct jifl_perf_reader *r, uint32_t tid,
				  uint64_t time)
{
	const char *name = "";
	size_t i;

	for (i = 0; i < r->nr_tasks; i++) {
		const struct jifl_perf_task *t = &r->tasks[i];

		if (t->type != PERF_RECORD_COMM || t->tid != tid)
			continue;
		if (!*name || t->time <= time)
			name = t->comm;
	}
	return name;
}

void jifl_perf_reader_close(struct jifl_perf_reader *r)
{
	size_t i;

	if (!r)
		return;
	for (i = 0; i < r->nr_queues; i++) {
		free((void *)r->queues[i].data);
		free((void *)r->queues[i].gap_at);
	}
	free(r->queues);
	free(r->bufs);
	free(r->tasks);
	free(r->switches);
	free(r->maps);
	free(r->bids);
	if (r->map)
		munmap((void *)r->map, r->map_size);
	free(r);
}
