// SPDX-License-Identifier: GPL-2.0
/*
 * JIFL's predictions converge: a return not predicted yet goes through
 * the learning lookup, which notes its site for the linking work to
 * predict. A loop of system calls that keeps running the same code must
 * stop learning after a few runs of the work, whatever the number of
 * sites: each site is noted once, so that the list of sites to predict
 * cannot fill with copies of the same few hot ones.
 *
 * Learns are counted by the lookup profile (/proc/jifl/profile, kind
 * "learn"), which goes through the same learning lookup.
 *
 * Indirect calls are predicted the same way: a call site compares the
 * register that holds its target with the targets it has seen (up to
 * four) and jumps to the translation; only a call that none of them
 * match takes the lookup. A loop of read()s from /dev/null (one
 * indirect call of read_null() a read) must stop looking up, and a
 * call site that sees more targets than it predicts must still call
 * each one right.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "guest_harness.h"
#include "proc_util.h"

#define PROFILE "/proc/jifl/profile"

FIXTURE(predict) {
	int pipe[2], sock[2];
};

FIXTURE_SETUP(predict)
{
	char pid[32];

	ASSERT_EQ(0, access("/proc/jifl/control", F_OK));
	ASSERT_EQ(0, pipe(self->pipe));
	ASSERT_EQ(0, socketpair(AF_UNIX, SOCK_STREAM, 0, self->sock));
	snprintf(pid, sizeof(pid), "pid %d", (int)getpid());
	ASSERT_EQ(0, jifl_control("syscalls all"));
	ASSERT_EQ(0, jifl_control(pid));
	/* flushes the cache: everything is learnt from scratch */
	ASSERT_EQ(0, proc_write(PROFILE, "on"));
	ASSERT_EQ(0, jifl_control("enable"));
}

FIXTURE_TEARDOWN(predict)
{
	jifl_control("disable");
	jifl_control("pid 0");
	proc_write(PROFILE, "off");
}

/* @n rounds of a few system calls with many functions and returns. */
static void calls(struct _test_data_predict *self, int n)
{
	char buf[64] = "x";
	struct stat st;
	int i, fd;

	for (i = 0; i < n; i++) {
		stat("/proc/self", &st);
		fd = open("/proc/self/stat", O_RDONLY);
		if (fd >= 0) {
			if (read(fd, buf, sizeof(buf)) < 0)
				buf[0] = 0;
			close(fd);
		}
		if (write(self->pipe[1], buf, 1) == 1 && read(self->pipe[0], buf, 1) < 0)
			buf[0] = 0;
		if (send(self->sock[0], buf, 1, 0) == 1)
			recv(self->sock[1], buf, 1, 0);
	}
}

/* The profile's total of one kind: "# totals: direct N ... learn N". */
static long long profile_total(const char *kind)
{
	char text[4096], key[32], *p;

	/* the totals are in the listing's first lines */
	file_read(PROFILE, text, sizeof(text));
	p = strstr(text, "# totals:");
	snprintf(key, sizeof(key), " %s ", kind);
	p = p ? strstr(p, key) : NULL;
	return p ? strtoll(p + strlen(key), NULL, 10) : -1;
}

/*
 * Eight rounds of 500 iterations, each followed by a wait for the work
 * to predict what it learnt: a prediction chain is at most four deep,
 * so every site a round learns is predicted by the next but one. Then
 * 1,000 iterations must learn at most once per five (paths taken rarely,
 * a tick's __cond_resched(), learn when they first run): before each
 * site was noted once, the list filled with copies of the sites of one
 * iteration (16K entries), the next depth of a chain was dropped while
 * it drained, 512 entries a run of the work, and this loop still learnt
 * 68 times an iteration (68,077 in 1,000); since, 1 to 70 in 1,000,
 * the most while the host was busy with other work.
 */
