// SPDX-License-Identifier: GPL-2.0
/*
 * FlowJIT in the guest: RWX and W^X JITs, self-modifying code, threads,
 * fork, munmap/mremap, real protection faults, permissions, overflow.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <linux/capability.h>
#include <x86intrin.h>

#include "guest_harness.h"
#include "flowjit_util.h"

#define PAGE 4096

typedef int (*jit_fn)(void);

static struct fj_rec *recs;

static int drain_pid(pid_t pid, struct fj_rec **out)
{
	int n, i, k = 0;

	if (!recs)
		recs = malloc(sizeof(*recs) * FJ_MAX_EVENTS);
	n = fj_drain(recs, FJ_MAX_EVENTS);
	for (i = 0; i < n; i++)
		if ((pid_t)recs[i].ev.pid == pid || recs[i].ev.type == FLOWJIT_EV_LOST)
			memmove(&recs[k++], &recs[i], sizeof(recs[i]));
	*out = recs;
	return n < 0 ? n : k;
}

static int count_type(struct fj_rec *r, int n, int type)
{
	int i, c = 0;

	for (i = 0; i < n; i++)
		c += r[i].ev.type == type;
	return c;
}

FIXTURE(fj) {
	int dummy;
};

FIXTURE_SETUP(fj)
{
	ASSERT_EQ(0, access("/proc/flowjit/control", F_OK));
	ASSERT_EQ(0, fj_control("bufsize 8388608"));
	ASSERT_EQ(0, fj_reset());
}

FIXTURE_TEARDOWN(fj)
{
}

TEST_F(fj, prctl_get_reports_state)
{
	EXPECT_EQ(0, prctl(PR_FLOWJIT, FLOWJIT_OP_GET, 0, 0, 0));
	ASSERT_EQ(0, fj_enable(FLOWJIT_F_INHERIT));
	EXPECT_EQ(FLOWJIT_F_TRACKED | FLOWJIT_F_INHERIT,
		  prctl(PR_FLOWJIT, FLOWJIT_OP_GET, 0, 0, 0));
	EXPECT_EQ(-EINVAL, fj_enable(0x100));
	ASSERT_EQ(0, fj_disable());
	EXPECT_EQ(0, prctl(PR_FLOWJIT, FLOWJIT_OP_GET, 0, 0, 0));
}

/* Every version of code rewritten in place in an RWX page is seen. */
TEST_F(fj, rwx_jit_every_version)
{
	const int versions = 50;
	unsigned char *code;
	struct fj_rec *r;
	int i, n, exec = 0;
	uint64_t last_tsc = 0;

	ASSERT_EQ(0, fj_enable(0));
	code = mmap(NULL, PAGE, PROT_READ | PROT_WRITE | PROT_EXEC,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, code);
	for (i = 0; i < versions; i++) {
		emit_ret_imm(code, 1000 + i);
		ASSERT_EQ(1000 + i, ((jit_fn)code)());
	}
	n = drain_pid(getpid(), &r);
	ASSERT_LT(0, n);
	EXPECT_EQ(0, count_type(r, n, FLOWJIT_EV_LOST));
	EXPECT_EQ(versions, count_type(r, n, FLOWJIT_EV_EXEC));
	EXPECT_EQ(versions - 1, count_type(r, n, FLOWJIT_EV_WRITE));
	for (i = 0; i < n; i++) {
		struct flowjit_event *ev = &r[i].ev;
		uint32_t v;

		EXPECT_LE(last_tsc, ev->tsc);
		last_tsc = ev->tsc;
		if (ev->type != FLOWJIT_EV_EXEC)
			continue;
		EXPECT_EQ((uintptr_t)code, ev->ip);
		EXPECT_EQ((uintptr_t)code, ev->addr);
		ASSERT_TRUE(ev->flags & FLOWJIT_EVF_PAYLOAD);
		memcpy(&v, r[i].page + 1, 4);
		EXPECT_EQ(0xb8, r[i].page[0]);
		EXPECT_EQ(1000u + exec, v);
		exec++;
	}
	munmap(code, PAGE);
}

