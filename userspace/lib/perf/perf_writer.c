// SPDX-License-Identifier: GPL-2.0
/*
 * perf.data writer. File layout, as perf record lays it out:
 *
 *   header | ids of each attr | attrs | data records ... |
 *   feature section table | feature data
 *
 * The header is written twice: once at open (so a crash leaves a file
 * whose size says what is missing) and again at close with the data and
 * feature sizes. To a pipe, perf writes its own header, then the
 * attributes and features as records at open, the build IDs as records
 * at close, and never seeks.
 *
 * Compressed, the kernel's records are kept until an AUXTRACE record,
 * a round or the end, then go out compressed as one or more COMPRESSED
 * records (perf compresses what it read of a ring buffer at once).
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "common/array.h"
#include "common/build_id.h"
#include "common/errcode.h"
#include "perf_cpuid.h"
#include "perf_data.h"
#include "perf_writer.h"
#include "perf_zstd.h"

#define WRITER_BUF_SIZE	(1 << 20)
/*
 * Compressed bytes in one COMPRESSED record: its size must fit in a u16.
 * Records held until they are this many bytes, so that each COMPRESSED
 * record decompresses into what perf allows for one (COMP_MMAP_LEN, its
 * default ring buffer's size).
 */
#define HELD_MAX	(256 << 10)
#define COMP_MMAP_LEN	(129 << 12)
#define COMPRESSED_MAX	(0xfff8 - sizeof(struct jifl_perf_compressed2))

/* The events: EV_SWITCH only in a per-CPU session with CPU-wide switches. */
enum { EV_PT, EV_DUMMY, EV_SWITCH, EV_MAX };

static const char *const ev_names[EV_MAX] = { "intel_pt//u", "dummy:u", "dummy:u" };

struct aux_index_entry {
	uint64_t file_offset;
	uint64_t size;
};

struct build_id_entry {
	uint8_t id[JIFL_BUILD_ID_MAX];
	uint8_t size;
	char *filename;
};

struct jifl_perf_writer {
	int fd;
	uint64_t pos;			/* file offset of the next byte */
	uint8_t *buf;
	size_t len;			/* bytes in buf not yet written */
	struct jifl_perf_writer_config cfg;
	struct jifl_perf_file_attr attrs[EV_MAX];
	uint64_t ids[EV_MAX];
	int nr_ev;
	int cpu;			/* of the sample ids; -1: this one */
	uint64_t data_offset;
	uint64_t *aux_offset;		/* bytes so far, per queue */
	uint32_t nr_queues;
	struct aux_index_entry *index;
	size_t index_nr, index_cap;
	struct build_id_entry *bids;
	size_t nr_bids, cap_bids;
	struct jifl_perf_zstd *zstd;	/* compressing: the stream */
	uint8_t *held;			/* the records not yet compressed */
	size_t held_len, held_cap;
};

static int writer_flush(struct jifl_perf_writer *w)
{
	size_t done = 0;
	ssize_t r;

	while (done < w->len) {
		r = write(w->fd, w->buf + done, w->len - done);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			return jifl_err_errno(errno);
		}
		done += r;
	}
	w->len = 0;
	return 0;
}

static int writer_put(struct jifl_perf_writer *w, const void *p, size_t n)
{
	int err;

	if (w->len + n > WRITER_BUF_SIZE) {
		err = writer_flush(w);
		if (err)
			return err;
	}
	if (n > WRITER_BUF_SIZE) {
		if (write(w->fd, p, n) != (ssize_t)n)
			return jifl_err_errno(errno);
	} else {
		memcpy(w->buf + w->len, p, n);
		w->len += n;
	}
	w->pos += n;
	return 0;
}

static int writer_put_zero(struct jifl_perf_writer *w, size_t n)
{
	static const uint8_t zero[64];
	int err = 0;

	while (n && !err) {
		size_t k = n < sizeof(zero) ? n : sizeof(zero);

		err = writer_put(w, zero, k);
		n -= k;
	}
	return err;
}

static void attr_init(struct perf_event_attr *a, uint32_t type, uint64_t config)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->type = type;
	a->config = config;
	a->sample_period = 1;
	a->sample_type = JIFL_PERF_SAMPLE_TYPE;
	a->disabled = 1;
	a->enable_on_exec = 1;
	a->exclude_kernel = 1;
	a->exclude_hv = 1;
	a->sample_id_all = 1;
}

