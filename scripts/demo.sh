#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make demo: build everything, boot the patched kernel in QEMU and show
# what the series does.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
say() { printf '\n\033[1m== %s\033[0m\n' "$*"; }

say "setup, prepare the kernel tree, build the test kernel and the guest"
scripts/setup.sh
scripts/kernel-prepare.sh
scripts/kernel-build.sh
make -s tests initramfs

say "patch series (patches/series)"
grep -v '^#' patches/series | sed '/^$/d'

cat > build/demo-cmd.sh <<'CMD'
echo "\$ uname -r"; uname -r
echo "\$ cat /proc/version"; cat /proc/version
echo "\$ zcat /proc/config.gz | grep JIFL"; zcat /proc/config.gz | grep JIFL
CMD
say "boot the patched kernel (QEMU, TCG, 2 vCPUs)"
scripts/qemu-run.sh -t none -c build/demo-cmd.sh -T 300 -l build/demo.log
sed -n '/^JIFL-CMD-BEGIN/,/^JIFL-CMD-END/p' build/demo.log | sed '1d;$d' | tr -d '\r'
