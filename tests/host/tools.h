/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The tools and programs the decoder's host tests run: this build's, or
 * the jifl-decode that JIFL_DECODE in the environment names (the SAN=1
 * build's: build/bin-san/jifl-decode).
 */
#ifndef JIFL_TESTS_TOOLS_H
#define JIFL_TESTS_TOOLS_H

#include <stdlib.h>

#define SWTRACE	JIFL_TOP "/build/bin/jifl-swtrace"
#define PROGS	JIFL_TOP "/build/tests/progs/"

/* libipt's two decoders (jifl-decode --decoder): every truth test runs with both. */
static const char *const decoders[] = { "insn", "block" };
#define NR_DECODERS	(sizeof(decoders) / sizeof(decoders[0]))

static inline const char *decoder(void)
{
	const char *d = getenv("JIFL_DECODE");

	return d ? d : JIFL_TOP "/build/bin/jifl-decode";
}

#endif /* JIFL_TESTS_TOOLS_H */
