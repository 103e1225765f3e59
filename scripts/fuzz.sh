#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make fuzz: run the libFuzzer harnesses of tests/fuzz (perf.data reader
# and decoding, FlowJIT file reader and JIT image, raw-mode decoding),
# built with clang, ASan and UBSan, for FUZZ_TIME seconds each (default
# 600), starting from the corpus kept in the tree (tests/fuzz/corpus/
# NAME.tar.xz), the seeds made from the project's own recordings and
# what earlier runs here found (build/fuzz/work/NAME). Then the corpus in
# the tree is replaced by a minimised merge of all three (commit it), and
# each run's executions and coverage are added to build/fuzz/history.txt. A crash, leak or
# timeout leaves its input in build/fuzz/artifacts/NAME/ and fails the
# run: once fixed, keep the input in tests/fuzz/regress/NAME/.
#
# scripts/fuzz.sh --replay: run every corpus and regression input once
# (make check does), one TAP line per harness. The corpora are kept as
# xz-compressed tar files: FlowJIT inputs are mostly 4 KiB code pages.
#
# FUZZERS="fuzz_raw ..." picks harnesses.
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
B=$top/build
F=$B/fuzz
time=${FUZZ_TIME:-600}
fuzzers=${FUZZERS:-fuzz_perf_data fuzz_flowjit fuzz_raw}

die() { echo "fuzz: $*" >&2; exit 1; }

# The longest input each harness makes: a perf.data of tests/fuzz/tiny.c,
# a few 4 KiB code snapshots, a page of code and trace.
max_len() {
	case $1 in
	fuzz_perf_data) echo 16384 ;;
	fuzz_flowjit) echo 32768 ;;
	*) echo 4096 ;;
	esac
}

make -s fuzzers > "$B/fuzz-build.log" 2>&1 || { tail -n 30 "$B/fuzz-build.log"; die "build failed"; }

# The corpus of harness $1 from the tree, unpacked into $2 (emptied first).
unpack() {
	rm -rf "$2"
	mkdir -p "$2"
	[ -f "tests/fuzz/corpus/$1.tar.xz" ] || return 0
	tar -C "$2" --strip-components=1 -xJf "tests/fuzz/corpus/$1.tar.xz"
}

# Directory $2 as the tree's corpus of harness $1, byte for byte the same
# for the same files.
pack() {
	tar -C "$2" -c --sort=name --mtime=@0 --owner=0 --group=0 --numeric-owner \
		--transform "s,^\.,$1," . | xz -9 > "tests/fuzz/corpus/$1.tar.xz"
}

if [ "${1:-}" = --replay ]; then
	n=0 bad=0
	echo "TAP version 13"
	for name in $fuzzers; do
		n=$((n + 1))
		unpack "$name" "$F/replay/$name" || die "cannot unpack the corpus of $name"
		dirs=("$F/replay/$name")
		[ -d "tests/fuzz/regress/$name" ] && dirs+=("tests/fuzz/regress/$name")
		inputs=$(find "${dirs[@]}" -type f | wc -l)
		log=$F/replay-$name.log
		if [ "$inputs" -gt 0 ] && "$F/$name" -runs=0 -timeout=60 "${dirs[@]}" > "$log" 2>&1; then
			echo "ok $n $name: $inputs inputs replayed"
		else
			[ "$inputs" = 0 ] && echo "# no inputs for $name" || tail -n 30 "$log" | sed 's/^/# /'
			echo "not ok $n $name"
			bad=$((bad + 1))
		fi
	done
	echo "1..$n"
	exit $((bad != 0))
fi

