#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Boot the patched kernel in QEMU (TCG), run guest tests, judge the log.
#
#   scripts/qemu-run.sh [-t TESTS] [-c CMD.sh] [-T SECS] [-P SECS] [-B SECS]
#                       [-R N] [-l LOG] [-a APPEND] [-k BZIMAGE] [-i INITRD]
#                       [-s SHAREDIR] [--shell]
#
#   -t TESTS   comma-separated guest test names, or "all" (default), or
#              "none" to run no test (with -c)
#   -c FILE    shell script run in the guest before the tests; it sees the
#              host directory SHAREDIR (default build/share) at /mnt/host,
#              which is also the way to get files out of the guest
#   -T SECS    hard timeout for the whole guest run (default 900)
#   -P SECS    no-progress limit (default 120): a guest whose console stays
#              silent this long is killed, and the log names the phase
#              (boot, init, the command, or the test that was running);
#              the guest prints a heartbeat every 20 s while a test or
#              the command runs, so a long test is not silence; the
#              vCPU registers at the stall go into the log
#   -B SECS    no-progress limit while the kernel boots (default 60)
#   -R N       boot again after a stall during boot, at most N times
#              (default 2); each stalled log is kept as LOG.stallK
#   --shell    interactive shell on the console (no timeout, no verdict)
#
# Environment: QEMU_MEM (default 1G), QEMU_CPU (default max,la57=off,-cx16),
# QEMU_SMP (vCPUs, default 2: a plain number N becomes N sockets of one
# CPU, so that all N are online), QEMU_ACCEL (default tcg,thread=single),
# QEMU_EXTRA (more options), QEMU_KMODS (the kernel's modules as a cpio
# archive to append; default: the one kernel-build.sh packs beside it),
# JIFL_TSC_KHZ (the guest's TSC frequency, passed as tsc_early_khz=;
# default: the host's, measured by scripts/tsc-khz.c, which is the
# guest's under TCG; 0: let the guest calibrate against the PIT, which
# can stall under TCG; nor is tsc=reliable passed then).
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
silence_s=120
boot_silence_s=60
boot_retries=2
shell=0
mem=${QEMU_MEM:-1G}
# 5-level paging off: in 6.1, identify_cpu() clears boot_cpu_data's
# capabilities (LA57 among them) with interrupts on, and an interrupt in
# that window makes KASAN call every direct-map address "wild" (its
# shadow bounds follow pgtable_l5_enabled()). Most hardware has 4 levels.
# No cmpxchg16b: QEMU 7.2's TCG computes its flags from a stale record
# of the last flag-setting operation (after popf, then cmp, the flags
# are the cmp's operand: TF, NT, IOPL set), and a kernel interrupted or
# probed right after SLUB's this_cpu_cmpxchg_double() returned with TF
# and NT set (#DB WARN, then a GP at the next iret); kernel_version's
# cmpxchg16b_keeps_the_flags shows it.
cpu=${QEMU_CPU:-max,la57=off,-cx16}

usage() { sed -n '3,34p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
while [ $# -gt 0 ]; do
	case "$1" in
	-t) tests=$2; shift 2 ;;
	-c) cmd=$2; shift 2 ;;
	-T) timeout_s=$2; shift 2 ;;
	-P) silence_s=$2; shift 2 ;;
	-B) boot_silence_s=$2; shift 2 ;;
	-R) boot_retries=$2; shift 2 ;;
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