/* A JIT that flips RW <-> RX with mprotect (as LuaJIT does). */
TEST_F(fj, wx_mprotect_jit)
{
	unsigned char *code;
	struct fj_rec *r;
	int i, n, exec = 0;

	ASSERT_EQ(0, fj_enable(0));
	code = mmap(NULL, 2 * PAGE, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, code);
	for (i = 0; i < 10; i++) {
		ASSERT_EQ(0, mprotect(code, 2 * PAGE, PROT_READ | PROT_WRITE));
		emit_ret_imm(code + PAGE + 16, 7 * i);
		ASSERT_EQ(0, mprotect(code, 2 * PAGE, PROT_READ | PROT_EXEC));
		ASSERT_EQ(7 * i, ((jit_fn)(code + PAGE + 16))());
	}
	n = drain_pid(getpid(), &r);
	EXPECT_EQ(10, count_type(r, n, FLOWJIT_EV_EXEC));
	EXPECT_EQ(20, count_type(r, n, FLOWJIT_EV_MPROTECT));
	for (i = 0; i < n; i++) {
		uint32_t v;

		if (r[i].ev.type != FLOWJIT_EV_EXEC)
			continue;
		EXPECT_EQ((uintptr_t)code + PAGE + 16, r[i].ev.ip);
		EXPECT_EQ((uintptr_t)code + PAGE, r[i].ev.addr);
		memcpy(&v, r[i].page + 16 + 1, 4);
		EXPECT_EQ(7u * exec, v);
		exec++;
	}
}

/*
 * Code that rewrites an instruction in its own page and then runs it:
 *   mov byte [rip + off], 0x2a ; patches the imm8 of the mov below
 *   mov eax, 0x00 (imm32)      ; becomes 0x2a
 *   ret
 */
static const unsigned char smc[] = {
	0xc6, 0x05, 0x01, 0x00, 0x00, 0x00, 0x2a,	/* mov byte [rip+1], 42 */
	0xb8, 0x00, 0x00, 0x00, 0x00,			/* mov eax, 0 */
	0xc3,						/* ret */
};

TEST_F(fj, self_modifying_code)
{
	unsigned char *code;
	struct fj_rec *r;
	int n, i, execs = 0, writes = 0;

	ASSERT_EQ(0, fj_enable(0));
	code = mmap(NULL, PAGE, PROT_READ | PROT_WRITE | PROT_EXEC,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, code);
	memcpy(code, smc, sizeof(smc));
	ASSERT_EQ(42, ((jit_fn)code)());
	n = drain_pid(getpid(), &r);
	/*
	 * EXEC (original code), WRITE (by the store), EXEC marked STEP (the
	 * store runs from a W+X page, original code), EXEC after the store
	 * at the next instruction, with the new immediate.
	 */
	for (i = 0; i < n; i++) {
		if (r[i].ev.type == FLOWJIT_EV_EXEC) {
			EXPECT_EQ(execs == 2 ? 42 : 0, r[i].page[8]);
			EXPECT_EQ((uintptr_t)code + (execs == 2 ? 7 : 0), r[i].ev.ip);
			EXPECT_EQ(execs == 1, !!(r[i].ev.flags & FLOWJIT_EVF_STEP));
			execs++;
		} else if (r[i].ev.type == FLOWJIT_EV_WRITE) {
			/* the store's own IP */
			EXPECT_EQ((uintptr_t)code, r[i].ev.ip);
			writes++;
		}
	}
	EXPECT_EQ(3, execs);
	EXPECT_EQ(1, writes);
	/* It keeps working when run again. */
	code[8] = 0;
	ASSERT_EQ(42, ((jit_fn)code)());
}

/* EXEC events of the page at @page marked STEP. */
static int count_steps(struct fj_rec *r, int n, const void *page)
{
	int i, c = 0;

	for (i = 0; i < n; i++)
		c += r[i].ev.type == FLOWJIT_EV_EXEC && r[i].ev.addr == (uintptr_t)page &&
		     (r[i].ev.flags & FLOWJIT_EVF_STEP);
	return c;
}

/*
 * Page 0: "mov dword [rip + PAGE + 6], 42; ret" stores into page 1.
 * Its write fault on page 1 is not a store into its own code page, so
 * a later exec fault on page 0 at the same IP (after the kernel wrote
 * page 0) must not single-step page 0.
 */
TEST_F(fj, smc_step_only_for_a_store_into_its_own_page)
{
	static const unsigned char store[] = {
		0xc7, 0x05, 0x06, 0x10, 0x00, 0x00, 0x2a, 0x00, 0x00, 0x00,	/* PAGE + 6 */
		0xc3,
	};
	unsigned char *code, nop = 0x90;
	struct fj_rec *r;
	int n, fds[2];

	ASSERT_EQ(0, fj_enable(0));
	code = mmap(NULL, 2 * PAGE, PROT_READ | PROT_WRITE | PROT_EXEC,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, code);
	memcpy(code, store, sizeof(store));
	code[PAGE] = 0xc3;
	((jit_fn)(code + PAGE))();		/* page 1 executable, read-only */
	((jit_fn)code)();			/* its store: a write fault on page 1 */
	EXPECT_EQ(42, code[PAGE + 16]);
	/* the kernel writes page 0: not executable until its next fetch */
	ASSERT_EQ(0, pipe(fds));
	ASSERT_EQ(1, write(fds[1], &nop, 1));
	ASSERT_EQ(1, read(fds[0], code + sizeof(store), 1));
	((jit_fn)code)();			/* the exec fault, at the same IP */
	n = drain_pid(getpid(), &r);
	EXPECT_EQ(0, count_steps(r, n, code));
	EXPECT_EQ(3, count_type(r, n, FLOWJIT_EV_EXEC));
	close(fds[0]);
	close(fds[1]);
}

