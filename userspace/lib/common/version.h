/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The version of the JIFL tools, as "--version" prints it and the Debian
 * package carries it: scripts/version.sh at build time.
 */
#ifndef JIFL_VERSION_H
#define JIFL_VERSION_H

/* "0.1+git90.0fbbee8": the release, and the commit of a git checkout. */
const char *jifl_version(void);

#endif /* JIFL_VERSION_H */
