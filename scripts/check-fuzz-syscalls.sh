#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make check-fuzz-syscalls: fuzz the system calls of a kernel that runs
# every one of them from the JIFL code cache. Debian's trinity, as
# nobody, for FUZZ_SECS seconds (default 1200) on the debug kernel
# (KASAN, lockdep; configs/debug.config, built in build/kernel-debug),
# with every system call of every process translated and the bbcount
# tool on; beside it the cache is flushed every 2 seconds and the tool
# switched to edges and back every 8 seconds. Trinity runs in a memory
# cgroup whose memory.max (FUZZ_MEM, default 256M) is kept full by a
# reader of a larger file in a second 9p share mounted with the page
# cache (cache=loose), so that direct reclaim (shrink_lruvec() and its
# cond_resched_tasks_rcu_qs()) runs in translated system calls of both
# while the cache is flushed.
#
# Checks: the guest ran to its end with no kernel report (oops, BUG,
# WARNING, KASAN, lockdep, hung task); trinity ran system calls; the
# cache's entries grew; flushes and tool switches happened; the cgroup
# reclaimed. Results in build/check/fuzz-syscalls/; last line
# "N passed, N failed".
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
out=build/check/fuzz-syscalls
share=$top/build/share-fuzz
secs=${FUZZ_SECS:-1200}
mem=${FUZZ_MEM:-256M}
fill=$top/build/fuzz-fill
kernel=build/kernel-debug/arch/x86/boot/bzImage
fail() { echo "check-fuzz-syscalls: $*"; echo "0 passed, 1 failed"; exit 1; }

case $secs in ''|*[!0-9]*) fail "FUZZ_SECS=$secs: not a number of seconds" ;; esac
rm -rf "$out" "$share" "$fill"
mkdir -p "$out" "$share" "$fill"
# a sparse file twice the cgroup's limit, read through the page cache
truncate -s 512M "$fill/file" || fail "cannot create $fill/file"
if [ -z "${FUZZ_NO_BUILD:-}" ]; then
	scripts/setup.sh > "$out/setup.log" 2>&1 || fail "setup failed (see $out/setup.log)"
	scripts/kernel-prepare.sh > "$out/prepare.log" 2>&1 || fail "prepare failed (see $out/prepare.log)"
	KOUT=build/kernel-debug FRAGMENTS="configs/debug.config" scripts/kernel-build.sh \
		> "$out/kernel.log" 2>&1 || fail "debug kernel build failed (see $out/kernel.log)"
	make -s tests userspace > "$out/build.log" 2>&1 || fail "build failed (see $out/build.log)"
fi
[ -f "$kernel" ] || fail "$kernel: no debug kernel"
command -v trinity > /dev/null || fail "trinity not installed (scripts/setup.sh)"
printf "trinity\nnice\n" > "$out/programs"
EXTRA_PROGRAMS="$out/programs" scripts/mkinitramfs.sh "$out/initrd.cpio.gz" build/tests/guest build/bin \
	> "$out/initrd.log" 2>&1 || fail "initramfs failed (see $out/initrd.log)"

cat > "$out/cmd.sh" <<CMD
secs=$secs
mem=$mem
CMD
cat >> "$out/cmd.sh" <<'CMD'
mods=/lib/modules/$(uname -r)/kernel/arch/x86/jifl/tools
stat() { sed -n "s/^$1: //p" /proc/jifl/stats; }
ctl() { echo "$1" > /proc/jifl/control; }
insmod $mods/jifl_bbcount.ko && insmod $mods/jifl_edges.ko || exit 1
mkdir -p /sys/fs/cgroup /mnt/fill || exit 1
mount -t cgroup2 none /sys/fs/cgroup || exit 1
mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144,cache=loose fuzzfill /mnt/fill || exit 1
echo +memory > /sys/fs/cgroup/cgroup.subtree_control || exit 1
mkdir /sys/fs/cgroup/fuzz && echo $mem > /sys/fs/cgroup/fuzz/memory.max || exit 1
ctl "syscalls all" && ctl "pid 0" && ctl "tool bbcount" && ctl enable || exit 1
entries0=$(stat entries)
flushes0=$(stat flushes)
end=$(( $(date +%s) + secs ))
# flushes every 2 s, edges for 2 s of every 8, until the end
(
	i=0
	while [ $(date +%s) -lt $end ]; do
		sleep 2
		i=$((i + 1))
		case $((i % 4)) in
		0) ctl "tool edges" && echo switch ;;
		1) ctl "tool bbcount" && echo switch ;;
		*) ctl flush ;;
		esac
	done > /tmp/switches
) &
# from here on, this shell and what it starts are in the cgroup
echo $$ > /sys/fs/cgroup/fuzz/cgroup.procs || exit 1
# the page cache of a file larger than the limit, read again and again
# at the lowest priority (the vCPUs share one host thread)
(
	while [ $(date +%s) -lt $end ]; do
		nice -n 19 cat /mnt/fill/file > /dev/null
		sleep 1
	done
) &
mkdir -p /tmp/fuzz && chmod 777 /tmp/fuzz && cd /tmp/fuzz
# (trinity 2023.01 crashes setting up sockets on a kernel with few
# protocol families: its socket fd provider is left out)
timeout -s INT $secs su nobody -s /bin/sh -c \
	'exec trinity -q -l off -C 4 -a64 --disable-fds=sockets -x kexec_load -x kexec_file_load' > /tmp/trinity.log 2>&1
