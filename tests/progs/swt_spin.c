// SPDX-License-Identifier: GPL-2.0
/*
 * Runs until killed: a little work, then a short sleep, over and over,
 * in the main thread and in N more threads ("swt_spin N"). jifl-swtrace
 * -p attaches to it (often inside the sleep) and detaches.
 */
#include <pthread.h>
#include <stdlib.h>
#include <time.h>

static volatile long sink;

__attribute__((noinline)) static long work(long n)
{
	long i, acc = 0;

	for (i = 0; i < n; i++)
		acc += i & 1 ? i : -i;
	return acc;
}

static void *spin(void *arg)
{
	const struct timespec nap = { 0, 2 * 1000 * 1000 };

	for (;;) {
		sink += work(200);
		nanosleep(&nap, NULL);
	}
	return arg;
}

int main(int argc, char **argv)
{
	int i, n = argc > 1 ? atoi(argv[1]) : 0;
	pthread_t t;

	for (i = 0; i < n; i++)
		if (pthread_create(&t, NULL, spin, NULL))
			return 1;
	spin(NULL);
	return 0;
}