TEST_F(predict, returns_stop_learning_after_warmup)
{
	long long learns, lookups, linked = jifl_link_count();
	int round;

	for (round = 0; round < 8; round++) {
		calls(self, 500);
		ASSERT_LINKED(round ? -1 : linked);
	}
	ASSERT_EQ(0, proc_write(PROFILE, "reset"));
	calls(self, 1000);
	learns = profile_total("learn");
	lookups = profile_total("return");
	TH_LOG("1000 iterations after warm-up: %lld learns, %lld unpredicted returns",
	       learns, lookups);
	ASSERT_LE(0, learns);
	EXPECT_GT(200, learns);
	if (learns >= 20) {
		static char text[8192];

		file_read(PROFILE, text, sizeof(text));
		TH_LOG("%s", text);
	}
}

/*
 * A return whose translation knows where it likely goes compares with
 * that address first, with no learning lookup: the return of a small
 * leaf's copy, made for one call site (CONFIG_JIFL_TEST's leaves, a
 * write of N to /sys/kernel/debug/jifl/leaf calls each of two N times
 * from one site). The first write after the flush must not learn the
 * copies' returns even once: the profile lists a return address it
 * learnt or looked up as "(after call CALLEE)". Before returns were
 * predicted when translated, both learnt on their first call, and on
 * every call until the linking work ran (1,000 and 1,000 learns).
 */
TEST_F(predict, returns_of_leaf_copies_are_predicted_when_translated)
{
	static char text[1 << 17];
	long long copies = jifl_stat("leaf_copies");
	char *line;

	if (access("/sys/kernel/debug/jifl/leaf", F_OK))
		SKIP(return, "kernel without CONFIG_JIFL_TEST's leaf functions");
	ASSERT_EQ(0, jifl_test("leaf", "1000"));
	/* the calls ran from copies, and the profile saw other returns learn */
	EXPECT_LE(copies + 2, jifl_stat("leaf_copies"));
	EXPECT_LT(0, profile_total("learn"));
	file_read(PROFILE, text, sizeof(text));
	for (line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
		EXPECT_EQ(NULL, strstr(line, "(after call jifl_test_leaf)"))
			TH_LOG("%s", line);
		EXPECT_EQ(NULL, strstr(line, "(after call jifl_test_leaf_branch)"))
			TH_LOG("%s", line);
	}
}

/*
 * read() of /dev/null calls f_op->read, read_null(), indirectly: after
 * the warm-up, 2,000 reads must take the lookup almost never (before
 * indirect calls were predicted: once a read, 2,000; the profile counts
 * a call's learning lookup as an indirect call too).
 */
TEST_F(predict, indirect_calls_stop_looking_up)
{
	long long ind_calls, predicted = jifl_stat("predicted_calls");
	long long linked = jifl_link_count();
	int fd = open("/dev/null", O_RDONLY), round, i;
	char c;

	ASSERT_LE(0, fd);
	for (round = 0; round < 8; round++) {
		for (i = 0; i < 200; i++)
			ASSERT_EQ(0, read(fd, &c, 1));
		ASSERT_LINKED(round ? -1 : linked);
	}
	ASSERT_EQ(0, proc_write(PROFILE, "reset"));
	for (i = 0; i < 2000; i++)
		ASSERT_EQ(0, read(fd, &c, 1));
	ind_calls = profile_total("ind_call");
	TH_LOG("2000 reads of /dev/null after warm-up: %lld indirect calls looked up; "
	       "predicted_calls %lld -> %lld", ind_calls, predicted,
	       jifl_stat("predicted_calls"));
	close(fd);
	ASSERT_LE(0, ind_calls);
	EXPECT_GT(20, ind_calls);
	EXPECT_LT(predicted, jifl_stat("predicted_calls"));
}

/* Read up to @n bytes of @fd into @buf; the count, or -errno. */
static int read_some(int fd, char *buf, int n)
{
	int r = read(fd, buf, n);

	return r < 0 ? -errno : r;
}