/*
 * Attributes as perf record sets them for "-e intel_pt//u": per thread
 * (--per-thread), or per CPU with context switches of the traced tasks
 * on the tracking event, or of every task on a dummy event of each CPU.
 */
static void writer_init_attrs(struct jifl_perf_writer *w)
{
	struct perf_event_attr *pt = &w->attrs[EV_PT].attr;
	struct perf_event_attr *dummy = &w->attrs[EV_DUMMY].attr;
	int i;

	attr_init(pt, w->cfg.pt_pmu_type, w->cfg.pt_config);
	attr_init(dummy, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_DUMMY);
	dummy->mmap = 1;
	dummy->mmap2 = 1;
	dummy->comm = 1;
	dummy->comm_exec = 1;
	dummy->task = 1;
	w->nr_ev = EV_SWITCH;
	if (w->cfg.nr_cpus && w->cfg.sched_switch == JIFL_SCHED_SWITCH_TASK)
		dummy->context_switch = 1;
	if (w->cfg.nr_cpus && w->cfg.sched_switch == JIFL_SCHED_SWITCH_CPU_WIDE) {
		attr_init(&w->attrs[EV_SWITCH].attr, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_DUMMY);
		w->attrs[EV_SWITCH].attr.context_switch = 1;
		w->nr_ev = EV_MAX;
	}
	for (i = 0; i < w->nr_ev; i++)
		w->ids[i] = i + 1;
}

static int writer_put_header(struct jifl_perf_writer *w, uint64_t data_size,
			     const uint64_t *features)
{
	struct jifl_perf_file_header h;
	uint64_t ids_offset = sizeof(h);
	int i;

	memset(&h, 0, sizeof(h));
	h.magic = JIFL_PERF_MAGIC;
	h.size = sizeof(h);
	h.attr_size = sizeof(struct jifl_perf_file_attr);
	h.attrs.offset = ids_offset + w->nr_ev * sizeof(w->ids[0]);
	h.attrs.size = w->nr_ev * sizeof(w->attrs[0]);
	h.data.offset = w->data_offset;
	h.data.size = data_size;
	if (features)
		memcpy(h.features, features, sizeof(h.features));
	for (i = 0; i < w->nr_ev; i++) {
		w->attrs[i].ids.offset = ids_offset + i * sizeof(uint64_t);
		w->attrs[i].ids.size = sizeof(uint64_t);
	}
	if (pwrite(w->fd, &h, sizeof(h), 0) != sizeof(h) ||
	    pwrite(w->fd, w->ids, w->nr_ev * sizeof(w->ids[0]), ids_offset) !=
	    (ssize_t)(w->nr_ev * sizeof(w->ids[0])) ||
	    pwrite(w->fd, w->attrs, h.attrs.size, h.attrs.offset) != (ssize_t)h.attrs.size)
		return jifl_err_errno(errno);
	return 0;
}

static uint64_t writer_time(const struct jifl_perf_writer *w, uint64_t tsc)
{
	return jifl_tsc_conv_to_time(&w->cfg.tc, tsc);
}

/* One COMPRESSED (or _COMPRESSED2, padded to 8 bytes) record of @n bytes. */
static int writer_put_compressed(struct jifl_perf_writer *w, const uint8_t *data, size_t n)
{
	struct jifl_perf_compressed2 c = { { JIFL_PERF_RECORD_COMPRESSED, 0, 0 }, n };
	size_t head = sizeof(c.header), pad = 0;
	int err;

	if (w->cfg.compressed2) {
		c.header.type = JIFL_PERF_RECORD_COMPRESSED2;
		head = sizeof(c);
		pad = (8 - (n & 7)) & 7;
	}
	c.header.size = head + n + pad;
	err = writer_put(w, &c, head);
	if (!err)
		err = writer_put(w, data, n);
	if (!err)
		err = writer_put_zero(w, pad);
	return err;
}

/* The records held, compressed into as many COMPRESSED records as they need. */
static int writer_put_held(struct jifl_perf_writer *w)
{
	uint8_t *out = NULL;
	size_t len = 0, off, n;
	int err;

	if (!w->held_len)
		return 0;
	err = jifl_perf_zstd_compress(w->zstd, w->held, w->held_len, &out, &len);
	for (off = 0; !err && off < len; off += n) {
		n = len - off < COMPRESSED_MAX ? len - off : COMPRESSED_MAX;
		err = writer_put_compressed(w, out + off, n);
	}
	free(out);
	w->held_len = 0;
	return err;
}

