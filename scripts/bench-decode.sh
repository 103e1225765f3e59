#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Decoding speed on one large static-code trace, side by side:
# jifl-decode --insn, --branches and --stats with libipt's instruction
# flow decoder and its block decoder, and perf script --itrace=i1i,
# elapsed time and peak memory, as ratios. Called by make bench.
#   scripts/bench-decode.sh [FIB_N]   (swt_flow's size; 24: a few million instructions)
#   BENCH_DATA=perf.data scripts/bench-decode.sh   (decode that trace, record none)
# Then the same on a per-CPU trace (perf record's default mode) of
# swt_thread-static 200: four threads on two virtual CPUs, queue by
# queue merged in time order (BENCH_PERCPU_DATA=perf.data: that one).
# jifl-decode with -j 1 (the queues one after the other) and -j 2.
# With --insn the workers decode while the main thread prints; with
# --stats alone the merge of every item costs more than it saves, which
# is why -j defaults to 1 there.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
out=$top/build/bench/decode
n=${1:-24}
mkdir -p "$out"
prog=$top/build/tests/progs/swt_flow-static
data=${BENCH_DATA:-$out/perf.data}

if [ -z "${BENCH_DATA:-}" ]; then
	[ -x "$prog" ] || { echo "bench-decode: $prog missing (make tests)" >&2; exit 1; }
	echo "bench-decode: recording swt_flow-static $n with jifl-swtrace"
	"$top/build/bin/jifl-swtrace" -q -o "$data" -- "$prog" "$n" > /dev/null
fi

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

insns=$("$top/build/bin/jifl-decode" -i "$data" --stats 2>&1 |
	sed -n 's/^ *instructions[^0-9]*\([0-9]*\).*/\1/p' | head -n 1)
read -r t_insn m_insn <<< "$(measure "$top/build/bin/jifl-decode" -i "$data" --insn --decoder insn)"
read -r t_binsn m_binsn <<< "$(measure "$top/build/bin/jifl-decode" -i "$data" --insn --decoder block)"
read -r t_br m_br <<< "$(measure "$top/build/bin/jifl-decode" -i "$data" --branches --decoder insn)"
read -r t_bbr m_bbr <<< "$(measure "$top/build/bin/jifl-decode" -i "$data" --branches --decoder block)"
read -r t_stats m_stats <<< "$(measure "$top/build/bin/jifl-decode" -i "$data" --stats --decoder insn)"
read -r t_bstats m_bstats <<< "$(measure "$top/build/bin/jifl-decode" -i "$data" --stats --decoder block)"
read -r t_perf m_perf <<< "$(measure perf script -i "$data" --itrace=i1i)"

printf 'decode-bench: %s instructions of static code (best of 3)\n' "${insns:-?}"
printf '  %-42s %8s %10s\n' "decoder" "seconds" "peak KiB"
printf '  %-42s %8s %10s\n' "perf script --itrace=i1i" "$t_perf" "$m_perf"
printf '  %-42s %8s %10s\n' "jifl-decode --insn (default block)" "$t_binsn" "$m_binsn"
printf '  %-42s %8s %10s\n' "jifl-decode --insn --decoder insn" "$t_insn" "$m_insn"
printf '  %-42s %8s %10s\n' "jifl-decode --branches --decoder insn" "$t_br" "$m_br"
printf '  %-42s %8s %10s\n' "jifl-decode --branches (default block)" "$t_bbr" "$m_bbr"
printf '  %-42s %8s %10s\n' "jifl-decode --stats --decoder insn" "$t_stats" "$m_stats"
printf '  %-42s %8s %10s\n' "jifl-decode --stats (default block)" "$t_bstats" "$m_bstats"
# /usr/bin/time has 10 ms resolution
awk -v p="$t_perf" -v i="$t_insn" -v s="$t_bstats" -v si="$t_stats" -v b="$t_br" -v bb="$t_bbr" \
    -v bi="$t_binsn" 'function r(x) { return x < 0.01 ? 0.01 : x } BEGIN {
	printf "ratio perf script / jifl-decode --insn:  %.2f\n", p / r(bi)
	printf "ratio perf script / jifl-decode --stats: %.2f\n", p / r(s)
	printf "ratio insn / block decoder, --stats:     %.2f\n", si / r(s)
	printf "ratio insn / block decoder, --branches:  %.2f\n", b / r(bb)
	printf "ratio insn / block decoder, --insn:      %.2f\n", i / r(bi) }'