# Seeds: the project's own recordings (jifl-swtrace on tests/fuzz/tiny.c,
# per thread and per CPU) and files written by the seed programs.
seeds=$F/seeds
rm -rf "$seeds"
mkdir -p "$seeds/fuzz_perf_data" "$seeds/fuzz_flowjit" "$seeds/fuzz_raw"
cflags="-std=gnu11 -O2 -Wall -Wextra -Werror -D_GNU_SOURCE -Iuserspace/lib -Itests/host -Iuserspace/include/uapi"
gcc $cflags -o "$F/seed_raw" tests/fuzz/seed_raw.c -lipt &&
	gcc $cflags -o "$F/seed_fj" tests/fuzz/seed_fj.c "$B/userspace/libjifl.a" &&
	gcc -O2 -Wall -Werror -nostdlib -static -fno-stack-protector -o "$F/tiny" tests/fuzz/tiny.c ||
	die "seed programs do not build"
"$F/seed_raw" "$seeds/fuzz_raw" && "$F/seed_fj" "$seeds/fuzz_flowjit" || die "seeds not written"
sw="$B/bin/jifl-swtrace -q -N"
$sw -o "$seeds/fuzz_perf_data/tiny-thread" -- "$F/tiny" &&
	$sw --per-cpu --cpus 2 --timeslice 200 -o "$seeds/fuzz_perf_data/tiny-cpu-wide" -- "$F/tiny" &&
	$sw --per-cpu --cpus 2 --timeslice 300 --switches task -o "$seeds/fuzz_perf_data/tiny-task-switch" -- "$F/tiny" &&
	$sw --ret-compression --psb-period 256 --tsc-every 1000 -o "$seeds/fuzz_perf_data/tiny-retcomp" -- "$F/tiny" ||
	die "jifl-swtrace could not record the seeds"

failed=0
for name in $fuzzers; do
	work=$F/work/$name art=$F/artifacts/$name corpus=$F/corpus/$name
	mkdir -p "$work" "$art"
	unpack "$name" "$corpus" || die "cannot unpack the corpus of $name"
	log=$F/$name.log
	echo "fuzz: $name for ${time}s (log $log)"
	t0=$(date +%s)
	# An input may decode millions of instructions (a never-ending loop is
	# given up after about 2^20): seconds with the sanitizers.
	"$F/$name" -max_total_time="$time" -timeout=30 -rss_limit_mb=2048 \
		-max_len="$(max_len "$name")" -artifact_prefix="$art/" -print_final_stats=1 \
		"$work" "$corpus" "$seeds/$name" > "$log" 2>&1
	rc=$?
	secs=$(( $(date +%s) - t0 ))
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
	cov=$(grep -o 'cov: [0-9]* ft: [0-9]*' "$log" | tail -n 1)
	found=$(find "$art" -type f | wc -l)
	echo "   ${execs:-?} executions, ${cov:-no coverage line}, $found crash/leak/timeout inputs"
	echo "$(date -u +%FT%TZ) $name ${secs}s execs=${execs:-?} ${cov:-} found=$found rc=$rc" >> "$F/history.txt"
	if [ "$rc" != 0 ] || [ "$found" != 0 ]; then
		grep -E 'ERROR|SUMMARY|runtime error|Test unit written' "$log" | head -n 20
		failed=1
		continue
	fi
	# The corpus kept in the tree: the inputs that add coverage, minimised.
	new=$F/merge-$name
	rm -rf "$new"
	mkdir -p "$new"
	if "$F/$name" -merge=1 -max_len="$(max_len "$name")" "$new" "$corpus" "$work" \
		"$seeds/$name" > "$F/$name-merge.log" 2>&1; then
		pack "$name" "$new"
		echo "   corpus: $(ls "$new" | wc -l) inputs, tests/fuzz/corpus/$name.tar.xz" \
			"$(( $(stat -c %s "tests/fuzz/corpus/$name.tar.xz") / 1024 )) KiB"
	else
		echo "   merge failed (log $F/$name-merge.log); corpus left as it was"
		failed=1
	fi
done
echo "fuzz: totals so far (build/fuzz/history.txt):"
awk '{ split($3, t, "s"); s[$2] += t[1] } END { for (n in s) printf "   %s: %d s\n", n, s[n] }' "$F/history.txt"
exit $failed
