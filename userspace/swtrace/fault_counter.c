// SPDX-License-Identifier: GPL-2.0
#include <linux/perf_event.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "errcode.h"
#include "fault_counter.h"

static uint64_t fault_counter_read(const struct jifl_fault_counter *fc)
{
	const struct perf_event_mmap_page *pc = fc->page;
	uint64_t count;
	uint32_t seq;

	/* A software event has no index: the whole count is in offset. */
	do {
		seq = __atomic_load_n(&pc->lock, __ATOMIC_ACQUIRE);
		count = pc->offset;
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
	} while (__atomic_load_n(&pc->lock, __ATOMIC_RELAXED) != seq);
	return count;
}

int jifl_fault_counter_open(struct jifl_fault_counter *fc, pid_t tid)
{
	struct perf_event_attr attr;
	void *p;

	memset(fc, 0, sizeof(*fc));
	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_SOFTWARE;
	attr.config = PERF_COUNT_SW_PAGE_FAULTS;
	attr.exclude_kernel = 1;	/* faults of user instructions only */
	attr.exclude_hv = 1;
	fc->fd = syscall(SYS_perf_event_open, &attr, tid, -1, -1,
			 PERF_FLAG_FD_CLOEXEC);
	if (fc->fd < 0)
		return -jifl_err_nosupp;
	p = mmap(NULL, sysconf(_SC_PAGESIZE), PROT_READ, MAP_SHARED, fc->fd, 0);
	if (p == MAP_FAILED) {
		close(fc->fd);
		fc->fd = -1;
		return -jifl_err_nosupp;
	}
	fc->page = p;
	fc->last = fault_counter_read(fc);
	return 0;
}

void jifl_fault_counter_close(struct jifl_fault_counter *fc)
{
	if (fc->page)
		munmap(fc->page, sysconf(_SC_PAGESIZE));
	if (fc->fd >= 0)
		close(fc->fd);
	fc->page = NULL;
	fc->fd = -1;
}

bool jifl_fault_counter_changed(struct jifl_fault_counter *fc)
{
	uint64_t n;

	if (!fc->page)
		return false;
	n = fault_counter_read(fc);
	if (n == fc->last)
		return false;
	fc->last = n;
	return true;
}
