// SPDX-License-Identifier: GPL-2.0
#include <linux/perf_event.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "common/errcode.h"
#include "fault_counter.h"

/* The count (read_format 0: one u64); an unreadable counter stays put. */
static uint64_t fault_counter_read(const struct jifl_fault_counter *fc)
{
	uint64_t count;

	if (read(fc->fd, &count, sizeof(count)) != sizeof(count))
		return fc->last;
	return count;
}

int jifl_fault_counter_open(struct jifl_fault_counter *fc, pid_t tid)
{
	struct perf_event_attr attr;

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
	fc->last = fault_counter_read(fc);
	return 0;
}

void jifl_fault_counter_close(struct jifl_fault_counter *fc)
{
	if (fc->fd >= 0)
		close(fc->fd);
	fc->fd = -1;
}

bool jifl_fault_counter_changed(struct jifl_fault_counter *fc)
{
	uint64_t n;

	if (fc->fd < 0)
		return false;
	n = fault_counter_read(fc);
	if (n == fc->last)
		return false;
	fc->last = n;
	return true;
}