rc=$?
killall -9 trinity 2>/dev/null
echo $$ > /sys/fs/cgroup/cgroup.procs
wait
ctl disable
entries1=$(stat entries)
flushes1=$(stat flushes)
tail -n 20 /tmp/trinity.log
# "Ran N syscalls" at its end, "N iterations" as it goes
syscalls=$(sed -n -e 's/.*Ran \([0-9]*\) syscalls.*/\1/p' \
	-e 's/.* \([0-9]*\) iterations.*/\1/p' /tmp/trinity.log | sort -n | tail -n 1)
{
	echo "trinity_rc $rc"
	echo "syscalls ${syscalls:-0}"
	echo "entries $entries0 $entries1"
	echo "flushes $flushes0 $flushes1"
	echo "switches $(grep -c switch /tmp/switches)"
	echo "reclaim $(tr '\n' ' ' < /sys/fs/cgroup/fuzz/memory.events)"
} | tee /mnt/host/fuzz-result.txt
CMD

QEMU_MEM=2G QEMU_EXTRA="-virtfs local,path=$fill,mount_tag=fuzzfill,security_model=none,id=fuzzfill,readonly=on" \
	scripts/qemu-run.sh -k "$kernel" -i "$out/initrd.cpio.gz" -t none -s "$share" \
	-c "$out/cmd.sh" -T $((secs + 900)) -P 480 -l "$out/guest.log" > "$out/verdict.txt" 2>&1
pass=0 failed=0
check() {
	if [ "$1" = ok ]; then
		echo "ok: $2"
		pass=$((pass + 1))
	else
		echo "FAIL: $2"
		failed=$((failed + 1))
	fi
}
res=$share/fuzz-result.txt
val() { sed -n "s/^$1 //p" "$res" 2>/dev/null; }
[ -s "$res" ] && r=ok || r=bad
check $r "the guest finished the run (result in $res)"
grep -q '^guest: 0 passed, 0 failed$' "$out/verdict.txt" && ! grep -q 'kernel report\|dmesg holds' "$out/verdict.txt" &&
	r=ok || r=bad
check $r "no kernel report in $out/guest.log ($(grep -c '' "$out/verdict.txt") verdict lines)"
n=$(val syscalls)
[ "${n:-0}" -gt 0 ] && r=ok || r=bad
check $r "trinity ran ${n:-0} system calls"
set -- $(val entries)
[ $# = 2 ] && [ "$2" -gt "$1" ] && r=ok || r=bad
check $r "cache entries grew: ${1:-?} -> ${2:-?}"
set -- $(val flushes)
s=$(val switches)
[ $# = 2 ] && [ "$2" -gt "$1" ] && [ "${s:-0}" -gt 0 ] && r=ok || r=bad
check $r "flushes ${1:-?} -> ${2:-?}, ${s:-0} tool switches"
set -- $(val reclaim)
n=0
while [ $# -ge 2 ]; do [ "$1" = max ] && n=$2; shift 2; done
[ "$n" -gt 0 ] && r=ok || r=bad
check $r "the cgroup hit memory.max $mem $n times ($(val reclaim))"
echo "$pass passed, $failed failed"
[ "$failed" = 0 ]
