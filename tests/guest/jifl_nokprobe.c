// SPDX-License-Identifier: GPL-2.0
/*
 * The lookup and translation paths are off limits to kprobes (issue 11,
 * item 8): they run between translated instructions, with the code
 * cache's lock held and interrupts off, and a probe there would trap
 * in the middle of a transfer. The kernel lists such functions in
 * /sys/kernel/debug/kprobes/blacklist.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "guest_harness.h"

#define BLACKLIST "/sys/kernel/debug/kprobes/blacklist"

/* Is @sym listed ("0xSTART-0xEND\tSYM")? -1 if the list cannot be read. */
static int blacklisted(const char *sym)
{
	char line[256], name[128];
	FILE *f = fopen(BLACKLIST, "r");
	int found = 0;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%*s %127s", name) == 1 && !strcmp(name, sym))
			found = 1;
	fclose(f);
	return found;
}

TEST(lookup_and_translation_are_not_probed)
{
	static const char * const syms[] = {
		"jifl_lookup", "jifl_lookup_call", "jifl_lookup_callsite",
		"jifl_lookup_learn", "jifl_lookup_learn_call", "jifl_return_trampoline",
		"jifl_lookup_target", "jifl_learn_return", "jifl_learn_call", "jifl_translate",
		"jifl_cache_find", "jifl_cache_block", "jifl_fault_native",
	};
	unsigned int i;

	if (access(BLACKLIST, R_OK))
		SKIP(return, "no %s", BLACKLIST);
	for (i = 0; i < sizeof(syms) / sizeof(syms[0]); i++) {
		const char *sym = syms[i];

		EXPECT_EQ(1, blacklisted(sym)) TH_LOG("may be probed: %s", sym ?: "");
	}
}

TEST_HARNESS_MAIN
