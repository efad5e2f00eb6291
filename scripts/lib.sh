# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash
#
# lib.sh - what the scripts share, on the host and in the test box:
# sourced by each, first thing after its "set" line.  One home for each
# of these:
#
# CACHE         where the test kernels, the test box, the trixie build
#               root and QEMU are kept: $IOWPROBE_CACHE, else
#               $XDG_CACHE_HOME/iowprobe, else ~/.cache/iowprobe
# KERNEL_CACHE  the test kernels in CACHE: a folder per release, and a
#               link per name of scripts/kernels (6.1 -> 6.1.0-50-amd64)
# kernel_release, need_kernel
#               a test kernel's release in KERNEL_CACHE
# die           say what went wrong, as "SCRIPT: what", and exit 1
# usage         print the script's own usage block and exit 2
#
# Run, not sourced: "bash scripts/lib.sh cache" prints CACHE (the
# Makefile's CACHE comes from it).

# the name in every message: the script's own file name
IOWPROBE_PROG=$(basename "$0")
# (HOME unset, as in the test box: the passwd entry's home, through ~)
CACHE=${IOWPROBE_CACHE:-${XDG_CACHE_HOME:-${HOME:-~}/.cache}/iowprobe}
KERNEL_CACHE=$CACHE/kernels

# die(what...) - print "SCRIPT: what" on stderr and exit 1
die() {
	echo "$IOWPROBE_PROG: $*" >&2
	exit 1
}

# usage() - the usage block of the script's header comment, from its
# "# usage:" line to the first bare "#" line, less the "# " of each line
# (so the header's alignment is kept), on stderr; exit 2
usage() {
	sed -n '/^# usage: /,/^#$/{/^#$/d; s/^# \{0,1\}//p}' "$0" >&2
	exit 2
}

# kernel_release(name) - the release a test kernel's name (or a release)
# stands for in KERNEL_CACHE; prints nothing and fails when it is not cached
kernel_release() {
	local d

	d=$(readlink -f "$KERNEL_CACHE/$1" 2>/dev/null) && [ -d "$d" ] || return 1
	basename "$d"
}

# need_kernel(name) - kernel_release, or die saying how to fetch it; in
# $(...) die leaves only the subshell, so: rel=$(need_kernel K) || exit 1
need_kernel() {
	kernel_release "$1" ||
		die "no $1 test kernel in $KERNEL_CACHE; run: sudo scripts/deps"
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
	case ${1-} in
	cache) echo "$CACHE" ;;
	*) echo "usage: bash scripts/lib.sh cache" >&2; exit 2 ;;
	esac
fi
