// SPDX-License-Identifier: GPL-2.0
/*
 * JIFL tools from modules: jifl_bbcount registers, counts every block
 * exactly, and unloads safely while system calls run translated on
 * every vCPU; jifl_edges counts both sides of every branch.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "guest_harness.h"
#include "jifl_module.h"
#include "proc_util.h"

#define BBCOUNT "jifl_bbcount"
#ifndef ROUNDS
#define ROUNDS 100
#endif

static char out[1 << 20];

/* bbcount's count of the block at the start of @func, or -1. */
static long long block_count(const char *func)
{
	char want[128];
	const char *line;
	long long count;

	snprintf(want, sizeof(want), " %s+0x0/", func);
	for (line = out; line && *line; line = strchr(line, '\n'), line = line ? line + 1 : NULL) {
		const char *end = strchr(line, '\n');
		const char *at = strstr(line, want);

		if (at && (!end || at < end) && sscanf(line, "%lld", &count) == 1)
			return count;
	}
	return -1;
}

/*
 * The count of system call @name's first block: its handler is
 * __x64_sys_NAME, or __do_sys_NAME where that is an alias of it.
 */
static long long syscall_count(const char *name)
{
	char func[64];
	long long n;

	file_read("/proc/jifl/tool", out, sizeof(out));
	snprintf(func, sizeof(func), "__x64_sys_%s", name);
	n = block_count(func);
	if (n >= 0)
		return n;
	snprintf(func, sizeof(func), "__do_sys_%s", name);
	return block_count(func);
}

FIXTURE(tools) {
	int unused;
};

FIXTURE_SETUP(tools)
{
	ASSERT_EQ(0, access("/proc/jifl/tool", F_OK));
}

FIXTURE_TEARDOWN(tools)
{
	jifl_control("disable");
	jifl_control("pid 0");
	jifl_control("tool null");
	jifl_module_unload(BBCOUNT);
	jifl_module_unload("jifl_edges");
	jifl_module_unload("jifl_kprobe_blocks");
}

/*
 * bbcount on this process's system call @nr alone, JIFL enabled:
 * 0, or the first error.
 */
static int bbcount_this_process(long nr)
{
	char pid[32], set[32];

	snprintf(pid, sizeof(pid), "pid %d", (int)getpid());
	snprintf(set, sizeof(set), "syscalls %ld", nr);
	return jifl_module_load(BBCOUNT) ?: jifl_control("tool bbcount") ?:
	       jifl_control(pid) ?: jifl_control(set) ?: jifl_control("enable");
}

TEST_F(tools, bbcount_counts_every_getpid)
{
	long long got;
	int i;

	ASSERT_EQ(0, bbcount_this_process(SYS_getpid));
	syscall(SYS_getpid);		/* translated now: count from here */
	ASSERT_EQ(0, proc_write("/proc/jifl/tool", "reset"));
	for (i = 0; i < 1000; i++)
		syscall(SYS_getpid);
	ASSERT_EQ(0, jifl_control("disable"));
	got = syscall_count("getpid");
	TH_LOG("getpid's first block ran %lld times for 1000 calls", got);
	if (got != 1000)
		TH_LOG("/proc/jifl/tool:\n%.2000s", out);
	EXPECT_EQ(1000, got);
	EXPECT_EQ(-EINVAL, proc_write("/proc/jifl/tool", "no such command"));
}

/*
 * bbcount says how many instructions each block holds and how it ends:
 * over 1000 getpid() calls, every block holds between bytes / 15 and
 * bytes instructions; the code after each call (at the block's address
 * plus its bytes) runs at least as often as the call; and the system
 * call's handler returns at least once a call (to the dispatcher).
 */
