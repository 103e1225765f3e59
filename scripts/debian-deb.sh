#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make bindeb-pkg: the kernel of make kernel-debian as Debian packages
# (the kernel's own "make bindeb-pkg": linux-image, linux-headers,
# linux-libc-dev), installed into an image directory the way dpkg
# unpacks them, and booted in QEMU from what the package installed
# (/boot/vmlinuz-RELEASE, /lib/modules/RELEASE) with the guest tests of
# make check-debian's JIFL part. The packages' maintainer scripts (which
# run update-initramfs and a boot loader's hooks) are not run: the
# image has no boot loader; depmod is run as the linux-image postinst
# would.
#
# Output: build/linux-image-*.deb and the rest, build/deb-root/.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
tree=${KTREE:-$top/build/linux}
kout=${KOUT:-$top/build/kernel-debian-full}
root=$top/build/deb-root
jobs=${JOBS:-$(nproc)}
die() { echo "bindeb-pkg: $*" >&2; echo "0 passed, 1 failed"; exit 1; }
[ -f "$kout/arch/x86/boot/bzImage" ] || die "no kernel in ${kout#$top/} (make kernel-debian)"

. "$top/scripts/kbuild-env.sh"
start=$(date +%s)
release=$(kmake -s kernelrelease)
rm -f "$kout"/../linux-*_"$release"*.deb "$kout"/../linux-*"$release"*.deb
# KDEB_PKGVERSION: a fixed version, so that the names do not depend on
# how many times the tree was packaged
kmake bindeb-pkg KDEB_PKGVERSION="$release-1" > "$kout/bindeb-pkg.log" 2>&1 ||
	{ tail -n 30 "$kout/bindeb-pkg.log"; die "make bindeb-pkg failed"; }
image=$(ls "$kout"/../linux-image-"$release"_*.deb 2>/dev/null | head -n 1)
[ -n "$image" ] || die "no linux-image package for $release"
echo "bindeb-pkg: $(cd "$kout/.." && ls linux-*"$release"*.deb | tr '\n' ' ')($(( $(date +%s) - start )) s)"
dpkg-deb -I "$image" | sed -n 's/^ \(Package\|Version\|Installed-Size\):/  \1:/p'

rm -rf "$root"
mkdir -p "$root"
dpkg-deb -x "$image" "$root"
depmod -b "$root" "$release"
kernel=$root/boot/vmlinuz-$release
[ -f "$kernel" ] || die "the package installed no /boot/vmlinuz-$release"
(cd "$root" && find lib/modules | cpio -o -H newc --quiet | gzip) > "$root/modules.cpio.gz"
echo "bindeb-pkg: installed: $(dpkg-deb -c "$image" | wc -l) files, $(find "$root/lib/modules" -name '*.ko' | wc -l) modules"

make -s -C "$top" tests initramfs > "$kout/bindeb-tests.log" 2>&1 ||
	{ tail -n 30 "$kout/bindeb-tests.log"; die "test build failed"; }
QEMU_MEM=2G QEMU_KMODS=$root/modules.cpio.gz "$top/scripts/qemu-run.sh" -k "$kernel" \
	-t "${TESTS:-jifl_syscalls,jifl_cover,jiflctl,flowjit_basic}" -T 1800 \
	-l "$top/build/check/guest-deb.log"
