// SPDX-License-Identifier: GPL-2.0
/*
 * JIFL's probe tool: a handler at any instruction of translated code,
 * called through a clean call. A probe in the middle of a block (the
 * block is cut there) runs once per pass; a probe and a kprobe at the
 * same instruction see the same registers, flags and stack pointer; a
 * stack trace taken in the handler unwinds to the system call's entry.
 *
 * The probes come from the test module jifl_probe_test
 * (/sys/kernel/debug/jifl_probe_test), on the instructions of
 * __task_pid_nr_ns(), which getpid() calls once.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "guest_harness.h"
#include "jifl_module.h"
#include "proc_util.h"

#define PROBE_TEST "/sys/kernel/debug/jifl_probe_test"
#define FUNC "__task_pid_nr_ns"
#define MAX_INSNS 12

FIXTURE(probe) {
	unsigned long insn[MAX_INSNS];	/* where the function's instructions start */
	int nr_insns;
	char pid[32];
};

/* Write a command to the test module: 0 or -errno. */
static int probe_cmd(const char *verb, unsigned long addr)
{
	char cmd[64];

	snprintf(cmd, sizeof(cmd), "%s %lx", verb, addr);
	return proc_write(PROBE_TEST, cmd);
}

/* The test module's counter @name, or -1. */
static long long probe_result(const char *name)
{
	char buf[1024], *p;

	file_read(PROBE_TEST, buf, sizeof(buf));
	p = strstr(buf, name);
	return p ? strtoll(p + strlen(name) + 1, NULL, 10) : -1;
}

/* @n getpid() system calls, each one passing __task_pid_nr_ns() once. */
static void getpids(int n)
{
	while (n--)
		syscall(SYS_getpid);
}

FIXTURE_SETUP(probe)
{
	unsigned long func, a;
	int ret;

	ASSERT_EQ(0, access("/proc/jifl/control", F_OK));
	ret = jifl_module_load("jifl_probe");
	ASSERT_TRUE(!ret || ret == -EEXIST);
	ret = jifl_module_load("jifl_probe_test");
	ASSERT_TRUE(!ret || ret == -EEXIST);
	func = kallsyms_addr(FUNC);
	ASSERT_NE(0, func);
	/*
	 * Instruction starts, as the probe tool checks them (-EILSEQ
	 * elsewhere); no flush with the null tool active.
	 */
	ASSERT_EQ(0, jifl_control("tool null"));
	self->nr_insns = 0;
	for (a = func; a < func + 64 && self->nr_insns < MAX_INSNS; a++) {
		ret = probe_cmd("jit", a);
		if (!ret)
			self->insn[self->nr_insns++] = a;
		ASSERT_TRUE(!ret || ret == -EILSEQ) TH_LOG("jit %lx: %s", a, strerror(-ret));
		ASSERT_EQ(0, proc_write(PROBE_TEST, "clear"));
	}
	ASSERT_LE(4, self->nr_insns);
	ASSERT_EQ(0, jifl_control("tool probe"));
	snprintf(self->pid, sizeof(self->pid), "pid %d", (int)getpid());
	ASSERT_EQ(0, jifl_control(self->pid));
	ASSERT_EQ(0, jifl_control("syscalls 39"));
}

FIXTURE_TEARDOWN(probe)
{
	jifl_control("disable");
	jifl_control("pid 0");
	proc_write(PROBE_TEST, "clear");
	jifl_control("tool null");
	jifl_module_unload("jifl_probe_test");
	jifl_module_unload("jifl_probe");
}

/*
 * The function's second instruction: no jump leads there, so only a
 * block cut before it runs the probe; getpid() passes it once.
 */
TEST_F(probe, probe_inside_a_block_runs_once_per_pass)
{
	char out[1024], want[64];

	ASSERT_EQ(0, probe_cmd("jit", self->insn[1]));
	ASSERT_EQ(0, jifl_control("enable"));
	getpids(1000);
	ASSERT_EQ(0, jifl_control("disable"));
	EXPECT_EQ(1000, probe_result("jit_hits"));
	/* a stack trace from the handler unwinds through the clean call */
	EXPECT_EQ(1, probe_result("unwound"));
	file_read(PROBE_TEST, out, sizeof(out));
	TH_LOG("%s", out);
	/* the tool's own count, in /proc/jifl/tool */
	file_read("/proc/jifl/tool", out, sizeof(out));
	snprintf(want, sizeof(want), "1000 0x%lx %s+0x%lx/", self->insn[1], FUNC,
		 self->insn[1] - self->insn[0]);
	EXPECT_NE(NULL, strstr(out, want)) TH_LOG("/proc/jifl/tool:\n%s", out);
	EXPECT_NE(NULL, strstr(out, "# probes 1, not emitted 0")) TH_LOG("%s", out);
}

