#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make kcov-compare: JIFL's cover tool against kcov, on one kernel: the
# test kernel plus CONFIG_KCOV (configs/kcov.config). A guest runs
# tests/bench/kcov_compare.c, which records a few system calls with
# kcov (JIFL off), then with kcov and cover together (JIFL on); here the
# addresses become functions (vmlinux's symbol table) and a table:
# how many functions each reports, how many both, and which differ.
# Columns: functions kcov reported with JIFL off (native), with JIFL on
# (kcov), cover's (jifl), in both of the last two, in one only; kcov's
# addresses and cover's blocks in that run.
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

# the records go to the share: lines too long for the console
rm -f "$out/share/records.txt"
cat > "$out/cmd.sh" <<'CMD'
insmod /lib/modules/$(uname -r)/kernel/arch/x86/jifl/tools/jifl_cover.ko &&
/mnt/host/kcov_compare > /mnt/host/records.txt && echo kcov-compare: done
CMD
scripts/qemu-run.sh -k "$kout/arch/x86/boot/bzImage" -t none -s "$out/share" \
	-c "$out/cmd.sh" -T 600 -l "$out/guest.log" >/dev/null || true
grep -q '^kcov-compare: done' "$out/guest.log" ||
	{ echo "kcov-compare: the guest did not finish (see $out/guest.log)" >&2; exit 1; }
cp "$out/share/records.txt" "$out/raw.txt"
nm -n "$kout/vmlinux" | awk '$2 ~ /^[tTwW]$/ { print $1, $3 }' > "$out/syms.txt"

python3 - "$out/syms.txt" "$out/raw.txt" <<'PY' | tee "$out/table.txt"
import bisect, sys

addrs, names = [], []
for line in open(sys.argv[1]):
    a, n = line.split()
    addrs.append(int(a, 16))
    names.append(n)

etext = addrs[names.index("_etext")] if "_etext" in names else 1 << 64

def func(a):
    if a >= etext:
        return "(outside-vmlinux-text)"
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

# kcov in the run JIFL recorded too: the same execution, compared
print("%-12s %6s %6s %6s %6s %7s %7s %7s %7s" % ("call", "native", "kcov", "jifl",
      "both", "k-only", "j-only", "pcs", "blocks"))
for name in order:
    r = rec[name]
    (nk, k), (nj, j) = r["both"], r["jifl"]
    print("%-12s %6d %6d %6d %6d %7d %7d %7d %7d" % (name, len(r["kcov"][1]), len(k),
          len(j), len(k & j), len(k - j), len(j - k), nk, nj))
print()
for name in order:
    r = rec[name]
    k, j, native = r["both"][1], r["jifl"][1], r["kcov"][1]
    print("%s: kcov only: %s" % (name, " ".join(sorted(k - j)) or "-"))
    print("%s: jifl only: %s" % (name, " ".join(sorted(j - k)) or "-"))
    if native != k:
        print("%s: kcov, JIFL off only: %s; JIFL on only: %s" % (name,
              " ".join(sorted(native - k)) or "-", " ".join(sorted(k - native)) or "-"))
PY
