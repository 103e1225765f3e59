# SPDX-License-Identifier: GPL-2.0
# Sourced by the scripts that build the kernel (kernel-build.sh,
# debian-check.sh): the ccache environment, kmake() and the setup of a
# distribution's configuration. Needs $top, $tree, $kout and $jobs.

# Relative paths and a fixed timestamp let ccache hit across clones.
export CCACHE_BASEDIR=$top CCACHE_NOHASHDIR=1 CCACHE_SLOPPINESS=time_macros,include_file_mtime,include_file_ctime
export KBUILD_BUILD_TIMESTAMP="${KBUILD_BUILD_TIMESTAMP:-Thu Jan  1 00:00:00 UTC 2026}"
export KBUILD_BUILD_USER=jifl KBUILD_BUILD_HOST=jifl
cc="gcc"
command -v ccache >/dev/null && cc="ccache gcc"

# LOCALVERSION= keeps setlocalversion from appending "+" for a git tree.
kmake() { make -s -C "$tree" O="$kout" CC="$cc" HOSTCC="$cc" LOCALVERSION= -j"$jobs" "$@"; }

# $kout/.config from a distribution's config file $1 (plain or .xz),
# with FlowJIT, JIFL and the tools on and -jifl as local version. A
# distro config signs modules with its own key and names certificates
# we do not have.
distro_config() {
	case "$1" in *.xz) xzcat "$1" ;; *) cat "$1" ;; esac > "$kout/.config"
	"$tree/scripts/config" --file "$kout/.config" \
		--set-str SYSTEM_TRUSTED_KEYS "" --set-str SYSTEM_REVOCATION_KEYS "" \
		--disable MODULE_SIG_ALL --set-str LOCALVERSION -jifl \
		--enable FLOWJIT --enable JIFL --module JIFL_BBCOUNT --module JIFL_EDGES --module JIFL_PROBE --module JIFL_COVER \
		--module JIFL_KPROBE_BLOCKS
}
