#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make kernel-debian: the patched kernel with Debian's own amd64
# configuration (linux-config-6.1), as a user of Debian would boot it.
# Every built-in option ("=y": IBT/CET, retpolines, return thunks, ITS,
# SLS, KASLR, PTI, ORC, the preemption model, BPF, ...) stays as Debian
# has it. What differs, and why:
#
#   modules        only those in configs/debian-modules.list (a QEMU
#                  guest's virtio, 9p, file systems, the JIFL tools);
#                  Debian builds ~3800 more, hours on 2 cores
#   DEBUG_INFO     off (and so DEBUG_INFO_BTF): DWARF and BTF triple
#                  the build time and change no generated code
#   signing        modules signed with a key made at build time, not
#                  Debian's (MODULE_SIG_ALL off, no trusted keys)
#   FLOWJIT, JIFL  on; the tools as modules; LOCALVERSION -jifl
#
# The build is resumable: $KOUT keeps its objects and ccache its
# compilations, so a stopped build goes on where it was.
#
#   KOUT=DIR       output directory (default build/kernel-debian-full)
#   KCONFIG=FILE   Debian config (default config.amd64_none_amd64.xz)
#
# Output: $KOUT/arch/x86/boot/bzImage, $KOUT/modules.cpio.gz (for
# scripts/qemu-run.sh) and $KOUT/timing (seconds per step).
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
tree=${KTREE:-$top/build/linux}
kout=${KOUT:-$top/build/kernel-debian-full}
cfg=${KCONFIG:-/usr/src/linux-config-6.1/config.amd64_none_amd64.xz}
list=$top/configs/debian-modules.list
jobs=${JOBS:-$(nproc)}

die() { echo "kernel-debian: $*" >&2; exit 1; }
[ -f "$tree/Makefile" ] || die "$tree is not prepared (make prepare)"
[ -f "$cfg" ] || die "$cfg not found (install linux-config-6.1: scripts/setup.sh)"
mkdir -p "$kout"
kout=$(cd "$kout" && pwd)

. "$top/scripts/kbuild-env.sh"
command -v ccache >/dev/null && ccache -M 8G >/dev/null

keep=$(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$list")
step() { echo "$1 $(( $(date +%s) - t0 ))" >> "$kout/timing"; }
: > "$kout/timing"

# The configuration: Debian's, modules trimmed. Written to a new file
# and moved over .config only when it differs, so that an unchanged
# configuration does not make the whole tree out of date.
t0=$(date +%s)
new=$kout/.config.new
distro_config "$cfg"
mods=$(grep -E '^CONFIG_[A-Za-z0-9_]+=m$' "$kout/.config" | sed -e 's/^CONFIG_//' -e 's/=m$//')
args=()
for m in $mods; do
	grep -qxF "$m" <<< "$keep" || args+=(--disable "$m")
done
"$tree/scripts/config" --file "$kout/.config" "${args[@]}" \
	--disable DEBUG_INFO --disable DEBUG_INFO_DWARF_TOOLCHAIN_DEFAULT \
	--disable DEBUG_INFO_BTF --enable DEBUG_INFO_NONE
kmake olddefconfig >/dev/null
bad=
for m in $keep; do
	grep -qE "^CONFIG_$m=[my]$" "$kout/.config" || bad="$bad $m"
done
[ -z "$bad" ] || die "configs/debian-modules.list: not in the final .config:$bad"
for o in FLOWJIT JIFL; do
	grep -qx "CONFIG_$o=y" "$kout/.config" || die "CONFIG_$o is off with Debian's config"
done
# Debian's code generation and core choices must all be there. Other
# "=y" options lost are sub-options of trimmed modules (listed in
# $kout/lost-builtins).
codegen="RETPOLINE RETHUNK CPU_UNRET_ENTRY CPU_IBPB_ENTRY CPU_IBRS_ENTRY CPU_SRSO
	MITIGATION_ITS SLS PAGE_TABLE_ISOLATION RANDOMIZE_BASE RANDOMIZE_MEMORY
	UNWINDER_ORC STACKPROTECTOR_STRONG PREEMPT_VOLUNTARY PREEMPT_DYNAMIC
	SMP NUMA MEMCG BPF_SYSCALL BPF_JIT BPF_JIT_ALWAYS_ON KPROBES FTRACE
	FUNCTION_TRACER DYNAMIC_FTRACE JUMP_LABEL STRICT_KERNEL_RWX
	STRICT_MODULE_RWX MODULE_SIG SECURITY_LOCKDOWN_LSM INIT_ON_ALLOC_DEFAULT_ON
	SLAB_FREELIST_HARDENED HARDENED_USERCOPY SCHED_CORE"
orig=$(case "$cfg" in *.xz) xzcat "$cfg" ;; *) cat "$cfg" ;; esac)
lost=
for o in $codegen; do
	want=$(grep -E "^CONFIG_$o=" <<< "$orig" || true)
	[ -z "$want" ] || grep -qxF "$want" "$kout/.config" || lost="$lost $want"
done
[ -z "$lost" ] || die "Debian options lost:$lost"
grep -E '^CONFIG_[A-Za-z0-9_]+=y$' <<< "$orig" | grep -v '^CONFIG_DEBUG_INFO' |
	grep -vxF -f "$kout/.config" > "$kout/lost-builtins" || true
echo "kernel-debian: $(grep -c '=y$' "$kout/.config") built-in, $(grep -c '=m$' "$kout/.config") modules;" \
	"$(wc -l < "$kout/lost-builtins") sub-options of trimmed modules off (${kout#$top/}/lost-builtins)"
step config

t0=$(date +%s)
echo "kernel-debian: building $(kmake -s kernelrelease) in ${kout#$top/} (resumable)"
kmake bzImage
step bzImage

t0=$(date +%s)
kmake modules
rm -rf "$kout/modroot" "$kout/modules.cpio.gz"
kmake modules_install INSTALL_MOD_PATH="$kout/modroot" INSTALL_MOD_STRIP=1 >/dev/null
(cd "$kout/modroot" && find lib | cpio -o -H newc --quiet | gzip) > "$kout/modules.cpio.gz"
step modules
echo "kernel-debian: done: ${kout#$top/}/arch/x86/boot/bzImage; seconds per step:" $(cat "$kout/timing")
