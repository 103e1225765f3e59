#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Install every Debian package the project needs, quietly and idempotently.
# apt-get update runs only when something is missing.
set -euo pipefail

PKGS=(
	# kernel tree and build
	linux-source-6.1 linux-config-6.1 build-essential bc flex bison
	python3-git
	libelf-dev libssl-dev cpio xz-utils rsync kmod git ccache python3 python3-ply
	# guest
	qemu-system-x86 busybox-static
	# user space
	pkg-config libipt-dev libzydis-dev libzstd-dev linux-perf
	libclang-rt-14-dev clang
	# workloads
	luajit stress-ng
	# benchmarks
	gnuplot-nox time apache2-bin apache2-utils
	# make deb and its test
	dpkg-dev lintian bash-completion
)

missing=()
for p in "${PKGS[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' ||
		missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
	echo "setup.sh: missing packages: ${missing[*]} (run as root)" >&2
	exit 1
fi
echo "setup.sh: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
