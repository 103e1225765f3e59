#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The kernel headers that user space and the host tests build from are
# copies kept in this tree, as perf keeps tools/include/uapi, so that the
# tools build without a kernel tree. This checks that each copy is still
# byte for byte the file of the kernel tree it came from:
#
#   userspace/include/uapi/X   the series' UAPI, KTREE/include/uapi/X
#   tests/include/X            the selftest harness,
#                              KTREE/tools/testing/selftests/X
#
#   scripts/check-headers.sh [KTREE]   (default build/linux)
#
# Run by "make series-check" on the tree the whole series produces, and by
# "make check" after "make prepare". Prints a unified diff for each copy
# that differs; exit status 1 if any differs or is missing from KTREE.
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
ktree=${1:-$top/build/linux}

[ -d "$ktree" ] || { echo "check-headers: $ktree: no kernel tree (make prepare)" >&2; exit 2; }

# vendored folder (from the top) and its folder in the kernel tree
pairs=(
	"userspace/include/uapi include/uapi"
	"tests/include tools/testing/selftests"
)

checked=0 bad=()
for pair in "${pairs[@]}"; do
	read -r mine theirs <<< "$pair"
	while IFS= read -r f; do
		checked=$((checked + 1))
		if [ ! -f "$ktree/$theirs/$f" ]; then
			echo "check-headers: $mine/$f: $ktree/$theirs/$f does not exist"
			bad+=("$mine/$f")
		elif ! diff -u --label "$ktree/$theirs/$f" --label "$mine/$f" \
			"$ktree/$theirs/$f" "$top/$mine/$f"; then
			echo "check-headers: $mine/$f differs from $ktree/$theirs/$f;" \
				"copy it again: cp $ktree/$theirs/$f $mine/$f"
			bad+=("$mine/$f")
		fi
	done < <(cd "$top/$mine" && find . -type f -name '*.h' -printf '%P\n' | sort)
done

if [ ${#bad[@]} -ne 0 ]; then
	echo "check-headers: ${#bad[@]} of $checked vendored headers differ from $ktree: ${bad[*]}"
	exit 1
fi
echo "check-headers: $checked vendored headers match $ktree"
