#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make bench-debian: JIFL's bench (tests/bench/jifl_bench.c: the system
# call rows, the shell pipeline and Apache, native and with the null,
# bbcount and edges tools, and a counting kprobe on every block against
# bbcount) on the kernel of make kernel-debian (Debian's own
# configuration) beside the test kernel, in the same session: counted in
# instructions (one vCPU under -icount shift=0,sleep=off), and in TCG
# time without the kprobes (two vCPUs). Ratios, not pass/fail; results
# in build/bench/debian/.
#
#   MODES="icount tcg"   which runs (default both)
#   KERNELS="test debian" which kernels (default both)
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
out=$top/build/bench/debian
share=$out/share
mkdir -p "$share"
modes=${MODES:-icount tcg}
kernels=${KERNELS:-test debian}

scripts/setup.sh >/dev/null
scripts/kernel-prepare.sh >/dev/null
for k in $kernels; do
	case $k in
	test) scripts/kernel-build.sh > "$out/kernel-test.log" 2>&1 ;;
	debian) scripts/kernel-debian.sh > "$out/kernel-debian.log" 2>&1 ;;
	*) echo "bench-debian: unknown kernel $k" >&2; exit 2 ;;
	esac || { tail -n 20 "$out/kernel-$k.log"; exit 1; }
done
make -s tests initramfs
gcc -std=gnu11 -O2 -Wall -Wextra -Werror -static \
	-o "$share/jifl_bench" tests/bench/jifl_bench.c
scripts/apache-root.sh "$share/apache-root"

bzimage() {
	case $1 in
	test) echo build/kernel/arch/x86/boot/bzImage ;;
	debian) echo build/kernel-debian-full/arch/x86/boot/bzImage ;;
	esac
}

for mode in $modes; do
	for k in $kernels; do
		args="--apache"
		[ "$mode" = icount ] && args="--icount --apache"
		[ "$mode" = tcg ] && args="--no-kprobes --apache"
		cat > "$out/cmd-$mode.sh" <<CMD
cp -a /mnt/host/apache-root/. /
cd /mnt/host
./jifl_bench $args
CMD
		log=$out/guest-$k-$mode.log
		t0=$(date +%s)
		if [ "$mode" = icount ]; then
			# the TSC counts instructions at 1 GHz of virtual time
			QEMU_SMP=1 JIFL_TSC_KHZ=1000000 QEMU_EXTRA="-icount shift=0,sleep=off" \
				scripts/qemu-run.sh -k "$(bzimage "$k")" -t none -s "$share" \
				-c "$out/cmd-$mode.sh" -T 3000 -P 900 -l "$log" >/dev/null || true
		else
			QEMU_MEM=2G scripts/qemu-run.sh -k "$(bzimage "$k")" -t none -s "$share" \
				-c "$out/cmd-$mode.sh" -T 3000 -P 900 -l "$log" >/dev/null || true
		fi
		sed -n '/^JIFL-CMD-BEGIN/,/^JIFL-CMD-END/p' "$log" | sed '1d;$d' | tr -d '\r' |
			grep -E '^(jifl-bench|  )' > "$out/$k-$mode.txt" || true
		grep -q "^jifl-guest: Linux version" "$log" ||
			echo "bench-debian: the $k kernel did not boot ($log)" >&2
		echo "== $k kernel, $mode ($(( $(date +%s) - t0 )) s): $(grep -m1 'Linux version' "$log" | sed 's/.*Linux version \([^ ]*\).*/\1/')"
		cat "$out/$k-$mode.txt"
	done
done

# Side by side: each row's ratios to native on both kernels, and what a
# kprobe on every block adds over bbcount ("added k/b").
for mode in $modes; do
	[ -s "$out/test-$mode.txt" ] && [ -s "$out/debian-$mode.txt" ] || continue
	echo "== side by side, $mode: ratio to native (test kernel / Debian kernel)"
	awk '
	FNR == 1 { k++; sec = "" }
	/^jifl-bench: best of/ { sec = "tools"; next }
	/^jifl-bench: kprobes on every block/ { sec = "kprobes"; next }
	/^jifl-bench: .*: kprobes on [0-9]/ { next }
	/^jifl-bench/ { sec = ""; next }
	sec == "tools" && /^  / && $1 != "benchmark" {
		name = substr($0, 3, 24); sub(/ +$/, "", name)
		if (!(name in seen)) { seen[name] = 1; order[++n] = name }
		nf = split($0, f, /  +/)
		r[k, name] = f[nf - 4] " " f[nf - 2] " " f[nf]
	}
	sec == "kprobes" && /^  / && $1 != "benchmark" {
		name = substr($0, 3, 24); sub(/ +$/, "", name)
		kb[k, name] = $NF
	}
	END {
		printf "  %-22s %-18s %-18s %-18s %s\n", "benchmark", "null", "bbcount", "edges", "kprobes added k/b"
		for (i = 1; i <= n; i++) {
			name = order[i]
			split(r[1, name], a, " "); split(r[2, name], b, " ")
			printf "  %-22s %5s / %-8s %5s / %-8s %5s / %-8s %s / %s\n", name,
				a[1], b[1], a[2], b[2], a[3], b[3],
				(1, name) in kb ? kb[1, name] : "-", (2, name) in kb ? kb[2, name] : "-"
		}
	}' "$out/test-$mode.txt" "$out/debian-$mode.txt" | tee "$out/side-by-side-$mode.txt"
done
