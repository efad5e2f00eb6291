#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# bench_test.sh - scripts/bench --quick on the test kernels, then
# scripts/bench-check on the table it wrote
#
# usage: selftests/bench_test.sh [KERNEL...]
#   KERNEL   test kernels (default: 6.1 and 6.12)
#
# Runs on the host (it boots the test box once per kernel, two at once),
# after the build: it needs the module for each kernel and user/iowstat.
# It checks that the benchmark runs and that its table is complete (every
# configuration x workload a number or n/a with a reason), not the
# targets: timing is not a test.  The results go to a temporary folder
# that is removed at the end, or to $IOWPROBE_BENCH_DIR when set (kept).
# Takes about 3 minutes.
#
# Exit: 0 pass, 1 fail, 4 skip (no QEMU, a kernel not cached, not built).

# shellcheck disable=SC2317 source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

REPO=$(cd "$(dirname "$0")/.." && pwd)
CACHE=${IOWPROBE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/iowprobe}
LIMIT=900
KERNELS=()
RESULTS=

# check_ready() - skip unless the test box can run every kernel
check_ready() {
	local k rel

	command -v qemu-system-x86_64 >/dev/null ||
		ktap_skip_all "no qemu-system-x86_64; run: sudo scripts/deps"
	[ -x "$REPO/user/iowstat" ] || ktap_skip_all "no user/iowstat; run: make user"
	for k in "${KERNELS[@]}"; do
		rel=$(readlink -f "$CACHE/kernels/$k" 2>/dev/null)
		if [ -z "$rel" ] || [ ! -d "$rel" ]; then
			ktap_skip_all "kernel $k not cached; run: sudo scripts/deps"
		fi
		[ -f "$REPO/build/${rel##*/}/iowprobe.ko" ] ||
			ktap_skip_all "no module for ${rel##*/}; run: make modules-all"
	done
}

# run_bench() - the quick benchmark into RESULTS, limited to LIMIT s
run_bench() {
	local args=(--quick -o "$RESULTS") k

	for k in "${KERNELS[@]}"; do
		args+=(-k "$k")
	done
	timeout "$LIMIT" "$REPO/scripts/bench" "${args[@]}"
}

main() {
	local t0=$SECONDS

	KERNELS=("$@")
	[ ${#KERNELS[@]} -gt 0 ] || KERNELS=(6.1 6.12)
	ktap_header
	check_ready
	cleanup_trap
	if [ -n "${IOWPROBE_BENCH_DIR:-}" ]; then
		RESULTS=$IOWPROBE_BENCH_DIR
	else
		lib_tmp
		RESULTS=$LIB_TMP/bench
	fi
	ktap_plan 2
	ktap_test_result "scripts/bench --quick ${KERNELS[*]}" run_bench
	ktap_info "bench took $((SECONDS - t0)) s; results in $RESULTS"
	ktap_test_result "scripts/bench-check: the table is complete" \
		"$REPO/scripts/bench-check" "$RESULTS/bench.csv" "${KERNELS[@]}"
	ktap_finished
}

main "$@"
