#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make demo: build everything, boot the patched kernel in QEMU and show
# what the series does.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
say() { printf '\n\033[1m== %s\033[0m\n' "$*"; }

say "setup, prepare the kernel tree, build the test kernel and the guest"
scripts/setup.sh
scripts/kernel-prepare.sh
scripts/kernel-build.sh
make -s tests initramfs

say "patch series (patches/series)"
grep -v '^#' patches/series | sed '/^$/d'

mkdir -p build/share
cp tests/data/hot.lua build/share/
cat > build/demo-cmd.sh <<'CMD'
echo "\$ uname -r"; uname -r
echo "\$ zcat /proc/config.gz | grep -E 'JIFL|FLOWJIT'"; zcat /proc/config.gz | grep -E 'JIFL|FLOWJIT'
echo
echo "--- FlowJIT on LuaJIT: a shell tracks itself, then execs luajit"
echo "\$ sh -c 'echo track \$\$ > /proc/flowjit/control; exec luajit hot.lua'"
echo clear > /proc/flowjit/control
sh -c 'echo "track $$" > /proc/flowjit/control && exec luajit /mnt/host/hot.lua'
echo "\$ cat /proc/flowjit/events | head -25"
head -25 /proc/flowjit/events
echo "... $(($(wc -l < /proc/flowjit/events) - 1)) events in all"
echo "\$ cat /proc/flowjit/status"
cat /proc/flowjit/status
if command -v flowjit >/dev/null; then
	echo
	echo "--- the same with the flowjit tool"
	echo "\$ flowjit record -o /tmp/lua.fj -- luajit hot.lua"
	flowjit record -o /tmp/lua.fj -- luajit /mnt/host/hot.lua
	echo "\$ flowjit report /tmp/lua.fj"
	flowjit report /tmp/lua.fj
fi
echo
echo "--- JIFL: every system call of a command from the code cache"
echo "\$ jiflctl run -- busybox ls /"
jiflctl run -- busybox ls /
echo "\$ cat /proc/jifl/stats"
cat /proc/jifl/stats
echo
echo "--- jifl-decode: LuaJIT traced by jifl-swtrace (software Intel PT) under flowjit record"
cd /tmp
echo 'local s=0 for i=1,3000 do s=s+i%7 end print(s)' > small.lua
echo "\$ flowjit record -o l.fj -- jifl-swtrace -o perf.data --truth truth -- luajit small.lua"
flowjit record -q -o l.fj -- jifl-swtrace -q -o perf.data --truth truth -- luajit small.lua
echo "\$ jifl-decode --no-progress -i perf.data --flowjit l.fj --insn | grep jit | head -12"
jifl-decode --no-progress -i perf.data --flowjit l.fj --insn | grep '\[jit' | head -12
echo "\$ jifl-decode --no-progress -i perf.data --flowjit l.fj --stats"
jifl-decode --no-progress -i perf.data --flowjit l.fj --stats
echo "\$ perf script -i perf.data --itrace=i1ie   # stock perf, same trace"
perf script -i perf.data --itrace=i1ie > perf.txt 2>&1
echo "perf script: $(grep -c 'instruction trace error type' perf.txt) decode errors, $(grep -vc 'instruction trace error' perf.txt) lines"
grep 'instruction trace error type' perf.txt | head -3
CMD
say "boot the patched kernel (QEMU, TCG, one CPU online): FlowJIT on LuaJIT, JIFL on ls, jifl-decode on LuaJIT"
set +e
scripts/qemu-run.sh -t none -c build/demo-cmd.sh -T 600 -l build/demo.log > build/demo-verdict.txt
vrc=$?
set -e
sed -n '/^JIFL-CMD-BEGIN/,/^JIFL-CMD-END/p' build/demo.log | sed '1d;$d' | tr -d '\r' |
	grep -v -e 'crng init done' -e 'jifl-guest: command still running'

# The demo runs no test: it succeeded if its commands ran to the end
# with status 0 and the guest's log holds no kernel report.
rc=$(sed -n 's/^JIFL-CMD-END rc=\([0-9]*\).*/\1/p' build/demo.log | tail -n 1)
if [ "$vrc" = 0 ] && [ "$rc" = 0 ]; then
	say "demo: done; the guest ran every step and its log holds no kernel report (build/demo.log)"
else
	say "demo: FAILED (build/demo.log)"
	[ -z "$rc" ] && echo "demo: the guest did not finish the demo's commands"
	[ -n "$rc" ] && [ "$rc" != 0 ] && echo "demo: the last command exited $rc"
	grep -v -e '^guest: [0-9]* passed, [0-9]* failed$' -e '^guest: [0-9]* skipped$' build/demo-verdict.txt |
		grep -v '^qemu-run: guest ran' || true
	exit 1
fi
