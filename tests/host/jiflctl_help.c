// SPDX-License-Identifier: GPL-2.0
/*
 * jiflctl's --help, its man page and its bash completion name the same
 * options (help_opts.h), those of all its commands together: an option
 * added to one and forgotten in another fails here.
 */
#define _GNU_SOURCE	/* strchrnul */

#include "help_opts.h"

#define JIFLCTL		JIFL_TOP "/build/bin/jiflctl"
#define MAN		JIFL_TOP "/Documentation/man/jiflctl.1"

TEST(help_man_and_completion_agree)
{
	check_help_opts(_metadata, JIFLCTL, MAN, "_jiflctl", 9);
}

TEST_HARNESS_MAIN
