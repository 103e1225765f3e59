// SPDX-License-Identifier: GPL-2.0
/*
 * Threads for jifl-swtrace tests: three workers run loops, calls and
 * system calls at the same time as the main thread, and one blocks on a
 * lock the main thread holds for a while (so threads must step
 * independently). "swt_thread N" makes every loop N times longer (the
 * decoding benchmark's per-CPU trace).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static volatile long total;

__attribute__((noinline)) static long work(long n)
{
	long i, acc = 0;

	for (i = 0; i < n; i++)
		acc += i % 3 ? i : -i;
	return acc;
}

static void *worker(void *arg)
{
	long n = (long)arg, acc = work(n);

	getppid();
	pthread_mutex_lock(&lock);
	total += acc;
	pthread_mutex_unlock(&lock);
	return NULL;
}

int main(int argc, char **argv)
{
	long i, scale = argc > 1 ? atol(argv[1]) : 1;
	pthread_t t[3];

	pthread_mutex_lock(&lock);
	for (i = 0; i < 3; i++)
		if (pthread_create(&t[i], NULL, worker, (void *)(100 * scale * (i + 1))))
			return 1;
	total += work(500 * scale);
	pthread_mutex_unlock(&lock);
	for (i = 0; i < 3; i++)
		pthread_join(t[i], NULL);
	printf("%ld\n", total);
	return 0;
}
