#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make check: set up, prepare the kernel tree, build the test kernel, user
# space and tests, run the host tests, then the guest tests in QEMU.
# The last line is always "N passed, N failed", the one before it
# "N skipped"; exit status 1 on any failure (a build failure counts as
# one failure). The skips stand on a line of their own because CI
# reads the last line as exactly "N passed, N failed".
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
logdir=$top/build/check
rm -rf "$logdir"
mkdir -p "$logdir"
pass=0 fail=0 skip=0
failures= skips=

# The lines of log $1 that match $2, named after the log: what failed or
# was skipped, again at the end, where a CI summary that keeps only the
# last lines shows it.
log_lines() {
	grep -aE "$2" "$1" | tr -d '\r' | tail -n 8 | sed "s|^|$(basename "$1" .log): |"
}

note_failures() {
	failures+=$(log_lines "$@")$'\n'
}

# A kselftest-harness skip: "ok N name # SKIP reason".
note_skips() {
	skips+=$(log_lines "$1" '^ok [0-9].*# SKIP')$'\n'
}

finish() {
	if [ -n "$skips" ]; then
		echo "== skipped"
		printf '%s' "$skips" | tail -n 16
	fi
	if [ -n "$failures" ]; then
		echo "== failures"
		printf '%s' "$failures" | tail -n 16
	fi
	echo "$skip skipped"
	echo "$pass passed, $fail failed"
	[ "$fail" = 0 ]
	exit
}

# Add up a kselftest-harness log: one TAP line per test case ("# SKIP"
# counted apart); a non-zero exit without a "not ok" line (a crash) is
# one failure.
count_tap() {
	local log=$1 rc=$2 p s f
	p=$(grep -E '^ok [0-9]' "$log" | grep -vc '# SKIP')
	s=$(grep -E '^ok [0-9]' "$log" | grep -c '# SKIP')
	f=$(grep -cE '^not ok [0-9]' "$log")
	[ "$rc" != 0 ] && [ "$f" = 0 ] && f=1
	if [ "$f" != 0 ]; then
		grep -E '^not ok|^#|ERROR|runtime error' "$log" | tail -n 30
		note_failures "$log" '^not ok|Expected|ERROR|runtime error'
	fi
	[ "$s" != 0 ] && note_skips "$log"
	echo "   $p passed, $f failed, $s skipped"
	pass=$((pass + p)); fail=$((fail + f)); skip=$((skip + s))
}

step() {
	local name=$1; shift
	local t0=$(date +%s)
	echo "== $name"
	if ! "$@" > "$logdir/$name.log" 2>&1; then
		tail -n 40 "$logdir/$name.log"
		echo "check: step '$name' failed ($(( $(date +%s) - t0 ))s, log build/check/$name.log)"
		failures+="step $name failed: $(tail -n 1 "$logdir/$name.log")"$'\n'
		fail=$((fail + 1))
		finish
	fi
	echo "   ok ($(( $(date +%s) - t0 ))s)"
}

step setup scripts/setup.sh
step prepare scripts/kernel-prepare.sh
step kernel scripts/kernel-build.sh
step build make -s tests initramfs

# Host tests: kselftest-harness binaries, one TAP line per test case.
for t in build/tests/host/*; do
	[ -x "$t" ] || continue
	name=$(basename "$t")
	echo "== host: $name"
	"$t" > "$logdir/host-$name.log" 2>&1
	count_tap "$logdir/host-$name.log" $?
done

# The decoder's tests again against the ASan/UBSan build: bad input must
# never crash or touch memory it should not.
if make -s userspace-san > "$logdir/build-san.log" 2>&1; then
	for name in decode decode_ptt; do
		echo "== host (ASan/UBSan): $name"
		JIFL_DECODE=build/bin-san/jifl-decode build/tests/host/$name \
			> "$logdir/host-san-$name.log" 2>&1
		count_tap "$logdir/host-san-$name.log" $?
	done
else
	tail -n 20 "$logdir/build-san.log"
	echo "check: sanitizer build failed"
	failures+="sanitizer build failed"$'\n'
	fail=$((fail + 1))
fi

# The fuzzing harnesses (make fuzz) on their corpora and on every input
# that once crashed one, under ASan/UBSan: one test per harness.
echo "== host (fuzz replay)"
scripts/fuzz.sh --replay > "$logdir/host-fuzz-replay.log" 2>&1
count_tap "$logdir/host-fuzz-replay.log" $?

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
QEMU_SMP=1 JIFL_TSC_KHZ=1000000 QEMU_EXTRA="-icount shift=0,sleep=off" \
	guest_run guest-icount -t jifl_unwind -P 600 -T 1200
finish
