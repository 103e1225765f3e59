// SPDX-License-Identifier: GPL-2.0
/*
 * The guest booted the patched kernel: -jifl localversion and the
 * series' Kconfig options in /proc/config.gz; and every vCPU that QEMU
 * was given is online, so that the other tests run on SMP.
 */
#define _GNU_SOURCE
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

TEST_HARNESS_MAIN
