// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel text changes under translation (issue 11, item 3): while
 * threads on every CPU run system calls from the code cache, others
 * put a kprobe on and off __task_pid_nr_ns() (getpid's path), flip the
 * network timestamp static key with SO_TIMESTAMP (as any user can), and
 * flush the cache. The translator must never copy a text_poke_bp() int3
 * into the cache; getpid() must keep returning the pid, and the run
 * must end with a clean dmesg (the runner checks it).
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "guest_harness.h"
#include "proc_util.h"

#define SECONDS 60

static volatile int stop;
static pid_t pid;

static void *caller(void *arg)
{
	long bad = 0, n = 0;
	char buf[64];
	int fd[2];

	if (socketpair(AF_UNIX, SOCK_DGRAM, 0, fd))
		return (void *)-1L;
	while (!stop) {
		if (syscall(SYS_getpid) != pid)
			bad++;
		if (write(fd[0], "x", 1) != 1 || read(fd[1], buf, sizeof(buf)) != 1)
			bad++;
		n++;
	}
	close(fd[0]);
	close(fd[1]);
	return (void *)(bad ? -bad : n);
}

/* SO_TIMESTAMP on the first socket of the system enables a static key. */
static void *stamper(void *arg)
{
	long n = 0;
	int on = 1, off = 0;

	while (!stop) {
		int s = socket(AF_INET, SOCK_DGRAM, 0);

		if (s < 0)
			return (void *)-1L;
		setsockopt(s, SOL_SOCKET, SO_TIMESTAMP, &on, sizeof(on));
		setsockopt(s, SOL_SOCKET, SO_TIMESTAMP, &off, sizeof(off));
		close(s);
		n++;
	}
	return (void *)n;
}

static void *prober(void *arg)
{
	long n = 0;

	while (!stop) {
		if (jifl_test("kprobe", "on") || jifl_test("kprobe", "off"))
			return (void *)-1L;
		if (++n % 8 == 0 && jifl_control("flush"))
			return (void *)-1L;
	}
	return (void *)n;
}

FIXTURE(text) {
	int unused;
};

FIXTURE_SETUP(text)
{
}

FIXTURE_TEARDOWN(text)
{
	jifl_test("kprobe", "off");
	jifl_control("disable");
}

TEST_F_TIMEOUT(text, pokes_while_translating_and_flushing, 300)
{
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN), i, calls = 0;
	long long inval, flushes;
	pthread_t t[16], p, s;
	void *r, *probes, *stamps;

	if (jifl_test("kprobe", "off"))
		SKIP(return, "no test kprobe (CONFIG_JIFL_TEST)");
	pid = getpid();
	if (ncpu > 16)
		ncpu = 16;
	ASSERT_EQ(0, jifl_enable_all());
	inval = jifl_stat("invalidations");
	flushes = jifl_stat("flushes");
	for (i = 0; i < ncpu; i++)
		ASSERT_EQ(0, pthread_create(&t[i], NULL, caller, NULL));
	ASSERT_EQ(0, pthread_create(&p, NULL, prober, NULL));
	ASSERT_EQ(0, pthread_create(&s, NULL, stamper, NULL));
	sleep(SECONDS);
	stop = 1;
	for (i = 0; i < ncpu; i++) {
		ASSERT_EQ(0, pthread_join(t[i], &r));
		EXPECT_LT(0, (long)r) TH_LOG("caller %ld: %ld wrong results", i, -(long)r);
		calls += (long)r;
	}
	ASSERT_EQ(0, pthread_join(p, &probes));
	ASSERT_EQ(0, pthread_join(s, &stamps));
	ASSERT_EQ(0, jifl_control("disable"));
	TH_LOG("%ld CPUs, %ld call pairs, %ld kprobe toggles, %ld timestamp toggles, "
	       "%lld invalidations, %lld flushes, %lld cycles max with interrupts off",
	       ncpu, calls, (long)probes, (long)stamps,
	       jifl_stat("invalidations") - inval, jifl_stat("flushes") - flushes,
	       jifl_stat("irqoff_max_cycles"));
	EXPECT_LT(0, (long)probes);
	EXPECT_LT(0, (long)stamps);
	/* the pokes did hit translated text */
	EXPECT_LT(inval, jifl_stat("invalidations"));
}

TEST_HARNESS_MAIN
