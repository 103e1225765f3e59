#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make series-check: apply patches/series one patch at a time on the
# Debian baseline and, after each, build the test kernel (tinyconfig +
# configs/test.config, modules included) and run checkpatch.pl --strict
# on the patch. A maintainer bisecting through the series must be able
# to build every step.
#
#   scripts/series-check.sh            every patch
#   FROM=12 scripts/series-check.sh    start building at patch 12 (the
#                                      earlier ones are applied, not built)
#   RESUME=1 FROM=12 ...               go on in the worktree a run left at
#                                      patch 12 (git am --abort first)
#   ONLY="3-8 19 50-58" ...            build and check only these patches
#                                      (the patches changed since a whole
#                                      run); the others are applied only
#
# The tree is a git worktree of build/linux in build/series/linux, the
# output build/series/kernel: the developer's tree and build are not
# touched, and after the first patch each build is incremental (ccache).
# Then, on the tree the whole series made, the kernel headers vendored
# in user space and the tests must be the series' own
# (scripts/check-headers.sh), one more pass or failure.
# Last line: "N passed, N failed" (a patch passes when it applies,
# builds without warnings and is checkpatch clean).
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
pdir=${PATCHES:-$top/patches}
main=$top/build/linux
work=$top/build/series
tree=$work/linux
kout=$work/kernel
from=${FROM:-1}

die() { echo "series-check: $*" >&2; echo "0 passed, 1 failed"; exit 1; }

# Whether patch $1 is one of ONLY's numbers and ranges (all when unset).
wanted() {
	local r
	[ -z "${ONLY:-}" ] && return 0
	for r in $ONLY; do
		case $r in
		*-*) [ "$1" -ge "${r%-*}" ] && [ "$1" -le "${r#*-}" ] && return 0 ;;
		*) [ "$1" = "$r" ] && return 0 ;;
		esac
	done
	return 1
}
[[ "${ONLY:-}" =~ ^[0-9\ -]*$ ]] || die "ONLY: numbers and ranges (3-8 19), got '$ONLY'"

git -C "$main" rev-parse -q --verify jifl-base >/dev/null ||
	die "no jifl-base in $main (make prepare)"
mapfile -t patches < <(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$pdir/series")
[ ${#patches[@]} -gt 0 ] || die "$pdir/series lists no patch"

mkdir -p "$work"
if [ ! -e "$tree/.git" ]; then
	git -C "$main" worktree prune
	git -C "$main" worktree add -q --detach "$tree" jifl-base || die "worktree add failed"
fi
git -C "$tree" am --abort >/dev/null 2>&1
# RESUME=1 with FROM=N: the worktree already holds patches 1..N-1 (a
# run stopped at patch N), so that the build stays incremental.
resume=0
if [ "${RESUME:-0}" = 1 ] && [ "$from" -gt 1 ] &&
   [ "$(git -C "$tree" rev-list --count jifl-base..HEAD 2>/dev/null)" = $((from - 1)) ]; then
	resume=1
else
	git -C "$tree" checkout -q --detach jifl-base || die "checkout jifl-base failed"
	git -C "$tree" reset -q --hard jifl-base
fi

passed=0 failed=0
start=$(date +%s)
i=0
for p in "${patches[@]}"; do
	i=$((i + 1))
	name=${p%.patch}
	log=$work/$name.log
	[ "$resume" = 1 ] && [ "$i" -lt "$from" ] && continue
	if ! git -C "$tree" -c user.name=series-check -c user.email=jifl@localhost \
		am -q --keep-cr "$pdir/$p" > "$log" 2>&1; then
		echo "FAIL $name: does not apply"; sed 's/^/    /' "$log" | head -n 20
		failed=$((failed + 1))
		git -C "$tree" am --abort >/dev/null 2>&1
		break
	fi
	[ "$i" -lt "$from" ] && continue
	wanted "$i" || continue
	t0=$(date +%s)
	why=
	if ! KTREE=$tree KOUT=$kout KCONFIG_LAX=1 "$top/scripts/kernel-build.sh" >> "$log" 2>&1; then
		why="build failed"
	elif grep -E -q ': (warning|error):' "$log"; then
		why="build warnings"
	fi
	# checkpatch must run in the tree (outside it, it misreads blank
	# context lines), with the system's python3 for spdxcheck.py.
	# FILE_PATH_CHANGES ("does MAINTAINERS need updating?") is checked
	# here instead: every file a patch adds must have the series'
	# MAINTAINERS entry.
	cp=$(cd "$tree" && PATH=/usr/bin:/bin:$PATH scripts/checkpatch.pl --strict --quiet \
		--no-summary --show-types --ignore FILE_PATH_CHANGES "$pdir/$p" 2>&1)
	for f in $(git -C "$tree" show --format= --name-only --diff-filter=A HEAD); do
		(cd "$tree" && scripts/get_maintainer.pl --no-git --no-git-fallback --no-rolestats -f "$f" 2>/dev/null) |
			grep -q 'jifl@localhost' || cp="${cp}${cp:+$'\n'}$f: added, not in a JIFL MAINTAINERS entry"
	done
	if [ -n "$cp" ]; then
		why="${why:+$why, }checkpatch --strict"
		echo "$cp" >> "$log"
	fi
	secs=$(( $(date +%s) - t0 ))
	if [ -z "$why" ]; then
		echo "ok   $name (${secs}s)"
		passed=$((passed + 1))
	else
		echo "FAIL $name: $why (${secs}s, log ${log#$top/})"
		grep -E ': (warning|error):|^(ERROR|WARNING|CHECK)' "$log" | head -n 10 | sed 's/^/    /'
		failed=$((failed + 1))
	fi
done
if [ "$(git -C "$tree" rev-list --count jifl-base..HEAD)" = ${#patches[@]} ]; then
	if "$top/scripts/check-headers.sh" "$tree" > "$work/headers.log" 2>&1; then
		echo "ok   vendored headers: $(tail -n 1 "$work/headers.log")"
		passed=$((passed + 1))
	else
		echo "FAIL vendored headers differ from the series' (log ${work#$top/}/headers.log)"
		head -n 40 "$work/headers.log" | sed 's/^/    /'
		failed=$((failed + 1))
	fi
fi
echo "series-check: ${#patches[@]} patches, $(( $(date +%s) - start ))s"
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
