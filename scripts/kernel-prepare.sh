#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Extract Debian's linux-source-6.1 into build/linux, commit it as the
# baseline (tag jifl-base) and apply patches/series with git am.
#
# Re-running on a prepared tree re-applies the series only when patches/
# changed since the last prepare; FORCE=1 always starts from a new tree.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
src=${KSRC_TARBALL:-/usr/src/linux-source-6.1.tar.xz}
tree=${KTREE:-$top/build/linux}
pdir=${PATCHES:-$top/patches}
series=$pdir/series
stamp=$tree/.git/jifl-series-stamp

die() { echo "kernel-prepare: $*" >&2; exit 1; }

series_hash() {
	(cat "$series"; sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$series" |
		while read -r p; do cat "$pdir/$p"; done) | sha256sum | cut -d' ' -f1
}

[ -f "$src" ] || die "$src not found (install linux-source-6.1: scripts/setup.sh)"
[ -f "$series" ] || die "$series not found"

if [ "${FORCE:-0}" = 1 ]; then
	rm -rf "$tree"
fi

if [ -d "$tree/.git" ] && [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$(series_hash)" ]; then
	exit 0
fi

git_k() { git -C "$tree" "$@"; }

if [ -d "$tree/.git" ] && git_k rev-parse -q --verify jifl-base >/dev/null; then
	if [ -n "$(git_k status --porcelain --untracked-files=no)" ]; then
		die "$tree has uncommitted changes; commit them (and run scripts/kernel-export.sh) or use FORCE=1"
	fi
	if [ "$(git_k rev-list --count jifl-base..HEAD)" -gt 0 ] &&
	   [ "${REAPPLY:-0}" != 1 ]; then
		# Commits above the baseline that patches/ does not hold would
		# be lost; commits that are exactly patches/ need no re-apply
		# (which would touch every patched file and force a rebuild).
		tmp=$(mktemp -d)
		git_k format-patch -q --no-signature --zero-commit --numbered -o "$tmp" jifl-base..HEAD
		if diff -q <(cat "$tmp"/*.patch | grep -v '^From ') \
			<(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$series" |
			  while read -r p; do cat "$pdir/$p"; done | grep -v '^From ') >/dev/null; then
			rm -rf "$tmp"
			series_hash > "$stamp"
			exit 0
		fi
		rm -rf "$tmp"
		die "$tree has commits that differ from patches/; export them (make patches) or set REAPPLY=1 to discard them"
	fi
	echo "kernel-prepare: resetting $tree to jifl-base"
	git_k am --abort >/dev/null 2>&1 || true
	git_k checkout -q -B jifl jifl-base
else
	echo "kernel-prepare: extracting $(basename "$src") into $tree"
	rm -rf "$tree"
	mkdir -p "$tree"
	tar -C "$tree" --strip-components=1 -xJf "$src"
	git_k init -q -b jifl
	# The tree is big: skip per-file hooks and index niceties we do not need.
	git_k config core.untrackedCache true
	git_k config gc.auto 0
	git_k config user.name "${JIFL_AUTHOR_NAME:-JIFL developers}"
	git_k config user.email "${JIFL_AUTHOR_EMAIL:-jifl@localhost}"
	# Debian's source tarball ends its .gitignore with an ignore-everything
	# block for its packaging repo; drop it so new kernel files show up.
	[ ! -f "$tree/.gitignore" ] || sed -i '/^# Debian packaging/,$d' "$tree/.gitignore"
	git_k add -A
	git_k commit -q -m "Debian linux-source-6.1 $(dpkg-query -W -f='${Version}' linux-source-6.1 2>/dev/null || echo unknown)"
	git_k tag -f jifl-base >/dev/null
fi

n=0
while read -r p; do
	n=$((n + 1))
	if ! git_k am -q --keep-cr "$pdir/$p" >/dev/null 2>"$tree/.git/am.err"; then
		cat "$tree/.git/am.err" >&2
		git_k am --abort >/dev/null 2>&1 || true
		# Leave no half-applied series behind: the patches are in patches/.
		git_k checkout -q -B jifl jifl-base
		die "patch $n '$p' does not apply"
	fi
done < <(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$series")
series_hash > "$stamp"
echo "kernel-prepare: applied $n patches on jifl-base"
