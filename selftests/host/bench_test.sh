#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# bench_test.sh - scripts/bench --quick on the test kernels, then
# scripts/bench-check on the table it wrote
#
# usage: selftests/host/bench_test.sh [KERNEL...]
#   KERNEL   test kernels (default: 6.1 and 6.12)
#
# Runs on the host (it boots the test box once per kernel, two at once,
# or $IOWPROBE_BENCH_JOBS at once: make check runs one, in a lane beside
# the other), after the build: it needs the module for each kernel and
# user/iowstat.
# It checks that the benchmark runs and that its table is complete (every
# configuration x workload a number or n/a with a reason, the clock
# floor's multiples, the sleepers' rows and the quick sleeper sweep at 10
# and 100 included), not the targets: timing is not a test.  The results go
# to a temporary folder that is removed at the end, or to
# $IOWPROBE_BENCH_DIR when set (kept).  Takes about 13 minutes one box
# at a time (772 s on 2026-12-06, beside another test box: 6.1 421 s,
# 6.12 338 s), one round each (scripts/bench -q).
#
# Exit: 0 pass, 1 fail, 4 skip (no QEMU, a kernel not cached, not built).

# shellcheck disable=SC2317 source-path=SCRIPTDIR/../lib source=lib.sh
. "$(dirname "$0")/../lib/lib.sh"

REPO=$LIB_REPO
# a guard against a hang: two boxes one after the other on a busy host
LIMIT=1800
KERNELS=()
RESULTS=

main() {
	local t0=$SECONDS

	KERNELS=("$@")
	[ ${#KERNELS[@]} -gt 0 ] || KERNELS=(6.1 6.12)
	ktap_header
	require_test_kernels "${KERNELS[@]}"
	cleanup_trap
	if [ -n "${IOWPROBE_BENCH_DIR:-}" ]; then
		RESULTS=$IOWPROBE_BENCH_DIR
	else
		lib_tmp
		RESULTS=$LIB_TMP/bench
	fi
	ktap_plan 2
	ktap_test_result "scripts/bench --quick ${KERNELS[*]}" \
		run_quick bench "$RESULTS" "$LIMIT" "${KERNELS[@]}"
	ktap_info "bench took $((SECONDS - t0)) s; results in $RESULTS"
	ktap_test_result "scripts/bench-check: the table is complete" \
		"$REPO/scripts/bench-check" "$RESULTS/bench.csv" "${KERNELS[@]}"
	ktap_finished
}

main "$@"
