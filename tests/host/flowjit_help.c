// SPDX-License-Identifier: GPL-2.0
/*
 * flowjit's --help, its man page and its bash completion name the same
 * options (help_opts.h), those of all its commands together: an option
 * added to one and forgotten in another fails here.
 */
#define _GNU_SOURCE	/* strchrnul */

#include "help_opts.h"

#define FLOWJIT		JIFL_TOP "/build/bin/flowjit"
#define MAN		JIFL_TOP "/Documentation/man/flowjit.1"

TEST(help_man_and_completion_agree)
{
	check_help_opts(_metadata, FLOWJIT, MAN, "_flowjit", 10);
}

TEST_HARNESS_MAIN