TEST_F(tools, bbcount_counts_instructions_and_ends)
{
	unsigned long long count[256], calls = 0, returns = 0;
	unsigned long addr[256], next;
	unsigned int bytes[256], insns[256];
	char end[256], *line;
	int i, j, n = 0, checked = 0;

	ASSERT_EQ(0, bbcount_this_process(SYS_getpid));
	syscall(SYS_getpid);
	ASSERT_EQ(0, proc_write("/proc/jifl/tool", "reset"));
	for (i = 0; i < 1000; i++)
		syscall(SYS_getpid);
	ASSERT_EQ(0, jifl_control("disable"));
	file_read("/proc/jifl/tool", out, sizeof(out));
	ASSERT_EQ(0, strncmp(out, "# count address bytes insns end symbol\n", 39));
	for (line = out; line && *line && n < 256; line = strchr(line, '\n'), line = line ? line + 1 : NULL)
		if (sscanf(line, "%llu 0x%lx %u %u %c ", &count[n], &addr[n], &bytes[n],
			   &insns[n], &end[n]) == 5)
			n++;
	ASSERT_LT(0, n);
	ASSERT_GT(256, n);
	for (i = 0; i < n; i++) {
		EXPECT_NE(NULL, strchr("jcrg-", end[i])) TH_LOG("block %d: end %c", i, end[i]);
		EXPECT_LE(insns[i], bytes[i]);
		EXPECT_LE(bytes[i], insns[i] * 15) TH_LOG("0x%lx: %u bytes, %u insns", addr[i],
							   bytes[i], insns[i]);
		EXPECT_LE(1, insns[i]);
		returns += end[i] == 'r' ? count[i] : 0;
		if (end[i] != 'c')
			continue;
		calls += count[i];
		next = addr[i] + bytes[i];
		for (j = 0; j < n && addr[j] != next; j++)
			;
		EXPECT_GT(n, j) TH_LOG("nothing after the call at 0x%lx", addr[i]);
		if (j < n) {
			EXPECT_LE(count[i], count[j]) TH_LOG("call at 0x%lx", addr[i]);
			checked++;
		}
	}
	TH_LOG("%d blocks, %llu calls (%d call sites), %llu returns for 1000 getpid()",
	       n, calls, checked, returns);
	EXPECT_LE(1000, returns) TH_LOG("/proc/jifl/tool:\n%.3000s", out);
	EXPECT_LT(0, checked);
}

/*
 * KASAN's runtime (mm/kasan: __asan_load8(), kasan_check_range(), ...)
 * is called by the kprobes code itself on a KASAN kernel, where a probe
 * there recurses in the int3 handler: kprobes does not refuse it, so the
 * tests leave it out.
 */
static int kasan_runtime(const char *sym)
{
	return !strncmp(sym, "__asan_", 7) || !strncmp(sym, "kasan_", 6) ||
	       !strncmp(sym, "__kasan_", 8);
}

/* Which blocks kprobe_blocks() probes. */
enum { AFTER_BRANCH, JUMPED_TO };

/*
 * For each block of getpid() of kind @which (at most 8), bbcount's count
 * over 1000 calls, then a counting kprobe's hits at its address over
 * 1000 more, the other translations kept meanwhile: the kprobe must see
 * every pass. AFTER_BRANCH: the block on the not-taken side of a
 * conditional branch; JUMPED_TO: a block that no other falls into, none
 * returns to and that starts no function, so reached by a jump or the
 * taken side of a conditional branch.
 */
