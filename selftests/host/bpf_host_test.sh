#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# bpf_host_test.sh - iowstat --bpf on this machine: no module, no VM
#
# usage: selftests/host/bpf_host_test.sh [IOWSTAT]
#   IOWSTAT   the iowstat to test (default: user/iowstat)
#
# Runs `iowstat --bpf -o json -- dd if=FILE of=/dev/null bs=4k iflag=direct`
# on a small file on a real disk (/var/tmp, else /work: /tmp may be tmpfs,
# which has no O_DIRECT) and checks the JSON summary: every CPU's busy +
# idle covers the wall time of the run (iowstat's two readings bracket the
# command) and exceeds it by at most 0.5% and the readings' own time (1 ms
# allowed: about 0.8 ms here, 1.5 ms under load), the run booked iowait,
# and the command's tree has its iowait part, measured in the cgroup v2
# iowstat made for it wherever systemd mounts cgroup v2 (/sys/fs/cgroup, or
# /sys/fs/cgroup/unified in its hybrid layout, as on the machine this was
# written on); then `iowstat --bpf --top -o json 1 2` during another such
# dd has a row for dd that waited, its wait in read(): WAITS-IN rw; and
# again with IOWSTAT_BPF_NO_WAIT_KINDS=1 (the bench's switch), all of it
# booked as other.
# Prints KTAP and a Totals line.  Exit: 0 pass, 1 fail, 4 skip (not root,
# iowstat built without BPF, BPF not permitted here: the reason is printed).

SELF_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source-path=SCRIPTDIR/../lib source=lib.sh
. "$SELF_DIR/../lib/lib.sh"
IOWSTAT=${1:-$LIB_REPO/user/iowstat}
PLAN=6
FILE_MB=16
WORK=

# skip_all(reason) - every case skipped, with the reason; exit 4
skip_all() {
	local i

	ktap_info "SKIP $*"
	for ((i = 1; i <= PLAN; i++)); do
		ktap_skip "bpf host test $i" "$*"
	done
	ktap_finished
}

# cleanup() - remove the test file and the outputs (run by the EXIT trap)
# shellcheck disable=SC2317
cleanup() {
	[ -z "$WORK" ] || rm -rf -- "$WORK"
	lib_cleanup
}

# real_disk_dir() - print a folder on a file system with O_DIRECT
real_disk_dir() {
	local d

	for d in /var/tmp /work "$LIB_REPO/selftests/out"; do
		if [ ! -d "$d" ] || [ ! -w "$d" ]; then
			continue
		fi
		[ "$(stat -f -c %T "$d")" != tmpfs ] || continue
		echo "$d"
		return 0
	done
	return 1
}

# check_env() - skip unless this iowstat can run --bpf here
check_env() {
	[ -x "$IOWSTAT" ] || skip_all "$IOWSTAT not built: make -C user"
	ldd "$IOWSTAT" | grep -q libbpf ||
		skip_all "iowstat built without BPF: make -C user BPF=1"
	[ "$(id -u)" = 0 ] || skip_all "loading BPF programs needs root"
}

# make_file() - a small file on a real disk, in WORK
make_file() {
	local dir

	dir=$(real_disk_dir) || skip_all "no writable non-tmpfs folder for O_DIRECT"
	WORK=$(mktemp -d "$dir/iowstat-bpf.XXXXXX") || return 1
	dd if=/dev/urandom of="$WORK/file" bs=1M count=$FILE_MB conv=fsync \
		status=none
}

# run_iowstat() - the run under test; JSON in WORK/out, stderr in WORK/err
run_iowstat() {
	local rc=0

	"$IOWSTAT" --bpf -o json -- dd if="$WORK/file" of=/dev/null bs=4k \
		iflag=direct > "$WORK/out" 2> "$WORK/err" || rc=$?
	if [ "$rc" = 2 ] && grep -q -- '--bpf:' "$WORK/err"; then
		skip_all "$(grep -- '--bpf:' "$WORK/err" | head -n 1)"
	fi
	sed 's/^/# /' "$WORK/err"
	return "$rc"
}

# check(what) - one check on the JSON summary (python, printing diags);
# what: wall (busy + idle = wall per CPU), iowait or tree; exit 0, 1, or 4
check() {
	python3 - "$1" "$WORK/out" <<'EOF'
import json, sys

what, path = sys.argv[1], sys.argv[2]
cmd = json.load(open(path))["sysstat"]["hosts"][0]["command"]
wall = cmd["real-ns"]
rows = [r for r in cmd["cpu-ns"] if r["cpu"] != "all"]
READINGS_NS = 1000000
if what == "wall":
    bad = 0
    for r in rows:
        total = r["busy_ns"] + r["idle_ns"]
        err = 100.0 * (total - wall) / wall
        most = wall + wall // 200 + READINGS_NS
        print(f"# cpu{r['cpu']}: busy+idle {total / 1e6:.3f} ms, wall "
              f"{wall / 1e6:.3f} ms ({err:+.3f}%), allowed "
              f"{wall / 1e6:.3f}..{most / 1e6:.3f} ms")
        bad += not wall <= total <= most
    sys.exit(1 if bad or not rows else 0)
idle = sum(r["idle_ns"] for r in rows)
iowait = sum(r["iowait_ns"] for r in rows)
print(f"# all cpus: idle {idle / 1e6:.1f} ms, iowait {iowait / 1e6:.1f} ms "
      f"of {len(rows)} x {wall / 1e6:.1f} ms")
if what == "tree":
    # dd's iowait is the tree's; its share of the CPUs' cannot exceed them
    t = cmd.get("tree", {})
    print(f"# tree: {t}")
    ok = t.get("iowait-ns", 0) > 0 and 0 < t.get("wa-ns", 0) <= iowait
    sys.exit(0 if ok else 4 if iowait == 0 and idle < 0.01 * wall else 1)
if iowait > 0:
    sys.exit(0)
# a machine saturated by other work never idles: no iowait to book
sys.exit(4 if idle < 0.01 * wall else 1)
EOF
}

