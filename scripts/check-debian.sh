#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make check-debian: the kernel of make kernel-debian (Debian's own
# amd64 configuration, modules trimmed to a QEMU guest's) booted in
# QEMU with its modules, and the guest tests that need no test-only
# configuration run on it: JIFL's system calls from the cache with the
# tools (bbcount, cover, probe, jiflctl), FlowJIT's JIT tests, the
# decoder's guest tests. The tests that need CONFIG_JIFL_TEST's debugfs
# hooks or modules are not run (make check runs them on the test
# kernel). The guest has two NUMA nodes (a CPU and 1 GiB each), so that
# NUMA balancing runs as on a server. Last line: "N passed, N failed,
# N skipped".
#
#   TESTS=a,b   other guest test binaries (default: the list below)
#   APPEND=...  more kernel command line, e.g. indirect_target_selection=force
#               (QEMU's CPUs are not affected by ITS: this makes the kernel
#               use its ITS thunks, which JIFL then translates through)
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
kout=build/kernel-debian-full
log=build/check/guest-debian.log
mkdir -p build/check
fail() { echo "check-debian: $*"; echo "0 passed, 1 failed, 0 skipped"; exit 1; }

tests=${TESTS:-jifl_syscalls,jifl_stress,jifl_cover,jifl_fault_sleep,jifl_nokprobe,jiflctl,flowjit_basic,flowjit_access,flowjit_alias,flowjit_tool,decode_jit,swtrace_guest,kernel_version}

start=$(date +%s)
scripts/setup.sh > build/check/setup-debian.log 2>&1 || fail "setup failed"
scripts/kernel-prepare.sh > build/check/prepare-debian.log 2>&1 || fail "prepare failed"
scripts/kernel-debian.sh > build/check/kernel-debian.log 2>&1 ||
	{ tail -n 30 build/check/kernel-debian.log; fail "kernel build failed"; }
echo "check-debian: kernel built ($(cat $kout/timing | tr '\n' ' ')s per step)"
make -s tests initramfs > build/check/build-debian.log 2>&1 ||
	{ tail -n 30 build/check/build-debian.log; fail "build failed"; }
numa="-object memory-backend-ram,size=1G,id=m0 -object memory-backend-ram,size=1G,id=m1"
numa+=" -numa node,nodeid=0,memdev=m0,cpus=0 -numa node,nodeid=1,memdev=m1,cpus=1"
QEMU_MEM=2G QEMU_EXTRA="$numa ${QEMU_EXTRA:-}" scripts/qemu-run.sh -k $kout/arch/x86/boot/bzImage ${APPEND:+-a "$APPEND"} \
	-t "$tests" -T 3600 -l "$log" | tee build/check/guest-debian-verdict.txt
grep -q "^jifl-guest: Linux version .*-jifl" "$log" || fail "the Debian kernel did not boot"
echo "check-debian: $(( $(date +%s) - start )) s"
p=$(sed -n 's/^guest: \([0-9]*\) passed, \([0-9]*\) failed$/\1/p' build/check/guest-debian-verdict.txt | tail -n 1)
f=$(sed -n 's/^guest: \([0-9]*\) passed, \([0-9]*\) failed$/\2/p' build/check/guest-debian-verdict.txt | tail -n 1)
s=$(sed -n 's/^guest: \([0-9]*\) skipped$/\1/p' build/check/guest-debian-verdict.txt | tail -n 1)
[ -n "$p" ] || fail "no result from the guest"
echo "$p passed, $f failed, ${s:-0} skipped"
[ "$f" = 0 ] && grep -q '^guest: [0-9]* passed, 0 failed$' build/check/guest-debian-verdict.txt
