#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Decoding speed on one large static-code trace, side by side:
# jifl-decode --insn, jifl-decode --stats and perf script --itrace=i1i,
# elapsed time and peak memory, as ratios. Called by make bench.
#   scripts/bench-decode.sh [FIB_N]   (swt_flow's size; 24: a few million instructions)
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
out=$top/build/bench/decode
n=${1:-24}
mkdir -p "$out"
prog=$top/build/tests/progs/swt_flow-static
[ -x "$prog" ] || { echo "bench-decode: $prog missing (make tests)" >&2; exit 1; }

echo "bench-decode: recording swt_flow-static $n with jifl-swtrace"
"$top/build/bin/jifl-swtrace" -q -o "$out/perf.data" -- "$prog" "$n" > /dev/null

# best elapsed of 3 runs and its peak RSS: "SECONDS KBYTES"
measure() {
	local best=
	for _ in 1 2 3; do
		/usr/bin/time -f "%e %M" -o "$out/time.txt" "$@" > /dev/null 2> "$out/err.txt" || true
		read -r t m < "$out/time.txt"
		if [ -z "$best" ] || awk "BEGIN { exit !($t < ${best% *}) }"; then
			best="$t $m"
		fi
	done
	echo "$best"
}

insns=$("$top/build/bin/jifl-decode" -i "$out/perf.data" --stats 2>&1 |
	sed -n 's/^ *instructions[^0-9]*\([0-9]*\).*/\1/p' | head -n 1)
read -r t_insn m_insn <<< "$(measure "$top/build/bin/jifl-decode" -i "$out/perf.data" --insn)"
read -r t_stats m_stats <<< "$(measure "$top/build/bin/jifl-decode" -i "$out/perf.data" --stats)"
read -r t_perf m_perf <<< "$(measure perf script -i "$out/perf.data" --itrace=i1i)"

printf 'decode-bench: %s instructions of static code (best of 3)\n' "${insns:-?}"
printf '  %-34s %8s %10s\n' "decoder" "seconds" "peak KiB"
printf '  %-34s %8s %10s\n' "perf script --itrace=i1i" "$t_perf" "$m_perf"
printf '  %-34s %8s %10s\n' "jifl-decode --insn" "$t_insn" "$m_insn"
printf '  %-34s %8s %10s\n' "jifl-decode --stats" "$t_stats" "$m_stats"
# /usr/bin/time has 10 ms resolution
awk -v p="$t_perf" -v i="$t_insn" -v s="$t_stats" 'BEGIN {
	if (i < 0.01) i = 0.01; if (s < 0.01) s = 0.01
	printf "ratio perf script / jifl-decode --insn:  %.2f\n", p / i
	printf "ratio perf script / jifl-decode --stats: %.2f\n", p / s }'
