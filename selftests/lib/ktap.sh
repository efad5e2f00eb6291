#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# ktap.sh - KTAP output for every shell test and check of the tree (sourced,
# never run): the guest and host tests through lib.sh, and the scripts that
# test the packages and the fuzzers.  The one shell printer; Python has
# selftests/lib/iowprobe.py's Ktap, C kselftest_harness.h.  Also the one
# reader of what they print: the runners that sum several streams
# (run-host-tests, guest-run, guest-tests, check) take each stream's
# "# Totals:" line (ktap_totals), or count the results of a stream that
# has none (ktap_count: kselftest's runner.sh), and print theirs alike;
# make check names a failed step's failed results (ktap_failures).
#
# usage: . "$REPO/selftests/lib/ktap.sh"
#
# A test prints ktap_header and ktap_plan N first, or calls ktap_keep when
# it learns its count only at the end: the lines are then held and printed
# by ktap_finished after the header and a plan of as many as it saw.
# ktap_finished prints kselftest's "# Totals:" line, which the runner sums,
# and exits 0 (pass), 1 (fail) or 4 (all skipped).
#
# Why not the kernel's own ktap_helpers.sh (linux-source-6.12): it expands
# each description unquoted (a '*' in one is a glob), runs
# ktap_test_result's command word-split, takes no skip reason and knows no
# plan counted at the end.  The names here follow it where they can.

ksft_pass=0
ksft_fail=1
ksft_skip=4

KTAP_PLAN=
KTAP_NUM=0
KTAP_PASS=0
KTAP_FAIL=0
KTAP_SKIP=0
KTAP_KEPT=
KTAP_LINES=()

# ktap_emit(line...) - print each line, or hold it after ktap_keep
ktap_emit() {
	if [ -n "$KTAP_KEPT" ]; then
		KTAP_LINES+=("$@")
	else
		printf '%s\n' "$@"
	fi
}

# ktap_keep() - hold every line until ktap_finished, which counts the plan
ktap_keep() {
	KTAP_KEPT=1
}

# ktap_header() - the first line of a KTAP stream
ktap_header() {
	ktap_emit "KTAP version 1"
}

# ktap_plan(n) - announce n test cases
ktap_plan() {
	KTAP_PLAN=$1
	ktap_emit "1..$1"
}

# ktap_info(msg...) - diagnostic lines, one per line of msg
ktap_info() {
	local line

	while IFS= read -r line; do
		ktap_emit "# $line"
	done <<< "$*"
}

# ktap_ok(desc) - one passed test case
ktap_ok() {
	KTAP_NUM=$((KTAP_NUM + 1))
	KTAP_PASS=$((KTAP_PASS + 1))
	ktap_emit "ok $KTAP_NUM $*"
}

# ktap_fail(desc) - one failed test case
ktap_fail() {
	KTAP_NUM=$((KTAP_NUM + 1))
	KTAP_FAIL=$((KTAP_FAIL + 1))
	ktap_emit "not ok $KTAP_NUM $*"
}

# ktap_skip(desc, reason) - one skipped test case
ktap_skip() {
	KTAP_NUM=$((KTAP_NUM + 1))
	KTAP_SKIP=$((KTAP_SKIP + 1))
	ktap_emit "ok $KTAP_NUM $1 # SKIP ${2:-}"
}

# ktap_result(status, desc, diag...) - one test case that passed when
# status is 0; the non-empty diag texts are printed before it
ktap_result() {
	local rc=$1 desc=$2 d

	shift 2
	for d in "$@"; do
		[ -z "$d" ] || ktap_info "$d"
	done
	if [ "$rc" = 0 ]; then
		ktap_ok "$desc"
	else
		ktap_fail "$desc"
	fi
}

# ktap_test_result(desc, cmd...) - run cmd in this shell; ok when it
# succeeds.  Its output is shown as diagnostics.  Returns cmd's status.
ktap_test_result() {
	local desc=$1 rc=0 out

	shift
	out=$(mktemp "${TMPDIR:-/tmp}/ktap.XXXXXX") ||
		{ ktap_fail "$desc # cannot make a temporary file"; return 1; }
	"$@" > "$out" 2>&1 || rc=$?
	[ ! -s "$out" ] || ktap_info "$(cat -- "$out")"
	rm -f -- "$out"
	ktap_result "$rc" "$desc"
	return "$rc"
}

