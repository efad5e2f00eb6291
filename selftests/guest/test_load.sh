#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# test_load.sh - iowprobe loads, counts events, survives reloads under I/O
# and unloads without a trace
#
# usage: selftests/guest/test_load.sh
#   in the test box: scripts/testbox -n -d 64M -- selftests/guest/test_load.sh
#
# Loads $IOWPROBE_KO itself (default build/$(uname -r)/iowprobe.ko).  The
# workload overwrites /dev/vda only in the test box (IOWPROBE_TESTBOX=1),
# where it is a scratch disk; elsewhere, or without one, it uses null_blk.
# IOWPROBE_SCRATCH=DEV names another device the test may overwrite.
#
# Exit: 0 pass, 1 fail, 4 skip.

# The check functions run through ktap_test_result, which shellcheck does
# not see as a call (SC2317).
# shellcheck disable=SC2317 source-path=SCRIPTDIR/../lib source=lib.sh
. "$(dirname "$0")/../lib/lib.sh"

STATUS=$IOWPROBE_DEBUGFS/status
ABI_LINE="# iowprobe abi 1"
DD_MB=20
CYCLES=3
NTESTS=13
DEV=
LOADER_PID=

# status_get(key) - print the value of key in the status file
status_get() {
	awk -v k="$1:" '$1 == k { print $2; exit }' "$STATUS" 2>/dev/null
}

# check_format() - the status file is the ABI line, then key: value lines
check_format() {
	local bad

	bad=$(tail -n +2 "$STATUS" | grep -vE '^[A-Za-z0-9_.-]+: .+$')
	[ -z "$bad" ] && return 0
	echo "lines that are not 'key: value':"
	echo "$bad"
	return 1
}

# check_abi() - the first line of the status file names ABI 1
check_abi() {
	local first

	first=$(head -n 1 "$STATUS")
	[ "$first" = "$ABI_LINE" ] && return 0
	echo "first line is '$first', expected '$ABI_LINE'"
	return 1
}

# check_grew(key, before, min) - the counter key grew by at least min
check_grew() {
	local now

	now=$(status_get "$1")
	echo "$1: $2 -> $now"
	[[ $now =~ ^[0-9]+$ ]] && [ $((now - $2)) -ge "$3" ]
}

# pick_device() - set DEV to a block device the test may overwrite
pick_device() {
	if [ -n "${IOWPROBE_SCRATCH:-}" ]; then
		DEV=$IOWPROBE_SCRATCH
	elif [ "${IOWPROBE_TESTBOX:-0}" = 1 ] && [ -b /dev/vda ] &&
	     ! grep -q '^/dev/vda ' /proc/mounts; then
		DEV=/dev/vda
	elif nullb_available && nullb_setup 100000 > /dev/null; then
		DEV=/dev/nullb0
	fi
	[ -n "$DEV" ] && [ -b "$DEV" ]
}

# write_dev() - the workload: O_DIRECT writes of DD_MB MiB to DEV
write_dev() {
	dd if=/dev/zero of="$DEV" bs=1M count="$DD_MB" oflag=direct status=none
}

# reload_under_io() - CYCLES rmmod/insmod rounds while reads hit DEV
reload_under_io() {
	local i rc=0

	(while :; do
		dd if="$DEV" of=/dev/null bs=64k count=64 iflag=direct status=none
	done) &
	LOADER_PID=$!
	for ((i = 0; i < CYCLES; i++)); do
		if ! unload_mod || ! load_mod; then
			rc=1
			break
		fi
	done
	stop_loader
	return "$rc"
}

# stop_loader() - stop the background reads of reload_under_io
stop_loader() {
	[ -n "$LOADER_PID" ] || return 0
	kill "$LOADER_PID" 2>/dev/null
	wait "$LOADER_PID" 2>/dev/null
	LOADER_PID=
}

# numbers(str...) - every argument is a decimal number
numbers() {
	local n

	for n in "$@"; do
		[[ $n =~ ^[0-9]+$ ]] || { echo "'$n' is not a number"; return 1; }
	done
}

# gone() - no module and no debugfs directory left behind
gone() {
	[ ! -e "$IOWPROBE_DEBUGFS" ] && ! mod_loaded
}

# skip_rest(reason) - report every remaining test case as skipped
skip_rest() {
	while [ "$KTAP_NUM" -lt "$NTESTS" ]; do
		ktap_skip "remaining check" "$1"
	done
	ktap_finished
}

cleanup() {
	stop_loader
	lib_cleanup
}

main() {
	local sw io

	ktap_header
	require_root
	require_debugfs
	cleanup_trap
	ktap_plan "$NTESTS"
	mod_loaded && { ktap_info "iowprobe already loaded; unloading it"; unload_mod; }
	dmesg_mark
	ktap_info "module $IOWPROBE_KO"
	ktap_test_result "module file exists" test -f "$IOWPROBE_KO"
	ktap_test_result "insmod" load_mod || skip_rest "module not loaded"
	ktap_test_result "status file exists" test -r "$STATUS" ||
		skip_rest "no status file"
	ktap_test_result "status starts with '$ABI_LINE'" check_abi
	ktap_test_result "status lines are 'key: value'" check_format
	sw=$(status_get events_sched_switch)
	io=$(status_get events_block_rq_issue)
	ktap_test_result "status has events_sched_switch and events_block_rq_issue" \
		numbers "$sw" "$io" || { sw=0; io=0; }
	if pick_device; then
		ktap_info "workload device $DEV"
		ktap_test_result "dd $DD_MB MiB O_DIRECT to $DEV" write_dev
		ktap_test_result "events_sched_switch moved" check_grew \
			events_sched_switch "$sw" 1
		ktap_test_result "events_block_rq_issue moved by >= $DD_MB" \
			check_grew events_block_rq_issue "$io" "$DD_MB"
		ktap_test_result "$CYCLES rmmod/insmod cycles under I/O" \
			reload_under_io
	else
		ktap_skip "dd $DD_MB MiB O_DIRECT" "no scratch disk and no null_blk"
		ktap_skip "events_sched_switch moved" "no workload"
		ktap_skip "events_block_rq_issue moved" "no workload"
		ktap_skip "$CYCLES rmmod/insmod cycles under I/O" "no workload"
	fi
	ktap_test_result "rmmod" unload_mod
	ktap_test_result "debugfs directory and module gone" gone
	ktap_test_result "no new kernel warnings" dmesg_check
	ktap_finished
}

main "$@"