static void kprobe_blocks(struct __test_metadata *_metadata, int which)
{
	unsigned long long count[256], probes, refused, hits, before;
	unsigned long addr[256];
	unsigned int bytes[256];
	char end[256], sym[256][64], *line, cmd[64];
	int i, j, k, n = 0, probed = 0, missed = 0;
	long long stale, unlinks;

	ASSERT_EQ(0, bbcount_this_process(SYS_getpid));
	syscall(SYS_getpid);
	ASSERT_EQ(0, proc_write("/proc/jifl/tool", "reset"));
	for (i = 0; i < 1000; i++)
		syscall(SYS_getpid);
	file_read("/proc/jifl/tool", out, sizeof(out));
	for (line = out; line && *line && n < 256; line = strchr(line, '\n'), line = line ? line + 1 : NULL)
		if (sscanf(line, "%llu 0x%lx %u %*u %c %63s", &count[n], &addr[n], &bytes[n],
			   &end[n], sym[n]) == 5)
			n++;
	ASSERT_EQ(0, jifl_module_load("jifl_kprobe_blocks"));
	/* at most 8: each registration waits for RCU, long on a debug kernel */
	for (i = 0; i < n && probed < 8; i++) {
		for (j = 0; j < n && addr[j] + bytes[j] != addr[i]; j++)
			;
		if (which == AFTER_BRANCH ? j == n || end[j] != 'j' :
		    j < n || strstr(sym[i], "+0x0/"))
			continue;
		if (kasan_runtime(sym[i]))
			continue;
		file_read("/proc/jifl_kprobe_blocks", cmd, sizeof(cmd));
		ASSERT_EQ(3, sscanf(cmd, "probes %llu refused %llu hits %llu", &probes, &refused,
				    &before));
		stale = jifl_stat("stale_blocks");
		unlinks = jifl_stat("unlinks");
		snprintf(cmd, sizeof(cmd), "%lx", addr[i]);
		ASSERT_EQ(0, proc_write("/proc/jifl_kprobe_blocks", cmd));
		stale = jifl_stat("stale_blocks") - stale;
		unlinks = jifl_stat("unlinks") - unlinks;
		for (k = 0; k < 1000; k++)
			syscall(SYS_getpid);
		file_read("/proc/jifl_kprobe_blocks", cmd, sizeof(cmd));
		ASSERT_EQ(3, sscanf(cmd, "probes %llu refused %llu hits %llu", &probes, &refused,
				    &hits));
		hits -= before;
		TH_LOG("0x%lx %s: %lld blocks made stale, %lld jumps into them undone",
		       addr[i], sym[i], stale, unlinks);
		ASSERT_EQ(0, proc_write("/proc/jifl_kprobe_blocks", "clear"));
		if (probes != 1)
			continue;
		probed++;
		/* others may run it too, natively */
		if (hits < count[i]) {
			missed++;
			TH_LOG("0x%lx: bbcount %llu, kprobe %llu", addr[i], count[i], hits);
		}
	}
	ASSERT_EQ(0, jifl_control("disable"));
	TH_LOG("%d blocks kprobed, %d missed passes", probed, missed);
	EXPECT_LT(0, probed);
	EXPECT_EQ(0, missed);
}

/*
 * The block after a conditional branch, on its not-taken side, is
 * translated right after the branch's and runs without a jump between
 * them: a kprobe put there later must still see every pass, so the
 * branch's block goes stale with it. (When the block a kprobe made
 * stale was the only one, the kprobe saw none of the passes after such
 * a branch.)
 */
TEST_F(tools, kprobe_after_a_not_taken_branch_sees_every_pass)
{
	kprobe_blocks(_metadata, AFTER_BRANCH);
}

/*
 * A conditional branch goes straight to its taken side's translation,
 * as a "jcc" written over with text_poke_bp(): a kprobe on a block
 * reached by jumps must see every pass, so that the jcc (like a jmp)
 * goes back to its lookup stub when its target goes stale.
 */
TEST_F(tools, kprobe_on_a_jump_target_sees_every_pass)
{
	kprobe_blocks(_metadata, JUMPED_TO);
}

/*
 * A tail call of native code (a test function in JIFL's own text)
 * returns into the cache: the test trigger's write calls a function
 * that ends so, then another, whose block must be counted once per
 * write. (Before, the native function returned to original code and
 * the rest of the system call ran natively: 0 of 100. On a lockdep
 * kernel, trace_hardirqs_on() tail-calls noinstr lockdep_hardirqs_on()
 * whenever interrupts are enabled again.)
 */
TEST_F(tools, native_tail_call_returns_into_the_cache)
{
	long long tail, after;
	int i;

	if (jifl_test("tail", "1") == -ENOENT)
		SKIP(return, "no tail trigger (CONFIG_JIFL_TEST)");
	ASSERT_EQ(0, bbcount_this_process(SYS_write));
	ASSERT_EQ(0, jifl_test("tail", "1"));	/* translated now */
	ASSERT_EQ(0, proc_write("/proc/jifl/tool", "reset"));
	for (i = 0; i < 100; i++)
		ASSERT_EQ(0, jifl_test("tail", "1"));
	ASSERT_EQ(0, jifl_control("disable"));
	file_read("/proc/jifl/tool", out, sizeof(out));
	tail = block_count("jifl_test_tail_call");
	after = block_count("jifl_test_after_tail_call");
	TH_LOG("100 writes: jifl_test_tail_call ran %lld times, jifl_test_after_tail_call %lld",
	       tail, after);
	EXPECT_EQ(100, tail);
	EXPECT_EQ(100, after);
}

/*
 * A call through a dynamic ITS thunk (a "jmp *%rax; int3" of its own in
 * a page from module_alloc(), which indirect target selection gives
 * unsafe indirect calls in place of retpolines) is an indirect call:
 * the callee and the rest of the system call run from the cache. The
 * test trigger's write calls through such a thunk, then another
 * function; both blocks must be counted once per write.
 */
