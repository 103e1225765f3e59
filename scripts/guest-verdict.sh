#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Judge a guest console log written by scripts/qemu-run.sh.
#
# Prints one line per guest test binary, any kernel report found, and
#   guest: S skipped
#   guest: P passed, F failed
# Exit 0 only if the result block is there, no test failed and the log
# holds no kernel report (oops, BUG, WARNING, KASAN, lockdep, hung task,
# panic).
set -uo pipefail

log=${1:?usage: guest-verdict.sh LOG}
[ -f "$log" ] || { echo "guest-verdict: $log: no such file" >&2; exit 2; }

pass=0 fail=0 skip=0 bad=0
reports='Oops|BUG:|WARNING:|general protection fault|Kernel panic|KASAN|UBSAN|possible circular locking|possible recursive locking|inconsistent lock state|INFO: task .* blocked|kmemleak: .* new suspected|Call Trace:|RIP: 0010:'
if grep -aEq "$reports" "$log"; then
	echo "guest: kernel report in the log:"
	grep -aE -m 10 "$reports" "$log" | sed 's/^/  /'
	bad=1
fi
if grep -aq 'timeout' "$log" && grep -aq '^qemu-run: guest killed' "$log"; then
	echo "guest: $(grep -a '^qemu-run: guest killed' "$log")"
	bad=1
fi
if grep -aq '^qemu-run: no progress' "$log"; then
	echo "guest: $(grep -a '^qemu-run: no progress' "$log")"
	echo "guest: last console lines:"
	grep -av '^qemu-run: ' "$log" | tr -d '\r' | tail -n 3 | sed 's/^/  /'
	bad=1
fi

block=$(sed -n '/^JIFL-RESULT-BEGIN/,/^JIFL-RESULT-END/p' "$log" | tr -d '\r')
# Here-strings, not "echo | grep -q": with pipefail, grep -q leaving at
# its match made echo's SIGPIPE the pipeline's status, and a report
# early in a long block went unseen.
if ! grep -q '^JIFL-RESULT-END' <<< "$block"; then
	echo "guest: no result block: the guest never reported"
	bad=1
fi
while read -r kw name p f s rc; do
	[ "$kw" = test ] || continue
	p=${p#pass=}; f=${f#fail=}; s=${s#skip=}; rc=${rc#rc=}
	pass=$((pass + p))
	fail=$((fail + f))
	skip=$((skip + s))
	state=ok
	[ "$f" != 0 ] && state=FAIL
	echo "guest: $name: $p passed, $f failed, $s skipped (exit $rc) $state"
done <<< "$block"
if grep -q '^dmesg dirty' <<< "$block"; then
	echo "guest: dmesg holds a kernel report"
	bad=1
fi
# A broken run counts as one failure so that the total can never pass.
[ $bad = 1 ] && fail=$((fail + 1))
echo "guest: $skip skipped"
echo "guest: $pass passed, $fail failed"
[ $fail = 0 ]
