// SPDX-License-Identifier: GPL-2.0
/*
 * A task that sleeps in a page fault raised by translated code must
 * survive a flush of the code cache (issue 11, item 1).
 *
 * A thread read()s a pipe into a page registered with userfaultfd: the
 * user copy runs in the code cache, faults, and the thread sleeps in
 * handle_userfault() with its fault frame pointing into the cache.
 * synchronize_rcu_tasks() does not wait for blocked tasks, so a flush
 * then frees that code. The fault is resolved afterwards: the thread
 * must return into valid code, and read() must return the pipe's data.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/userfaultfd.h>
#include <poll.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "guest_harness.h"
#include "proc_util.h"

#define PAGE 4096

struct reader {
	int fd;
	char *buf;
	ssize_t got;
	int err;
};

static void *reader_fn(void *arg)
{
	struct reader *r = arg;

	/* the copy into the missing page faults and sleeps in userfaultfd */
	r->got = read(r->fd, r->buf, PAGE);
	r->err = r->got < 0 ? errno : 0;
	return NULL;
}

FIXTURE(fault_sleep) {
	int uffd;
	int pipe[2];
	char *area;
};

FIXTURE_SETUP(fault_sleep)
{
	struct uffdio_api api = { .api = UFFD_API };
	struct uffdio_register reg;

	self->uffd = syscall(SYS_userfaultfd, O_CLOEXEC);
	if (self->uffd < 0)
		SKIP(return, "no userfaultfd: %s", strerror(errno));
	ASSERT_EQ(0, ioctl(self->uffd, UFFDIO_API, &api));
	self->area = mmap(NULL, PAGE, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, self->area);
	reg.range.start = (uintptr_t)self->area;
	reg.range.len = PAGE;
	reg.mode = UFFDIO_REGISTER_MODE_MISSING;
	ASSERT_EQ(0, ioctl(self->uffd, UFFDIO_REGISTER, &reg));
	ASSERT_EQ(0, pipe(self->pipe));
}

FIXTURE_TEARDOWN(fault_sleep)
{
	jifl_control("disable");
	jifl_control("pid 0");
}

/* Wait for the reader's fault on the registered page. */
static int wait_fault(int uffd, const char *area)
{
	struct pollfd p = { .fd = uffd, .events = POLLIN };
	struct uffd_msg msg;

	if (poll(&p, 1, 20000) != 1)
		return -1;
	if (read(uffd, &msg, sizeof(msg)) != sizeof(msg) ||
	    msg.event != UFFD_EVENT_PAGEFAULT)
		return -1;
	return (msg.arg.pagefault.address & ~(uint64_t)(PAGE - 1)) ==
	       (uintptr_t)area ? 0 : -1;
}

TEST_F_TIMEOUT(fault_sleep, flush_while_a_copy_sleeps_in_a_fault, 120)
{
	static char data[PAGE], zero[PAGE];
	struct reader r = { .fd = self->pipe[0], .buf = self->area };
	struct uffdio_copy copy;
	long long faults, flushes;
	char cmd[64];
	pthread_t t;
	int i, round;

	for (i = 0; i < PAGE; i++)
		data[i] = 'a' + i % 26;
	snprintf(cmd, sizeof(cmd), "pid %d", getpid());
	ASSERT_EQ(0, jifl_control(cmd));
	ASSERT_EQ(0, jifl_control("syscalls 0"));	/* read */
	ASSERT_EQ(0, jifl_control("enable"));
	faults = jifl_stat("fault_exits");
	flushes = jifl_stat("flushes");

	for (round = 0; round < 3; round++) {
		if (round) {
			/* the page is mapped now: make it missing again */
			ASSERT_EQ(0, madvise(self->area, PAGE, MADV_DONTNEED));
		}
		ASSERT_EQ(PAGE, write(self->pipe[1], data, PAGE));
		r.got = 0;
		ASSERT_EQ(0, pthread_create(&t, NULL, reader_fn, &r));
		ASSERT_EQ(0, wait_fault(self->uffd, self->area));
		/* The reader sleeps in the fault: free the code it was in. */
		ASSERT_EQ(0, jifl_control("flush"));
		ASSERT_EQ(0, jifl_control("flush"));
		copy.dst = (uintptr_t)self->area;
		copy.src = (uintptr_t)zero;
		copy.len = PAGE;
		copy.mode = 0;
		ASSERT_EQ(0, ioctl(self->uffd, UFFDIO_COPY, &copy));
		ASSERT_EQ(0, pthread_join(t, NULL));
		ASSERT_EQ(PAGE, r.got) TH_LOG("read: %s", strerror(r.err));
		ASSERT_EQ(0, memcmp(self->area, data, PAGE));
	}
	EXPECT_LE(flushes + 6, jifl_stat("flushes"));
	/* the copies did fault in translated code, and went on natively */
	ASSERT_LE(0, faults) TH_LOG("no fault_exits in /proc/jifl/stats");
	EXPECT_LE(faults + 3, jifl_stat("fault_exits"));
}

TEST_HARNESS_MAIN
