// SPDX-License-Identifier: GPL-2.0
/*
 * A flush frees the old cache only once no task runs in it, whatever
 * translated code says: a task that reports RCU Tasks quiescent states
 * (cond_resched_tasks_rcu_qs(), as reclaim and BPF batch loops do) while
 * it loops in the cache keeps the old cache alive until it leaves. And
 * for real: a reader in a small memory cgroup, whose every read() reclaims
 * page cache (direct reclaim, run from the cache), while the cache is
 * flushed every few milliseconds.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
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

/*
 * A file whose pages the guest can reclaim: the host's Java runtime,
 * shared over 9p with cache=loose (scripts/qemu-run.sh, the guest's
 * init); the guest's own filesystems are RAM (tmpfs cannot be reclaimed
 * without swap).
 */
#define BIG	"/usr/lib/jvm/java-17-openjdk-amd64/lib/modules"
#define CGROUP	"/sys/fs/cgroup"
#define MEMCG	CGROUP "/jifl-reclaim"

/* A count of @file (a "name value" list) in MEMCG, or -1. */
static long long memcg_count(const char *file, const char *name)
{
	char path[96], text[1024], *p;
	size_t len = strlen(name);

	snprintf(path, sizeof(path), MEMCG "/%s", file);
	file_read(path, text, sizeof(text));
	for (p = text; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
		if (!strncmp(p, name, len) && p[len] == ' ')
			return atoll(p + len + 1);
	return -1;
}

/* In MEMCG: read BIG round and round for @secs; 0, or what failed. */
static int reclaiming_reader(double secs)
{
	static char buf[256 * 1024];
	char pid[16];
	double end;
	off_t off = 0;
	int fd;

	snprintf(pid, sizeof(pid), "%d", (int)getpid());
	if (proc_write(MEMCG "/cgroup.procs", pid))
		return 1;
	fd = open(BIG, O_RDONLY);
	if (fd < 0)
		return 2;
	for (end = now() + secs; now() < end;) {
		ssize_t n = pread(fd, buf, sizeof(buf), off);

		if (n < 0)
			return 3;
		off = n ? off + n : 0;
	}
	return 0;
}

/*
 * Every system call of every process from the cache, the cache flushed
 * every 2 ms, and a reader confined to 16 MiB of memory that reads a
 * 128 MiB file: each read() charges new page cache to its group and
 * reclaims the group's older pages itself (shrink_lruvec(), whose loop
 * reports RCU Tasks quiescent states) inside translated code, which the
 * flushes must not free under it. Runs where the kernel has the memory
 * controller (the debug kernel of make check-debug; the test kernel has
 * none). A crash, or KASAN's use-after-free, fails the run.
 */
TEST_F_TIMEOUT(flush, reclaim_in_a_small_memory_cgroup_across_flushes, 900)
{
	char controllers[256];
	long long flushes, max_events;
	pid_t flusher_pid, reader;
	int status;

	mkdir(CGROUP, 0755);
	mount("cgroup2", CGROUP, "cgroup2", 0, NULL);	/* EBUSY if mounted */
	file_read(CGROUP "/cgroup.controllers", controllers, sizeof(controllers));
	if (!strstr(controllers, "memory"))
		SKIP(return, "no memory controller (a kernel without CONFIG_MEMCG)");
	if (access(BIG, R_OK))
		SKIP(return, "no %s to reclaim (the host's Java runtime, shared)", BIG);
	ASSERT_EQ(0, proc_write(CGROUP "/cgroup.subtree_control", "+memory"));
	ASSERT_TRUE(!mkdir(MEMCG, 0755) || errno == EEXIST);
	ASSERT_EQ(0, proc_write(MEMCG "/memory.max", "16M"));

	flushes = jifl_stat("flushes");
	ASSERT_EQ(0, jifl_enable_all());
	flusher_pid = jifl_flusher(2000);
	ASSERT_LT(0, flusher_pid);
	reader = fork();
	if (reader == 0)
		_exit(reclaiming_reader(20.0 * guest_time_scale()));
	ASSERT_EQ(reader, waitpid(reader, &status, 0));
	kill(flusher_pid, SIGKILL);
	waitpid(flusher_pid, NULL, 0);
	jifl_control("disable");
	flushes = jifl_stat("flushes") - flushes;
	max_events = memcg_count("memory.events", "max");
	TH_LOG("%lld flushes; the group hit memory.max %lld times, %lld pages scanned",
	       flushes, max_events, memcg_count("memory.stat", "pgscan"));
	rmdir(MEMCG);
	ASSERT_TRUE(WIFEXITED(status)) TH_LOG("reader status %#x", status);
	EXPECT_EQ(0, WEXITSTATUS(status)) TH_LOG("1: cgroup.procs, 2: open, 3: read");
	EXPECT_LT(0, max_events) TH_LOG("no reclaim: the test shows nothing");
	/* each waits for every task to leave the old cache: 24 in 80 s of the debug kernel */
	EXPECT_LE(10, flushes);
}

TEST_HARNESS_MAIN
