#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make kcov-compare: JIFL's cover tool against kcov, on one kernel: the
# test kernel plus CONFIG_KCOV (configs/kcov.config). A guest runs
# tests/bench/kcov_compare.c, which records a few system calls with
# kcov (JIFL off), then with kcov and cover together (JIFL on); here the
# addresses become functions (vmlinux's symbol table) and a table:
# how many functions each reports, how many both, and which differ.
# Output: build/kcov-compare/{guest.log,raw.txt,table.txt}.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
out=$top/build/kcov-compare
kout=$top/build/kernel-kcov
mkdir -p "$out/share"

scripts/setup.sh
scripts/kernel-prepare.sh
KOUT=$kout FRAGMENTS="configs/kcov.config" scripts/kernel-build.sh
make -s initramfs
gcc -std=gnu11 -O2 -Wall -Wextra -Werror -static \
	-o "$out/share/kcov_compare" tests/bench/kcov_compare.c

cat > "$out/cmd.sh" <<'CMD'
insmod /lib/modules/$(uname -r)/kernel/arch/x86/jifl/tools/jifl_cover.ko
/mnt/host/kcov_compare
CMD
scripts/qemu-run.sh -k "$kout/arch/x86/boot/bzImage" -t none -s "$out/share" \
	-c "$out/cmd.sh" -T 600 -l "$out/guest.log" >/dev/null || true
sed -n '/^JIFL-CMD-BEGIN/,/^JIFL-CMD-END/p' "$out/guest.log" | sed '1d;$d' | tr -d '\r' |
	grep -E '^[a-z+-]+ (kcov|both|jifl) [0-9]+' > "$out/raw.txt" ||
	{ echo "kcov-compare: no records from the guest (see $out/guest.log)" >&2; exit 1; }
nm -n "$kout/vmlinux" | awk '$2 ~ /^[tTwW]$/ { print $1, $3 }' > "$out/syms.txt"

python3 - "$out/syms.txt" "$out/raw.txt" <<'PY' | tee "$out/table.txt"
import bisect, sys

addrs, names = [], []
for line in open(sys.argv[1]):
    a, n = line.split()
    addrs.append(int(a, 16))
    names.append(n)

def func(a):
    i = bisect.bisect_right(addrs, a) - 1
    return names[i] if i >= 0 else "?"

# kcov's own hook, which the translated code calls like any function
HOOKS = ("__sanitizer_cov_", "check_kcov_mode", "write_comp_data")
rec = {}
order = []
for line in open(sys.argv[2]):
    f = line.split()
    name, how = f[0], f[1]
    fs = {func(int(x, 16)) for x in f[3:]}
    fs = {x for x in fs if not x.startswith(HOOKS)}
    if name not in rec:
        order.append(name)
    rec.setdefault(name, {})[how] = (int(f[2]), fs)

print("%-12s %6s %6s %6s %5s %6s %6s  %s" % ("call", "kcov", "jifl", "pcs", "blks",
      "both", "k-only", "j-only  kcov-under-JIFL"))
for name in order:
    r = rec[name]
    (nk, k), (nj, j) = r["kcov"], r["jifl"]
    same = "same" if r["both"][1] == k else "differs"
    print("%-12s %6d %6d %6d %5d %6d %6d %6d  %s" % (name, len(k), len(j), nk, nj,
          len(k & j), len(k - j), len(j - k), same))
print()
for name in order:
    r = rec[name]
    k, j = r["kcov"][1], r["jifl"][1]
    print("%s: kcov only: %s" % (name, " ".join(sorted(k - j)) or "-"))
    print("%s: jifl only: %s" % (name, " ".join(sorted(j - k)) or "-"))
    if r["both"][1] != k:
        print("%s: kcov under JIFL, not native: %s; native only: %s" % (name,
              " ".join(sorted(r["both"][1] - k)) or "-",
              " ".join(sorted(k - r["both"][1])) or "-"))
PY
