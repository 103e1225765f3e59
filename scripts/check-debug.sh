#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make check-debug: the guest tests on a second test kernel with KASAN,
# lockdep (PROVE_LOCKING), DEBUG_VM and atomic-sleep checks
# (configs/debug.config on top of configs/test.config), in
# build/kernel-debug. Slower than make check; last line "N passed, N failed",
# the one before it "N skipped".
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
mkdir -p build/check
fail() { echo "check-debug: $*"; echo "0 passed, 1 failed"; exit 1; }

scripts/setup.sh || fail "setup failed"
scripts/kernel-prepare.sh || fail "prepare failed"
KOUT=build/kernel-debug FRAGMENTS="configs/debug.config" scripts/kernel-build.sh \
	> build/check/kernel-debug.log 2>&1 || { tail -n 30 build/check/kernel-debug.log; fail "debug kernel build failed"; }
make -s tests initramfs > build/check/build-debug.log 2>&1 || { tail -n 30 build/check/build-debug.log; fail "build failed"; }
# The guest scales its tests' time limits by 4 on this kernel
# (scripts/guest/run-tests); the console may stay silent 4 times as long.
QEMU_MEM=2G scripts/qemu-run.sh -k build/kernel-debug/arch/x86/boot/bzImage \
	-t all -T 5400 -P 480 -l build/check/guest-debug.log | tee build/check/guest-debug-verdict.txt
sed -n 's/^guest: \([0-9]* skipped\)$/\1/p' build/check/guest-debug-verdict.txt | tail -n 1
sed -n 's/^guest: \([0-9]* passed, [0-9]* failed\)$/\1/p' build/check/guest-debug-verdict.txt | tail -n 1 |
	grep . || echo "0 passed, 1 failed"
grep -q '^guest: [0-9]* passed, 0 failed$' build/check/guest-debug-verdict.txt
