#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make check-host: the host half of make check, on a machine without a
# kernel tree: set up the user-space packages, build the tools and the
# host tests (from the kernel headers vendored in the tree), run the host
# tests. The tests that boot the test kernel or need the prepared kernel
# tree are skipped, each with its reason; make check runs them. Minutes,
# not a kernel build. Same last lines as make check: "N skipped", then
# "N passed, N failed" (scripts/check-lib.sh).
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
logdir=$top/build/check-host
. scripts/check-lib.sh

step setup scripts/setup.sh --host
step build make -s host-tests
host_tests
finish