/* Keep a record and its trailer @sid for the next COMPRESSED record. */
static int writer_hold(struct jifl_perf_writer *w, const void *rec, size_t size,
		       const struct jifl_perf_sample_id *sid)
{
	size_t need = w->held_len + size + sizeof(*sid);
	int err = jifl_array_grow(&w->held, &w->held_cap, need, 1);

	if (err)
		return err;
	memcpy(w->held + w->held_len, rec, size);
	memcpy(w->held + w->held_len + size, sid, sizeof(*sid));
	w->held_len = need;
	return w->held_len >= HELD_MAX ? writer_put_held(w) : 0;
}

/* Put a record of @size bytes followed by the sample_id_all trailer. */
static int writer_put_record(struct jifl_perf_writer *w, void *rec, size_t size,
			     int ev, uint32_t pid, uint32_t tid, uint64_t tsc)
{
	struct perf_event_header *hdr = rec;
	struct jifl_perf_sample_id sid;
	int cpu = w->cpu >= 0 ? w->cpu : sched_getcpu();
	int err;

	sid.pid = pid;
	sid.tid = tid;
	sid.time = writer_time(w, tsc);
	sid.cpu = cpu < 0 ? 0 : cpu;
	sid.res = 0;
	sid.id = w->ids[ev];
	hdr->size = size + sizeof(sid);
	if (w->zstd)
		return writer_hold(w, rec, size, &sid);
	err = writer_put(w, rec, size);
	if (err)
		return err;
	return writer_put(w, &sid, sizeof(sid));
}

static int writer_put_auxtrace_info(struct jifl_perf_writer *w)
{
	struct jifl_perf_auxtrace_info info;

	memset(&info, 0, sizeof(info));
	info.header.type = JIFL_PERF_RECORD_AUXTRACE_INFO;
	info.header.size = sizeof(info);
	info.type = JIFL_PERF_AUXTRACE_INTEL_PT;
	info.priv[JIFL_INTEL_PT_PMU_TYPE] = w->cfg.pt_pmu_type;
	info.priv[JIFL_INTEL_PT_TIME_SHIFT] = w->cfg.tc.time_shift;
	info.priv[JIFL_INTEL_PT_TIME_MULT] = w->cfg.tc.time_mult;
	info.priv[JIFL_INTEL_PT_TIME_ZERO] = w->cfg.tc.time_zero;
	info.priv[JIFL_INTEL_PT_CAP_USER_TIME_ZERO] = 1;
	info.priv[JIFL_INTEL_PT_TSC_BIT] = JIFL_INTEL_PT_CFG_TSC;
	info.priv[JIFL_INTEL_PT_NORETCOMP_BIT] = JIFL_INTEL_PT_CFG_NORETCOMP;
	if (w->cfg.nr_cpus) {
		info.priv[JIFL_INTEL_PT_HAVE_SCHED_SWITCH] = w->cfg.sched_switch;
		info.priv[JIFL_INTEL_PT_PER_CPU_MMAPS] = 1;
	}
	info.priv[JIFL_INTEL_PT_MTC_BIT] = JIFL_INTEL_PT_CFG_MTC;
	info.priv[JIFL_INTEL_PT_MTC_FREQ_BITS] = JIFL_INTEL_PT_CFG_MTC_PERIOD;
	info.priv[JIFL_INTEL_PT_TSC_CTC_N] = w->cfg.tsc_ctc_n;
	info.priv[JIFL_INTEL_PT_TSC_CTC_D] = w->cfg.tsc_ctc_d;
	info.priv[JIFL_INTEL_PT_CYC_BIT] = JIFL_INTEL_PT_CFG_CYC;
	info.priv[JIFL_INTEL_PT_MAX_NONTURBO_RATIO] = w->cfg.max_nonturbo_ratio;
	/* No address filter. */
	return writer_put(w, &info, sizeof(info));
}

static int writer_put_time_conv(struct jifl_perf_writer *w)
{
	struct jifl_perf_time_conv tc;

	memset(&tc, 0, sizeof(tc));
	tc.header.type = JIFL_PERF_RECORD_TIME_CONV;
	tc.header.size = sizeof(tc);
	tc.time_shift = w->cfg.tc.time_shift;
	tc.time_mult = w->cfg.tc.time_mult;
	tc.time_zero = w->cfg.tc.time_zero;
	tc.time_cycles = w->cfg.tc.time_cycles;
	tc.time_mask = w->cfg.tc.time_mask;
	tc.cap_user_time_zero = 1;
	tc.cap_user_time_short = !!w->cfg.tc.cap_user_time_short;
	return writer_put(w, &tc, sizeof(tc));
}