/*
 * Two sites, vfs_read()'s call of f_op->read (/dev/null, /dev/zero, a
 * proc file) and call_read_iter()'s of ->read_iter (a pipe, a socket, a
 * tmpfs file, /dev/urandom, an eventfd: five targets, one more than a
 * site predicts, which takes the lookup), see their targets in turn:
 * every read must return what it returns natively, rounds after
 * rounds, while the predictions are written.
 */
TEST_F(predict, a_call_site_with_more_targets_than_predictions)
{
	int null = open("/dev/null", O_RDONLY), zero = open("/dev/zero", O_RDONLY);
	int file = open("/tmp/jifl_predict", O_RDWR | O_CREAT | O_TRUNC, 0600);
	int proc = open("/proc/self/comm", O_RDONLY);
	int urandom = open("/dev/urandom", O_RDONLY), efd = eventfd(0, 0);
	char buf[16], comm[16], *nl;
	uint64_t one = 1;
	int round, bad = 0, n;

	ASSERT_LE(0, null);
	ASSERT_LE(0, zero);
	ASSERT_LE(0, file);
	ASSERT_LE(0, proc);
	ASSERT_LE(0, urandom);
	ASSERT_LE(0, efd);
	ASSERT_EQ(5, write(file, "jifl!", 5));
	n = read(proc, comm, sizeof(comm) - 1);
	ASSERT_LT(0, n);
	comm[n] = '\0';
	for (round = 0; round < 3000; round++) {
		memset(buf, 'x', sizeof(buf));
		bad += read_some(null, buf, 4) != 0;
		bad += read_some(zero, buf, 4) != 4 || memcmp(buf, "\0\0\0\0x", 5);
		bad += write(self->pipe[1], "pipe", 4) != 4;
		bad += read_some(self->pipe[0], buf, 8) != 4 || memcmp(buf, "pipe", 4);
		bad += send(self->sock[0], "sock", 4, 0) != 4;
		bad += read_some(self->sock[1], buf, 8) != 4 || memcmp(buf, "sock", 4);
		bad += pread(file, buf, 8, 0) != 5 || memcmp(buf, "jifl!", 5);
		bad += pread(proc, buf, sizeof(buf) - 1, 0) != n || memcmp(buf, comm, n);
		bad += read_some(urandom, buf, 8) != 8;
		bad += write(efd, &one, 8) != 8;
		bad += read_some(efd, buf, 8) != 8 || memcmp(buf, &one, 8);
		if (round % 500 == 499)	/* the linking work writes predictions */
			ASSERT_LINKED(-1);
	}
	nl = strchr(comm, '\n');
	if (nl)
		*nl = '\0';
	TH_LOG("3000 rounds of reads from 8 kinds of files (comm %s): %d wrong; "
	       "predicted_calls %lld", comm, bad, jifl_stat("predicted_calls"));
	EXPECT_EQ(0, bad);
	close(null);
	close(zero);
	close(file);
	close(proc);
	close(urandom);
	close(efd);
	unlink("/tmp/jifl_predict");
}

/*
 * The total of the profile's rows whose target is in @fn: "N ... fn+0x".
 * Each row is one target: a function's start (an indirect call of it),
 * or a return address in it.
 */
static long long profile_in(const char *fn)
{
	static char text[1 << 17];
	char key[64], *line;
	long long sum = 0;

	snprintf(key, sizeof(key), " %s+", fn);
	file_read(PROFILE, text, sizeof(text));
	for (line = strtok(text, "\n"); line; line = strtok(NULL, "\n"))
		if (line[0] != '#' && strstr(line, key))
			sum += strtoll(line, NULL, 10);
	return sum;
}

/*
 * The callers file's first five callers in turn, each given time to be
 * predicted, then @rounds of 1,000 calls of the sixth: 0 or -errno
 * (-ETIME if the linking work did not finish in time).
 */
