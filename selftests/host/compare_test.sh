#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# compare_test.sh - scripts/compare --quick on the test kernels, then
# scripts/compare-check on the report it wrote
#
# usage: selftests/host/compare_test.sh [KERNEL...]
#   KERNEL   test kernels to compare (default: 6.1 and 7.3, as make compare)
#
# Runs on the host (it boots the test box once per kernel), after the
# build: it needs the module for each kernel and user/iowstat.  The report
# goes to a temporary folder that is removed at the end, or to
# $IOWPROBE_COMPARE_DIR when set (kept).  compare's and compare-check's
# output are shown as KTAP diagnostics.  Takes about 3 minutes.
#
# Exit: 0 pass, 1 fail, 4 skip (no QEMU, a kernel not cached, not built).

# shellcheck disable=SC2317 source-path=SCRIPTDIR/../lib source=lib.sh
. "$(dirname "$0")/../lib/lib.sh"

REPO=$LIB_REPO
LIMIT=900
KERNELS=()
REPORT=

# check_ready() - skip unless the test box can run every kernel
check_ready() {
	command -v gnuplot >/dev/null ||
		ktap_skip_all "no gnuplot; run: sudo scripts/deps"
	require_test_kernels "${KERNELS[@]}"
}

# kernels_reported() - the report folder has one result per kernel
kernels_reported() {
	local n

	n=$(find "$REPORT" -mindepth 2 -maxdepth 2 -name facts | wc -l)
	echo "kernels with results: $n of ${#KERNELS[@]}"
	[ "$n" = "${#KERNELS[@]}" ]
}

main() {
	local t0=$SECONDS

	KERNELS=("$@")
	[ ${#KERNELS[@]} -gt 0 ] || KERNELS=(6.1 7.3)
	ktap_header
	check_ready
	cleanup_trap
	if [ -n "${IOWPROBE_COMPARE_DIR:-}" ]; then
		REPORT=$IOWPROBE_COMPARE_DIR
	else
		lib_tmp
		REPORT=$LIB_TMP/report
	fi
	ktap_plan 3
	ktap_test_result "scripts/compare --quick ${KERNELS[*]}" \
		run_quick compare "$REPORT" "$LIMIT" "${KERNELS[@]}"
	ktap_info "compare took $((SECONDS - t0)) s; report in $REPORT"
	ktap_test_result "one result per kernel" kernels_reported
	ktap_test_result "scripts/compare-check passes" \
		"$REPO/scripts/compare-check" "$REPORT"
	ktap_finished
}

main "$@"
