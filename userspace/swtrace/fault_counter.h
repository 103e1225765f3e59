/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Count of the user-mode page faults of one thread, without a system
 * call per look: the kernel copies a software event's count into the
 * event's mmap page each time the thread is scheduled in. So at a ptrace
 * stop the page holds the faults up to the *previous* stop: a step's
 * faults are known one stop later.
 */
#ifndef JIFL_FAULT_COUNTER_H
#define JIFL_FAULT_COUNTER_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

struct perf_event_mmap_page;

struct jifl_fault_counter {
	int fd;
	struct perf_event_mmap_page *page;
	uint64_t last;
};

/* Returns 0, or -jifl_err_nosupp (then the counter says "no fault"). */
int jifl_fault_counter_open(struct jifl_fault_counter *fc, pid_t tid);
void jifl_fault_counter_close(struct jifl_fault_counter *fc);

/* Did the count change since the last call? */
bool jifl_fault_counter_changed(struct jifl_fault_counter *fc);

#endif /* JIFL_FAULT_COUNTER_H */
