#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Print the version of the user-space tools, the one place it comes from
# (--version of every tool, the Debian package): the release in VERSION,
# and in a git checkout "+gitN.HASH" (N commits, HASH from git describe,
# ".dirty" when the tree has changes), a valid Debian version that grows
# with every commit: 0.1+git90.0fbbee8.dirty.
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
release=$(cat "$top/VERSION")

# --exclude='*': the commit alone; the release number is VERSION's.
if desc=$(git -C "$top" describe --always --dirty --exclude='*' 2>/dev/null) &&
   count=$(git -C "$top" rev-list --count HEAD 2>/dev/null); then
	echo "$release+git$count.$(echo "$desc" | tr - .)"
else
	echo "$release"
fi