TEST_F(tools, call_through_a_dynamic_its_thunk_stays_in_the_cache)
{
	long long callee, after;
	int i;

	if (jifl_test("its", "1") == -ENOENT)
		SKIP(return, "no its trigger (CONFIG_JIFL_TEST, CONFIG_MITIGATION_ITS)");
	ASSERT_EQ(0, bbcount_this_process(SYS_write));
	ASSERT_EQ(0, jifl_test("its", "1"));	/* translated now */
	ASSERT_EQ(0, proc_write("/proc/jifl/tool", "reset"));
	for (i = 0; i < 100; i++)
		ASSERT_EQ(0, jifl_test("its", "1"));
	ASSERT_EQ(0, jifl_control("disable"));
	file_read("/proc/jifl/tool", out, sizeof(out));
	callee = block_count("jifl_test_its_callee");
	after = block_count("jifl_test_after_its_call");
	TH_LOG("100 writes: jifl_test_its_callee ran %lld times, jifl_test_after_its_call %lld",
	       callee, after);
	EXPECT_EQ(100, callee);
	EXPECT_EQ(100, after);
}

struct pipe_writer {
	int fd;
	int bytes;
};

/* Writes @bytes of a pattern in 4 KiB writes, sleeping when the pipe is full. */
static void *pipe_writer(void *arg)
{
	struct pipe_writer *w = arg;
	unsigned char buf[4096];
	int off, i;

	for (off = 0; off < w->bytes; off += sizeof(buf)) {
		for (i = 0; i < (int)sizeof(buf); i++)
			buf[i] = (unsigned char)((off + i) * 7 + ((off + i) >> 12));
		if (write(w->fd, buf, sizeof(buf)) != (ssize_t)sizeof(buf))
			return (void *)1L;
	}
	return NULL;
}

/* Reads @bytes from @fd in 1 KiB reads; how many bytes differ from the pattern. */
static long read_pattern(int fd, int bytes)
{
	unsigned char buf[1024];
	long bad = 0;
	int off = 0, i;
	ssize_t n;

	while (off < bytes) {
		n = read(fd, buf, sizeof(buf));
		if (n <= 0)
			return -1;
		for (i = 0; i < n; i++)
			bad += buf[i] != (unsigned char)((off + i) * 7 + ((off + i) >> 12));
		off += n;
	}
	return bad;
}

/* One writer thread, @bytes through a pipe; bytes read wrong, or -1. */
static long pipe_through(int bytes)
{
	struct pipe_writer w = { .bytes = bytes };
	int fds[2];
	pthread_t t;
	void *ret;
	long bad;

	if (pipe(fds))
		return -1;
	w.fd = fds[1];
	pthread_create(&t, NULL, pipe_writer, &w);
	bad = read_pattern(fds[0], bytes);
	pthread_join(t, &ret);
	close(fds[0]);
	close(fds[1]);
	return ret ? -1 : bad;
}

/*
 * The scheduler's text but the context switch runs translated: a
 * writer thread that fills a pipe sleeps in pipe_write() (schedule(),
 * the pipe's mutex), and the blocks of schedule() and mutex_lock() are
 * counted. A task sleeps there with nothing but original return
 * addresses and jifl_return_to_cache on its stack (schedule() calls
 * __schedule() natively), so flushes every 2 ms meanwhile must not
 * matter: every byte arrives as written. (Before, the scheduler's text
 * ran natively: no block of schedule() or mutex_lock() was counted.)
 */