# check_top(kind) - --bpf --top during dds: a dd row that waited, most of
# its wait in kind: rw, or other with the kinds switched off; 0 or 1
check_top() {
	local kind=$1 dd_pid rc=0 env=()

	# dd again and again, until iowstat has attached and sampled
	(while :; do
		dd if="$WORK/file" of=/dev/null bs=4k iflag=direct status=none
	done) &
	dd_pid=$!
	[ "$kind" = rw ] || env=(IOWSTAT_BPF_NO_WAIT_KINDS=1)
	env ${env[@]+"${env[@]}"} "$IOWSTAT" --bpf --top -o json 1 2 \
		> "$WORK/top" 2> "$WORK/err" || rc=$?
	kill "$dd_pid"
	wait "$dd_pid" 2> /dev/null
	sed 's/^/# /' "$WORK/err"
	[ "$rc" = 0 ] || return 1
	python3 - "$WORK/top" "$kind" <<'EOF'
import json, sys

host = json.load(open(sys.argv[1]))["sysstat"]["hosts"][0]
rows = [r for s in host["statistics"] for r in s.get("top-procs", [])
        if r["command"] == "dd" and r["wait"] > 0]
for r in rows:
    print(f"# dd: {r}")
sys.exit(0 if rows and all(r["waits-in"] == sys.argv[2] for r in rows)
         else 1)
EOF
}

# tree_check() - the tree's iowait part, where cgroup v2 is mounted
tree_check() {
	local what="the tree's iowait, in its cgroup v2" fs rc=0

	for fs in /sys/fs/cgroup /sys/fs/cgroup/unified; do
		[ "$(stat -f -c %T "$fs" 2>/dev/null)" = cgroup2fs ] && break
		fs=
	done
	if [ -z "$fs" ]; then
		ktap_skip "$what" "no cgroup v2 on /sys/fs/cgroup or its unified/"
		return
	fi
	check tree || rc=$?
	case $rc in
	0) ktap_ok "$what (on $fs): booked, its wa within the CPUs' iowait" ;;
	4) ktap_skip "$what" "no CPU was ever idle (machine saturated)" ;;
	*) ktap_fail "$what (on $fs): booked, its wa within the CPUs' iowait" ;;
	esac
}

main() {
	local rc

	ktap_header
	ktap_plan "$PLAN"
	check_env
	trap cleanup EXIT
	make_file || skip_all "cannot write a test file"
	if run_iowstat && python3 -c 'import json, sys; json.load(open(sys.argv[1]))' \
			"$WORK/out" 2>/dev/null; then
		ktap_ok "iowstat --bpf -o json -- dd iflag=direct: exit 0, JSON"
	else
		ktap_fail "iowstat --bpf -o json -- dd iflag=direct: exit 0, JSON"
		ktap_skip "busy + idle = wall" "no run"
		ktap_skip "iowait booked" "no run"
		ktap_skip "the tree's iowait" "no run"
		ktap_skip "--top: a row for dd" "no run"
		ktap_skip "--top, the kinds off: a row for dd" "no run"
		ktap_finished
	fi
	if check wall; then
		ktap_ok "every cpu: busy + idle covers the wall time, within 0.5% and 1 ms over it"
	else
		ktap_fail "every cpu: busy + idle covers the wall time, within 0.5% and 1 ms over it"
	fi
	rc=0
	check iowait || rc=$?
	case $rc in
	0) ktap_ok "the run booked iowait" ;;
	4) ktap_skip "the run booked iowait" "no CPU was ever idle (machine saturated)" ;;
	*) ktap_fail "the run booked iowait" ;;
	esac
	tree_check
	if check_top rw; then
		ktap_ok "iowstat --bpf --top during a dd: a row for dd that waited, in read (rw)"
	else
		ktap_fail "iowstat --bpf --top during a dd: a row for dd that waited, in read (rw)"
	fi
	if check_top other; then
		ktap_ok "the same, IOWSTAT_BPF_NO_WAIT_KINDS=1: its wait unsorted (other)"
	else
		ktap_fail "the same, IOWSTAT_BPF_NO_WAIT_KINDS=1: its wait unsorted (other)"
	fi
	ktap_finished
}

main "$@"
