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

# Relative paths and a fixed timestamp let ccache hit across clones.
export CCACHE_BASEDIR=$top CCACHE_NOHASHDIR=1 CCACHE_SLOPPINESS=time_macros,include_file_mtime,include_file_ctime
export KBUILD_BUILD_TIMESTAMP="${KBUILD_BUILD_TIMESTAMP:-Thu Jan  1 00:00:00 UTC 2026}"
export KBUILD_BUILD_USER=jifl KBUILD_BUILD_HOST=jifl
command -v ccache >/dev/null && ccache -M 8G >/dev/null
cc="gcc"
command -v ccache >/dev/null && cc="ccache gcc"

# LOCALVERSION= keeps setlocalversion from appending "+" for a git tree.
kmake() { make -s -C "$tree" O="$kout" CC="$cc" HOSTCC="$cc" LOCALVERSION= -j"$jobs" "$@"; }

new_config=$(mktemp)
trap 'rm -f "$new_config"' EXIT
if [ -n "${KCONFIG:-}" ]; then
	[ -f "$KCONFIG" ] || die "KCONFIG=$KCONFIG: no such file"
	cfg_src=$KCONFIG
	case "$KCONFIG" in *.xz) xzcat "$KCONFIG" ;; *) cat "$KCONFIG" ;; esac > "$kout/.config.in"
	cp "$kout/.config.in" "$kout/.config"
	# A distro config signs modules with its own key and names
	# certificates we do not have.
	"$tree/scripts/config" --file "$kout/.config" \
		--set-str SYSTEM_TRUSTED_KEYS "" --set-str SYSTEM_REVOCATION_KEYS "" \
		--disable MODULE_SIG_ALL --set-str LOCALVERSION -jifl \
		--enable FLOWJIT --enable JIFL --module JIFL_BBCOUNT --module JIFL_EDGES
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
kmake bzImage
kmake headers_install INSTALL_HDR_PATH="$kout/usr" >/dev/null
# Modules (the JIFL tools), packed for scripts/qemu-run.sh to append to
# the initramfs: this kernel's, not another build's.
rm -rf "$kout/modroot" "$kout/modules.cpio.gz"
if grep -q '^CONFIG_MODULES=y' "$kout/.config"; then
	kmake modules
	kmake modules_install INSTALL_MOD_PATH="$kout/modroot" INSTALL_MOD_STRIP=1 >/dev/null
	(cd "$kout/modroot" && find lib | cpio -o -H newc --quiet | gzip) > "$kout/modules.cpio.gz"
fi
echo "kernel-build: done in $(( $(date +%s) - start ))s: ${kout#$top/}/arch/x86/boot/bzImage"
