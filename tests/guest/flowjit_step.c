// SPDX-License-Identifier: GPL-2.0
/*
 * FlowJIT in the guest: the single-step of a store into its own code page
 * (self-modifying code), interrupted before its instruction has run.
 * Another thread forks (which write-protects the page for copy-on-write)
 * or changes the page's protection: the step must start again, not turn
 * into a fault loop. A debugger stops the thread: the page must not stay
 * writable and executable while the other threads run.
 *
 * The kernel's test hook /sys/kernel/debug/flowjit/step_delay_ms
 * (CONFIG_FLOWJIT_TEST) keeps the thread in the kernel, its step given,
 * for that long before it returns to user space to run the instruction.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "guest_harness.h"
#include "flowjit_util.h"

#define PAGE 4096
#define STEP_DELAY "/sys/kernel/debug/flowjit/step_delay_ms"

typedef int (*jit_fn)(void);

/* mov byte [rip + 1], 42; mov eax, 0 (its imm8 becomes 42); ret */
static const unsigned char smc[] = {
	0xc6, 0x05, 0x01, 0x00, 0x00, 0x00, 0x2a,
	0xb8, 0x00, 0x00, 0x00, 0x00,
	0xc3,
};

static struct fj_rec recs[FJ_MAX_EVENTS];

/* Records of process @pid on the page at @page: how many of @type. */
static int count_on(struct fj_rec *r, int n, pid_t pid, const void *page,
		    int type, unsigned int flags)
{
	int i, c = 0;

	for (i = 0; i < n; i++)
		c += (pid_t)r[i].ev.pid == pid && r[i].ev.addr == (uintptr_t)page &&
		     r[i].ev.type == type && (r[i].ev.flags & flags) == flags;
	return c;
}

static int set_step_delay(unsigned int ms)
{
	char text[16];

	snprintf(text, sizeof(text), "%u", ms);
	return proc_write(STEP_DELAY, text);
}

/* Is thread @tid of process @pid asleep in the kernel (state D)? */
static int in_step_delay(pid_t pid, pid_t tid)
{
	char path[64], buf[512], *p;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", pid, tid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	p = fgets(buf, sizeof(buf), f);
	fclose(f);
	p = p ? strrchr(buf, ')') : NULL;
	return p && p[1] == ' ' && p[2] == 'D';
}

/* Wait (10 s at most, scaled) until the thread sleeps in its step. */
static int wait_step_delay(pid_t pid, pid_t tid)
{
	int i;

	for (i = 0; i < 10000 * guest_time_scale(); i++) {
		if (in_step_delay(pid, tid))
			return 0;
		usleep(1000);
	}
	return -1;
}