static int callers_warm_up(int rounds)
{
	char cmd[32];
	int k, ret;

	for (k = 0; k < 5 + rounds; k++) {
		snprintf(cmd, sizeof(cmd), "%d %d", k < 5 ? k : 5, k < 5 ? 20 : 1000);
		ret = jifl_test("callers", cmd);
		if (ret)
			return ret;
		/* the linking work predicts it */
		if (jifl_link_wait(-1, JIFL_LINK_DEADLINE_MS) < 0)
			return -ETIME;
	}
	return 0;
}

/*
 * A return and an indirect call that go to more places than a chain of
 * predictions learns (the hint the return was translated with and four
 * learnt, four for the call): CONFIG_JIFL_TEST's callers file calls
 * one function from six callers, reached through one pointer. The
 * first five run in turn, each given time to be predicted, then the
 * sixth runs, hot. Its call and return miss the full chains; the lookup
 * sends one miss in many to the learning lookup, which adds the target
 * to the chain. After the warm-up, 1,000 calls of the sixth caller must
 * look it, and the return to it, up rarely: before chains were
 * extended, every call did both (2,000 in 1,000). Then each of the six
 * must still compute what it does natively.
 */
TEST_F(predict, a_target_that_keeps_missing_a_full_chain_is_predicted)
{
	long long lookups, extended = jifl_stat("extended_chains");
	char cmd[32];
	int k;

	if (access("/sys/kernel/debug/jifl/callers", F_OK))
		SKIP(return, "kernel without CONFIG_JIFL_TEST's callers");
	ASSERT_EQ(0, callers_warm_up(5));
	ASSERT_EQ(0, proc_write(PROFILE, "reset"));
	ASSERT_EQ(0, jifl_test("callers", "5 1000"));
	lookups = profile_in("jifl_test_caller5");
	TH_LOG("1000 calls of the sixth caller after warm-up: %lld lookups of it and "
	       "of the return to it; chains extended: %lld", lookups,
	       jifl_stat("extended_chains") - extended);
	ASSERT_LE(0, lookups);
	EXPECT_GT(100, lookups);
	for (k = 0; k < 6; k++) {
		snprintf(cmd, sizeof(cmd), "%d 100", k);
		EXPECT_EQ(0, jifl_test("callers", cmd));
	}
}

/* Hits of CONFIG_JIFL_TEST's counting kprobes (the leaf file's). */
static long long probe_hits(void)
{
	char buf[32];

	file_read("/sys/kernel/debug/jifl/leaf", buf, sizeof(buf));
	return buf[0] ? strtoll(buf, NULL, 10) : -1;
}

/*
 * The same, then a kprobe on the return address the sixth caller's
 * call returns to, which a prediction of the extended chain jumps to
 * the translation of: the translation goes stale, and the jumps to it
 * with it. Every return must hit the kprobe, as natively.
 */
TEST_F(predict, a_kprobe_on_a_target_of_an_extended_chain_sees_every_return)
{
	long long hits, extended = jifl_stat("extended_chains");

	if (access("/sys/kernel/debug/jifl/callers", F_OK))
		SKIP(return, "kernel without CONFIG_JIFL_TEST's callers");
	ASSERT_EQ(0, callers_warm_up(3));
	EXPECT_LT(extended, jifl_stat("extended_chains"));
	hits = probe_hits();
	ASSERT_LE(0, hits);
	ASSERT_EQ(0, jifl_test("callers", "probe ret"));
	EXPECT_EQ(0, jifl_test("callers", "5 1000"));
	EXPECT_EQ(hits + 1000, probe_hits())
		TH_LOG("the kprobe saw %lld of 1000 returns", probe_hits() - hits);
	ASSERT_LINKED(-1);
	EXPECT_EQ(0, jifl_test("callers", "5 1000"));
	EXPECT_EQ(hits + 2000, probe_hits())
		TH_LOG("the kprobe saw %lld of 2000 returns", probe_hits() - hits);
	ASSERT_EQ(0, jifl_test("leaf", "probe off"));
	hits = probe_hits();
	EXPECT_EQ(0, jifl_test("callers", "5 1000"));
	EXPECT_EQ(hits, probe_hits());
}

TEST_HARNESS_MAIN
