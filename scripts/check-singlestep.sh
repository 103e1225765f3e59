#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make check-singlestep: perf call chains sampled in translated code
# under QEMU's -singlestep, where an interrupt can land on any
# instruction. Plain TCG delivers interrupts only between its
# translation blocks, so the guest tests never interrupt the middle of
# a block's transfer sequence (the pop of a predicted return, say), and
# an ORC entry wrong for one instruction there goes unseen. A few
# minutes; last line "N passed, N failed". Once with no tool, once
# with edges (hook code on both sides of every branch, the not-taken
# side falling through into the next block after its popfq), once with
# bbcount (a count before every block).
#
#   scripts/check-singlestep.sh [-k BZIMAGE] [-n SYSCALLS]
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
kernel=build/kernel/arch/x86/boot/bzImage
count=4000
while getopts "k:n:" opt; do
	case $opt in
	k) kernel=$OPTARG ;;
	n) count=$OPTARG ;;
	*) echo "usage: check-singlestep.sh [-k BZIMAGE] [-n SYSCALLS]" >&2; exit 2 ;;
	esac
done
out=$top/build/check/singlestep
share=$out/share
fail() { echo "check-singlestep: $*"; echo "0 passed, 1 failed"; exit 1; }

rm -rf "$out"
mkdir -p "$share"
if [ "$kernel" = build/kernel/arch/x86/boot/bzImage ]; then
	scripts/setup.sh >/dev/null || fail "setup failed"
	scripts/kernel-prepare.sh >/dev/null || fail "prepare failed"
	scripts/kernel-build.sh > "$out/kernel.log" 2>&1 || fail "kernel build failed (see $out/kernel.log)"
fi
make -s tests initramfs > "$out/build.log" 2>&1 || fail "build failed (see $out/build.log)"
tools="null edges bbcount"
# dd's one-byte reads and writes, every process translated, sampled
# every 20 us of CPU time with kernel call chains, under each tool
cat > "$out/cmd.sh" <<CMD
grep -w _end /proc/kallsyms > /mnt/host/end.txt
mods=/lib/modules/\$(uname -r)/kernel/arch/x86/jifl/tools
echo "syscalls all" > /proc/jifl/control
echo "pid 0" > /proc/jifl/control
for tool in $tools; do
	[ \$tool = null ] || insmod \$mods/jifl_\$tool.ko
	echo "tool \$tool" > /proc/jifl/control || continue
	echo enable > /proc/jifl/control
	dd if=/dev/zero of=/dev/null bs=1 count=2000 2>/dev/null
	perf record -q -e cpu-clock -c 20000 -g -a -m 1024 -o /tmp/ss.data -- \
		dd if=/dev/zero of=/dev/null bs=1 count=$count 2>/dev/null
	echo disable > /proc/jifl/control
	perf script -i /tmp/ss.data --comms dd -F ip,sym > /mnt/host/chains-\$tool.txt 2>/dev/null
	echo "tool null" > /proc/jifl/control
done
CMD
# Booting alone takes minutes here: the boot-silence limit follows.
QEMU_EXTRA="-singlestep" scripts/qemu-run.sh -k "$kernel" -t none -s "$share" -c "$out/cmd.sh" \
	-T 3000 -P 1500 -B 1500 -R 0 -l "$out/guest.log" > "$out/qemu.txt" 2>&1
[ -s "$share/end.txt" ] || fail "no kernel symbols came back (see $out/guest.log)"
pass=0 failed=0
for tool in $tools; do
if [ ! -s "$share/chains-$tool.txt" ]; then
	echo "check-singlestep: tool $tool: no call chains came back (see $out/guest.log)"
	failed=$((failed + 1))
	continue
fi
# A chain whose first address is in the code cache (above the kernel
# image) must reach the system call's entry.
awk -v tool="$tool" -v end="$(awk '{ print $1 }' "$share/end.txt")" '
function flush() {
	if (n) {
		samples++
		if (incache) {
			inc++
			if (ok)
				unw++
			else if (bad++ < 3)
				printf "not unwound:\n%s", text
		}
	}
	n = incache = ok = 0; text = ""
}
/^$/ { flush(); next }
{
	n++; text = text $0 "\n"
	if (n == 1 && length($1) == 16 && $1 >= end)
		incache = 1
	if ($2 ~ /^entry_SYSCALL_64/)
		ok = 1
}
END {
	flush()
	printf "check-singlestep: tool %s: %d samples, %d in translated code, %d of them unwound to entry_SYSCALL_64\n", tool, samples, inc, unw
	exit !(inc >= 20 && inc == unw)
}' "$share/chains-$tool.txt" && pass=$((pass + 1)) || failed=$((failed + 1))
done
echo "$pass passed, $failed failed"
[ $failed -eq 0 ]
