// SPDX-License-Identifier: GPL-2.0
/*
 * A flush frees the old cache only once no task runs in it, whatever
 * translated code says: a task that reports RCU Tasks quiescent states
 * (cond_resched_tasks_rcu_qs(), as reclaim and BPF batch loops do) while
 * it loops in the cache keeps the old cache alive until it leaves.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "guest_harness.h"
#include "proc_util.h"

#define LOOP_MS		3000
#define TRIES		5

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	sched_setaffinity(0, sizeof(set), &set);
}

struct flush {
	double start, done;
	int ret;
};

/* On the other CPU: a flush that starts while the loop runs. */
static void *flusher(void *arg)
{
	struct flush *f = arg;

	pin(1);
	usleep(300 * 1000);
	f->start = now();
	f->ret = jifl_control("flush");
	f->done = now();
	return NULL;
}

FIXTURE(flush) {
	int unused;
};

FIXTURE_SETUP(flush)
{
	ASSERT_EQ(0, access("/proc/jifl/control", F_OK));
}

FIXTURE_TEARDOWN(flush)
{
	jifl_control("disable");
	jifl_control("pid 0");
}

TEST_F_TIMEOUT(flush, waits_for_a_task_reporting_quiescent_states_in_the_cache, 300)
{
	char pid[32], set[32], ms[16];
	struct flush f;
	double end = 0;
	pthread_t t;
	int i, ret = -EAGAIN;

	if (jifl_test("qs", "1") == -ENOENT)
		SKIP(return, "no qs trigger (CONFIG_JIFL_TEST)");
	if (sysconf(_SC_NPROCESSORS_ONLN) < 2)
		SKIP(return, "needs two CPUs");
	snprintf(pid, sizeof(pid), "pid %d", (int)getpid());
	snprintf(set, sizeof(set), "syscalls %d", SYS_write);
	snprintf(ms, sizeof(ms), "%d", LOOP_MS);
	ASSERT_EQ(0, jifl_control(pid));
	ASSERT_EQ(0, jifl_control(set));
	ASSERT_EQ(0, jifl_control("enable"));
	pin(0);
	ASSERT_EQ(0, jifl_test("qs", "1"));	/* translated and linked now */
	/* a loop that switched out voluntarily left the cache: try again */
	for (i = 0; i < TRIES && ret == -EAGAIN; i++) {
		memset(&f, 0, sizeof(f));
		ASSERT_EQ(0, pthread_create(&t, NULL, flusher, &f));
		ret = jifl_test("qs", ms);
		end = now();
		pthread_join(t, NULL);
		TH_LOG("try %d: loop %s, flush from +%.2f s to +%.2f s of the loop's end",
		       i, ret ? strerror(-ret) : "stayed in the cache",
		       f.start - end, f.done - end);
	}
	ASSERT_EQ(0, ret);
	ASSERT_EQ(0, f.ret);
	/* the old cache was freed only after the loop had left it */
	EXPECT_GE(f.done, end - 0.05);
}

TEST_HARNESS_MAIN