TEST_F(tools, sleeping_in_translated_scheduler_code)
{
	long long sched, lock;
	pid_t flusher;
	char pid[32];
	int round;

	snprintf(pid, sizeof(pid), "pid %d", (int)getpid());
	ASSERT_EQ(0, jifl_module_load(BBCOUNT));
	ASSERT_EQ(0, jifl_control("tool bbcount"));
	ASSERT_EQ(0, jifl_control("syscalls 0,1"));	/* read, write */
	ASSERT_EQ(0, jifl_control(pid));
	ASSERT_EQ(0, jifl_control("enable"));
	flusher = jifl_flusher(2000);
	ASSERT_LE(0, flusher);
	for (round = 0; round < 10; round++)
		EXPECT_EQ(0, pipe_through(1 << 20)) TH_LOG("round %d", round);
	kill(flusher, SIGKILL);
	waitpid(flusher, NULL, 0);
	ASSERT_EQ(0, proc_write("/proc/jifl/tool", "reset"));
	EXPECT_EQ(0, pipe_through(1 << 20));
	ASSERT_EQ(0, jifl_control("disable"));
	file_read("/proc/jifl/tool", out, sizeof(out));
	sched = block_count("schedule");
	lock = block_count("mutex_lock");
	if (lock < 0)	/* lockdep: mutex_lock() is mutex_lock_nested() */
		lock = block_count("mutex_lock_nested");
	TH_LOG("10 MiB through a pipe under flushes, then 1 MiB: schedule() ran %lld times "
	       "from the cache, mutex_lock() %lld, %lld flushes", sched, lock,
	       jifl_stat("flushes"));
	EXPECT_LT(0, sched);
	EXPECT_LT(0, lock);
}

/*
 * A native function that takes arguments on the stack (the test
 * trigger's, in JIFL's own text) gets them where they are natively: its
 * translated call must not return into the cache through
 * jifl_return_to_cache, which puts one more word on its stack. The
 * trigger's write checks what the function computed from its seventh
 * and eighth argument; its first block runs from the cache.
 */
TEST_F(tools, native_callee_gets_its_stack_arguments)
{
	long long before, calls;
	char arg[16];
	int i;

	if (jifl_test("args", "1") == -ENOENT)
		SKIP(return, "no args trigger (CONFIG_JIFL_TEST)");
	before = jifl_stat("native_stack_args");
	ASSERT_EQ(0, bbcount_this_process(SYS_write));
	ASSERT_EQ(0, proc_write("/proc/jifl/tool", "reset"));
	for (i = 0; i < 100; i++) {
		snprintf(arg, sizeof(arg), "%d", i * 1000);
		ASSERT_EQ(0, jifl_test("args", arg)) TH_LOG("write %d", i);
	}
	ASSERT_EQ(0, jifl_control("disable"));
	file_read("/proc/jifl/tool", out, sizeof(out));
	calls = block_count("args_write");
	TH_LOG("100 writes: args_write ran %lld times from the cache; native_stack_args %lld -> %lld",
	       calls, before, jifl_stat("native_stack_args"));
	EXPECT_EQ(100, calls);
	EXPECT_LT(before, jifl_stat("native_stack_args"));
}

/*
 * The same through a native wrapper that tail-jumps to that function
 * ("jmp jifl_test_stack_args"): the callee finds the wrapper's return
 * address, so the wrapper takes stack arguments too.
 */
TEST_F(tools, native_wrapper_tail_jumping_gets_its_stack_arguments)
{
	long long calls;
	char arg[24];
	int i;

	if (jifl_test("args", "tail 1") == -ENOENT)
		SKIP(return, "no args trigger (CONFIG_JIFL_TEST)");
	ASSERT_EQ(0, bbcount_this_process(SYS_write));
	ASSERT_EQ(0, proc_write("/proc/jifl/tool", "reset"));
	for (i = 0; i < 100; i++) {
		snprintf(arg, sizeof(arg), "tail %d", i * 1000);
		ASSERT_EQ(0, jifl_test("args", arg)) TH_LOG("write %d", i);
	}
	ASSERT_EQ(0, jifl_control("disable"));
	file_read("/proc/jifl/tool", out, sizeof(out));
	calls = block_count("args_write");
	TH_LOG("100 writes: args_write ran %lld times from the cache", calls);
	EXPECT_EQ(100, calls);
}

/*
 * edges: on each side of every conditional branch, a count; together
 * they make the executions of the branch's block. The system calls
 * read only memory already touched, so that no fault leaves a block
 * half-way (a fault in translated code finishes the call natively).
 */
