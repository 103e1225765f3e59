// SPDX-License-Identifier: GPL-2.0
/*
 * Runs until killed: a little work, then a short sleep, over and over.
 * jifl-swtrace -p attaches to it (often inside the sleep) and detaches.
 */
#include <time.h>

static volatile long sink;

__attribute__((noinline)) static long work(long n)
{
	long i, acc = 0;

	for (i = 0; i < n; i++)
		acc += i & 1 ? i : -i;
	return acc;
}

int main(void)
{
	const struct timespec nap = { 0, 2 * 1000 * 1000 };

	for (;;) {
		sink += work(200);
		nanosleep(&nap, NULL);
	}
}