/*
 * A probe and a kprobe at each of the function's first instructions:
 * the translated path calls the probe's handler, then goes on natively
 * at the kprobe's int3; both handlers must see the same state.
 */
TEST_F(probe, probe_and_kprobe_see_the_same_registers)
{
	long long pairs, differ, jit, all = 0;
	char out[1024];
	int i;

	for (i = 0; i < self->nr_insns; i++) {
		ASSERT_EQ(0, probe_cmd("both", self->insn[i]));
		ASSERT_EQ(0, jifl_control("enable"));
		getpids(200);
		ASSERT_EQ(0, jifl_control("disable"));
		pairs = probe_result("pairs");
		differ = probe_result("differ");
		jit = probe_result("jit_hits");
		file_read(PROBE_TEST, out, sizeof(out));
		TH_LOG("%s+0x%lx: %s", FUNC, self->insn[i] - self->insn[0], out);
		/* a kprobe hit follows every probe hit */
		EXPECT_EQ(jit, pairs);
		EXPECT_EQ(0, differ);
		EXPECT_EQ(1, probe_result("unwound"));
		/* the first instructions run on every call */
		if (i < 2)
			EXPECT_EQ(200, pairs);
		all += pairs;
		ASSERT_EQ(0, proc_write(PROBE_TEST, "clear"));
	}
	EXPECT_LE(400, all);
}

/*
 * The same with the cheaper call (jifl_emit_call_args()): the test
 * module's handler gets copies of the registers it asks for, then
 * overwrites every register a C function may change, and the flags.
 * The kprobe after it must see the values the handler got: they were
 * passed right and restored. The selections cover all sixteen
 * registers and the flags, on the function's first instructions.
 */
TEST_F(probe, args_probe_and_kprobe_see_the_same_registers)
{
	static const char *const sel[] = {
		"0 1 2 6",	/* ax cx dx si */
		"7 8 9 10",	/* di r8 r9 r10 */
		"11 16 4 3",	/* r11 flags sp bx */
		"5 12 13 14",	/* bp r12 r13 r14 */
		"15",		/* r15 */
	};
	long long pairs, jit;
	char cmd[96], out[1024];
	unsigned int s;
	int i;

	for (i = 0; i < 4 && i < self->nr_insns; i++) {
		for (s = 0; s < sizeof(sel) / sizeof(sel[0]); s++) {
			snprintf(cmd, sizeof(cmd), "both %lx %s", self->insn[i], sel[s]);
			ASSERT_EQ(0, proc_write(PROBE_TEST, cmd));
			ASSERT_EQ(0, jifl_control("enable"));
			getpids(200);
			ASSERT_EQ(0, jifl_control("disable"));
			pairs = probe_result("pairs");
			jit = probe_result("jit_hits");
			file_read(PROBE_TEST, out, sizeof(out));
			TH_LOG("%s+0x%lx [%s]: %s", FUNC, self->insn[i] - self->insn[0],
			       sel[s], out);
			EXPECT_EQ(jit, pairs);
			EXPECT_EQ(0, probe_result("differ"));
			EXPECT_EQ(1, probe_result("unwound"));
			if (i < 2)
				EXPECT_EQ(200, pairs);
			ASSERT_EQ(0, proc_write(PROBE_TEST, "clear"));
		}
	}
}

/* jifl_probe_register() refuses what is not a register or the flags. */
TEST_F(probe, args_probe_refuses_bad_selections)
{
	char cmd[96];

	snprintf(cmd, sizeof(cmd), "jit %lx 0 17", self->insn[0]);
	EXPECT_EQ(-EINVAL, proc_write(PROBE_TEST, cmd));
	EXPECT_EQ(0, proc_write(PROBE_TEST, "clear"));
}

TEST_HARNESS_MAIN