/* Each event's attribute and id as a HEADER_ATTR record (to a pipe). */
static int writer_put_attr_records(struct jifl_perf_writer *w)
{
	struct jifl_perf_header_attr a;
	int i, err = 0;

	for (i = 0; i < w->nr_ev && !err; i++) {
		a.header.type = JIFL_PERF_RECORD_HEADER_ATTR;
		a.header.misc = 0;
		a.header.size = sizeof(a) + sizeof(w->ids[i]);
		a.attr = w->attrs[i].attr;
		err = writer_put(w, &a, sizeof(a));
		if (!err)
			err = writer_put(w, &w->ids[i], sizeof(w->ids[i]));
	}
	return err;
}

static int writer_put_feature_records(struct jifl_perf_writer *w);

/* The start of the file: perf's header, or a pipe's and its records. */
static int writer_start(struct jifl_perf_writer *w)
{
	struct jifl_perf_pipe_header ph = { JIFL_PERF_MAGIC, sizeof(ph) };
	int err;

	if (w->cfg.pipe) {
		err = writer_put(w, &ph, sizeof(ph));
		if (!err)
			err = writer_put_attr_records(w);
		return err ? err : writer_put_feature_records(w);
	}
	w->data_offset = sizeof(struct jifl_perf_file_header) +
			 w->nr_ev * (sizeof(w->ids[0]) + sizeof(w->attrs[0]));
	err = writer_put_header(w, 0, NULL);
	if (err)
		return err;
	w->pos = w->data_offset;
	return lseek(w->fd, w->pos, SEEK_SET) < 0 ? jifl_err_errno(errno) : 0;
}

int jifl_perf_writer_open(struct jifl_perf_writer **pw, const char *path,
			  const struct jifl_perf_writer_config *cfg)
{
	struct jifl_perf_writer *w;
	int err;

	w = calloc(1, sizeof(*w));
	if (!w)
		return -jifl_err_nomem;
	w->buf = malloc(WRITER_BUF_SIZE);
	w->cfg = *cfg;
	w->fd = -1;
	w->cpu = -1;
	if (!w->buf) {
		jifl_perf_writer_free(w);
		return -jifl_err_nomem;
	}
	w->fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (w->fd < 0) {
		err = jifl_err_errno(errno);
		goto out_free;
	}
	writer_init_attrs(w);
	err = cfg->compress > 0 ? jifl_perf_zstd_new(&w->zstd, cfg->compress) : 0;
	if (!err)
		err = writer_start(w);
	if (!err)
		err = writer_put_time_conv(w);
	if (!err)
		err = writer_put_auxtrace_info(w);
	if (err)
		goto out_free;
	*pw = w;
	return 0;

out_free:
	jifl_perf_writer_free(w);
	return err;
}

int jifl_perf_writer_comm(struct jifl_perf_writer *w, uint32_t pid,
			  uint32_t tid, const char *comm, int exec, uint64_t tsc)
{
	union {
		struct jifl_perf_comm_event ev;
		uint8_t buf[sizeof(struct jifl_perf_comm_event) + 16];
	} rec;
	size_t n = strnlen(comm, 15) + 1;

	memset(&rec, 0, sizeof(rec));
	rec.ev.header.type = PERF_RECORD_COMM;
	rec.ev.header.misc = exec ? PERF_RECORD_MISC_COMM_EXEC : 0;
	rec.ev.pid = pid;
	rec.ev.tid = tid;
	memcpy(rec.ev.comm, comm, n - 1);
	n = (n + 7) & ~(size_t)7;
	return writer_put_record(w, &rec, sizeof(rec.ev) + n, EV_DUMMY, pid,
				 tid, tsc);
}

int jifl_perf_writer_mmap2(struct jifl_perf_writer *w,
			   const struct jifl_perf_mmap2 *m, uint64_t tsc)
{
	union {
		struct jifl_perf_mmap2_event ev;
		uint8_t buf[sizeof(struct jifl_perf_mmap2_event) + 4096 + 8];
	} rec;
	size_t n = strnlen(m->filename, 4095) + 1;

	memset(&rec.ev, 0, sizeof(rec.ev));
	rec.ev.header.type = PERF_RECORD_MMAP2;
	rec.ev.header.misc = PERF_RECORD_MISC_USER;
	rec.ev.pid = m->pid;
	rec.ev.tid = m->tid;
	rec.ev.addr = m->addr;
	rec.ev.len = m->len;
	rec.ev.pgoff = m->pgoff;
	rec.ev.maj = m->maj;
	rec.ev.min = m->min;
	rec.ev.ino = m->ino;
	rec.ev.prot = m->prot;
	rec.ev.flags = m->flags;
	memcpy(rec.ev.filename, m->filename, n - 1);
	memset(rec.ev.filename + n - 1, 0, 8);
	n = (n + 7) & ~(size_t)7;
	return writer_put_record(w, &rec, sizeof(rec.ev) + n, EV_DUMMY, m->pid,
				 m->tid, tsc);
}