static sigjmp_buf smc_env;

static void smc_segv(int sig)
{
	siglongjmp(smc_env, 1);
}

/*
 * At PAGE - 16: "mov qword [rip + 1], 42; ret", a store into its own
 * code page that also writes the next page, PROT_NONE. FlowJIT steps
 * it on the page made W+X, the store faults on the next page before
 * the step ends, and the SIGSEGV handler never returns to it
 * (siglongjmp). The step must end with the signal: the page is
 * write-protected again (a write to it is logged) and self-modifying
 * code is stepped again, not faulted on for ever.
 */
/* At PAGE - 16 of two pages, the second PROT_NONE: a store across both. */
static const unsigned char split_store[] = {
	0x48, 0xc7, 0x05, 0x01, 0x00, 0x00, 0x00, 0x2a, 0x00, 0x00, 0x00,	/* mov qword [rip+1], 42 */
	0xc3,									/* ret */
};

static unsigned char *map_split_store(void)
{
	unsigned char *code = mmap(NULL, 2 * PAGE, PROT_READ | PROT_WRITE | PROT_EXEC,
				   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (code == MAP_FAILED || mprotect(code + PAGE, PAGE, PROT_NONE))
		return NULL;
	memcpy(code + PAGE - 16, split_store, sizeof(split_store));
	return code;
}

TEST_F(fj, smc_step_ends_with_a_signal)
{
	struct sigaction sa = { .sa_handler = smc_segv }, old;
	unsigned char *code;
	struct fj_rec *r;
	int n;

	ASSERT_EQ(0, fj_enable(0));
	code = map_split_store();
	ASSERT_NE(NULL, code);
	ASSERT_EQ(0, sigaction(SIGSEGV, &sa, &old));
	if (!sigsetjmp(smc_env, 1))
		((jit_fn)(code + PAGE - 16))();
	ASSERT_EQ(0, sigaction(SIGSEGV, &old, NULL));
	n = drain_pid(getpid(), &r);
	ASSERT_EQ(1, count_steps(r, n, code)) TH_LOG("the store was not stepped");

	code[0] = 0xc3;
	n = drain_pid(getpid(), &r);
	EXPECT_EQ(1, count_type(r, n, FLOWJIT_EV_WRITE));
	/* a fault loop would never return: SIGALRM ends the test */
	memcpy(code, smc, sizeof(smc));
	alarm(10 * guest_time_scale());
	EXPECT_EQ(42, ((jit_fn)code)());
	alarm(0);
	n = drain_pid(getpid(), &r);
	EXPECT_EQ(1, count_steps(r, n, code));
}

/*
 * self_modifying_code()'s store into its own page in a shared RWX
 * mapping (shared anonymous memory, then a memfd): making the page
 * executable write-protects every shared mapping of it, the stepped
 * store's own included, which must not turn the step into a fault loop
 * (SIGALRM ends the test if it does).
 */
TEST_F(fj, smc_in_a_shared_mapping)
{
	const char *what[] = { "shared anonymous", "memfd" };
	unsigned char *code;
	struct fj_rec *r;
	int i, n, fd;

	ASSERT_EQ(0, fj_enable(0));
	for (i = 0; i < 2; i++) {
		fd = i ? memfd_create("flowjit-smc", 0) : -1;
		ASSERT_TRUE(!i || (fd >= 0 && !ftruncate(fd, PAGE)));
		code = mmap(NULL, PAGE, PROT_READ | PROT_WRITE | PROT_EXEC,
			    MAP_SHARED | (i ? 0 : MAP_ANONYMOUS), fd, 0);
		ASSERT_NE(MAP_FAILED, code);
		memcpy(code, smc, sizeof(smc));
		alarm(10 * guest_time_scale());
		EXPECT_EQ(42, ((jit_fn)code)()) TH_LOG("%s", what[i]);
		alarm(0);
		n = drain_pid(getpid(), &r);
		EXPECT_EQ(1, count_steps(r, n, code)) TH_LOG("%s", what[i]);
		munmap(code, PAGE);
		if (fd >= 0)
			close(fd);
	}
}

/*
 * A store from an instruction that straddles two pages into the second
 * one: it needs both executable and the second writable, so it must be
 * stepped like a store into its own page, not faulted on for ever.
 *   PAGE - 3: mov byte [rip+1], 42 (ends at PAGE + 4)
 *   PAGE + 4: mov eax, 0; ret
 */
TEST_F(fj, smc_store_from_an_instruction_across_pages)
{
	unsigned char *code;
	struct fj_rec *r;
	int n;

	ASSERT_EQ(0, fj_enable(0));
	code = mmap(NULL, 2 * PAGE, PROT_READ | PROT_WRITE | PROT_EXEC,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, code);
	memcpy(code + PAGE - 3, smc, sizeof(smc));
	alarm(10 * guest_time_scale());
	EXPECT_EQ(42, ((jit_fn)(code + PAGE - 3))());
	alarm(0);
	EXPECT_EQ(42, code[PAGE + 5]);
	n = drain_pid(getpid(), &r);
	EXPECT_EQ(1, count_steps(r, n, code + PAGE));
}

/* The debugger's child: 0 if the step ended, or what went wrong. */
static int debugged_split_store(void)
{
	unsigned char *code;
	struct fj_rec *r;
	int n, steps;

	if (ptrace(PTRACE_TRACEME, 0, NULL, NULL) || raise(SIGSTOP) ||
	    fj_enable(0) || !(code = map_split_store()))
		return 1;
	((jit_fn)(code + PAGE - 16))();	/* the debugger skips the store */
	n = drain_pid(getpid(), &r);
	steps = count_steps(r, n, code);
	code[0] = 0xc3;
	n = drain_pid(getpid(), &r);
	if (steps != 1)
		return 2;	/* not stepped: the test shows nothing */
	return count_type(r, n, FLOWJIT_EV_WRITE) == 1 ? 0 : 3;
}

/*
 * A debugger stops the thread at the SIGSEGV of the split store (its
 * step has not run), moves it past the store, clears the trap flag and
 * cancels the signal. The step ended before the thread stopped: the
 * debugger does not see FlowJIT's trap flag, and the page is
 * write-protected again (a write to it is logged).
 */
TEST_F(fj, smc_step_is_hidden_from_a_debugger)
{
	struct user_regs_struct regs;
	int status;
	pid_t pid = fork();

	ASSERT_LE(0, pid);
	if (pid == 0)
		_exit(debugged_split_store());
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFSTOPPED(status));
	ASSERT_EQ(SIGSTOP, WSTOPSIG(status));
	ASSERT_EQ(0, ptrace(PTRACE_CONT, pid, NULL, NULL));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFSTOPPED(status));
	ASSERT_EQ(SIGSEGV, WSTOPSIG(status));
	ASSERT_EQ(0, ptrace(PTRACE_GETREGS, pid, NULL, &regs));
	EXPECT_EQ(0, regs.eflags & 0x100) TH_LOG("the debugger sees FlowJIT's TF");
	regs.rip += 11;			/* to the ret */
	regs.eflags &= ~0x100ULL;
	ASSERT_EQ(0, ptrace(PTRACE_SETREGS, pid, NULL, &regs));
	ASSERT_EQ(0, ptrace(PTRACE_CONT, pid, NULL, NULL));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status)) TH_LOG("status %#x", status);
	EXPECT_EQ(0, WEXITSTATUS(status)) TH_LOG("2: not stepped; 3: write not seen");
}

