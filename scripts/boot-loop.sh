#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Boot a kernel many times and count the boots that hang: the check to
# run when guest boots look flaky.
#
#   scripts/boot-loop.sh [-n N] [-k BZIMAGE] [-m MEM] [-T SECS] [-P SECS]
#                        [-o DIR] [-- qemu-run options]
#
#   -n N       boots (default 30), each running the kernel_version test
#   -k FILE    kernel (default build/kernel/arch/x86/boot/bzImage)
#   -m MEM     guest memory (default 1G; the debug kernel wants 2G)
#   -T SECS    hard limit per boot (default 240)
#   -P SECS    no-progress limit per boot (default 60)
#   -o DIR     where the logs of bad boots are kept (default build/boot-loop)
#
# The environment reaches scripts/qemu-run.sh: QEMU_CPU=max JIFL_TSC_KHZ=0
# boots the way the harness did before it fixed the TSC frequency and
# turned 5-level paging off. Each boot is one of: ok (the test passed and
# the log is clean), hung (no progress, or the hard limit), report (a
# kernel report such as KASAN in the log), failed (anything else).
# The last line is "boot-loop: N boots: O ok, H hung, R report, F failed";
# exit status 0 only if every boot was ok.
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
n=30 kernel=$top/build/kernel/arch/x86/boot/bzImage mem=1G
hard=240 silence=60 out=$top/build/boot-loop
usage() { sed -n '3,23p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
while [ $# -gt 0 ]; do
	case "$1" in
	-n) n=$2; shift 2 ;;
	-k) kernel=$2; shift 2 ;;
	-m) mem=$2; shift 2 ;;
	-T) hard=$2; shift 2 ;;
	-P) silence=$2; shift 2 ;;
	-o) out=$2; shift 2 ;;
	--) shift; break ;;
	-h|--help) usage ;;
	*) echo "boot-loop: unknown option '$1'" >&2; usage ;;
	esac
done
case "$n" in ''|*[!0-9]*) echo "boot-loop: -n wants a number" >&2; exit 2 ;; esac
mkdir -p "$out"

ok=0 hung=0 report=0 failed=0
for i in $(seq 1 "$n"); do
	log=$out/boot-$i.log
	t0=$(date +%s)
	verdict=$(QEMU_MEM=$mem "$top/scripts/qemu-run.sh" -k "$kernel" -t kernel_version \
		-T "$hard" -P "$silence" -B "$silence" -R 0 -l "$log" "$@" 2>&1)
	rc=$?
	secs=$(( $(date +%s) - t0 ))
	if [ $rc = 0 ]; then
		state=ok ok=$((ok + 1))
		rm -f "$log"
	elif grep -aq -e '^qemu-run: no progress' -e '^qemu-run: guest killed' "$log"; then
		state=hung hung=$((hung + 1))
	elif grep -q 'kernel report in the log' <<< "$verdict"; then
		state=report report=$((report + 1))
	else
		state=failed failed=$((failed + 1))
	fi
	line="boot $i/$n: $state (${secs}s)"
	[ $state != ok ] && line="$line: $(echo "$verdict" | grep -v -e '^qemu-run: guest ran' \
		-e '^guest: [0-9]* passed' -e '^guest: [0-9]* skipped$' | head -n 3 | tr '\n' ' ')log ${log#$top/}"
	echo "$line"
done
echo "boot-loop: $n boots: $ok ok, $hung hung, $report report, $failed failed"
[ "$ok" = "$n" ]