int jifl_perf_writer_itrace_start(struct jifl_perf_writer *w, uint32_t pid,
				  uint32_t tid, uint64_t tsc)
{
	struct jifl_perf_itrace_start_event rec = {
		{ PERF_RECORD_ITRACE_START, 0, 0 }, pid, tid
	};

	return writer_put_record(w, &rec, sizeof(rec), EV_PT, pid, tid, tsc);
}

static int writer_task(struct jifl_perf_writer *w, uint32_t type, uint32_t pid,
		       uint32_t ppid, uint32_t tid, uint32_t ptid, uint64_t tsc)
{
	struct jifl_perf_task_event rec = {
		{ type, 0, 0 }, pid, ppid, tid, ptid, 0
	};

	rec.time = writer_time(w, tsc);
	return writer_put_record(w, &rec, sizeof(rec), EV_DUMMY, pid, tid, tsc);
}

int jifl_perf_writer_fork(struct jifl_perf_writer *w, uint32_t pid,
			  uint32_t ppid, uint32_t tid, uint32_t ptid, uint64_t tsc)
{
	return writer_task(w, PERF_RECORD_FORK, pid, ppid, tid, ptid, tsc);
}

int jifl_perf_writer_exit(struct jifl_perf_writer *w, uint32_t pid,
			  uint32_t ppid, uint32_t tid, uint32_t ptid, uint64_t tsc)
{
	return writer_task(w, PERF_RECORD_EXIT, pid, ppid, tid, ptid, tsc);
}

void jifl_perf_writer_set_cpu(struct jifl_perf_writer *w, int cpu)
{
	w->cpu = cpu;
}

/* Its sample id names the task switched out, or in (PERF_RECORD_MISC_SWITCH_OUT). */
int jifl_perf_writer_switch(struct jifl_perf_writer *w,
			    const struct jifl_perf_switch *sw, uint64_t tsc)
{
	struct jifl_perf_switch_cpu_wide_event rec;
	size_t size = sizeof(rec);

	memset(&rec, 0, sizeof(rec));
	rec.header.type = sw->type;
	rec.header.misc = sw->misc;
	rec.next_prev_pid = sw->next_prev_pid;
	rec.next_prev_tid = sw->next_prev_tid;
	if (sw->type == PERF_RECORD_SWITCH)
		size = sizeof(rec.header);
	return writer_put_record(w, &rec, size, sw->type == PERF_RECORD_SWITCH ?
				 EV_DUMMY : EV_SWITCH, sw->pid, sw->tid, tsc);
}

int jifl_perf_writer_auxtrace(struct jifl_perf_writer *w, uint32_t idx,
			      uint32_t tid, const void *data, size_t size)
{
	return jifl_perf_writer_auxtrace_cpu(w, idx, tid, -1, data, size);
}

int jifl_perf_writer_auxtrace_cpu(struct jifl_perf_writer *w, uint32_t idx,
				  uint32_t tid, int cpu, const void *data, size_t size)
{
	struct jifl_perf_auxtrace rec;
	size_t pad = (8 - (size & 7)) & 7;
	int err;

	/* The kernel's records read before this trace come first. */
	err = writer_put_held(w);
	if (err)
		return err;
	if (idx >= w->nr_queues) {
		uint64_t *p = realloc(w->aux_offset, (idx + 1) * sizeof(*p));

		if (!p)
			return -jifl_err_nomem;
		memset(p + w->nr_queues, 0, (idx + 1 - w->nr_queues) * sizeof(*p));
		w->aux_offset = p;
		w->nr_queues = idx + 1;
	}
	err = jifl_array_room(w->index, w->index_nr, w->index_cap);
	if (err)
		return err;
	memset(&rec, 0, sizeof(rec));
	rec.header.type = JIFL_PERF_RECORD_AUXTRACE;
	rec.header.size = sizeof(rec);
	rec.size = size + pad;		/* zero padding decodes as PAD packets */
	rec.offset = w->aux_offset[idx];
	rec.reference = jifl_tsc_read();
	rec.idx = idx;
	rec.tid = tid;
	rec.cpu = cpu;
	w->index[w->index_nr].file_offset = w->pos;
	w->index[w->index_nr].size = sizeof(rec);	/* perf checks header.size */
	w->index_nr++;
	w->aux_offset[idx] += rec.size;

	err = writer_put(w, &rec, sizeof(rec));
	if (!err)
		err = writer_put(w, data, size);
	if (!err)
		err = writer_put_zero(w, pad);
	return err;
}

