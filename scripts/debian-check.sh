#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make debian-check: the patched tree with Debian's own amd64
# configuration (linux-config-6.1, brought up to date with olddefconfig,
# JIFL, FlowJIT and the tool modules switched on), and every object the
# series touches compiled with it: the files it changes and adds, and
# the tool modules. vmlinux is not linked (a full Debian build takes
# hours on 2 cores: make kernel KCONFIG=... does that). A compiler or
# objtool warning in one of those objects fails the check.
#
#   KCONFIG=FILE   another distribution config (default Debian's amd64)
#   KOUT=DIR       output directory (default build/kernel-debian)
#
# Last line: "N passed, N failed" (one check per object, one for the
# configuration).
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
tree=${KTREE:-$top/build/linux}
kout=${KOUT:-$top/build/kernel-debian}
cfg=${KCONFIG:-/usr/src/linux-config-6.1/config.amd64_none_amd64.xz}
jobs=${JOBS:-$(nproc)}

die() { echo "debian-check: $*" >&2; echo "0 passed, 1 failed"; exit 1; }
[ -f "$tree/Makefile" ] || die "$tree is not prepared (make prepare)"
[ -f "$cfg" ] || die "$cfg not found (install linux-config-6.1: scripts/setup.sh)"
git -C "$tree" rev-parse -q --verify jifl-base >/dev/null || die "no jifl-base in $tree"
mkdir -p "$kout"
kout=$(cd "$kout" && pwd)

. "$top/scripts/kbuild-env.sh"

start=$(date +%s)
distro_config "$cfg"
kmake olddefconfig > "$kout/check.log" 2>&1 || { cat "$kout/check.log"; die "olddefconfig failed"; }

passed=0 failed=0
missing=
for opt in JIFL=y FLOWJIT=y JIFL_BBCOUNT=m JIFL_EDGES=m JIFL_PROBE=m JIFL_COVER=m; do
	grep -qx "CONFIG_$opt" "$kout/.config" || missing="$missing $opt"
done
if [ -z "$missing" ]; then
	echo "ok   config: $(basename "$cfg") with JIFL, FlowJIT and the tools"
	passed=$((passed + 1))
else
	echo "FAIL config: not in the final .config:$missing"
	failed=$((failed + 1))
fi

echo "debian-check: make prepare ($(basename "$cfg"))"
kmake prepare >> "$kout/check.log" 2>&1 || { tail -n 30 "$kout/check.log"; die "make prepare failed"; }

# a linker script (vmlinux.lds.S) is preprocessed, not assembled
# make's own notes when vmlinux.lds is a single target of the top Makefile
make_notes='Makefile:[0-9]+: warning: (overriding|ignoring old) recipe for target'
mapfile -t objs < <(git -C "$tree" diff --name-only --diff-filter=AM jifl-base..HEAD -- '*.c' '*.S' |
	sed -e 's/\.lds\.S$/.lds/' -e 's/\.[cS]$/.o/')
for o in "${objs[@]}"; do
	log=$kout/${o//\//_}.log
	rm -f "$kout/$o"
	if ! kmake "$o" > "$log" 2>&1; then
		echo "FAIL $o: does not build"; grep -E 'error|warning' "$log" | head -n 5 | sed 's/^/    /'
		failed=$((failed + 1))
	elif grep -E -v "$make_notes" "$log" | grep -E -q ': (warning|error):'; then
		echo "FAIL $o: warnings"; grep -E -v "$make_notes" "$log" | grep -E ': (warning|error):' |
			head -n 5 | sed 's/^/    /'
		failed=$((failed + 1))
	else
		echo "ok   $o"
		passed=$((passed + 1))
	fi
done
echo "debian-check: ${#objs[@]} objects, $(( $(date +%s) - start ))s"
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
