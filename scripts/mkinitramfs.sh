#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build the guest initramfs: busybox-static, /init, the guest test runner,
# the guest test binaries and the project's tools (static where possible),
# and dynamic programs named in tests/guest/programs (copied with the
# libraries ldd lists).
#
#   scripts/mkinitramfs.sh OUT.cpio.gz TESTBIN_DIR [TOOLBIN_DIR]
#
# EXTRA_PROGRAMS names more lists like tests/guest/programs (one program
# a line), for a run that needs them (make check-fuzz-syscalls).
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
out=${1:?usage: mkinitramfs.sh OUT.cpio.gz TESTBIN_DIR [TOOLBIN_DIR]}
testdir=${2:?usage: mkinitramfs.sh OUT.cpio.gz TESTBIN_DIR [TOOLBIN_DIR]}
tooldir=${3:-}

die() { echo "mkinitramfs: $*" >&2; exit 1; }
[ -x /bin/busybox ] || die "/bin/busybox missing (install busybox-static: scripts/setup.sh)"
file -L /bin/busybox 2>/dev/null | grep -q 'statically linked' ||
	ldd /bin/busybox 2>&1 | grep -q 'not a dynamic' || die "/bin/busybox is not static (install busybox-static)"

stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage"/{bin,sbin,etc,proc,sys,dev,tmp,mnt/host,root,jifl/tests,jifl/bin,usr/bin,usr/sbin}
cp /bin/busybox "$stage/bin/busybox"
install -m 755 "$top/scripts/guest/init" "$stage/init"
install -m 755 "$top/scripts/guest/run-tests" "$stage/jifl/run-tests"
printf 'root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/tmp:/bin/sh\n' > "$stage/etc/passwd"
printf 'root:x:0:\nnogroup:x:65534:\n' > "$stage/etc/group"

for f in "$testdir"/*; do
	[ -f "$f" ] && [ -x "$f" ] && install -m 755 "$f" "$stage/jifl/tests/"
done

# Copy everything ldd says a dynamic program loads, at the same paths, so
# that the guest's dynamic loader finds them.
copy_libs() {
	local lib
	for lib in $(ldd "$1" 2>/dev/null | grep -o '/[^ ]*'); do
		[ -e "$stage$lib" ] && continue
		mkdir -p "$stage$(dirname "$lib")"
		cp -L "$lib" "$stage$lib"
	done
}

copy_with_libs() {
	mkdir -p "$stage$(dirname "$1")"
	cp -L "$1" "$stage$1"
	copy_libs "$1"
}

# The project's tools, with their libraries.
if [ -n "$tooldir" ] && [ -d "$tooldir" ]; then
	for f in "$tooldir"/*; do
		[ -f "$f" ] && [ -x "$f" ] || continue
		install -m 755 "$f" "$stage/jifl/bin/"
		copy_libs "$f"
	done
fi

for progs in "$top/tests/guest/programs" ${EXTRA_PROGRAMS:-}; do
	[ -f "$progs" ] || continue
	while read -r name; do
		name=${name%%#*}
		name=$(echo "$name" | tr -d '[:space:]')
		[ -z "$name" ] && continue
		# a program on PATH, or a file by its path (a library a program loads)
		if [ -f "$name" ] && [ "${name#/}" != "$name" ]; then
			path=$name
		else
			path=$(command -v "$name") || die "program '$name' (${progs#$top/}) not found on the host"
		fi
		copy_with_libs "$(readlink -f "$path")"
		[ "$(readlink -f "$path")" = "$path" ] || ln -sf "$(readlink -f "$path")" "$stage$path"
	done < "$progs"
done

mkdir -p "$(dirname "$out")"
(cd "$stage" && find . -mindepth 1 | LC_ALL=C sort | cpio -o -H newc --quiet -R 0:0) |
	gzip -1 > "$out.tmp"
mv "$out.tmp" "$out"
echo "mkinitramfs: ${out#$top/} ($(du -h "$out" | cut -f1))"