# ktap_flush() - after ktap_keep: the header, a plan of the tests seen and
# the held lines
ktap_flush() {
	[ -n "$KTAP_KEPT" ] || return 0
	KTAP_KEPT=
	KTAP_PLAN=$KTAP_NUM
	printf '%s\n' "KTAP version 1" "1..$KTAP_NUM" \
		${KTAP_LINES[@]+"${KTAP_LINES[@]}"}
	KTAP_LINES=()
}

# ktap_skip_all(reason...) - the whole test is skipped: print and exit 4
ktap_skip_all() {
	if [ -n "$KTAP_KEPT" ] || [ -n "$KTAP_PLAN" ]; then
		ktap_info "SKIP $*"
		ktap_flush
	else
		echo "1..0 # SKIP $*"
	fi
	exit "$ksft_skip"
}

# ktap_finished() - print the held lines (after ktap_keep) and the totals,
# and exit 0 (pass), 1 (fail) or 4 (all skipped); a plan that does not
# match the count is a failure
ktap_finished() {
	ktap_flush
	if [ -n "$KTAP_PLAN" ] && [ "$KTAP_PLAN" != "$KTAP_NUM" ]; then
		ktap_info "planned $KTAP_PLAN tests but ran $KTAP_NUM"
		KTAP_FAIL=$((KTAP_FAIL + 1))
	fi
	ktap_print_totals "$KTAP_PASS" "$KTAP_FAIL" "$KTAP_SKIP"
	if [ "$KTAP_FAIL" -gt 0 ]; then
		exit "$ksft_fail"
	elif [ "$KTAP_PASS" = 0 ] && [ "$KTAP_SKIP" -gt 0 ]; then
		exit "$ksft_skip"
	fi
	exit "$ksft_pass"
}

# ktap_print_totals(pass, fail, skip) - kselftest's totals line
ktap_print_totals() {
	echo "# Totals: pass:$1 fail:$2 xfail:0 xpass:0 skip:$3 error:0"
}

# ktap_totals(file) - "PASS FAIL SKIP" of the last "# Totals:" line in file
# (xfail counts as passed, xpass and error as failed); false if none
ktap_totals() {
	local line kv p=0 f=0 s=0

	line=$(grep -a '^# Totals: ' "$1" 2>/dev/null | tail -n 1)
	[ -n "$line" ] || return 1
	for kv in ${line#\# Totals: }; do
		[[ $kv =~ ^([a-z]+):([0-9]+)$ ]] || continue
		case ${BASH_REMATCH[1]} in
		pass | xfail) p=$((p + BASH_REMATCH[2])) ;;
		fail | xpass | error) f=$((f + BASH_REMATCH[2])) ;;
		skip) s=$((s + BASH_REMATCH[2])) ;;
		esac
	done
	echo "$p $f $s"
}

# ktap_count(file) - "PASS FAIL SKIP" of the results at the top level of
# the KTAP stream in file (lines starting "ok" or "not ok"; a nested
# test's are indented or, from kselftest's runner, prefixed "# ")
ktap_count() {
	local line p=0 f=0 s=0

	while IFS= read -r line; do
		case $line in
		"ok "[0-9]*" # SKIP"*) s=$((s + 1)) ;;
		"ok "[0-9]*) p=$((p + 1)) ;;
		"not ok "[0-9]*) f=$((f + 1)) ;;
		esac
	done < "$1"
	echo "$p $f $s"
}

# ktap_failures(file) - each failed result in file, at any depth, then its
# diagnostic (the line before it, one level deeper: "# " more) if it has
# one, each prefixed "KERNEL: " within a "# kernel: KERNEL" section of
# scripts/guest-tests
ktap_failures() {
	awk '
		/^# kernel: [^ ]+$/ { kernel = $3 ": " }
		/^[# ]*not ok [0-9]/ {
			print kernel $0
			depth = substr($0, 1, index($0, "not ok") - 1)
			if (index(prev, depth "# ") == 1)
				print kernel "  " prev
		}
		{ prev = $0 }' "$1"
}
