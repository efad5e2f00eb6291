#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# lib.sh - helpers for iowprobe's shell tests (sourced, never run): the
# guest tests in selftests/guest/ and the host ones in selftests/host/
#
# usage: . "$(dirname "$0")/../lib/lib.sh"
#
# KTAP output (ktap.sh beside it, sourced here), a dmesg canary (dmesg_mark,
# dmesg_check), the module (load_mod, unload_mod), null_blk (nullb_setup,
# nullb_teardown) and one cleanup trap (cleanup_trap).  Tests run as root in
# the test box (scripts/testbox) or on a real test box; they exit 0 (pass),
# 1 (fail) or 4 (skip).  No set -e: every check is explicit.

LIB_TMP=
DMESG_MARK=
MOD_LOADED=0
NULLB_LOADED=0

IOWPROBE_KVER=${IOWPROBE_KVER:-$(uname -r)}
# selftests/lib/, and the tree it is in
LIB_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
LIB_REPO=$(cd "$LIB_DIR/../.." && pwd)
IOWPROBE_KO=${IOWPROBE_KO:-$LIB_REPO/build/$IOWPROBE_KVER/iowprobe.ko}
# Kernel log text that fails dmesg_check, one fixed string a line
DMESG_BAD=$LIB_DIR/dmesg_bad.txt
# shellcheck disable=SC2034 # for the tests that source this file
IOWPROBE_DEBUGFS=/sys/kernel/debug/iowprobe
# shellcheck source-path=SCRIPTDIR source=ktap.sh
. "$LIB_DIR/ktap.sh"

# require_test_kernels(kernel...) - skip the whole test (host side) unless
# the test box can run each kernel: QEMU, user/iowstat, the cached kernel
# and the module built for it
require_test_kernels() {
	local cache k rel

	cache=$(bash "$LIB_REPO/scripts/lib.sh" cache)

	command -v qemu-system-x86_64 >/dev/null ||
		ktap_skip_all "no qemu-system-x86_64; run: sudo scripts/deps"
	[ -x "$LIB_REPO/user/iowstat" ] ||
		ktap_skip_all "no user/iowstat; run: make user"
	for k; do
		rel=$(readlink -f "$cache/kernels/$k" 2>/dev/null)
		if [ -z "$rel" ] || [ ! -d "$rel" ]; then
			ktap_skip_all "kernel $k not cached; run: sudo scripts/deps"
		fi
		[ -f "$LIB_REPO/build/${rel##*/}/iowprobe.ko" ] ||
			ktap_skip_all "no module for ${rel##*/}; run: make modules-all"
	done
}

# run_quick(script, outdir, limit, kernel...) - scripts/SCRIPT --quick on
# each kernel into outdir, killed after limit seconds
run_quick() {
	local script=$1 out=$2 limit=$3 args=() k

	shift 3
	for k; do
		args+=(-k "$k")
	done
	timeout "$limit" "$LIB_REPO/scripts/$script" --quick -o "$out" "${args[@]}"
}

# lib_tmp() - make LIB_TMP, a private temporary directory that
# lib_cleanup removes, on first use (do not call it in $(...))
lib_tmp() {
	if [ -z "$LIB_TMP" ] || [ ! -d "$LIB_TMP" ]; then
		LIB_TMP=$(mktemp -d "${TMPDIR:-/tmp}/iowprobe-test.XXXXXX")
	fi
}

# require_root() - skip the whole test unless root
require_root() {
	[ "$(id -u)" = 0 ] || ktap_skip_all "must be root"
}

# require_debugfs() - skip the whole test unless debugfs is mounted
require_debugfs() {
	grep -qs ' /sys/kernel/debug debugfs ' /proc/mounts ||
		ktap_skip_all "debugfs not mounted;" \
			"run: mount -t debugfs none /sys/kernel/debug"
}