int jifl_perf_writer_aux_lost(struct jifl_perf_writer *w, uint32_t idx, uint64_t bytes)
{
	if (idx >= w->nr_queues)
		return -jifl_err_invalid;
	w->aux_offset[idx] += bytes;
	return 0;
}

uint64_t jifl_perf_writer_aux_offset(const struct jifl_perf_writer *w, uint32_t idx)
{
	return idx < w->nr_queues ? w->aux_offset[idx] : 0;
}

int jifl_perf_writer_aux(struct jifl_perf_writer *w, uint32_t pid, uint32_t tid,
			 uint64_t offset, uint64_t size, uint64_t flags, uint64_t tsc)
{
	struct jifl_perf_aux_event rec = { { PERF_RECORD_AUX, 0, 0 }, offset, size, flags };

	return writer_put_record(w, &rec, sizeof(rec), EV_PT, pid, tid, tsc);
}

/* As the kernel writes them: the sample id of the task that lost them. */
int jifl_perf_writer_lost(struct jifl_perf_writer *w, uint64_t lost, uint64_t tsc)
{
	struct jifl_perf_lost_event rec = { { PERF_RECORD_LOST, 0, 0 }, w->ids[EV_DUMMY], lost };

	return writer_put_record(w, &rec, sizeof(rec), EV_DUMMY, 0, 0, tsc);
}

int jifl_perf_writer_lost_samples(struct jifl_perf_writer *w, uint64_t lost, uint64_t tsc)
{
	struct jifl_perf_lost_samples_event rec = { { PERF_RECORD_LOST_SAMPLES, 0, 0 }, lost };

	return writer_put_record(w, &rec, sizeof(rec), EV_PT, 0, 0, tsc);
}

int jifl_perf_writer_round(struct jifl_perf_writer *w)
{
	struct perf_event_header h = { JIFL_PERF_RECORD_FINISHED_ROUND, 0,
				       sizeof(h) };
	int err = writer_put_held(w);

	return err ? err : writer_put(w, &h, sizeof(h));
}

void jifl_perf_writer_free(struct jifl_perf_writer *w)
{
	if (!w)
		return;
	if (w->fd >= 0)
		close(w->fd);
	free(w->buf);
	free(w->index);
	free(w->aux_offset);
	while (w->nr_bids)
		free(w->bids[--w->nr_bids].filename);
	free(w->bids);
	free(w->held);
	jifl_perf_zstd_free(w->zstd);
	free(w);
}

int jifl_perf_writer_build_id(struct jifl_perf_writer *w, const char *filename,
			      const uint8_t *id, size_t size)
{
	struct build_id_entry *e;
	size_t i;

	if (!size || size > JIFL_BUILD_ID_MAX)
		return -jifl_err_invalid;
	for (i = 0; i < w->nr_bids; i++)
		if (!strcmp(w->bids[i].filename, filename))
			return 0;
	if (jifl_array_room(w->bids, w->nr_bids, w->cap_bids))
		return -jifl_err_nomem;
	e = &w->bids[w->nr_bids];
	memset(e, 0, sizeof(*e));
	e->filename = strdup(filename);
	if (!e->filename)
		return -jifl_err_nomem;
	memcpy(e->id, id, size);
	e->size = size;
	w->nr_bids++;
	return 0;
}

/* A perf header string: u32 length (padded to 64), then the padded text. */
static int writer_put_string(struct jifl_perf_writer *w, const char *s)
{
	uint32_t olen = strlen(s) + 1;
	uint32_t len = (olen + JIFL_PERF_NAME_ALIGN - 1) & ~(JIFL_PERF_NAME_ALIGN - 1);
	int err;

	err = writer_put(w, &len, sizeof(len));
	if (!err)
		err = writer_put(w, s, olen);
	if (!err)
		err = writer_put_zero(w, len - olen);
	return err;
}

