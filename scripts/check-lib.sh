#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# What make check (scripts/check.sh) and make check-host
# (scripts/check-host.sh) share: the running totals, the steps, the host
# tests. Sourced with $top (the project's top, the current directory) and
# $logdir (emptied here) set. finish() prints the totals and exits: the
# last line is "N passed, N failed", the one before it "N skipped"; exit
# status 1 on any failure (a build failure counts as one failure). The
# skips stand on a line of their own because CI reads the last line as
# exactly "N passed, N failed".

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
		echo "check: step '$name' failed ($(( $(date +%s) - t0 ))s, log ${logdir#$top/}/$name.log)"
		failures+="step $name failed: $(tail -n 1 "$logdir/$name.log")"$'\n'
		fail=$((fail + 1))
		finish
	fi
	echo "   ok ($(( $(date +%s) - t0 ))s)"
}

# The host tests, built by "make host-tests" (no kernel tree needed; the
# tests that boot the test kernel or use the prepared kernel tree skip
# without them).
host_tests() {
	local t name

	# kselftest-harness binaries, one TAP line per test case
	for t in build/tests/host/*; do
		[ -x "$t" ] || continue
		name=$(basename "$t")
		echo "== host: $name"
		"$t" > "$logdir/host-$name.log" 2>&1
		count_tap "$logdir/host-$name.log" $?
	done

	# The decoder's tests again against the ASan/UBSan build: bad input
	# must never crash or touch memory it should not.
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

	# The fuzzing harnesses (make fuzz) on their corpora and on every
	# input that once crashed one, under ASan/UBSan: one test per harness.
	echo "== host (fuzz replay)"
	scripts/fuzz.sh --replay > "$logdir/host-fuzz-replay.log" 2>&1
	count_tap "$logdir/host-fuzz-replay.log" $?
}
