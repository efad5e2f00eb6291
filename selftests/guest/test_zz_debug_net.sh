#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# test_zz_debug_net.sh - the debug kernel's checkers catch iowprobe's bugs:
# the testing module's deliberate lock inversion makes lockdep report, its
# deliberate use-after-free makes KASAN report (kmod/testing.c)
#
# usage: selftests/guest/test_zz_debug_net.sh
#   in the test box: scripts/guest-tests -k 6.12-debug (scripts/debug-kernel)
#
# Each case runs only on a kernel whose /proc/config.gz has its checker
# (PROVE_LOCKING, KASAN) and skips elsewhere; the testing module is
# build/RELEASE-testing/iowprobe.ko (make module-testing-NAME).
#
# "zz": it must run last in a boot.  Lockdep switches itself off for good
# after its first report, and so does a KASAN report (it taints the
# kernel), so a test after this one would run unwatched; for the same
# reason the lockdep case comes first.  Before it, the test checks that
# lockdep is still on: that nothing earlier in the boot switched it off.
#
# The console: lockdep's report raises the console loglevel for good
# (debug_locks_off() calls console_verbose()), which would put the rest of
# the kernel log into the test box's output; each case puts it back.
#
# panic_on_warn: the debug kernel boots with panic_on_warn=1.  Lockdep's
# reports are not WARN()s; KASAN's report panics under panic_on_warn unless
# the kernel booted with kasan_multi_shot, as the debug kernel does.  The
# test clears panic_on_warn for its run and restores it, so that the
# reports reach dmesg on any kernel that has the checkers.
#
# Exit: 0 pass, 1 fail, 4 skip.

# The check functions run through ktap_test_result, which shellcheck does
# not see as a call (SC2317).
# shellcheck disable=SC2317 source-path=SCRIPTDIR/../lib source=lib.sh
. "$(dirname "$0")/../lib/lib.sh"

TESTING_KO=$LIB_REPO/build/$IOWPROBE_KVER-testing/iowprobe.ko
PANIC_ON_WARN=/proc/sys/kernel/panic_on_warn
PRINTK=/proc/sys/kernel/printk
NTESTS=6
CONFIG=
SAVED_POW=
CONSOLE_LEVEL=

# config_has(option) - the running kernel was built with CONFIG_option=y
config_has() {
	grep -qx "CONFIG_$1=y" <<< "$CONFIG"
}

# no_test_params() - the default module has none of the test parameters
no_test_params() {
	local p

	p=$(modinfo -F parm "$IOWPROBE_KO" | grep '^test_')
	[ -z "$p" ] && return 0
	echo "the default build has test parameters:"
	echo "$p"
	return 1
}

# lockdep_on() - lockdep is still validating (debug_locks: 1)
lockdep_on() {
	if awk '$1 == "debug_locks:" { on = $2 == 1 } END { exit !on }' \
		/proc/lockdep_stats; then
		return 0
	fi
	echo "lockdep is off: something earlier in this boot switched it off"
	dmesg | grep -E -m 5 'lockdep|lock debugging|possible|BUG:'
	return 1
}

# trip(param) - load the testing module with param=1, then unload it;
# the console loglevel as it was before
trip() {
	local rc=0

	dmesg_mark
	if insmod "$TESTING_KO" "$1=1"; then
		rmmod iowprobe || rc=1
	else
		dmesg | tail -n 5
		rc=1
	fi
	echo "$CONSOLE_LEVEL" > "$PRINTK"
	return "$rc"
}

# reported(regex...) - every regex matches a kernel log line since the
# mark; prints the first line each matches
reported() {
	local log re rc=0

	log=$(dmesg_since_mark)
	for re; do
		grep -E -m 1 -- "$re" <<< "$log" && continue
		echo "no kernel log line matches '$re'"
		rc=1
	done
	[ "$rc" = 0 ] && return 0
	echo "kernel log since the mark:"
	head -n 40 <<< "$log"
	return 1
}

cleanup() {
	[ -z "$SAVED_POW" ] || echo "$SAVED_POW" > "$PANIC_ON_WARN"
	mod_loaded && rmmod iowprobe
	lib_cleanup
}

main() {
	ktap_header
	require_root
	[ -r /proc/config.gz ] ||
		ktap_skip_all "no /proc/config.gz: not a debug kernel (scripts/debug-kernel)"
	CONFIG=$(zcat /proc/config.gz)
	config_has PROVE_LOCKING || config_has KASAN ||
		ktap_skip_all "neither lockdep nor KASAN in this kernel"
	cleanup_trap
	ktap_plan "$NTESTS"
	mod_loaded && { ktap_info "iowprobe already loaded; unloading it"; unload_mod; }
	ktap_test_result "the default module has no test_ parameter" \
		no_test_params
	if [ ! -f "$TESTING_KO" ]; then
		while [ "$KTAP_NUM" -lt "$NTESTS" ]; do
			ktap_skip "remaining check" "no $TESTING_KO"
		done
		ktap_finished
	fi
	CONSOLE_LEVEL=$(awk '{ print $1 }' "$PRINTK")
	SAVED_POW=$(cat "$PANIC_ON_WARN")
	echo 0 > "$PANIC_ON_WARN"
	if config_has PROVE_LOCKING; then
		ktap_test_result "lockdep still on after the tests before" \
			lockdep_on
		ktap_test_result "insmod test_lock_order=1, rmmod" \
			trip test_lock_order
		ktap_test_result "lockdep reports the inversion of devs_lock" \
			reported 'WARNING: possible circular locking dependency detected' \
			'\(devs_lock\)'
	else
		ktap_skip "lockdep still on" "no PROVE_LOCKING"
		ktap_skip "insmod test_lock_order=1" "no PROVE_LOCKING"
		ktap_skip "lockdep reports the inversion" "no PROVE_LOCKING"
	fi
	if config_has KASAN; then
		ktap_test_result "insmod test_use_after_free=1, rmmod" \
			trip test_use_after_free
		ktap_test_result "KASAN reports the use-after-free in iowprobe" \
			reported 'BUG: KASAN: slab-use-after-free in .*\[iowprobe\]'
	else
		ktap_skip "insmod test_use_after_free=1" "no KASAN"
		ktap_skip "KASAN reports the use-after-free" "no KASAN"
	fi
	ktap_finished
}

main "$@"