/* struct jifl_perf_build_id_event, then the padded file name. */
static int feat_build_id(struct jifl_perf_writer *w)
{
	struct jifl_perf_build_id_event b;
	size_t i, len;
	int err = 0;

	for (i = 0; i < w->nr_bids && !err; i++) {
		len = strlen(w->bids[i].filename) + 1;
		len = (len + JIFL_PERF_NAME_ALIGN - 1) & ~(size_t)(JIFL_PERF_NAME_ALIGN - 1);
		memset(&b, 0, sizeof(b));
		/* A record of its own to a pipe (perf does not pad it to 8 bytes). */
		b.header.type = w->cfg.pipe ? JIFL_PERF_RECORD_HEADER_BUILD_ID : 0;
		b.header.misc = PERF_RECORD_MISC_USER | JIFL_PERF_MISC_BUILD_ID_SIZE;
		b.header.size = sizeof(b) + len;
		b.pid = -1;	/* the host machine */
		memcpy(b.data, w->bids[i].id, w->bids[i].size);
		b.size = w->bids[i].size;
		err = writer_put(w, &b, sizeof(b));
		if (!err)
			err = writer_put(w, w->bids[i].filename,
					 strlen(w->bids[i].filename) + 1);
		if (!err)
			err = writer_put_zero(w, len - strlen(w->bids[i].filename) - 1);
	}
	return err;
}

static int feat_arch(struct jifl_perf_writer *w)
{
	struct utsname u;

	if (uname(&u))
		return jifl_err_errno(errno);
	return writer_put_string(w, u.machine);
}

static int feat_osrelease(struct jifl_perf_writer *w)
{
	struct utsname u;

	if (uname(&u))
		return jifl_err_errno(errno);
	return writer_put_string(w, u.release);
}

static int feat_nrcpus(struct jifl_perf_writer *w)
{
	uint32_t nr[2];

	nr[0] = w->cfg.nr_cpus ? w->cfg.nr_cpus : sysconf(_SC_NPROCESSORS_CONF);
	nr[1] = w->cfg.nr_cpus ? w->cfg.nr_cpus : sysconf(_SC_NPROCESSORS_ONLN);
	return writer_put(w, nr, sizeof(nr));
}

/* "vendor,family,model,stepping", as perf's x86 get_cpuid() writes it. */
static int feat_cpuid(struct jifl_perf_writer *w)
{
	struct jifl_perf_cpuid id;
	char buf[64];

	if (w->cfg.cpuid)
		return writer_put_string(w, w->cfg.cpuid);
	jifl_perf_cpuid_read(&id);
	jifl_perf_cpuid_format(&id, buf, sizeof(buf));
	return writer_put_string(w, buf);
}

static int feat_event_desc(struct jifl_perf_writer *w)
{
	uint32_t hdr[2] = { w->nr_ev, sizeof(struct perf_event_attr) };
	uint32_t nr_ids = 1;
	int i, err;

	err = writer_put(w, hdr, sizeof(hdr));
	for (i = 0; i < w->nr_ev && !err; i++) {
		err = writer_put(w, &w->attrs[i].attr, sizeof(w->attrs[i].attr));
		if (!err)
			err = writer_put(w, &nr_ids, sizeof(nr_ids));
		if (!err)
			err = writer_put_string(w, ev_names[i]);
		if (!err)
			err = writer_put(w, &w->ids[i], sizeof(w->ids[i]));
	}
	return err;
}

static int feat_pmu_mappings(struct jifl_perf_writer *w)
{
	uint32_t nr = 2, type = PERF_TYPE_SOFTWARE;
	int err;

	err = writer_put(w, &nr, sizeof(nr));
	if (!err)
		err = writer_put(w, &type, sizeof(type));
	if (!err)
		err = writer_put_string(w, "software");
	if (!err)
		err = writer_put(w, &w->cfg.pt_pmu_type, sizeof(uint32_t));
	if (!err)
		err = writer_put_string(w, "intel_pt");
	return err;
}

/* What "perf record -z" says of its compression (perf's defaults). */
static int feat_compressed(struct jifl_perf_writer *w)
{
	struct jifl_perf_comp_feature c = {
		.type = JIFL_PERF_COMP_ZSTD, .level = w->cfg.compress, .ratio = 1,
		.mmap_len = COMP_MMAP_LEN,
	};

	return writer_put(w, &c, sizeof(c));
}

static int feat_auxtrace(struct jifl_perf_writer *w)
{
	uint64_t nr = w->index_nr;
	int err;

	err = writer_put(w, &nr, sizeof(nr));
	if (!err)
		err = writer_put(w, w->index, nr * sizeof(*w->index));
	return err;
}

