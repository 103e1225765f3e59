/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Files of the guest tests: write a command to a /proc control file,
 * read a file whole, read a JIFL counter, use the test-only triggers,
 * make getpid() system calls, find a kernel symbol.
 */
#ifndef JIFL_PROC_UTIL_H
#define JIFL_PROC_UTIL_H

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

/* Returns 0, or -errno of the open() or write(). */
static inline int proc_write(const char *path, const char *cmd)
{
	int fd = open(path, O_WRONLY);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = write(fd, cmd, strlen(cmd));
	n = n < 0 ? -errno : 0;
	close(fd);
	return n;
}

/* Read up to @size - 1 bytes of @path into @buf, NUL-terminated ("" on error). */
static inline void file_read(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY);
	ssize_t n = fd < 0 ? 0 : read(fd, buf, size - 1);

	buf[n > 0 ? n : 0] = '\0';
	if (fd >= 0)
		close(fd);
}

static inline int jifl_control(const char *cmd)
{
	return proc_write("/proc/jifl/control", cmd);
}

/* A child that flushes JIFL's cache every @usec until killed: its pid, or -1. */
static inline pid_t jifl_flusher(unsigned int usec)
{
	pid_t pid = fork();

	if (!pid) {
		for (;;) {
			jifl_control("flush");
			usleep(usec);
		}
	}
	return pid;
}

/* JIFL on for every system call of every process: 0, or the first -errno. */
static inline int jifl_enable_all(void)
{
	return jifl_control("syscalls all") ?: jifl_control("pid 0") ?: jifl_control("enable");
}

/*
 * CONFIG_JIFL_TEST's triggers in /sys/kernel/debug/jifl/: write @cmd to
 * @name (warn, symbol, kprobe); 0 or -errno.
 */
static inline int jifl_test(const char *name, const char *cmd)
{
	char path[64];

	snprintf(path, sizeof(path), "/sys/kernel/debug/jifl/%s", name);
	return proc_write(path, cmd);
}

/* Hits of the test kprobe (/sys/kernel/debug/jifl/kprobe), or -1. */
static inline long long jifl_test_kprobe_hits(void)
{
	char buf[32];

	file_read("/sys/kernel/debug/jifl/kprobe", buf, sizeof(buf));
	return buf[0] ? strtoll(buf, NULL, 10) : -1;
}

/*
 * @n getpid() system calls (through syscall(), not a cached value);
 * how many returned a wrong pid.
 */
static inline int jifl_getpids(int n)
{
	int i, bad = 0;

	for (i = 0; i < n; i++)
		bad += syscall(SYS_getpid) != getpid();
	return bad;
}

/* A counter of /proc/jifl/stats, or -1 if there is none of that name. */
static inline long long jifl_stat(const char *name)
{
	char line[128], key[64];
	long long v, found = -1;
	FILE *f = fopen("/proc/jifl/stats", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%63[^:]: %lld", key, &v) == 2 && !strcmp(key, name))
			found = v;
	fclose(f);
	return found;
}

/*
 * The counters the linking work (link.c) moves, summed: stubs linked,
 * returns and indirect calls predicted, chains extended; -1 without
 * /proc/jifl/stats.
 */
static inline long long jifl_link_count(void)
{
	static const char * const names[] = {
		"late_links", "predicted_returns", "predicted_calls", "extended_chains",
	};
	char line[128], key[64];
	long long v, sum = 0;
	FILE *f = fopen("/proc/jifl/stats", "r");
	size_t i;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
			if (sscanf(line, "%63[^:]: %lld", key, &v) == 2 && !strcmp(key, names[i]))
				sum += v;
	fclose(f);
	return sum;
}

/*
 * The linking work runs from a delayed work, HZ/50 (20 ms) after the
 * translations and learnt returns that kick it, and again while more is
 * ready. Wait for it: until jifl_link_count() has gone past @past (-1:
 * any count) and then stood still for 100 ms, five times that delay.
 * Polls every 10 ms for at most @ms; the count, or -1 at the deadline.
 */
static inline long long jifl_link_wait(long long past, int ms)
{
	long long n, last = -1;
	int t, still = 0;

	for (t = 0; t <= ms; t += 10) {
		n = jifl_link_count();
		still = n == last ? still + 10 : 0;
		last = n;
		if (n > past && still >= 100)
			return n;
		usleep(10000);
	}
	return -1;
}

/* The deadline of a test's waits for the linking work, in ms. */
#define JIFL_LINK_DEADLINE_MS	(2000 * guest_time_scale())

/*
 * In a test: wait for the linking work (jifl_link_wait()); past the
 * deadline, the test fails.
 */
#define ASSERT_LINKED(past) \
	ASSERT_LE(0, jifl_link_wait(past, JIFL_LINK_DEADLINE_MS)) \
		TH_LOG("the linking work did not finish within %d ms (link counters past %lld: %lld)", \
		       JIFL_LINK_DEADLINE_MS, (long long)(past), jifl_link_count())

/* The address of kernel symbol @name in /proc/kallsyms, or 0. */
static inline unsigned long kallsyms_addr(const char *name)
{
	char line[256], sym[128], type;
	unsigned long addr, found = 0;
	FILE *f = fopen("/proc/kallsyms", "r");

	while (f && !found && fgets(line, sizeof(line), f))
		if (sscanf(line, "%lx %c %127s", &addr, &type, sym) == 3 &&
		    !strcmp(sym, name))
			found = addr;
	if (f)
		fclose(f);
	return found;
}

#endif /* JIFL_PROC_UTIL_H */