TEST_F(tools, edges_taken_plus_not_taken_is_executions)
{
	static char buf[4096];
	char cmd[64], *line;
	unsigned long long run, taken, not_taken, branches = 0, both = 0, bad = 0;
	int fd, i;

	memset(buf, 1, sizeof(buf));
	fd = open("/dev/zero", O_RDONLY);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, jifl_module_load("jifl_edges"));
	ASSERT_EQ(0, jifl_control("tool edges"));
	snprintf(cmd, sizeof(cmd), "pid %d", (int)getpid());
	ASSERT_EQ(0, jifl_control(cmd));
	snprintf(cmd, sizeof(cmd), "syscalls %d,%d,%d", SYS_read, SYS_getpid, SYS_getppid);
	ASSERT_EQ(0, jifl_control(cmd));
	ASSERT_EQ(0, jifl_control("enable"));
	ASSERT_EQ(sizeof(buf), read(fd, buf, sizeof(buf)));
	ASSERT_EQ(0, proc_write("/proc/jifl/tool", "reset"));
	for (i = 0; i < 1000; i++) {
		syscall(SYS_getpid);
		syscall(SYS_getppid);
		if (read(fd, buf, 1 + i % sizeof(buf)) < 0)
			break;
	}
	ASSERT_EQ(0, jifl_control("disable"));
	close(fd);
	file_read("/proc/jifl/tool", out, sizeof(out));
	ASSERT_EQ(0, strncmp(out, "# executions taken not_taken", 28));
	for (line = strchr(out, '\n'); line; line = strchr(line + 1, '\n')) {
		if (sscanf(line + 1, "%llu %llu %llu", &run, &taken, &not_taken) != 3)
			continue;
		branches++;
		both += taken && not_taken;
		if (taken + not_taken != run) {
			if (++bad <= 3)
				TH_LOG("%.*s", (int)strcspn(line + 1, "\n"), line + 1);
		}
	}
	TH_LOG("%llu branches ran, %llu of them both ways, %llu with taken + not taken != executions",
	       branches, both, bad);
	EXPECT_LE(20, branches);
	EXPECT_LE(1, both);
	EXPECT_EQ(0, bad);
	ASSERT_EQ(0, jifl_control("tool null"));
	EXPECT_EQ(0, jifl_module_unload("jifl_edges"));
}

/*
 * A shell that runs programs: execve, path walks (through /proc/self,
 * a symlink without i_link: its ->get_link() is called), opens, stats.
 */
static void workload(void)
{
	if (system("ls -l /bin /proc/self > /dev/null && cat /proc/self/stat > /dev/null"))
		return;
}

#define OPTIMIZE	"/proc/sys/debug/kprobes-optimization"

/*
 * The comparison the benchmarks make: a counting kprobe on every block
 * bbcount saw, natively. Each probe sees its block run. (Found a kprobes
 * bug: an emulated call with a CS prefix, as retpoline thunk calls have,
 * returned into the middle of the call.)
 */
TEST_F_TIMEOUT(tools, kprobes_on_every_block_bbcount_saw, 900)
{
	unsigned long long count, hits = 0;
	long probes = 0, refused = 0, blocks = 0, skipped = 0, seen = 0;
	/*
	 * A registration takes about half a second on a KASAN + lockdep
	 * kernel under TCG: there, every 16th block (about 500).
	 */
	long stride = guest_time_scale() > 1 ? 16 : 1;
	char sym[64];
	unsigned long addr;
	char line[256], *p;
	int fd, optimizing;

	ASSERT_EQ(0, jifl_module_load(BBCOUNT));
	ASSERT_EQ(0, jifl_control("tool bbcount"));
	ASSERT_EQ(0, jifl_enable_all());
	workload();
	ASSERT_EQ(0, jifl_control("disable"));
	file_read("/proc/jifl/tool", out, sizeof(out));
	TH_LOG("bbcount's blocks read; putting kprobes on them");
	/*
	 * kprobes' optimizer holds kprobe_mutex through an RCU-tasks grace
	 * period, seconds under TCG, every few ticks while probes come in:
	 * registration waited on it most of the time (7 of 9 minutes). It
	 * stays off until the probes are gone: turned on with thousands of
	 * probes, its work patches 256 of them without a break, which TCG
	 * makes an RCU stall. So these are int3 probes (the bench's are
	 * optimized where kprobes can).
	 */
	file_read(OPTIMIZE, line, sizeof(line));
	optimizing = line[0] == '1';
	if (optimizing)
		ASSERT_EQ(0, proc_write(OPTIMIZE, "0"));
	/* 7,905 to over 8,250 blocks since tail calls return into the cache */
	ASSERT_EQ(0, jifl_module_load_params("jifl_kprobe_blocks", "max_probes=32768"));
	fd = open("/proc/jifl_kprobe_blocks", O_WRONLY);
	ASSERT_LE(0, fd);
	for (p = out; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		if (sscanf(p, "%llu 0x%lx %*u %*u %*c %63s", &count, &addr, sym) != 3)
			continue;
		if (kasan_runtime(sym)) {
			skipped++;
			continue;
		}
		if (seen++ % stride)
			continue;
		snprintf(line, sizeof(line), "%lx", addr);
		ASSERT_LT(0, write(fd, line, strlen(line)));
		/* Thousands of registrations: minutes, said as they go. */
		if (++blocks % 250 == 0)
			TH_LOG("%ld kprobes asked for", blocks);
	}
	close(fd);
	workload();
	file_read("/proc/jifl_kprobe_blocks", line, sizeof(line));
	ASSERT_EQ(3, sscanf(line, "probes %ld refused %ld hits %llu", &probes, &refused, &hits));
	/* (Not the word in capitals: the runner takes it for a kernel report.) */
	TH_LOG("%ld blocks (1 in %ld): %ld kprobes, %ld refused, %llu hits; "
	       "%ld blocks of mm/kasan's runtime left out", blocks, stride, probes, refused,
	       hits, skipped);
	EXPECT_LE(100, probes);
	EXPECT_LE((unsigned long long)probes, hits);
	EXPECT_EQ(0, jifl_module_unload("jifl_kprobe_blocks"));
	if (optimizing)
		EXPECT_EQ(0, proc_write(OPTIMIZE, "1"));
}

