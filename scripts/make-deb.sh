#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make deb: build/jifl-tools_VERSION_ARCH.deb from the built tools ("make
# userspace"), installed with "make install PREFIX=/usr" into a staging
# root, stripped, with the documentation Debian policy asks for and the
# Depends: that dpkg-shlibdeps computes. The version is the one the tools
# print (scripts/version.sh). Documentation/packaging.rst says more.
#
#   scripts/make-deb.sh [BUILD_DIR]     (default: build)
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
b=$(cd "${1:-$top/build}" && pwd)
pkg=jifl-tools
work=$b/deb
root=$work/debian/$pkg
doc=$root/usr/share/doc/$pkg

die() { echo "make-deb: $*" >&2; exit 1; }
[ -x "$b/bin/jiflctl" ] || die "$b/bin has no tools (make userspace)"
version=$("$b/bin/jiflctl" --version)
version=${version#jiflctl }
arch=$(dpkg --print-architecture)

umask 022
rm -rf "$work"
mkdir -p "$root"
make -s --no-print-directory -C "$top/userspace" O="$b" install DESTDIR="$root" \
	PREFIX=/usr BINDIR=/usr/bin MANDIR=/usr/share/man \
	COMPLETIONDIR=/usr/share/bash-completion/completions

# As dh_strip and dh_compress would: debugging symbols stay in build/bin.
strip --remove-section=.comment --remove-section=.note --strip-unneeded "$root"/usr/bin/*
gzip -9n "$root"/usr/share/man/man1/*.1

install -d -m 0755 "$doc"
install -m 0644 "$top/packaging/copyright" "$doc/copyright"
# A native package's changelog: the history itself is the git log. Dated
# by the last commit, so that the same commit makes the same file.
when=${SOURCE_DATE_EPOCH:-$(git -C "$top" log -1 --format=%ct 2>/dev/null || date +%s)}
maintainer=$(sed -n 's/^Maintainer: //p' "$top/packaging/control")
{
	echo "$pkg ($version) unstable; urgency=medium"
	echo
	echo "  * Built from the JIFL tree by scripts/make-deb.sh; the changes are"
	echo "    in its git history."
	echo
	echo " -- $maintainer  $(date -R -d "@$when")"
} | gzip -9n > "$doc/changelog.gz"
chmod 0644 "$doc/changelog.gz"

# dpkg-shlibdeps reads the package names from a source package's
# debian/control and wants the files in debian/PACKAGE beside DEBIAN/:
# this source package exists only for it.
install -d -m 0755 "$root/DEBIAN"
printf 'Source: jifl\n\nPackage: %s\nArchitecture: any\n' "$pkg" > "$work/debian/control"
depends=$(cd "$work" && dpkg-shlibdeps -O "debian/$pkg"/usr/bin/*)
depends=${depends#shlibs:Depends=}
[ -n "$depends" ] || die "dpkg-shlibdeps found no dependencies"

(cd "$root" && find usr -type f -print0 | sort -z | xargs -0 md5sum) > "$root/DEBIAN/md5sums"
size=$(du -s -k --apparent-size --exclude=DEBIAN "$root" | cut -f1)
sed -e "s/@VERSION@/$version/" -e "s/@ARCH@/$arch/" -e "s/@SIZE@/$size/" \
	-e "s/@DEPENDS@/$depends/" "$top/packaging/control" > "$root/DEBIAN/control"
chmod 0644 "$root/DEBIAN/control" "$root/DEBIAN/md5sums"

rm -f "$b/${pkg}"_*.deb
deb=$b/${pkg}_${version}_$arch.deb
dpkg-deb --root-owner-group --build "$root" "$deb" >/dev/null
echo "make-deb: $deb"
