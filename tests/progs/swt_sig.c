// SPDX-License-Identifier: GPL-2.0
/*
 * Signals for jifl-swtrace tests: a signal raised by a system call, a
 * fault caught by a handler, a timer signal during a busy loop, and a
 * blocking read restarted after a handler (SA_RESTART).
 */
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

static volatile sig_atomic_t hits;
static sigjmp_buf env;
static int pipefd[2];

static void on_usr1(int sig) { (void)sig; hits++; }
static void on_segv(int sig) { (void)sig; hits++; siglongjmp(env, 1); }
static void on_alrm(int sig)
{
	(void)sig;
	hits++;
	if (write(pipefd[1], "x", 1) != 1)
		_exit(3);
}

static void handle(int sig, void (*fn)(int))
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = fn;
	sa.sa_flags = SA_RESTART | SA_NODEFER;
	sigaction(sig, &sa, NULL);
}

int main(void)
{
	struct itimerval it = { { 0, 0 }, { 0, 20000 } };
	int *volatile bad = (int *)16;
	char c;

	handle(SIGUSR1, on_usr1);
	handle(SIGSEGV, on_segv);
	handle(SIGALRM, on_alrm);
	if (pipe(pipefd))
		return 1;

	raise(SIGUSR1);
	if (!sigsetjmp(env, 1))
		*bad = 1;

	/* A timer signal lands somewhere in this loop. */
	setitimer(ITIMER_REAL, &it, NULL);
	while (hits < 3)
		;
	/* ...and here one interrupts a blocking read, which restarts. */
	setitimer(ITIMER_REAL, &it, NULL);
	if (read(pipefd[0], &c, 1) != 1)
		return 1;
	if (read(pipefd[0], &c, 1) != 1)
		return 1;
	printf("%d\n", (int)hits);
	return hits == 4 ? 0 : 2;
}
