// SPDX-License-Identifier: GPL-2.0
/*
 * perf.data reader. The file is mapped read-only; records are checked
 * one by one against the data section and the file size, and the
 * records a decoder needs are copied out (names point into the map, or
 * into blocks the reader keeps: what COMPRESSED records decompress to,
 * and copies of records that are not 8-byte aligned).
 *
 * A file written to a pipe has a header of its own, then records only:
 * the attributes, features and build IDs among them; it ends where the
 * file does.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/array.h"
#include "common/errcode.h"
#include "perf_queues.h"
#include "perf_reader.h"
#include "perf_sample_id.h"
#include "perf_zstd.h"

/* What COMPRESSED records decompressed to, not yet read: a record cut in two. */
struct unzip {
	struct jifl_perf_zstd *z;
	const uint8_t *rest;		/* in the last block */
	size_t rest_size;
};

struct jifl_perf_reader {
	const uint8_t *map;
	size_t map_size;
	int have_auxtrace_info;
	size_t nr_attrs;
	int tracking;			/* sideband_id is the tracking event's */
	struct jifl_perf_info info;
	struct jifl_perf_map *maps;
	size_t nr_maps, cap_maps;
	struct jifl_perf_task *tasks;
	size_t nr_tasks, cap_tasks;
	struct jifl_perf_switch_rec *switches;
	size_t nr_switches, cap_switches;
	struct jifl_perf_aux_buffer *bufs;
	size_t nr_bufs, cap_bufs;
	struct jifl_perf_aux_loss *losses;
	size_t nr_losses, cap_losses;
	void **blocks;			/* memory the records read point into */
	size_t nr_blocks, cap_blocks;
	struct unzip unzip;
	struct jifl_perf_queue *queues;
	size_t nr_queues;
	struct jifl_perf_build_id *bids;
	size_t nr_bids, cap_bids;
	uint64_t bad_offset;
};