# A known TSC frequency: the guest skips PIT calibration, which under TCG
# often fails on the slow KASAN kernel and then takes about 7 s more.
tsc_khz=${JIFL_TSC_KHZ:-}
if [ -z "$tsc_khz" ]; then
	helper=$top/build/tsc-khz
	if [ ! -x "$helper" ] || [ "$top/scripts/tsc-khz.c" -nt "$helper" ]; then
		# Built aside and renamed: guests started side by side may
		# build it at once, and one may be running it.
		gcc -std=gnu11 -O2 -Wall -Wextra -Werror -o "$helper.$$" "$top/scripts/tsc-khz.c" &&
			mv -f "$helper.$$" "$helper" ||
			{ rm -f "$helper.$$"; echo "qemu-run: cannot build $helper" >&2; exit 2; }
	fi
	tsc_khz=$("$helper") || { echo "qemu-run: cannot measure the host TSC (JIFL_TSC_KHZ=...)" >&2; exit 2; }
fi
# tsc=reliable: under TCG the guest's TSC is the host's invariant TSC; the
# clocksource watchdog would judge it by jiffies, which lag when the host
# is busy, and switch clocksources mid-run.
[ "$tsc_khz" != 0 ] && kargs="$kargs tsc_early_khz=$tsc_khz tsc=reliable"

# vCPUs: the test kernel has no ACPI and finds CPUs in SeaBIOS's MP
# table, which lists one CPU per package; QEMU's default topology makes
# the vCPUs cores of one package, and only one would come online. The
# guest checks that jiflcpus= CPUs are online (kernel_version test).
smp=${QEMU_SMP:-2}
case "$smp" in
*[!0-9]*) ;;
*) kargs="$kargs jiflcpus=$smp"; smp="$smp,sockets=$smp,cores=1,threads=1" ;;
esac
# -a goes last: whatever follows a "--" in it is init's.
[ -n "$append" ] && kargs="$kargs $append"
# One host thread runs every vCPU in turn (round-robin TCG). With one
# thread per vCPU (MTTCG), QEMU 7.2 can keep a stale translation of code
# that another vCPU rewrites: a CPU that hit a text_poke_bp() int3 keeps
# executing the int3 after the byte is restored (found with JIFL, whose
# late links and return predictions are text_poke_bp() writes), and the
# kprobe handler sends it back there forever.
accel=${QEMU_ACCEL:-tcg,thread=single}

# The monitor, on a private socket: a stuck guest's vCPU registers go
# into the log before it is killed.
mondir=$(mktemp -d)
trap 'rm -rf "$mondir"' EXIT
# The kernel's own modules, which scripts/kernel-build.sh packs next to
# it: the kernel unpacks a cpio archive appended to the initramfs.
# QEMU_KMODS names another archive (a kernel installed from a package).
kmods=${QEMU_KMODS:-$(dirname "$kernel")/../../../modules.cpio.gz}
if [ -f "$kmods" ]; then
	cat "$initrd" "$kmods" > "$mondir/initrd.cpio.gz"
	initrd=$mondir/initrd.cpio.gz
fi

qemu=(qemu-system-x86_64 -accel "$accel" -cpu "$cpu" -smp "$smp" -m "$mem"
	-kernel "$kernel" -initrd "$initrd" -append "$kargs"
	-display none -no-reboot -serial stdio
	-virtfs "local,path=$share,mount_tag=jifl,security_model=none,id=jifl")
# The host's Java runtime (too large for the initramfs), read-only, for
# the guest tests that run HotSpot; the guest mounts it at the same paths.
jvm=/usr/lib/jvm/java-17-openjdk-amd64
if [ -x "$jvm/bin/java" ] && [ -d /etc/java-17-openjdk ]; then
	qemu+=(-virtfs "local,path=$jvm,mount_tag=jvm,security_model=none,id=jvm,readonly=on"
	       -virtfs "local,path=/etc/java-17-openjdk,mount_tag=jvmetc,security_model=none,id=jvmetc,readonly=on")
fi
# shellcheck disable=SC2206 # QEMU_EXTRA: more QEMU options, split at spaces
[ -n "${QEMU_EXTRA:-}" ] && qemu+=(${QEMU_EXTRA})

if [ $shell = 1 ]; then
	exec "${qemu[@]}" -monitor none
fi

