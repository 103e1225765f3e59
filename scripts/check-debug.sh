#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make check-debug: the guest tests on a second test kernel with KASAN,
# lockdep (PROVE_LOCKING), DEBUG_VM and atomic-sleep checks
# (configs/debug.config on top of configs/test.config), in
# build/kernel-debug. Slower than make check (about 35 minutes on 2 cores:
# two guests side by side); last line "N passed, N failed", the one
# before it "N skipped". CHECK_DEBUG_GUESTS sets how many guests (2).
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
# TCG runs a guest on one host thread: the test binaries go to two guests
# side by side (alternately, by name), each with its own log and share
# directory, and the verdicts add up.
guests=${CHECK_DEBUG_GUESTS:-2}
mapfile -t names < <(cd build/tests/guest && find . -maxdepth 1 -type f -perm -u+x -printf '%f\n' | sort)
[ ${#names[@]} -gt 0 ] || fail "no guest test binaries in build/tests/guest"
rm -f build/check/guest-debug-verdict-*.txt build/check/guest-debug-*.log
pids=()
for ((g = 0; g < guests; g++)); do
	list=
	for ((i = g; i < ${#names[@]}; i += guests)); do
		list+=${list:+,}${names[i]}
	done
	[ -n "$list" ] || continue
	QEMU_MEM=2G scripts/qemu-run.sh -k build/kernel-debug/arch/x86/boot/bzImage \
		-t "$list" -T 5400 -P 480 -s "build/check/share-debug-$g" \
		-l "build/check/guest-debug-$g.log" > "build/check/guest-debug-verdict-$g.txt" 2>&1 &
	pids+=($!)
done
for p in "${pids[@]}"; do
	wait "$p"
done
cat build/check/guest-debug-verdict-*.txt
pass=0 failed=0 skip=0
for v in build/check/guest-debug-verdict-*.txt; do
	line=$(sed -n 's/^guest: \([0-9]* passed, [0-9]* failed\)$/\1/p' "$v" | tail -n 1)
	if [ -z "$line" ]; then
		echo "check-debug: $v: no verdict"
		failed=$((failed + 1))
		continue
	fi
	set -- $line
	pass=$((pass + $1)) failed=$((failed + $3))
	s=$(sed -n 's/^guest: \([0-9]*\) skipped$/\1/p' "$v" | tail -n 1)
	skip=$((skip + ${s:-0}))
done
echo "$skip skipped"
echo "$pass passed, $failed failed"
[ "$failed" = 0 ]
