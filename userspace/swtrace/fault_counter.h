/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Count of the user-mode page faults of one thread. It is read with
 * read() at every ptrace stop: the thread is stopped, so the count is
 * exact and covers the step that just ended. (The event's mmap page is
 * no substitute: the kernel refreshes it only when the thread is
 * scheduled in, which may or may not happen again inside a step, when a
 * fault sleeps.)
 */
#ifndef JIFL_FAULT_COUNTER_H
#define JIFL_FAULT_COUNTER_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

struct jifl_fault_counter {
	int fd;
	uint64_t last;
};

/* Returns 0, or -jifl_err_nosupp (then the counter says "no fault"). */
int jifl_fault_counter_open(struct jifl_fault_counter *fc, pid_t tid);
void jifl_fault_counter_close(struct jifl_fault_counter *fc);

/* Did the count change since the last call? */
bool jifl_fault_counter_changed(struct jifl_fault_counter *fc);

#endif /* JIFL_FAULT_COUNTER_H */