qemu+=(-monitor "unix:$mondir/mon,server=on,wait=off")
monitor_dump() {
	python3 - "$mondir/mon" <<'PY' 2>&1 | tr -d '\r' | grep -aE '^(CPU#|[RE]AX|[RE]SI|[RE]IP|ES |CS |SS |GDT|CR0|EFER)' | sed 's/^/qemu-run: /'
import socket, sys, time
s = socket.socket(socket.AF_UNIX)
s.settimeout(3)
s.connect(sys.argv[1])
s.sendall(b"info registers -a\n")
out, end = b"", time.time() + 3
while time.time() < end:
    try:
        d = s.recv(65536)
    except socket.timeout:
        break
    if not d:
        break
    out += d
sys.stdout.write(out.decode("latin-1"))
PY
}

# Where the guest is, from its console: boot, init, the -c command, or
# the test binary that was running.
phase() {
	local t
	t=$(grep -a 'jifl-guest: running ' "$log" | tail -n 1 | tr -d '\r' | sed 's/.*jifl-guest: running //')
	if [ -n "$t" ]; then
		echo "test $t"
	elif grep -aq '^JIFL-CMD-BEGIN' "$log"; then
		echo "the command (-c)"
	elif grep -aq 'jifl-guest: ' "$log"; then
		echo "init"
	else
		echo "boot"
	fi
}

# One boot: the console to $log; sets qrc, secs and stalled (the phase
# in which the console went silent, or empty).
run_once() {
	local size=0 start last now new limit regs=
	start=$(date +%s) last=$start stalled=
	: > "$log"
	set +e
	timeout -k 5 "$timeout_s" "${qemu[@]}" < /dev/null > "$log" 2>&1 &
	qpid=$!
	while kill -0 "$qpid" 2>/dev/null; do
		sleep 1
		now=$(date +%s)
		new=$(stat -c %s "$log" 2>/dev/null || echo 0)
		if [ "$new" != "$size" ]; then
			size=$new last=$now
			continue
		fi
		# Read the phase only once the console has been silent a while.
		limit=$silence_s
		[ $((now - last)) -ge "$boot_silence_s" ] && [ "$(phase)" = boot ] &&
			[ "$boot_silence_s" -lt "$limit" ] && limit=$boot_silence_s
		if [ $((now - last)) -ge "$limit" ]; then
			stalled=$(phase)
			regs=$(monitor_dump || true)
			kill "$qpid" 2>/dev/null
			break
		fi
	done
	wait "$qpid"
	qrc=$?
	set -e
	secs=$(( $(date +%s) - start ))
	if [ -n "$stalled" ]; then
		{
			echo "qemu-run: vCPU state at the stall:"
			echo "$regs"
			echo "qemu-run: no progress: no console output for ${limit}s during $stalled, guest killed after ${secs}s (log: ${log#$top/})"
		} >> "$log"
	elif [ $qrc = 124 ] || [ $qrc = 137 ]; then
		echo "qemu-run: guest killed after ${timeout_s}s timeout (log: ${log#$top/})" >> "$log"
	fi
}

# A boot that stalls before /init runs has run nothing of the project's:
# boot again, at most -R times, keeping the stalled log and saying so.
attempt=1
while :; do
	run_once
	[ "$stalled" = boot ] && [ "$attempt" -le "$boot_retries" ] || break
	mv "$log" "$log.stall$attempt"
	echo "qemu-run: boot stalled (attempt $attempt, log ${log#$top/}.stall$attempt); booting again"
	attempt=$((attempt + 1))
done
[ "$attempt" -gt 1 ] &&
	echo "qemu-run: $((attempt - 1)) stalled boot(s) before this one: ${log#$top/}.stall*" >> "$log"
echo "qemu-run: guest ran ${secs}s, qemu exit $qrc, log ${log#$top/}"
rm -rf "$mondir"
exec "$top/scripts/guest-verdict.sh" "$log"