static const struct {
	int bit;
	int (*put)(struct jifl_perf_writer *w);
} features[] = {
	{ JIFL_PERF_FEAT_BUILD_ID, feat_build_id },
	{ JIFL_PERF_FEAT_OSRELEASE, feat_osrelease },
	{ JIFL_PERF_FEAT_ARCH, feat_arch },
	{ JIFL_PERF_FEAT_NRCPUS, feat_nrcpus },
	{ JIFL_PERF_FEAT_CPUID, feat_cpuid },
	{ JIFL_PERF_FEAT_EVENT_DESC, feat_event_desc },
	{ JIFL_PERF_FEAT_PMU_MAPPINGS, feat_pmu_mappings },
	{ JIFL_PERF_FEAT_AUXTRACE, feat_auxtrace },
	{ JIFL_PERF_FEAT_COMPRESSED, feat_compressed },
};

#define NR_FEATURES (sizeof(features) / sizeof(features[0]))

/*
 * The features of this file: COMPRESSED only when compressed; to a pipe,
 * none that only the end knows (build IDs go as records, and a pipe has
 * no AUXTRACE index).
 */
static int feature_wanted(const struct jifl_perf_writer *w, int bit)
{
	if (bit == JIFL_PERF_FEAT_COMPRESSED)
		return !!w->zstd;
	return !w->cfg.pipe || (bit != JIFL_PERF_FEAT_BUILD_ID && bit != JIFL_PERF_FEAT_AUXTRACE);
}

/* To a pipe: each feature as a HEADER_FEATURE record, padded to 8 bytes. */
static int writer_put_feature_records(struct jifl_perf_writer *w)
{
	struct jifl_perf_header_feature f = { { JIFL_PERF_RECORD_HEADER_FEATURE, 0, 0 }, 0 };
	size_t i;
	int err = 0;

	for (i = 0; i < NR_FEATURES && !err; i++) {
		if (!feature_wanted(w, features[i].bit))
			continue;
		/* The record starts the buffer, whose bytes its size then counts. */
		err = writer_flush(w);
		f.feat_id = features[i].bit;
		if (!err)
			err = writer_put(w, &f, sizeof(f));
		if (!err)
			err = features[i].put(w);
		if (!err)
			err = writer_put_zero(w, (8 - (w->len & 7)) & 7);
		if (!err && w->len > 0xffff)
			err = -jifl_err_internal;
		if (!err)
			((struct perf_event_header *)w->buf)->size = w->len;
	}
	return err;
}

/*
 * Feature data follows the data section: a table of one section per set
 * feature bit, in bit order, then each feature's bytes.
 */
static int writer_put_features(struct jifl_perf_writer *w, uint64_t *bits)
{
	struct jifl_perf_section sec[NR_FEATURES];
	uint64_t table = w->pos;
	size_t i, n = 0;
	int err;

	for (i = 0; i < NR_FEATURES; i++)
		n += feature_wanted(w, features[i].bit);
	err = writer_put_zero(w, n * sizeof(sec[0]));
	for (i = 0, n = 0; i < NR_FEATURES && !err; i++) {
		if (!feature_wanted(w, features[i].bit))
			continue;
		sec[n].offset = w->pos;
		err = features[i].put(w);
		sec[n].size = w->pos - sec[n].offset;
		n++;
		bits[features[i].bit / 64] |= 1ULL << (features[i].bit % 64);
	}
	if (!err)
		err = writer_flush(w);
	if (!err && pwrite(w->fd, sec, n * sizeof(sec[0]), table) != (ssize_t)(n * sizeof(sec[0])))
		err = jifl_err_errno(errno);
	return err;
}

int jifl_perf_writer_close(struct jifl_perf_writer *w)
{
	uint64_t bits[JIFL_PERF_FEAT_BITS / 64] = { 0 };
	uint64_t data_size;
	int err;

	err = writer_put_held(w);
	if (!err && w->cfg.pipe)
		err = feat_build_id(w);
	if (!err)
		err = writer_flush(w);
	data_size = w->pos - w->data_offset;
	if (!err && !w->cfg.pipe)
		err = writer_put_features(w, bits);
	if (!err && !w->cfg.pipe)
		err = writer_put_header(w, data_size, bits);
	if (!err && close(w->fd))
		err = jifl_err_errno(errno);
	w->fd = -1;
	jifl_perf_writer_free(w);
	return err;
}
