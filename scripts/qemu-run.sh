#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Boot the patched kernel in QEMU (TCG), run guest tests, judge the log.
#
#   scripts/qemu-run.sh [-t TESTS] [-c CMD.sh] [-T SECS] [-l LOG] [-a APPEND]
#                       [-k BZIMAGE] [-i INITRD] [-s SHAREDIR] [--shell]
#
#   -t TESTS   comma-separated guest test names, or "all" (default), or
#              "none" to run no test (with -c)
#   -c FILE    shell script run in the guest before the tests; it sees the
#              host directory SHAREDIR (default build/share) at /mnt/host,
#              which is also the way to get files out of the guest
#   -T SECS    hard timeout for the whole guest run (default 900)
#   --shell    interactive shell on the console (no timeout, no verdict)
#
# Exit status 0 only if the guest reported, every test passed and the
# log holds no oops, BUG, WARNING, KASAN, lockdep or hung-task report.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
kernel=$top/build/kernel/arch/x86/boot/bzImage
initrd=$top/build/initramfs.cpio.gz
share=$top/build/share
log=$top/build/guest.log
tests=all
cmd=
append=
timeout_s=900
shell=0
mem=${QEMU_MEM:-1G}

usage() { sed -n '3,17p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
while [ $# -gt 0 ]; do
	case "$1" in
	-t) tests=$2; shift 2 ;;
	-c) cmd=$2; shift 2 ;;
	-T) timeout_s=$2; shift 2 ;;
	-l) log=$2; shift 2 ;;
	-a) append=$2; shift 2 ;;
	-k) kernel=$2; shift 2 ;;
	-i) initrd=$2; shift 2 ;;
	-s) share=$2; shift 2 ;;
	--shell) shell=1; shift ;;
	-h|--help) usage ;;
	*) echo "qemu-run: unknown option '$1'" >&2; usage ;;
	esac
done

[ -f "$kernel" ] || { echo "qemu-run: $kernel: no such kernel (make kernel)" >&2; exit 2; }
[ -f "$initrd" ] || { echo "qemu-run: $initrd: no such initramfs (make initramfs)" >&2; exit 2; }
mkdir -p "$share" "$(dirname "$log")"

kargs="console=ttyS0 panic=-1 oops=panic loglevel=6 jifltests=$tests"
if [ -n "$cmd" ]; then
	[ -f "$cmd" ] || { echo "qemu-run: -c $cmd: no such file" >&2; exit 2; }
	cp "$cmd" "$share/guest-cmd.sh"
	kargs="$kargs jiflcmd=1"
fi
[ $shell = 1 ] && kargs="$kargs jiflshell=1"
[ -n "$append" ] && kargs="$kargs $append"

qemu=(qemu-system-x86_64 -accel tcg -cpu max -smp 2 -m "$mem"
	-kernel "$kernel" -initrd "$initrd" -append "$kargs"
	-display none -no-reboot -monitor none -serial stdio
	-virtfs "local,path=$share,mount_tag=jifl,security_model=none,id=jifl")

if [ $shell = 1 ]; then
	exec "${qemu[@]}"
fi

start=$(date +%s)
set +e
timeout -k 5 "$timeout_s" "${qemu[@]}" < /dev/null > "$log" 2>&1
qrc=$?
set -e
secs=$(( $(date +%s) - start ))
if [ $qrc = 124 ] || [ $qrc = 137 ]; then
	echo "qemu-run: guest killed after ${timeout_s}s timeout (log: ${log#$top/})" >> "$log"
fi
echo "qemu-run: guest ran ${secs}s, qemu exit $qrc, log ${log#$top/}"
exec "$top/scripts/guest-verdict.sh" "$log"
