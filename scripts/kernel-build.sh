#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build the patched kernel out of tree, through ccache.
#
#   scripts/kernel-build.sh                 test kernel: tinyconfig + configs/test.config
#   KCONFIG=/boot/config-... scripts/kernel-build.sh   a user's own .config (+ olddefconfig)
#   FRAGMENTS="configs/debug.config" ...    extra fragments on top of the test kernel
#   KOUT=build/kernel-debug ...             another output directory
#
# Output: $KOUT/arch/x86/boot/bzImage and $KOUT/usr/include (uapi headers).
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
tree=${KTREE:-$top/build/linux}
kout=${KOUT:-$top/build/kernel}
jobs=${JOBS:-$(nproc)}

die() { echo "kernel-build: $*" >&2; exit 1; }
[ -f "$tree/Makefile" ] || die "$tree is not prepared (make prepare)"
mkdir -p "$kout"
kout=$(cd "$kout" && pwd)

. "$top/scripts/kbuild-env.sh"
command -v ccache >/dev/null && ccache -M 8G >/dev/null

new_config=$(mktemp)
warnings=$(mktemp)
trap 'rm -f "$new_config" "$warnings"' EXIT
if [ -n "${KCONFIG:-}" ]; then
	[ -f "$KCONFIG" ] || die "KCONFIG=$KCONFIG: no such file"
	cfg_src=$KCONFIG
	distro_config "$KCONFIG"
	kmake olddefconfig
	frags=()
else
	cfg_src=configs/test.config
	frags=("$top/configs/test.config")
	for f in ${FRAGMENTS:-}; do frags+=("$top/$f"); done
	kmake tinyconfig >/dev/null
	"$tree/scripts/kconfig/merge_config.sh" -m -O "$kout" "$kout/.config" "${frags[@]}" >/dev/null
	kmake olddefconfig
	# merge_config only warns: a fragment line that did not survive is a
	# broken config (a missing dependency), so fail here, not at boot.
	bad=0
	for f in "${frags[@]}"; do
		while IFS= read -r line; do
			case "$line" in CONFIG_*=*) ;; *) continue ;; esac
			if ! grep -qxF "$line" "$kout/.config"; then
				echo "kernel-build: $(basename "$f"): '$line' not in final .config" >&2
				bad=1
			fi
		done < "$f"
	done
	# KCONFIG_LAX=1 (make series-check): an early patch may not have
	# added the options the fragment names yet.
	[ $bad = 0 ] || [ "${KCONFIG_LAX:-0}" = 1 ] || die "config fragment not satisfied"
fi

echo "kernel-build: building $(kmake -s kernelrelease) ($cfg_src) in ${kout#$top/}"
start=$(date +%s)
# Compiler warnings are errors in the project's test kernels (a user's
# own .config may bring others): "file:line:col: warning:", not
# Kconfig's notes. ccache replays the warnings of cached objects.
kwarn() {
	local rc=0

	kmake "$@" 2> "$warnings.1" || rc=$?
	cat "$warnings.1" >&2
	cat "$warnings.1" >> "$warnings"
	rm -f "$warnings.1"
	return $rc
}
kwarn bzImage
kmake headers_install INSTALL_HDR_PATH="$kout/usr" >/dev/null
# Modules (the JIFL tools), packed for scripts/qemu-run.sh to append to
# the initramfs: this kernel's, not another build's.
rm -rf "$kout/modroot" "$kout/modules.cpio.gz"
if grep -q '^CONFIG_MODULES=y' "$kout/.config"; then
	kwarn modules
	kmake modules_install INSTALL_MOD_PATH="$kout/modroot" INSTALL_MOD_STRIP=1 >/dev/null
	(cd "$kout/modroot" && find lib | cpio -o -H newc --quiet | gzip) > "$kout/modules.cpio.gz"
fi
if [ -z "${KCONFIG:-}" ] && grep -E '^[^ :]+:[0-9]+:[0-9]+: warning:' "$warnings" >&2; then
	die "compiler warnings in the test kernel (above)"
fi
echo "kernel-build: done in $(( $(date +%s) - start ))s: ${kout#$top/}/arch/x86/boot/bzImage"