/*
 * System calls in a loop, on CPU @cpu, until killed. A short sleep every
 * 64 rounds, as most tasks have, is a quiescent state for RCU Tasks:
 * without, the grace period of each flush waits for a tick that finds
 * the task in user mode, seconds under TCG.
 */
static pid_t load(int cpu)
{
	pid_t pid = fork();
	unsigned int round = 0;
	cpu_set_t set;
	char buf[64];
	struct stat st;
	int fd;

	if (pid)
		return pid;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	sched_setaffinity(0, sizeof(set), &set);
	for (;;) {
		fd = open("/proc/self/stat", O_RDONLY);
		if (fd >= 0) {
			if (read(fd, buf, sizeof(buf)) < 0)
				_exit(1);
			close(fd);
		}
		stat("/", &st);
		getppid();
		if (!(++round % 64))
			usleep(100);
	}
}

TEST_F_TIMEOUT(tools, unload_under_load_100_times, 1500)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	pid_t workers[8];
	long long counted = 0;
	/*
	 * A round takes 20 to 50 s on the KASAN kernel (module load, two
	 * RCU Tasks grace periods under TCG): there a quarter of the rounds,
	 * each with the same windows, checked by KASAN at their first use.
	 */
	int rounds = ROUNDS / guest_time_scale();
	int i, round, failed = 0;

	ASSERT_EQ(0, jifl_enable_all());
	for (i = 0; i < n && i < 8; i++)
		workers[i] = load(i);
	for (round = 0; round < rounds && !failed; round++) {
		long long c;

		failed = jifl_module_load(BBCOUNT) || jifl_control("tool bbcount");
		if (failed) {
			TH_LOG("round %d: load or select failed: %s", round, strerror(errno));
			break;
		}
		usleep(20000);
		c = syscall_count("getppid");
		counted += c > 0;
		failed = jifl_module_unload(BBCOUNT) != 0;
		if (failed)
			TH_LOG("round %d: unload failed", round);
		/* gone: selecting it fails */
		if (!failed && jifl_control("tool bbcount") != -EINVAL) {
			TH_LOG("round %d: bbcount still selectable", round);
			failed = 1;
		}
		/* minutes on the KASAN kernel: said as it goes */
		if ((round + 1) % 10 == 0)
			TH_LOG("%d rounds", round + 1);
	}
	for (i = 0; i < n && i < 8; i++) {
		kill(workers[i], SIGKILL);
		waitpid(workers[i], NULL, 0);
	}
	ASSERT_EQ(0, jifl_control("disable"));
	TH_LOG("%d rounds on %ld CPUs; getppid counted in %lld", round, n, counted);
	EXPECT_EQ(0, failed);
	EXPECT_EQ(rounds, round);
	EXPECT_LE(rounds * 9 / 10, counted);
}

TEST_HARNESS_MAIN
