// SPDX-License-Identifier: GPL-2.0
/*
 * A handler at one instruction, JIFL probe against kprobe, in the guest,
 * side by side in one run: TSC ticks per getpid() natively, from JIFL's
 * code cache with the null tool, with the probe tool's probe on the
 * second instruction of __task_pid_nr_ns(), and natively with a kprobe
 * at the same instruction. The probes come from the test module
 * jifl_probe_test, whose two handlers do the same work (a lock, a copy
 * of the registers). Then the cost of the two clean calls, with
 * handlers that do nothing: given all the registers (jifl_emit_call())
 * and given %rdi and %rsi (jifl_emit_call_args()). The kprobe is measured optimized (a jump to a
 * detour, where CONFIG_OPTPROBES can) and as an int3 trap (with
 * debug.kprobes-optimization off). Under -icount the ticks are
 * instructions.
 *
 *   jifl_probe_bench [--icount]
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "../guest/jifl_module.h"
#include "../guest/proc_util.h"

#define PROBE_TEST	"/sys/kernel/debug/jifl_probe_test"
#define OPTIMIZE	"/proc/sys/debug/kprobes-optimization"
#define CALLS		2000
#define ROUNDS		5

/*
 * The fewest TSC ticks per getpid() in ROUNDS rounds of CALLS calls,
 * after a warm-up with a pause in it: JIFL links blocks and predicts
 * returns in a work item 20 ms after it sees them, and kprobes
 * optimizes a probe into a jump after a delay too.
 */
static double per_call(void)
{
	double best = 1e300, t;
	int r, i;

	for (i = 0; i < CALLS; i++)
		syscall(SYS_getpid);
	usleep(100000);
	for (i = 0; i < CALLS; i++)
		syscall(SYS_getpid);
	for (r = 0; r < ROUNDS; r++) {
		t = __builtin_ia32_rdtsc();
		for (i = 0; i < CALLS; i++)
			syscall(SYS_getpid);
		t = (__builtin_ia32_rdtsc() - t) / CALLS;
		if (t < best)
			best = t;
	}
	return best;
}

/* A command for the test module: "jit ADDR", "both ADDR", "nop ADDR" or "clear". */
static int probe(const char *verb, unsigned long addr)
{
	char cmd[64];

	if (!strcmp(verb, "clear"))
		return proc_write(PROBE_TEST, "clear");
	snprintf(cmd, sizeof(cmd), "%s %lx", verb, addr);
	return proc_write(PROBE_TEST, cmd);
}

/* A JIFL probe at @addr whose handler does nothing, given %rdi and %rsi. */
static int probe_args(unsigned long addr)
{
	char cmd[64];

	snprintf(cmd, sizeof(cmd), "nop %lx 7 6", addr);
	return proc_write(PROBE_TEST, cmd);
}

/* The second instruction of __task_pid_nr_ns(), or 0. */
static unsigned long second_insn(unsigned long func)
{
	unsigned long a;

	for (a = func + 1; func && a < func + 16; a++)
		if (!probe("jit", a))
			return probe("clear", 0) ? 0 : a;
	return 0;
}

static int die(const char *what)
{
	fprintf(stderr, "jifl-probe-bench: %s: %s\n", what, strerror(errno));
	return 1;
}

int main(int argc, char **argv)
{
	int icount = argc > 1 && !strcmp(argv[1], "--icount");
	double native, null, jit, nop, args, kprobe, trap = 0;
	unsigned long func, addr;
	char pid[32];
	int ret;

	ret = jifl_module_load("jifl_probe");
	if (ret && ret != -EEXIST)
		return die("load jifl_probe");
	ret = jifl_module_load("jifl_probe_test");
	if (ret && ret != -EEXIST)
		return die("load jifl_probe_test");
	if (jifl_control("disable") || jifl_control("tool null"))
		return die("/proc/jifl/control");
	func = kallsyms_addr("__task_pid_nr_ns");
	addr = second_insn(func);
	if (!addr)
		return die("no instruction of __task_pid_nr_ns to probe");

	native = per_call();
	snprintf(pid, sizeof(pid), "pid %d", (int)getpid());
	if (jifl_control(pid) || jifl_control("syscalls 39") || jifl_control("enable"))
		return die("enable");
	null = per_call();
	if (jifl_control("disable") || jifl_control("tool probe") || probe("jit", addr) ||
	    jifl_control("enable"))
		return die("probe");
	jit = per_call();
	if (jifl_control("disable") || probe("clear", 0) || probe("nop", addr) ||
	    jifl_control("enable"))
		return die("probe, empty handler");
	nop = per_call();
	if (jifl_control("disable") || probe("clear", 0) || probe_args(addr) ||
	    jifl_control("enable"))
		return die("probe, empty handler, selected registers");
	args = per_call();
	if (jifl_control("disable") || probe("clear", 0) || jifl_control("tool null") ||
	    jifl_control("pid 0"))
		return die("clear");
	/* with JIFL off, only the kprobe of the pair fires */
	if (probe("both", addr))
		return die("kprobe");
	kprobe = per_call();
	if (!proc_write(OPTIMIZE, "0")) {
		trap = per_call();
		proc_write(OPTIMIZE, "1");
	}
	probe("clear", 0);

	printf("jifl-probe-bench: a handler at __task_pid_nr_ns+0x%lx, %s per getpid()\n",
	       addr - func, icount ? "instructions (-icount)" : "TSC ticks (QEMU TCG)");
	printf("  native %.0f, with a kprobe %.0f: the kprobe adds %.0f\n",
	       native, kprobe, kprobe - native);
	if (trap)
		printf("  native %.0f, with a kprobe not optimized (int3) %.0f: it adds %.0f\n",
		       native, trap, trap - native);
	printf("  JIFL null %.0f, with a JIFL probe %.0f: the probe adds %.0f\n",
	       null, jit, jit - null);
	printf("  JIFL null %.0f, with an empty JIFL probe %.0f, given 2 registers %.0f: they add %.0f, %.0f\n",
	       null, nop, args, nop - null, args - null);
	if (jit > null)
		printf("  kprobe / JIFL probe, added cost: %.1f (int3: %.1f)\n",
		       (kprobe - native) / (jit - null), (trap - native) / (jit - null));

	return 0;
}