/* Append a zeroed element of @size to the growing array *@pv. */
static void *array_push(void *pv, size_t *nr, size_t *cap, size_t size)
{
	uint8_t *v;

	if (jifl_array_grow(pv, cap, *nr + 1, size))
		return NULL;
	memcpy(&v, pv, sizeof(v));
	v += (*nr)++ * size;
	return memset(v, 0, size);
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

/*
 * One event's attribute (@size bytes at @p) and its first id (@id; NULL:
 * none), from the file header at @off or a HEADER_ATTR record there.
 */
static int add_attr(struct jifl_perf_reader *r, const void *p, size_t size,
		    const uint64_t *id, uint64_t off)
{
	struct perf_event_attr attr;

	memset(&attr, 0, sizeof(attr));
	memcpy(&attr, p, size < sizeof(attr) ? size : sizeof(attr));
	/* One layout of sample ids for all events, as perf requires. */
	if (r->nr_attrs && (attr.sample_type != r->info.sample_type ||
			    attr.sample_id_all != (unsigned int)r->info.sample_id_all))
		return bad(r, off, -jifl_err_format);
	r->info.sample_type = attr.sample_type;
	r->info.sample_id_all = attr.sample_id_all;
	r->info.use_clockid |= attr.use_clockid;
	if (attr.type > PERF_TYPE_BREAKPOINT)
		r->info.pt_config = attr.config;
	/* The tracking event, else the first: its id marks side-band records. */
	if (!r->nr_attrs || (!r->tracking && (attr.mmap || attr.mmap2))) {
		r->tracking = attr.mmap || attr.mmap2;
		if (id)
			memcpy(&r->info.sideband_id, id, sizeof(*id));
	}
	r->nr_attrs++;
	return 0;
}

/* PERF_RECORD_HEADER_ATTR: attr.size bytes of attribute, then its ids. */
static int read_header_attr(struct jifl_perf_reader *r, const struct perf_event_header *h,
			    uint64_t off)
{
	const struct jifl_perf_header_attr *e = (const void *)h;
	size_t body = h->size - sizeof(*h), size;

	if (body < PERF_ATTR_SIZE_VER0)
		return bad(r, off, -jifl_err_format);
	size = e->attr.size ? e->attr.size : PERF_ATTR_SIZE_VER0;
	if (size < PERF_ATTR_SIZE_VER0 || size > body)
		return bad(r, off, -jifl_err_format);
	return add_attr(r, &e->attr, size, body - size >= sizeof(uint64_t) ?
			(const uint64_t *)((const uint8_t *)&e->attr + size) : NULL, off);
}

static int read_attrs(struct jifl_perf_reader *r, const struct jifl_perf_file_header *h)
{
	uint64_t n, i, off, id;
	int err;

	if (h->attr_size < PERF_ATTR_SIZE_VER0 + sizeof(struct jifl_perf_section) ||
	    h->attr_size > 4096 || !h->attrs.size || h->attrs.size % h->attr_size)
		return bad(r, offsetof(struct jifl_perf_file_header, attr_size),
			   -jifl_err_format);
	if (h->attrs.offset > r->map_size || h->attrs.size > r->map_size - h->attrs.offset)
		return bad(r, h->attrs.offset, -jifl_err_truncated);
	n = h->attrs.size / h->attr_size;
	for (i = 0; i < n; i++) {
		off = h->attrs.offset + i * h->attr_size;
		id = r->info.sideband_id;
		err = read_first_id(r, h, off, &id);
		if (!err)
			err = add_attr(r, r->map + off,
				       h->attr_size - sizeof(struct jifl_perf_section), &id, off);
		if (err)
			return err;
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
	m = array_push(&r->maps, &r->nr_maps, &r->cap_maps, sizeof(*m));
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
	t = array_push(&r->tasks, &r->nr_tasks, &r->cap_tasks, sizeof(*t));
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
	s = array_push(&r->switches, &r->nr_switches, &r->cap_switches, sizeof(*s));
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

/* Keep @p (malloc'd) until the reader closes: records read point into it. */
static int keep(struct jifl_perf_reader *r, void *p)
{
	void **v = array_push(&r->blocks, &r->nr_blocks, &r->cap_blocks, sizeof(*v));

	if (!v) {
		free(p);
		return -jifl_err_nomem;
	}
	*v = p;
	return 0;
}

/*
 * The record at @p, @size bytes, where it can be read in place: there,
 * if 8-byte aligned, else a copy the reader keeps (records after a
 * COMPRESSED record or a pipe's HEADER_BUILD_ID are not aligned).
 */
static const struct perf_event_header *aligned(struct jifl_perf_reader *r, const uint8_t *p,
					       size_t size)
{
	void *copy;

	if (!((uintptr_t)p % 8))
		return (const void *)p;
	copy = malloc(size);
	if (!copy || keep(r, copy))
		return NULL;
	return memcpy(copy, p, size);
}

/* An AUXTRACE record's buffer: @size bytes of trace at @data. */
static int add_buffer(struct jifl_perf_reader *r, const struct jifl_perf_auxtrace *e,
		      const uint8_t *data, uint64_t size)
{
	struct jifl_perf_aux_buffer *b;

	if (!size)
		return 0;
	b = array_push(&r->bufs, &r->nr_bufs, &r->cap_bufs, sizeof(*b));
	if (!b)
		return -jifl_err_nomem;
	b->idx = e->idx;
	b->tid = e->tid;
	b->cpu = e->cpu;
	b->offset = e->offset;
	b->data = data;
	b->size = size;
	return 0;
}

/*
 * PERF_RECORD_AUX: the kernel's AUX data; its flags say where trace
 * data was lost (perf's intel-pt reports "lost trace data" there): after
 * it (TRUNCATED: the trace stopped, the buffer full), or from its start
 * (COLLISION).
 */
static int read_aux(struct jifl_perf_reader *r, const struct perf_event_header *h,
		    uint64_t off)
{
	const struct jifl_perf_aux_event *e = (const void *)h;
	struct jifl_perf_sample_id sid;
	struct jifl_perf_aux_loss *l;
	size_t body;

	record_sample_id(r, h, &body, &sid);
	if (body < sizeof(*e))
		return bad(r, off, -jifl_err_format);
	r->info.aux_records++;
	r->info.aux_lost += !!(e->flags & PERF_AUX_FLAG_TRUNCATED);
	r->info.aux_collisions += !!(e->flags & PERF_AUX_FLAG_COLLISION);
	r->info.aux_partial += !!(e->flags & PERF_AUX_FLAG_PARTIAL);
	r->info.aux_overwritten += !!(e->flags & PERF_AUX_FLAG_OVERWRITE);
	if (!(e->flags & (PERF_AUX_FLAG_TRUNCATED | PERF_AUX_FLAG_COLLISION)))
		return 0;
	l = array_push(&r->losses, &r->nr_losses, &r->cap_losses, sizeof(*l));
	if (!l)
		return -jifl_err_nomem;
	l->cpu = sid.cpu;
	l->tid = sid.tid;
	l->at = e->aux_offset;
	if (e->flags & PERF_AUX_FLAG_TRUNCATED)
		l->at += e->aux_size;
	return 0;
}

/* PERF_RECORD_LOST and _LOST_SAMPLES: how many the kernel could not write. */
static int read_lost(struct jifl_perf_reader *r, const struct perf_event_header *h,
		     uint64_t off)
{
	const struct jifl_perf_lost_event *e = (const void *)h;
	const struct jifl_perf_lost_samples_event *s = (const void *)h;

	if (h->size < (h->type == PERF_RECORD_LOST ? sizeof(*e) : sizeof(*s)))
		return bad(r, off, -jifl_err_format);
	if (h->type == PERF_RECORD_LOST_SAMPLES) {
		r->info.lost_samples += s->lost;
		return 0;
	}
	r->info.lost_records += e->lost;
	r->info.lost_chunks++;
	return 0;
}

/*
 * A BUILD_ID feature entry or HEADER_BUILD_ID record at @p, @size bytes
 * at most there (@off: where in the file). Returns its size, or an error.
 */
static int64_t add_build_id(struct jifl_perf_reader *r, const uint8_t *p, uint64_t size,
			    uint64_t off)
{
	struct jifl_perf_build_id_event e;
	struct jifl_perf_build_id *b;

	if (size < sizeof(e))
		return bad(r, off, -jifl_err_format);
	memcpy(&e, p, sizeof(e));
	if (e.header.size <= sizeof(e) || e.header.size > size ||
	    !memchr(p + sizeof(e), 0, e.header.size - sizeof(e)))
		return bad(r, off, -jifl_err_format);
	b = array_push(&r->bids, &r->nr_bids, &r->cap_bids, sizeof(*b));
	if (!b)
		return -jifl_err_nomem;
	b->filename = (const char *)p + sizeof(e);
	b->pid = e.pid;
	b->cpumode = e.header.misc & PERF_RECORD_MISC_CPUMODE_MASK;
	b->size = e.header.misc & JIFL_PERF_MISC_BUILD_ID_SIZE ? e.size : sizeof(e.data);
	if (!b->size || b->size > sizeof(e.data))
		return bad(r, off, -jifl_err_format);
	memcpy(b->id, e.data, b->size);
	return e.header.size;
}

/* The CPUID feature: a u32 length and a '\0'-padded string. */
static int add_cpuid(struct jifl_perf_reader *r, const uint8_t *p, uint64_t size,
		     uint64_t off)
{
	uint32_t len;

	if (size < sizeof(len))
		return bad(r, off, -jifl_err_format);
	memcpy(&len, p, sizeof(len));
	if (len > size - sizeof(len) || !memchr(p + sizeof(len), 0, len))
		return bad(r, off, -jifl_err_format);
	r->info.cpuid = (const char *)p + sizeof(len);
	return 0;
}

/* PERF_RECORD_HEADER_FEATURE (of a pipe): the features a file has in sections. */
static int read_header_feature(struct jifl_perf_reader *r, const struct perf_event_header *h,
			       uint64_t off)
{
	const struct jifl_perf_header_feature *e = (const void *)h;

	if (h->size < sizeof(*e))
		return bad(r, off, -jifl_err_format);
	if (e->feat_id == JIFL_PERF_FEAT_CPUID)
		return add_cpuid(r, e->data, h->size - sizeof(*e), off);
	return 0;
}

static int read_compressed(struct jifl_perf_reader *r, const struct perf_event_header *h,
			   uint64_t off);

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
	case PERF_RECORD_AUX:
		return read_aux(r, h, off);
	case PERF_RECORD_LOST:
	case PERF_RECORD_LOST_SAMPLES:
		return read_lost(r, h, off);
	case JIFL_PERF_RECORD_AUXTRACE_INFO:
		return read_auxtrace_info(r, h, off);
	case JIFL_PERF_RECORD_TIME_CONV:
		return read_time_conv(r, h, off);
	case JIFL_PERF_RECORD_HEADER_ATTR:
		return read_header_attr(r, h, off);
	case JIFL_PERF_RECORD_HEADER_FEATURE:
		return read_header_feature(r, h, off);
	case JIFL_PERF_RECORD_HEADER_BUILD_ID: {
		int64_t n = add_build_id(r, (const uint8_t *)h, h->size, off);

		return n < 0 ? n : 0;
	}
	case JIFL_PERF_RECORD_COMPRESSED:
	case JIFL_PERF_RECORD_COMPRESSED2:
		return read_compressed(r, h, off);
	}
	/* Other records (samples, rounds, ...) carry nothing we use. */
	return 0;
}

/* perf writes these with sizes that are not multiples of 8. */
static int unaligned_type(uint32_t type)
{
	return type == JIFL_PERF_RECORD_COMPRESSED || type == JIFL_PERF_RECORD_HEADER_BUILD_ID;
}

/*
 * The record at @p, of which @avail bytes are there (@off: its file
 * offset, or the COMPRESSED record's it came in). Returns its size with
 * its trace data, 0 where it runs past @avail, or an error.
 */
static int64_t read_one(struct jifl_perf_reader *r, const uint8_t *p, uint64_t avail,
			uint64_t off)
{
	const struct perf_event_header *h;
	struct jifl_perf_auxtrace e;
	int err;

	if (avail < sizeof(e.header))
		return 0;
	memcpy(&e.header, p, sizeof(e.header));
	if (e.header.size < sizeof(e.header) ||
	    (e.header.size % 8 && !unaligned_type(e.header.type)))
		return bad(r, off, -jifl_err_format);
	if (e.header.size > avail)
		return 0;
	if (e.header.type == JIFL_PERF_RECORD_AUXTRACE) {
		/* perf pads the trace to 8 bytes, so that the next record is aligned. */
		if (e.header.size < sizeof(e))
			return bad(r, off, -jifl_err_format);
		memcpy(&e, p, sizeof(e));
		if (e.size % 8)
			return bad(r, off, -jifl_err_format);
		if (e.size > avail - e.header.size)
			return 0;
		err = add_buffer(r, &e, p + e.header.size, e.size);
		return err ? err : (int64_t)(e.header.size + e.size);
	}
	h = aligned(r, p, e.header.size);
	if (!h)
		return -jifl_err_nomem;
	err = read_record(r, h, off);
	return err ? err : e.header.size;
}

/*
 * A COMPRESSED record: its data decompresses into a block of records,
 * after what the last one left (a record cut in two), which are read
 * then; what this one leaves, the next one completes.
 */
static int read_compressed(struct jifl_perf_reader *r, const struct perf_event_header *h,
			   uint64_t off)
{
	const struct jifl_perf_compressed2 *c2 = (const void *)h;
	const uint8_t *src = (const uint8_t *)h + sizeof(*h);
	size_t size = h->size - sizeof(*h), len, done = 0;
	struct unzip *u = &r->unzip;
	uint8_t *block;
	int64_t n;
	int err;

	if (h->type == JIFL_PERF_RECORD_COMPRESSED2) {
		if (h->size < sizeof(*c2) || c2->data_size > h->size - sizeof(*c2))
			return bad(r, off, -jifl_err_format);
		src = c2->data;
		size = c2->data_size;
	}
	if (!u->z && jifl_perf_zstd_new(&u->z, 0))
		return -jifl_err_nomem;
	len = u->rest_size;
	block = malloc(len ? len : 1);
	if (!block || keep(r, block))
		return -jifl_err_nomem;
	if (len)
		memcpy(block, u->rest, len);
	/* The block moves as it grows: kept only once it has all it will have. */
	r->blocks[r->nr_blocks - 1] = NULL;
	err = jifl_perf_zstd_decompress(u->z, src, size, &block, &len);
	r->blocks[r->nr_blocks - 1] = block;
	if (err)
		return bad(r, off, err);
	while ((n = read_one(r, block + done, len - done, off)) > 0)
		done += n;
	if (n < 0)
		return n;
	u->rest = block + done;
	u->rest_size = len - done;
	r->info.compressed++;
	return 0;
}

/*
 * The trace data of the AUXTRACE record at @p that the end of the data
 * at @avail bytes from it cut off, as far as it goes.
 */
static int add_cut_buffer(struct jifl_perf_reader *r, const uint8_t *p, uint64_t avail)
{
	struct jifl_perf_auxtrace e;

	if (avail < sizeof(e))
		return 0;
	memcpy(&e, p, sizeof(e));
	if (e.header.type != JIFL_PERF_RECORD_AUXTRACE || e.header.size != sizeof(e))
		return 0;
	return add_buffer(r, &e, p + sizeof(e), avail - sizeof(e));
}

/*
 * The records from @off to @end. Where @to_eof, the data runs to the
 * end of the file, where the last record may be cut off: read as far
 * as it goes.
 */
static int read_records(struct jifl_perf_reader *r, uint64_t off, uint64_t end, int to_eof)
{
	int64_t n;

	while (off < end) {
		n = read_one(r, r->map + off, end - off, off);
		if (n < 0)
			return n;
		if (!n && to_eof) {
			r->info.cut_at = off;
			return add_cut_buffer(r, r->map + off, end - off);
		}
		if (!n)
			return bad(r, off, end < r->map_size ? -jifl_err_format :
				   -jifl_err_truncated);
		off += n;
	}
	/* A record cut in two by the end of the compressed data. */
	if (r->unzip.rest_size && !to_eof)
		return bad(r, end, -jifl_err_format);
	return 0;
}

static int read_data(struct jifl_perf_reader *r, const struct jifl_perf_file_header *fh)
{
	uint64_t off = fh->data.offset;

	if (off > r->map_size)
		return bad(r, off, -jifl_err_truncated);
	/* Records are 8-byte aligned, as perf writes them and reads them in place. */
	if (off % 8)
		return bad(r, off, -jifl_err_format);
	if (fh->data.size > r->map_size - off)
		return bad(r, r->map_size, -jifl_err_truncated);
	/*
	 * perf writes the data size when it finishes the file: a recorder
	 * that was killed leaves 0. Its records run to the end of the
	 * file, where the last one may be cut off.
	 */
	if (!fh->data.size) {
		r->info.unfinished = 1;
		return read_records(r, off, r->map_size, 1);
	}
	return read_records(r, off, off + fh->data.size, 0);
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
	struct jifl_perf_section sec;
	uint64_t off, end;
	int64_t n;
	int ret;

	ret = feature_section(r, h, JIFL_PERF_FEAT_BUILD_ID, &sec);
	if (ret <= 0)
		return ret;
	for (off = sec.offset, end = sec.offset + sec.size; off < end; off += n) {
		n = add_build_id(r, r->map + off, end - off, off);
		if (n < 0)
			return n;
	}
	return 0;
}

static uint32_t tid_pid(const struct jifl_perf_reader *r, uint32_t tid)
{
	size_t i;

	for (i = 0; i < r->nr_tasks; i++)
		if (r->tasks[i].tid == tid)
			return r->tasks[i].pid;
	return tid;
}

/* Each queue's buffers joined, with the gaps where data was lost. */
static int make_queues(struct jifl_perf_reader *r)
{
	size_t i;
	int err;

	err = jifl_perf_queues_make(&r->queues, &r->nr_queues, r->bufs, r->nr_bufs,
				    r->losses, r->nr_losses, r->info.per_cpu_mmaps);
	for (i = 0; !err && i < r->nr_queues; i++)
		r->queues[i].pid = tid_pid(r, r->queues[i].tid);
	return err;
}

static int read_cpuid(struct jifl_perf_reader *r, const struct jifl_perf_file_header *h)
{
	struct jifl_perf_section sec;
	int ret;

	ret = feature_section(r, h, JIFL_PERF_FEAT_CPUID, &sec);
	if (ret <= 0)
		return ret;
	return add_cpuid(r, r->map + sec.offset, sec.size, sec.offset);
}

/* A file written to a pipe: its header, then records to the end of the file. */
static int read_pipe(struct jifl_perf_reader *r)
{
	r->info.pipe = 1;
	return read_records(r, sizeof(struct jifl_perf_pipe_header), r->map_size, 1);
}

static int read_file(struct jifl_perf_reader *r)
{
	const struct jifl_perf_file_header *h = (const void *)r->map;
	int err;

	if (r->map_size < sizeof(h->magic) || h->magic != JIFL_PERF_MAGIC)
		return bad(r, 0, __builtin_bswap64(JIFL_PERF_MAGIC) == h->magic ?
			   -jifl_err_nosupp : -jifl_err_format);
	if (r->map_size >= sizeof(struct jifl_perf_pipe_header) &&
	    h->size == sizeof(struct jifl_perf_pipe_header)) {
		err = read_pipe(r);
		if (!err && !r->have_auxtrace_info)
			err = bad(r, sizeof(struct jifl_perf_pipe_header), -jifl_err_nosupp);
		return err ? err : make_queues(r);
	}
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
	int fd, err;

	r = calloc(1, sizeof(*r));
	if (!r)
		return -jifl_err_nomem;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st)) {
		err = jifl_err_errno(errno);
		goto out;
	}
	/* mmap() would call a directory ENODEV, "No such device" */
	if (S_ISDIR(st.st_mode)) {
		err = jifl_err_errno(EISDIR);
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
		err = jifl_err_errno(errno);
		goto out;
	}
	err = read_file(r);
out:
	if (fd >= 0)
		close(fd);
	if (err) {
		if (bad_offset)
			*bad_offset = r->bad_offset;
		jifl_perf_reader_close(r);
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
	jifl_perf_queues_free(r->queues, r->nr_queues);
	free(r->bufs);
	free(r->losses);
	for (i = 0; i < r->nr_blocks; i++)
		free(r->blocks[i]);
	free(r->blocks);
	jifl_perf_zstd_free(r->unzip.z);
	free(r->tasks);
	free(r->switches);
	free(r->maps);
	free(r->bids);
	if (r->map)
		munmap((void *)r->map, r->map_size);
	free(r);
}