pprog=$top/build/tests/progs/swt_thread-static
pdata=${BENCH_PERCPU_DATA:-$out/percpu.data}
if [ -z "${BENCH_PERCPU_DATA:-}" ]; then
	[ -x "$pprog" ] || { echo "bench-decode: $pprog missing (make tests)" >&2; exit 1; }
	echo "bench-decode: recording swt_thread-static 200 per CPU with jifl-swtrace (about a minute)"
	"$top/build/bin/jifl-swtrace" -q --per-cpu --cpus 2 -o "$pdata" -- "$pprog" 200 > /dev/null
fi
pinsns=$("$top/build/bin/jifl-decode" -i "$pdata" --stats 2>&1 |
	sed -n 's/^ *instructions[^0-9]*\([0-9]*\).*/\1/p' | head -n 1)
read -r pt_insn pm_insn <<< "$(measure "$top/build/bin/jifl-decode" -j 1 -i "$pdata" --insn)"
read -r pt_insn2 pm_insn2 <<< "$(measure "$top/build/bin/jifl-decode" -j 2 -i "$pdata" --insn)"
read -r pt_stats pm_stats <<< "$(measure "$top/build/bin/jifl-decode" -j 1 -i "$pdata" --stats --decoder insn)"
read -r pt_stats2 pm_stats2 <<< "$(measure "$top/build/bin/jifl-decode" -j 2 -i "$pdata" --stats --decoder insn)"
read -r pt_bstats pm_bstats <<< "$(measure "$top/build/bin/jifl-decode" -j 1 -i "$pdata" --stats)"
read -r pt_bstats2 pm_bstats2 <<< "$(measure "$top/build/bin/jifl-decode" -j 2 -i "$pdata" --stats)"
read -r pt_perf pm_perf <<< "$(measure perf script -i "$pdata" --itrace=i1i)"
printf 'decode-bench: %s instructions, per-CPU trace of 4 threads on 2 CPUs (best of 3)\n' "${pinsns:-?}"
printf '  %-42s %8s %10s\n' "decoder" "seconds" "peak KiB"
printf '  %-42s %8s %10s\n' "perf script --itrace=i1i" "$pt_perf" "$pm_perf"
printf '  %-42s %8s %10s\n' "jifl-decode --insn -j 1" "$pt_insn" "$pm_insn"
printf '  %-42s %8s %10s\n' "jifl-decode --insn -j 2" "$pt_insn2" "$pm_insn2"
printf '  %-42s %8s %10s\n' "jifl-decode --stats --decoder insn -j 1" "$pt_stats" "$pm_stats"
printf '  %-42s %8s %10s\n' "jifl-decode --stats --decoder insn -j 2" "$pt_stats2" "$pm_stats2"
printf '  %-42s %8s %10s\n' "jifl-decode --stats (default block) -j 1" "$pt_bstats" "$pm_bstats"
printf '  %-42s %8s %10s\n' "jifl-decode --stats (default block) -j 2" "$pt_bstats2" "$pm_bstats2"
awk -v p="$pt_perf" -v i="$pt_insn" -v i2="$pt_insn2" -v s="$pt_stats" -v s2="$pt_stats2" \
    -v b="$pt_bstats" -v b2="$pt_bstats2" 'function r(x) { return x < 0.01 ? 0.01 : x } BEGIN {
	printf "ratio perf script / jifl-decode --insn -j 1, per CPU: %.2f\n", p / r(i)
	printf "ratio perf script / jifl-decode --insn -j 2, per CPU: %.2f\n", p / r(i2)
	printf "ratio -j 1 / -j 2, --insn:                            %.2f\n", i / r(i2)
	printf "ratio -j 1 / -j 2, --stats --decoder insn:            %.2f\n", s / r(s2)
	printf "ratio -j 1 / -j 2, --stats (block; /usr/bin/time has 10 ms): %.2f\n", b / r(b2) }'