static unsigned char *map_smc(void)
{
	unsigned char *code = mmap(NULL, PAGE, PROT_READ | PROT_WRITE | PROT_EXEC,
				   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (code == MAP_FAILED)
		return NULL;
	memcpy(code, smc, sizeof(smc));
	return code;
}

FIXTURE(step) {
	int dummy;
};

FIXTURE_SETUP(step)
{
	if (access(STEP_DELAY, W_OK))
		SKIP(return, "no %s (a kernel without CONFIG_FLOWJIT_TEST)", STEP_DELAY);
	ASSERT_EQ(0, fj_control("bufsize 8388608"));
	ASSERT_EQ(0, fj_reset());
}

FIXTURE_TEARDOWN(step)
{
	set_step_delay(0);
}

/* What the other thread does while the step waits. */
enum change { FORK, MPROTECT };

struct changer {
	pid_t pid, tid;		/* the stepping thread */
	unsigned char *code;
	enum change change;
	int ret;		/* 0, or what failed */
};

static void *change_the_page(void *arg)
{
	struct changer *c = arg;
	pid_t child;

	if (wait_step_delay(c->pid, c->tid)) {
		c->ret = 1;
		return NULL;
	}
	if (c->change == FORK) {
		/* the parent's PTE is write-protected for copy-on-write */
		child = fork();
		if (child == 0)
			_exit(0);
		c->ret = child < 0 || wait_exit_code(child) ? 2 : 0;
	} else {
		c->ret = mprotect(c->code, PAGE, PROT_READ | PROT_EXEC) ||
			 mprotect(c->code, PAGE, PROT_READ | PROT_WRITE | PROT_EXEC) ? 3 : 0;
	}
	return NULL;
}

/*
 * Run the store while another thread makes the @change to its page
 * during the step. A fault loop would never return: SIGALRM ends the
 * test then.
 */
static void step_interrupted(struct __test_metadata *_metadata, enum change change)
{
	struct changer c = { .pid = getpid(), .tid = gettid(), .change = change };
	int n, steps;
	pthread_t t;

	ASSERT_EQ(0, fj_enable(0));
	c.code = map_smc();
	ASSERT_NE(NULL, c.code);
	ASSERT_EQ(0, set_step_delay(500 * guest_time_scale()));
	ASSERT_EQ(0, pthread_create(&t, NULL, change_the_page, &c));
	alarm(20 * guest_time_scale());
	EXPECT_EQ(42, ((jit_fn)c.code)());
	alarm(0);
	ASSERT_EQ(0, set_step_delay(0));
	pthread_join(t, NULL);
	ASSERT_EQ(0, c.ret) TH_LOG("1: the step never waited; 2: fork; 3: mprotect");
	n = fj_drain(recs, FJ_MAX_EVENTS);
	steps = count_on(recs, n, getpid(), c.code, FLOWJIT_EV_EXEC, FLOWJIT_EVF_STEP);
	/* the first step, interrupted, and the one after the change */
	EXPECT_EQ(2, steps);
	EXPECT_GE(4, count_on(recs, n, getpid(), c.code, FLOWJIT_EV_WRITE, 0));
}

TEST_F(step, fork_during_a_step_restarts_it)
{
	step_interrupted(_metadata, FORK);
}

TEST_F(step, mprotect_during_a_step_restarts_it)
{
	step_interrupted(_metadata, MPROTECT);
}

/*
 * The traced process: its main thread runs the store, a second thread
 * writes into the code page when the debugger says so (@go), then
 * answers on @done.
 */
struct stopped {
	unsigned char *code;
	int go, done;
};

static void *write_when_told(void *arg)
{
	struct stopped *s = arg;
	char c;

	if (read(s->go, &c, 1) != 1)
		return NULL;
	s->code[64] = 0x90;		/* not run: a write the log must show */
	c = 1;
	if (write(s->done, &c, 1) != 1)
		return NULL;
	return NULL;
}

static int stopped_child(unsigned char *code, int start, int go, int done)
{
	struct stopped s = { .code = code, .go = go, .done = done };
	pthread_t t;
	char c;
	int ret;

	if (read(start, &c, 1) != 1 || fj_enable(0) ||
	    pthread_create(&t, NULL, write_when_told, &s))
		return 1;
	ret = ((jit_fn)code)();
	pthread_join(t, NULL);
	return ret == 42 ? 0 : 2;
}

/*
 * A debugger stops the thread (PTRACE_INTERRUPT) while its step waits:
 * the page must be write-protected again before the thread stops, so
 * that the other thread's write into it while it is stopped faults and
 * is logged.
 */
TEST_F(step, a_stopped_step_leaves_no_writable_code)
{
	int start[2], go[2], done[2], status, n;
	unsigned char *code = map_smc();
	pid_t pid;
	char c = 1;

	ASSERT_NE(NULL, code);
	ASSERT_EQ(0, pipe(start));
	ASSERT_EQ(0, pipe(go));
	ASSERT_EQ(0, pipe(done));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0)
		_exit(stopped_child(code, start[0], go[0], done[1]));
	ASSERT_EQ(0, ptrace(PTRACE_SEIZE, pid, NULL, NULL));
	ASSERT_EQ(0, set_step_delay(1000 * guest_time_scale()));
	ASSERT_EQ(1, write(start[1], &c, 1));
	ASSERT_EQ(0, wait_step_delay(pid, pid)) TH_LOG("the store was not stepped");
	ASSERT_EQ(0, ptrace(PTRACE_INTERRUPT, pid, NULL, NULL));
	ASSERT_EQ(pid, waitpid(pid, &status, __WALL));
	ASSERT_TRUE(WIFSTOPPED(status));
	ASSERT_EQ(PTRACE_EVENT_STOP, status >> 16) TH_LOG("status %#x", status);
	ASSERT_EQ(0, set_step_delay(0));
	n = fj_drain(recs, FJ_MAX_EVENTS);
	ASSERT_EQ(1, count_on(recs, n, pid, code, FLOWJIT_EV_EXEC, FLOWJIT_EVF_STEP));

	/* the thread is stopped, its step given: the other thread writes */
	ASSERT_EQ(1, write(go[1], &c, 1));
	ASSERT_EQ(1, read(done[0], &c, 1));
	n = fj_drain(recs, FJ_MAX_EVENTS);
	EXPECT_EQ(1, count_on(recs, n, pid, code, FLOWJIT_EV_WRITE, 0))
		TH_LOG("a write into a stopped step's page was not seen");

	ASSERT_EQ(0, ptrace(PTRACE_DETACH, pid, NULL, NULL));
	EXPECT_EQ(0, wait_exit_code(pid));
}

TEST_HARNESS_MAIN
