// SPDX-License-Identifier: GPL-2.0
/*
 * Threads that wait for each other, for jifl-swtrace --per-cpu tests:
 * with more threads than CPUs they take turns and migrate. Each round,
 * every worker computes, meets the others at a barrier, passes a token
 * round a ring of pipes (blocking reads: a thread must give up its CPU
 * for the next one to run) and adds its result under a contended lock.
 *
 * usage: swt_sched [THREADS] (default 3, at most 8; the main thread is
 * one of them)
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define MAX_THREADS	8
#define ROUNDS		3

static int nr_threads;
static pthread_barrier_t barrier;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int ring[MAX_THREADS][2];
static long total;

__attribute__((noinline)) static long step(long acc, long i)
{
	return i % 3 ? acc + i : acc - i / 2;
}

__attribute__((noinline)) static long work(long n, long seed)
{
	long i, acc = seed;

	for (i = 0; i < n; i++)
		acc = step(acc, i);
	return acc;
}

/* The token goes from thread @id to the next one; thread 0 starts it. */
static int pass_token(long id)
{
	int next = (id + 1) % nr_threads;
	char c = 't';

	if (id == 0 && write(ring[next][1], &c, 1) != 1)
		return -1;
	if (read(ring[id][0], &c, 1) != 1)
		return -1;
	if (id != 0 && write(ring[next][1], &c, 1) != 1)
		return -1;
	return 0;
}

static void *worker(void *arg)
{
	long id = (long)arg, acc = 0;
	int r;

	for (r = 0; r < ROUNDS; r++) {
		acc += work(150 + 40 * id, id + r);
		pthread_barrier_wait(&barrier);
		if (pass_token(id))
			exit(2);
		pthread_mutex_lock(&lock);
		total += acc;
		pthread_mutex_unlock(&lock);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t[MAX_THREADS];
	long i;

	nr_threads = argc > 1 ? atoi(argv[1]) : 3;
	if (nr_threads < 1 || nr_threads > MAX_THREADS)
		return 1;
	for (i = 0; i < nr_threads; i++)
		if (pipe(ring[i]))
			return 1;
	pthread_barrier_init(&barrier, NULL, nr_threads);
	for (i = 1; i < nr_threads; i++)
		if (pthread_create(&t[i], NULL, worker, (void *)i))
			return 1;
	worker((void *)0);
	for (i = 1; i < nr_threads; i++)
		pthread_join(t[i], NULL);
	printf("%ld\n", total);
	return 0;
}
