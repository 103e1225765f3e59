#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make check: set up, prepare the kernel tree, check the kernel headers
# vendored in user space against it, build the test kernel, user space
# and tests, run the host tests, then the guest tests in QEMU.
# The last line is always "N passed, N failed", the one before it
# "N skipped" (scripts/check-lib.sh).
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
logdir=$top/build/check
. scripts/check-lib.sh

step setup scripts/setup.sh
step prepare scripts/kernel-prepare.sh
step headers scripts/check-headers.sh
step kernel scripts/kernel-build.sh
step build make -s tests initramfs

host_tests

# Run guest tests: qemu-run.sh's options; adds its verdict to the totals.
guest_run() {
	local log=$1 gp gf gs
	shift
	scripts/qemu-run.sh -l "$logdir/$log.log" "$@" | tee "$logdir/$log-verdict.txt"
	gp=$(sed -n 's/^guest: \([0-9]*\) passed, \([0-9]*\) failed$/\1/p' "$logdir/$log-verdict.txt")
	gf=$(sed -n 's/^guest: \([0-9]*\) passed, \([0-9]*\) failed$/\2/p' "$logdir/$log-verdict.txt")
	gs=$(sed -n 's/^guest: \([0-9]*\) skipped$/\1/p' "$logdir/$log-verdict.txt")
	if [ -z "$gp" ]; then
		gp=0 gf=1
	fi
	if [ "$gf" != 0 ]; then
		tail -n 60 "$logdir/$log.log"
		note_failures "$logdir/$log.log" \
			'^not ok|Expected|^test .* fail=[1-9]|Oops|BUG|WARNING|qemu-run: (no progress|guest killed)'
	fi
	[ "${gs:-0}" != 0 ] && note_skips "$logdir/$log.log"
	pass=$((pass + gp)); fail=$((fail + gf)); skip=$((skip + ${gs:-0}))
}

echo "== guest"
# About 13 minutes alone on 2 cores (two vCPUs, round-robin TCG; the
# stress tests run for fixed times, a tool module is unloaded 100 times
# under load); twice that on a loaded machine.
guest_run guest -t all -T 2700

echo "== guest, instruction counting"
# Under plain TCG an interrupt only lands between QEMU's translation
# blocks, never inside straight-line code such as a JIFL tool's inserted
# instructions; with -icount it lands on any instruction, so the call
# chains sampled there test every byte's unwind entry. About 2 minutes.
# A guest second is 10^9 instructions there, five or more seconds of
# host time under TCG: the guest's 20 s heartbeat comes every few
# minutes, so the no-progress limit is wider than the default 120 s.
# jiflicount=1 tells the tests (in their environment): the profile
# comparisons skip there, their two-CPU TCG run above is the one.
QEMU_SMP=1 JIFL_TSC_KHZ=1000000 QEMU_EXTRA="-icount shift=0,sleep=off" \
	guest_run guest-icount -t jifl_unwind -a jiflicount=1 -P 600 -T 1200
finish
