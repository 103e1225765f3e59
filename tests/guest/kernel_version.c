// SPDX-License-Identifier: GPL-2.0
/*
 * The guest booted the patched kernel: -jifl localversion and the
 * series' Kconfig options in /proc/config.gz; and every vCPU that QEMU
 * was given is online, so that the other tests run on SMP; and the
 * vCPU keeps the flags right across cmpxchg16b.
 */
#define _GNU_SOURCE
#include <cpuid.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "guest_harness.h"

/* Search the running kernel's config for an exact line. */
static int config_has(const char *line)
{
	char buf[512];
	FILE *f = popen("zcat /proc/config.gz", "r");
	int found = 0;

	if (!f)
		return -1;
	while (fgets(buf, sizeof(buf), f)) {
		buf[strcspn(buf, "\n")] = '\0';
		if (!strcmp(buf, line))
			found = 1;
	}
	if (pclose(f) != 0)
		return -1;
	return found;
}

TEST(uname_release_is_jifl)
{
	struct utsname u;

	ASSERT_EQ(0, uname(&u));
	TH_LOG("release %s", u.release);
	EXPECT_NE(NULL, strstr(u.release, "-jifl"));
}

TEST(proc_version_is_jifl)
{
	char buf[512] = "";
	FILE *f = fopen("/proc/version", "r");

	ASSERT_NE(NULL, f);
	ASSERT_NE(NULL, fgets(buf, sizeof(buf), f));
	fclose(f);
	EXPECT_NE(NULL, strstr(buf, "-jifl"));
}

/*
 * FlowJIT's option is mm's, behind the architecture's ARCH_HAS_FLOWJIT.
 * A kernel without /proc/config.gz (Debian's configuration has no
 * IKCONFIG) shows them by their /proc files; a test kernel has it.
 */
TEST(config_has_jifl_and_flowjit)
{
	if (access("/proc/config.gz", F_OK) && !guest_test_kernel()) {
		EXPECT_EQ(0, access("/proc/flowjit/control", F_OK));
		EXPECT_EQ(0, access("/proc/jifl/control", F_OK));
		return;
	}
	EXPECT_EQ(1, config_has("CONFIG_ARCH_HAS_FLOWJIT=y"));
	EXPECT_EQ(1, config_has("CONFIG_FLOWJIT=y"));
	EXPECT_EQ(1, config_has("CONFIG_JIFL=y"));
}

/* The code generation a distro kernel has must be in the test kernel. */
TEST(config_has_distro_codegen)
{
	static const char * const opts[] = {
		"CONFIG_UNWINDER_ORC=y", "CONFIG_RETPOLINE=y",
		"CONFIG_RETHUNK=y", "CONFIG_SLS=y", "CONFIG_JUMP_LABEL=y",
		"CONFIG_STACKPROTECTOR_STRONG=y", "CONFIG_PREEMPT_DYNAMIC=y",
		"CONFIG_RANDOMIZE_BASE=y", "CONFIG_PAGE_TABLE_ISOLATION=y",
	};
	size_t i;

	/* make kernel-debian checks Debian's at build time */
	if (access("/proc/config.gz", F_OK) && !guest_test_kernel())
		SKIP(return, "no /proc/config.gz in a kernel that is not a test kernel");
	for (i = 0; i < sizeof(opts) / sizeof(opts[0]); i++) {
		TH_LOG("%s", opts[i]);
		EXPECT_EQ(1, config_has(opts[i]));
	}
}

/* jiflcpus= on the kernel command line: the vCPUs QEMU was given. */
static long cmdline_cpus(void)
{
	char buf[4096], *p;
	FILE *f = fopen("/proc/cmdline", "r");
	size_t n;

	if (!f)
		return -1;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	p = strstr(buf, "jiflcpus=");
	return p ? strtol(p + strlen("jiflcpus="), NULL, 10) : 0;
}

TEST(every_vcpu_online)
{
	long want = cmdline_cpus();

	ASSERT_LE(0, want);
	if (!want)
		SKIP(return, "no jiflcpus= on the command line");
	EXPECT_EQ(want, sysconf(_SC_NPROCESSORS_ONLN));
}

/*
 * QEMU 7.2's TCG computes the flags of cmpxchg16b from a stale record
 * of the last flag-setting operation: after a popf then a cmp in the
 * same translation block, the flags hold the cmp's operand, so TF, NT
 * and IOPL can come out set. A kernel interrupted or probed (an int3)
 * right after SLUB's this_cpu_cmpxchg_double() then returns with TF or
 * NT set: a #DB WARN in exc_debug(), then a general protection fault at
 * the next iret (sync_core()); make bench-debian's kprobes rows died of
 * it. scripts/qemu-run.sh gives the guests no cmpxchg16b (-cx16) for
 * that; this test fails if a vCPU has one that still does it.
 */
TEST(cmpxchg16b_keeps_the_flags)
{
	static __attribute__((aligned(16))) uint64_t mem[2] = { 1, 2 };
	uint64_t flags, data = 0xfb42;	/* TF, IF, OF, IOPL 3, NT, bit 15 */
	unsigned int a, b, c, d;

	ASSERT_TRUE(__get_cpuid(1, &a, &b, &c, &d));
	if (!(c & bit_CMPXCHG16B)) {
		TH_LOG("no cmpxchg16b on this vCPU");
		return;
	}
	asm volatile("push $0x202\n\t"
		     "popf\n\t"
		     "cmp %[d], %%rsi\n\t"
		     "cmpxchg16b %[m]\n\t"
		     "pushf\n\t"
		     "pop %[f]"
		     : [f] "=r" (flags), [m] "+m" (mem)
		     : [d] "r" (data), "a" (0UL), "d" (0UL), "b" (0UL), "c" (0UL), "S" (0UL)
		     : "cc", "memory");
	TH_LOG("flags after a failed cmpxchg16b: %#llx", (unsigned long long)flags);
	/* user mode: no TF, NT, IOPL; cmpxchg16b sets ZF only */
	EXPECT_EQ(0, flags & 0x7100);
	EXPECT_EQ(0, flags & 0x40);
}

TEST_HARNESS_MAIN
