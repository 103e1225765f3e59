// SPDX-License-Identifier: GPL-2.0
/*
 * The string lives here alone, so that a new commit rebuilds this file
 * and relinks the tools, nothing more.
 */
#include "version.h"
#include "version_string.h"	/* generated: JIFL_VERSION */

const char *jifl_version(void)
{
	return JIFL_VERSION;
}