# dmesg_mark() - remember where the kernel log is now
dmesg_mark() {
	DMESG_MARK="iowprobe-selftest mark $$-$RANDOM-$RANDOM"
	echo "$DMESG_MARK" > /dev/kmsg
}

# dmesg_since_mark() - print the kernel log after the last dmesg_mark
# (all of it if the mark has been overwritten)
dmesg_since_mark() {
	dmesg | awk -v mark="$DMESG_MARK" '
		mark != "" && index($0, mark) { n = 0; found = 1; next }
		{ line[n++] = $0 }
		END { for (i = 0; i < n; i++) print line[i] }'
}

# dmesg_check() - fail when the kernel logged a warning, BUG, lockdep,
# KASAN or UBSAN report, oops, stall or lockup since dmesg_mark
# (DMESG_BAD's list)
dmesg_check() {
	local bad w words=()

	# no process substitution: the test box has no /dev/fd
	while IFS= read -r w; do
		[[ -z $w || $w == \#* ]] || words+=(-e "$w")
	done < "$DMESG_BAD"
	if [ ${#words[@]} = 0 ]; then
		echo "no words to look for in $DMESG_BAD"
		return 1
	fi
	bad=$(dmesg_since_mark | grep -F "${words[@]}")
	[ -n "$bad" ] || return 0
	echo "new kernel warnings since the mark:"
	echo "$bad" | head -n 20
	return 1
}

# mod_loaded() - true when iowprobe is loaded
mod_loaded() {
	[ -d /sys/module/iowprobe ]
}

# load_mod(params...) - insmod $IOWPROBE_KO with params
# shellcheck disable=SC2120 # the params are optional
load_mod() {
	if [ ! -f "$IOWPROBE_KO" ]; then
		echo "module $IOWPROBE_KO not found; build it (make)"
		return 1
	fi
	if ! insmod "$IOWPROBE_KO" "$@"; then
		dmesg | tail -n 3
		return 1
	fi
	MOD_LOADED=1
}

# unload_mod() - rmmod iowprobe if it is loaded
unload_mod() {
	MOD_LOADED=0
	mod_loaded || return 0
	rmmod iowprobe
}

# nullb_available() - true when the null_blk module can be loaded
nullb_available() {
	[ -d /sys/module/null_blk ] || modprobe -n null_blk 2>/dev/null
}

# nullb_teardown() - remove null_blk if it is loaded
nullb_teardown() {
	[ -d /sys/module/null_blk ] || return 0
	modprobe -r null_blk
}

# nullb_setup(completion_nsec, params...) - one null_blk disk whose
# requests complete by timer after completion_nsec; prints its device
nullb_setup() {
	local nsec=$1 _

	shift
	nullb_teardown || return 1
	modprobe null_blk irqmode=2 completion_nsec="$nsec" nr_devices=1 "$@" ||
		return 1
	NULLB_LOADED=1
	for _ in 1 2 3 4 5 6 7 8 9 10; do
		[ -b /dev/nullb0 ] && break
		sleep 0.2
	done
	[ -b /dev/nullb0 ] || return 1
	echo /dev/nullb0
}

# lib_cleanup() - undo what the helpers did: module, null_blk, temp files
lib_cleanup() {
	[ "$MOD_LOADED" = 0 ] || unload_mod 2>/dev/null
	[ "$NULLB_LOADED" = 0 ] || nullb_teardown 2>/dev/null
	NULLB_LOADED=0
	[ -z "$LIB_TMP" ] || rm -rf -- "$LIB_TMP"
	LIB_TMP=
}

# cleanup() - the default cleanup; a test may define its own after sourcing
# lib.sh and call lib_cleanup from it
cleanup() {
	lib_cleanup
}

# cleanup_trap() - run cleanup once when the test exits or is interrupted
cleanup_trap() {
	trap cleanup EXIT
	trap 'exit 130' INT
	trap 'exit 143' TERM
	trap 'exit 129' HUP
}
