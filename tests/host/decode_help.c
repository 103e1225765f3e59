// SPDX-License-Identifier: GPL-2.0
/*
 * jifl-decode's --help, its man page and its bash completion name the
 * same options (help_opts.h): an option added to one and forgotten in
 * another fails here.
 */
#define _GNU_SOURCE	/* strchrnul */

#include "help_opts.h"
#include "tools.h"

#define MAN		JIFL_TOP "/Documentation/man/jifl-decode.1"

TEST(help_man_and_completion_agree)
{
	check_help_opts(_metadata, decoder(), MAN, "_jifl_decode", 11);
}

TEST_HARNESS_MAIN
