#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Install every Debian package the project needs, quietly and idempotently.
# apt-get update runs only when something is missing.
#
#   scripts/setup.sh          everything (make setup, make check)
#   scripts/setup.sh --host   what the tools and the host tests need
#                             (make check-host): no kernel, no guest
set -euo pipefail

PKGS=(
	# user space and the host tests
	build-essential git xz-utils pkg-config libelf-dev libipt-dev libzydis-dev
	libzstd-dev linux-perf libclang-rt-14-dev clang luajit
	# make deb and its test
	dpkg-dev lintian bash-completion
)
[ "${1:-}" = --host ] || PKGS+=(
	# kernel tree and build
	linux-source-6.1 linux-config-6.1 bc flex bison python3-git
	libssl-dev cpio rsync kmod ccache python3 python3-ply
	# guest
	qemu-system-x86 busybox-static
	# workloads; JIT runtimes (flowjit_tool); the system-call fuzzer
	# (make check-fuzz-syscalls)
	stress-ng nodejs php8.2-cli php8.2-opcache openjdk-17-jre-headless trinity
	# benchmarks
	gnuplot-nox time apache2-bin apache2-utils
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
