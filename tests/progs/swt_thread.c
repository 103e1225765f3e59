// SPDX-License-Identifier: GPL-2.0
/* Creates a thread: jifl-swtrace must refuse clearly. */
#include <pthread.h>

static void *run(void *arg) { return arg; }

int main(void)
{
	pthread_t t;

	if (pthread_create(&t, NULL, run, NULL))
		return 1;
	pthread_join(t, NULL);
	return 0;
}
