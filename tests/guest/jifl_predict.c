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
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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
 * Eight rounds of 500 iterations, each followed by 50 ms for the work
 * to predict what it learnt: a prediction chain is at most four deep,
 * so every site a round learns is predicted by the next but one. Then
 * 1,000 iterations must learn almost nothing: before each site was
 * noted once, the list filled with copies of the sites of one
 * iteration (about 30 distinct ones; 16K entries), the next depth of a
 * chain was dropped while it drained, 512 entries a run of the work,
 * and this loop still learnt once an iteration after seconds.
 */
TEST_F(predict, returns_stop_learning_after_warmup)
{
	long long learns, lookups;
	int round;

	for (round = 0; round < 8; round++) {
		calls(self, 500);
		usleep(50000);
	}
	ASSERT_EQ(0, proc_write(PROFILE, "reset"));
	calls(self, 1000);
	learns = profile_total("learn");
	lookups = profile_total("return");
	TH_LOG("1000 iterations after warm-up: %lld learns, %lld unpredicted returns",
	       learns, lookups);
	ASSERT_LE(0, learns);
	EXPECT_GT(50, learns);
}

TEST_HARNESS_MAIN