/* A write to a really read-only page still gets SIGSEGV. */
TEST_F(fj, readonly_write_still_segfaults)
{
	unsigned char *code;
	int status;
	pid_t pid;

	ASSERT_EQ(0, fj_enable(0));
	code = mmap(NULL, PAGE, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, code);
	emit_ret_imm(code, 5);
	ASSERT_EQ(0, mprotect(code, PAGE, PROT_READ | PROT_EXEC));
	ASSERT_EQ(5, ((jit_fn)code)());
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		code[0] = 0x90;
		_exit(0);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFSIGNALED(status));
	EXPECT_EQ(SIGSEGV, WTERMSIG(status));
	/* Executing a non-executable page too. */
	ASSERT_EQ(0, mprotect(code, PAGE, PROT_READ));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0)
		_exit(((jit_fn)code)());
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFSIGNALED(status));
	EXPECT_EQ(SIGSEGV, WTERMSIG(status));
}

static int run_child_jit(unsigned char *code, int v)
{
	emit_ret_imm(code, v);
	return ((jit_fn)code)() == v ? 0 : 1;
}

/* fork with inherit: child tracked; without: child runs untracked. */
TEST_F(fj, fork_with_and_without_inherit)
{
	unsigned char *code;
	struct fj_rec *r;
	int status, n, i, flags, child_exec;
	pid_t pid;

	for (flags = 0; flags <= FLOWJIT_F_INHERIT; flags += FLOWJIT_F_INHERIT) {
		ASSERT_EQ(0, fj_reset());
		ASSERT_EQ(0, fj_enable(flags));
		code = mmap(NULL, PAGE, PROT_READ | PROT_WRITE | PROT_EXEC,
			    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		ASSERT_NE(MAP_FAILED, code);
		ASSERT_EQ(0, run_child_jit(code, 1));
		pid = fork();
		ASSERT_LE(0, pid);
		if (pid == 0)
			_exit(run_child_jit(code, 2) | run_child_jit(code, 3));
		ASSERT_EQ(pid, waitpid(pid, &status, 0));
		ASSERT_TRUE(WIFEXITED(status));
		EXPECT_EQ(0, WEXITSTATUS(status));
		/* The parent's page is untouched by the child (COW). */
		EXPECT_EQ(1, ((jit_fn)code)());
		n = drain_pid(pid, &r);
		child_exec = count_type(r, n, FLOWJIT_EV_EXEC);
		if (flags) {
			EXPECT_EQ(2, child_exec);
			for (i = 0; i < n; i++)
				if (r[i].ev.type == FLOWJIT_EV_EXEC)
					EXPECT_EQ((uintptr_t)code, r[i].ev.addr);
		} else {
			EXPECT_EQ(0, child_exec);
		}
		munmap(code, PAGE);
		ASSERT_EQ(0, fj_disable());
	}
}

static unsigned char *mt_code;
static volatile int mt_stop;

static void *writer(void *arg)
{
	uint32_t v;

	for (v = 0; !mt_stop; v = (v + 1) % 1000)
		emit_ret_imm(mt_code, v);
	return NULL;
}

/* One thread rewrites the code, another runs it. */
TEST_F(fj, writer_and_executor_threads)
{
	pthread_t t;
	int i, ret, bad = 0, n;
	struct fj_rec *r;

	ASSERT_EQ(0, fj_enable(0));
	mt_code = mmap(NULL, PAGE, PROT_READ | PROT_WRITE | PROT_EXEC,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, mt_code);
	emit_ret_imm(mt_code, 0);
	ASSERT_EQ(0, pthread_create(&t, NULL, writer, NULL));
	for (i = 0; i < 2000; i++) {
		ret = ((jit_fn)mt_code)();
		if (ret < 0 || ret >= 1000)
			bad++;
	}
	mt_stop = 1;
	pthread_join(t, NULL);
	EXPECT_EQ(0, bad);
	n = drain_pid(getpid(), &r);
	/* Every EXEC snapshot holds a complete instruction. */
	for (i = 0; i < n; i++) {
		if (r[i].ev.type != FLOWJIT_EV_EXEC)
			continue;
		EXPECT_EQ(0xb8, r[i].page[0]);
		EXPECT_EQ(0xc3, r[i].page[5]);
	}
	EXPECT_LT(0, count_type(r, n, FLOWJIT_EV_EXEC));
}

/* munmap and mremap of tracked code are logged; moved code re-snapshots. */
TEST_F(fj, munmap_and_mremap)
{
	unsigned char *code, *moved;
	struct fj_rec *r;
	int n, i, exec_new = 0, unmaps = 0, remaps = 0;

	ASSERT_EQ(0, fj_enable(0));
	code = mmap(NULL, 2 * PAGE, PROT_READ | PROT_WRITE | PROT_EXEC,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, code);
	emit_ret_imm(code, 11);
	ASSERT_EQ(11, ((jit_fn)code)());
	moved = mremap(code, 2 * PAGE, 2 * PAGE, MREMAP_MAYMOVE | MREMAP_FIXED,
		       code + 64 * PAGE);
	ASSERT_NE(MAP_FAILED, moved);
	ASSERT_EQ(11, ((jit_fn)moved)());
	ASSERT_EQ(0, munmap(moved, 2 * PAGE));
	n = drain_pid(getpid(), &r);
	for (i = 0; i < n; i++) {
		exec_new += r[i].ev.type == FLOWJIT_EV_EXEC &&
			    r[i].ev.addr == (uintptr_t)moved;
		remaps += r[i].ev.type == FLOWJIT_EV_MREMAP &&
			  r[i].ev.addr == (uintptr_t)moved &&
			  r[i].ev.aux == (uintptr_t)code;
		unmaps += r[i].ev.type == FLOWJIT_EV_MUNMAP &&
			  r[i].ev.addr == (uintptr_t)moved;
	}
	EXPECT_EQ(1, exec_new);
	EXPECT_EQ(1, remaps);
	EXPECT_EQ(1, unmaps);
}

/*
 * mremap() that moves a page of code and grows it to two: the record
 * says one page moved (the length that moved, not the new one), and
 * the page after the old one, still someone else's code, is not
 * reported as moved.
 */
TEST_F(fj, mremap_that_grows_logs_the_length_moved)
{
	unsigned char *code, *moved;
	struct fj_rec *r;
	int n, i, remaps = 0;

	ASSERT_EQ(0, fj_enable(0));
	/* two pages, the second one a mapping of its own */
	code = mmap(NULL, 2 * PAGE, PROT_READ | PROT_WRITE | PROT_EXEC,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, code);
	ASSERT_EQ(0, mprotect(code + PAGE, PAGE, PROT_READ | PROT_EXEC));
	emit_ret_imm(code, 12);
	ASSERT_EQ(12, ((jit_fn)code)());
	moved = mremap(code, PAGE, 2 * PAGE, MREMAP_MAYMOVE);
	ASSERT_NE(MAP_FAILED, moved);
	ASSERT_NE(code, moved);
	ASSERT_EQ(12, ((jit_fn)moved)());
	n = drain_pid(getpid(), &r);
	for (i = 0; i < n; i++) {
		if (r[i].ev.type != FLOWJIT_EV_MREMAP)
			continue;
		remaps++;
		EXPECT_EQ((uintptr_t)moved, r[i].ev.addr);
		EXPECT_EQ((uintptr_t)code, r[i].ev.aux);
		EXPECT_EQ(PAGE, r[i].ev.len);
	}
	EXPECT_EQ(1, remaps);
}

/*
 * An munmap() that fails (splitting the mapping would pass
 * vm.max_map_count) unmaps nothing: no MUNMAP record, and the code
 * still runs without a new snapshot.
 */
TEST_F(fj, failed_munmap_is_not_logged)
{
	char old[32] = "", now[32];
	unsigned char *code;
	struct fj_rec *r;
	int n, maps = 0, ret, err;
	FILE *f;

	ASSERT_EQ(0, fj_enable(0));
	code = mmap(NULL, 3 * PAGE, PROT_READ | PROT_WRITE | PROT_EXEC,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, code);
	emit_ret_imm(code, 13);
	ASSERT_EQ(13, ((jit_fn)code)());
	f = fopen("/proc/self/maps", "r");
	ASSERT_NE(NULL, f);
	while (fgets(now, sizeof(now), f))
		maps += !!strchr(now, '\n');
	fclose(f);
	file_read("/proc/sys/vm/max_map_count", old, sizeof(old));
	ASSERT_NE(0, old[0]);
	snprintf(now, sizeof(now), "%d", maps);
	ASSERT_EQ(0, proc_write("/proc/sys/vm/max_map_count", now));
	drain_pid(getpid(), &r);
	/* a hole in the middle: one mapping more */
	ret = munmap(code + PAGE, PAGE);
	err = errno;
	ASSERT_EQ(0, proc_write("/proc/sys/vm/max_map_count", old));
	ASSERT_EQ(-1, ret);
	ASSERT_EQ(ENOMEM, err);
	ASSERT_EQ(13, ((jit_fn)code)());
	n = drain_pid(getpid(), &r);
	EXPECT_EQ(0, count_type(r, n, FLOWJIT_EV_MUNMAP));
	EXPECT_EQ(0, count_type(r, n, FLOWJIT_EV_EXEC));
}

/* A tiny ring and a fast JIT: seen + dropped = offered, exactly. */
TEST_F(fj, overflow_is_counted_exactly)
{
	const int versions = 200;
	unsigned char *code;
	struct fj_rec *r;
	int i, n, seen = 0;
	uint64_t lost = 0;

	ASSERT_EQ(0, fj_control("bufsize 65536"));
	ASSERT_EQ(0, fj_reset());
	ASSERT_EQ(0, fj_enable(0));
	code = mmap(NULL, PAGE, PROT_READ | PROT_WRITE | PROT_EXEC,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, code);
	for (i = 0; i < versions; i++) {
		emit_ret_imm(code, i);
		ASSERT_EQ(i, ((jit_fn)code)());
	}
	ASSERT_EQ(0, fj_disable());
	n = drain_pid(getpid(), &r);
	for (i = 0; i < n; i++) {
		if (r[i].ev.type == FLOWJIT_EV_LOST)
			lost += r[i].ev.aux;
		else if (r[i].ev.type == FLOWJIT_EV_EXEC || r[i].ev.type == FLOWJIT_EV_WRITE)
			seen++;
	}
	TH_LOG("seen %d lost %llu", seen, (unsigned long long)lost);
	EXPECT_LT(0, lost);
	/* TRACK, EXEC x versions, WRITE x (versions - 1), UNTRACK */
	EXPECT_EQ(2 * versions - 1 + 2, seen + lost +
		  count_type(r, n, FLOWJIT_EV_TRACK) + count_type(r, n, FLOWJIT_EV_UNTRACK));
	ASSERT_EQ(0, fj_control("bufsize 8388608"));
}

/* An unprivileged process cannot use the control file at all. */
TEST_F(fj, unprivileged_cannot_track_others)
{
	int status;
	pid_t pid = fork();

	ASSERT_LE(0, pid);
	if (pid == 0) {
		if (setgid(65534) || setuid(65534))
			_exit(2);
		_exit(fj_control("track 1") == -EACCES ? 0 : 1);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
}

/*
 * Root without CAP_SYS_PTRACE cannot track a process of another user:
 * "track" follows ptrace attach rules, since snapshots expose memory.
 */
TEST_F(fj, track_needs_ptrace_access)
{
	struct __user_cap_header_struct hdr = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct data[2] = { };
	char cmd[64];
	int status, p[2], ready[2];
	pid_t victim, tracker;
	char c;

	ASSERT_EQ(0, pipe(p));
	ASSERT_EQ(0, pipe(ready));
	victim = fork();
	ASSERT_LE(0, victim);
	if (victim == 0) {
		if (setgid(65534) || setuid(65534))
			_exit(2);
		close(p[1]);
		/* another user now: tell the test, then wait until it is done */
		if (write(ready[1], "r", 1) != 1)
			_exit(3);
		read(p[0], &c, 1);
		_exit(0);
	}
	close(p[0]);
	close(ready[1]);
	ASSERT_EQ(1, read(ready[0], &c, 1));
	close(ready[0]);
	snprintf(cmd, sizeof(cmd), "track %d", victim);
	tracker = fork();
	ASSERT_LE(0, tracker);
	if (tracker == 0) {
		if (syscall(SYS_capget, &hdr, data))
			_exit(2);
		data[0].effective &= ~(1u << CAP_SYS_PTRACE);
		if (syscall(SYS_capset, &hdr, data))
			_exit(3);
		_exit(fj_control(cmd) == -EPERM ? 0 : 1);
	}
	ASSERT_EQ(tracker, waitpid(tracker, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
	/* With the capability, root may. */
	EXPECT_EQ(0, fj_control(cmd));
	snprintf(cmd, sizeof(cmd), "untrack %d", victim);
	EXPECT_EQ(0, fj_control(cmd));
	close(p[1]);
	waitpid(victim, &status, 0);
}

TEST_F(fj, control_rejects_bad_input)
{
	EXPECT_EQ(-EINVAL, fj_control("frobnicate"));
	EXPECT_EQ(-EINVAL, fj_control("track"));
	EXPECT_EQ(-EINVAL, fj_control("track 1 sideways"));
	EXPECT_EQ(-ESRCH, fj_control("track 999999"));
	EXPECT_EQ(-EINVAL, fj_control("bufsize 10"));
}

/* Tracking follows execve; exit ends it with UNTRACK. */
TEST_F(fj, execve_keeps_tracking_and_exit_untracks)
{
	struct fj_rec *r;
	int status, n, i, execve = 0, untrack = 0;
	pid_t pid = fork();

	ASSERT_LE(0, pid);
	if (pid == 0) {
		if (fj_enable(0))
			_exit(3);
		/* The child re-executes this test binary in "jit" mode. */
		execl("/proc/self/exe", "flowjit_basic", "--jit-child", NULL);
		_exit(4);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	ASSERT_EQ(0, WEXITSTATUS(status));
	n = drain_pid(pid, &r);
	for (i = 0; i < n; i++) {
		execve += r[i].ev.type == FLOWJIT_EV_EXECVE;
		untrack += r[i].ev.type == FLOWJIT_EV_UNTRACK;
	}
	EXPECT_EQ(1, execve);
	EXPECT_EQ(1, untrack);
	/* The exec'd program's JIT ran three versions, all seen. */
	EXPECT_EQ(3, count_type(r, n, FLOWJIT_EV_EXEC));
	/* Nothing is tracked any more: no state left behind. */
	EXPECT_EQ(0, prctl(PR_FLOWJIT, FLOWJIT_OP_GET, 0, 0, 0));
}

/* MAP_FIXED over tracked code is an unmap, and new code is seen. */
TEST_F(fj, map_fixed_over_code)
{
	unsigned char *code, *again;
	struct fj_rec *r;
	int n, i, unmaps = 0;

	ASSERT_EQ(0, fj_enable(0));
	code = mmap(NULL, PAGE, PROT_READ | PROT_WRITE | PROT_EXEC,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, code);
	emit_ret_imm(code, 1);
	ASSERT_EQ(1, ((jit_fn)code)());
	again = mmap(code, PAGE, PROT_READ | PROT_WRITE | PROT_EXEC,
		     MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
	ASSERT_EQ(code, again);
	emit_ret_imm(code, 2);
	ASSERT_EQ(2, ((jit_fn)code)());
	n = drain_pid(getpid(), &r);
	for (i = 0; i < n; i++)
		unmaps += r[i].ev.type == FLOWJIT_EV_MUNMAP &&
			  r[i].ev.addr == (uintptr_t)code;
	EXPECT_EQ(1, unmaps);
	EXPECT_EQ(2, count_type(r, n, FLOWJIT_EV_EXEC));
}

/* A write by the kernel (read() into the code page) flips it too. */
TEST_F(fj, kernel_write_is_seen)
{
	unsigned char *code, buf[6];
	struct fj_rec *r;
	int n, i, fds[2], kwrites = 0;

	ASSERT_EQ(0, fj_enable(0));
	code = mmap(NULL, PAGE, PROT_READ | PROT_WRITE | PROT_EXEC,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, code);
	emit_ret_imm(code, 1);
	ASSERT_EQ(1, ((jit_fn)code)());
	emit_ret_imm(buf, 77);
	ASSERT_EQ(0, pipe(fds));
	ASSERT_EQ(6, write(fds[1], buf, 6));
	ASSERT_EQ(6, read(fds[0], code, 6));
	ASSERT_EQ(77, ((jit_fn)code)());
	n = drain_pid(getpid(), &r);
	for (i = 0; i < n; i++)
		kwrites += r[i].ev.type == FLOWJIT_EV_WRITE &&
			   (r[i].ev.flags & FLOWJIT_EVF_KERNEL);
	EXPECT_EQ(1, kwrites);
	EXPECT_EQ(2, count_type(r, n, FLOWJIT_EV_EXEC));
	close(fds[0]);
	close(fds[1]);
}

/* AnonHugePages of this process after filling an 8 MiB RWX mapping. */
static long fill_rwx_and_count_thp(void)
{
	const size_t len = 8 << 20;
	unsigned char *code;
	char line[256];
	long thp = -1;
	FILE *f;

	code = mmap(NULL, len, PROT_READ | PROT_WRITE | PROT_EXEC,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (code == MAP_FAILED)
		return -1;
	madvise(code, len, MADV_HUGEPAGE);
	memset(code, 0xc3, len);
	emit_ret_imm(code + (4 << 20), 9);
	if (((jit_fn)(code + (4 << 20)))() != 9)
		return -1;
	f = fopen("/proc/self/smaps_rollup", "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		sscanf(line, "AnonHugePages: %ld kB", &thp);
	fclose(f);
	munmap(code, len);
	return thp;
}

/* No transparent huge pages in tracked mappings (and some without). */
TEST_F(fj, no_thp_in_tracked_code)
{
	int status;
	pid_t pid = fork();

	ASSERT_LE(0, pid);
	if (pid == 0)
		_exit(fill_rwx_and_count_thp() > 0 ? 0 : 1);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	if (WEXITSTATUS(status))
		SKIP(return, "the kernel gives no THP here even untracked");
	ASSERT_EQ(0, fj_enable(0));
	EXPECT_EQ(0, fill_rwx_and_count_thp());
}

/* Many tracked processes come and go: no tracking state is left. */
TEST_F(fj, no_state_leak)
{
	char line[128];
	int i, status, tracked = -1;
	FILE *f;

	for (i = 0; i < 100; i++) {
		pid_t pid = fork();

		ASSERT_LE(0, pid);
		if (pid == 0) {
			unsigned char *code;

			fj_enable(FLOWJIT_F_INHERIT);
			code = mmap(NULL, PAGE, PROT_READ | PROT_WRITE | PROT_EXEC,
				    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
			_exit(run_child_jit(code, i));
		}
		ASSERT_EQ(pid, waitpid(pid, &status, 0));
		ASSERT_EQ(0, WEXITSTATUS(status));
	}
	f = fopen("/proc/flowjit/status", "r");
	ASSERT_NE(NULL, f);
	while (fgets(line, sizeof(line), f))
		sscanf(line, "tracked: %d", &tracked);
	fclose(f);
	EXPECT_EQ(0, tracked);
}

/* "--jit-child": run three code versions, for the execve test. */
static int jit_child(void)
{
	unsigned char *code = mmap(NULL, PAGE, PROT_READ | PROT_WRITE | PROT_EXEC,
				   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	int i;

	for (i = 0; i < 3; i++)
		if (run_child_jit(code, i))
			return 1;
	return 0;
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "--jit-child"))
		return jit_child();
	return guest_harness_run(argc, argv);
}
