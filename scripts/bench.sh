#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make bench: benchmarks, side by side in one guest run; ratios, not
# pass/fail. Results land in build/bench/.
#
#   scripts/bench.sh          everything
#   scripts/bench.sh apache   (make bench-apache) the Apache rows of the
#                             JIFL bench alone, with kprobes, in both guests
#   scripts/bench.sh runtimes (make bench-runtimes) JIT runtimes (LuaJIT,
#                             Node.js, PHP) plain and under flowjit record
set -euo pipefail

only=${1:-}
case "$only" in
"" | apache | runtimes) ;;
*) echo "usage: bench.sh [apache|runtimes]" >&2; exit 2 ;;
esac

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
out=$top/build/bench
share=$out/share
mkdir -p "$share"

scripts/setup.sh
scripts/kernel-prepare.sh
scripts/kernel-build.sh
make -s tests initramfs
gcc -std=gnu11 -O2 -Wall -Wextra -Werror -static -isystem build/kernel/usr/include \
	-o "$share/flowjit_bench" tests/bench/flowjit_bench.c
gcc -std=gnu11 -O2 -Wall -Wextra -Werror -static \
	-o "$share/jifl_bench" tests/bench/jifl_bench.c
gcc -std=gnu11 -O2 -Wall -Wextra -Werror -static \
	-o "$share/jifl_probe_bench" tests/bench/jifl_probe_bench.c
gcc -std=gnu11 -O2 -Wall -Wextra -Werror -static \
	-o "$share/runtime_bench" tests/bench/runtime_bench.c
cp tests/data/hot.lua "$share/"
# Apache and ab for the guest, copied onto its root by the command
[ "$only" = runtimes ] || scripts/apache-root.sh "$share/apache-root"
jifl_args="--apache"
[ "$only" = apache ] && jifl_args="--apache --only apache"

if [ "$only" = runtimes ]; then
	echo "cd /mnt/host" > "$out/cmd.sh"
else
	cat > "$out/cmd.sh" <<CMD
cp -a /mnt/host/apache-root/. /
cd /mnt/host
./jifl_bench $jifl_args
CMD
fi
[ "$only" = "" ] && cat >> "$out/cmd.sh" <<'CMD'
./jifl_probe_bench
./flowjit_bench /mnt/host/flowjit-samples.txt
# LuaJIT with tracking off and on (a shell tracks itself, then execs);
# one warm-up run first, so that QEMU has translated luajit's own code.
luajit hot.lua >/dev/null
for i in 1 2 3 4 5; do
	t0=$(cut -d' ' -f1 /proc/uptime)
	luajit hot.lua >/dev/null
	t1=$(cut -d' ' -f1 /proc/uptime)
	sh -c 'echo "track $$" > /proc/flowjit/control && exec luajit hot.lua' >/dev/null
	t2=$(cut -d' ' -f1 /proc/uptime)
	echo "luajit-run off=$t0:$t1 on=$t1:$t2"
done
CMD
[ "$only" = apache ] || cat >> "$out/cmd.sh" <<'CMD'
./runtime_bench /jifl/bin/flowjit
CMD
# long: a kprobe on every block of each benchmark in turn (with 5 kprobe
# rounds, and a CI run beside it, jifl_bench alone passed 1,500 s)
scripts/qemu-run.sh -t none -s "$share" -c "$out/cmd.sh" -T 3000 -P 900 -l "$out/guest.log" >/dev/null || true
sed -n '/^JIFL-CMD-BEGIN/,/^JIFL-CMD-END/p' "$out/guest.log" | sed '1d;$d' | tr -d '\r' |
	grep -v 'jifl-guest: command still running' > "$out/flowjit.txt"
grep -v '^luajit-run' "$out/flowjit.txt" | grep -v 'crng init'
grep -A40 '^jifl-bench' "$out/flowjit.txt" > "$out/jifl.txt" || true
grep -A5 '^jifl-probe-bench' "$out/flowjit.txt" > "$out/jifl-probe.txt" || true
awk '/^luajit-run/ { split($2, a, "[=:]"); split($3, b, "[=:]");
	off += a[3] - a[2]; on += b[3] - b[2] }
	END { if (off > 0) printf "LuaJIT hot.lua, 5 runs each: untracked %.2fs, tracked %.2fs, ratio %.2f\n", off, on, on / off }' \
	"$out/flowjit.txt" | tee -a "$out/flowjit.txt"

# JIFL again, counting instructions: one vCPU under -icount shift=0,
# where the TSC advances by one per instruction (and runs at 1 GHz of
# virtual time, hence tsc_early_khz). Also the longest time JIFL held
# its lock with interrupts off, in instructions.
if [ "$only" = runtimes ]; then
	echo "cd /mnt/host" > "$out/cmd-icount.sh"
else
	cat > "$out/cmd-icount.sh" <<CMD
cp -a /mnt/host/apache-root/. /
cd /mnt/host
./jifl_bench --icount $jifl_args
CMD
fi
[ "$only" = "" ] && cat >> "$out/cmd-icount.sh" <<'CMD'
./jifl_probe_bench --icount
echo "jifl-irqoff: $(grep irqoff_max_cycles /proc/jifl/stats)"
./flowjit_bench --icount
CMD
[ "$only" = apache ] || cat >> "$out/cmd-icount.sh" <<'CMD'
./runtime_bench /jifl/bin/flowjit --icount
CMD
# The guest's heartbeat sleeps 20 s of virtual time, which is 20 billion
# instructions here: minutes of real time; hence -P.
QEMU_SMP=1 JIFL_TSC_KHZ=1000000 QEMU_EXTRA="-icount shift=0,sleep=off" \
	scripts/qemu-run.sh -t none -s "$share" -c "$out/cmd-icount.sh" -T 1500 -P 900 \
	-l "$out/guest-icount.log" >/dev/null || true
sed -n '/^JIFL-CMD-BEGIN/,/^JIFL-CMD-END/p' "$out/guest-icount.log" | sed '1d;$d' | tr -d '\r' |
	grep -E '^(jifl-bench|jifl-probe-bench|  |jifl-irqoff|flowjit-bench|ratio|runtime-bench)' |
	tee "$out/jifl-icount.txt"

[ -n "$only" ] && exit 0

if command -v gnuplot >/dev/null && [ -s "$share/flowjit-samples.txt" ]; then
	gnuplot <<GP
set terminal pngcairo size 800,500
set output "$out/flowjit-cost.png"
set title "FlowJIT: cycles per rewrite+run of a tracked RWX page (QEMU TCG)"
set xlabel "TSC cycles per version: rewrite the page, run it"
set ylabel "density"
set logscale x
stats "$share/flowjit-samples.txt" nooutput
set style fill transparent solid 0.5
bin(x) = exp(floor(log(x) * 20.0) / 20.0)
plot "$share/flowjit-samples.txt" using (bin(\$1)):(1.0 / STATS_records) smooth frequency with boxes title "tracked (WRITE + EXEC events)", \
     "$share/flowjit-samples.txt" using (bin(\$2)):(1.0 / STATS_records) smooth frequency with boxes title "untracked"
GP
	echo "histogram: build/bench/flowjit-cost.png"
fi

# jifl-decode vs perf script, on the host
scripts/bench-decode.sh | tee "$out/decode.txt"
