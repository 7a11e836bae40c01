# SPDX-License-Identifier: GPL-2.0
#
# wqctl_lib.sh: running wqctl from wq's shell tests (busybox sh), sourced
# after tap.sh. WQCTL is the binary; stdout and stderr of the last run are
# in $out and $err. Queues made by new_queue are destroyed at exit once
# wqctl_start has run.
# shellcheck shell=sh

WQCTL=${WQCTL:-wqctl}
TMP=${TMPDIR:-/tmp}
out=$TMP/wqctl.$$.out
err=$TMP/wqctl.$$.err
queues=

# new_queue Q ARGS...: wqctl create Q ARGS, Q destroyed at exit
new_queue() {
	queues="$queues $1"
	"$WQCTL" create "$@"
}

cleanup() {
	for q in $queues; do
		"$WQCTL" destroy "$q" >/dev/null 2>&1
	done
	rm -f "$out" "$err"
}

# wqctl_start: skips the whole test without wqctl or /dev/wq, else cleans
# up at exit
wqctl_start() {
	command -v "$WQCTL" >/dev/null 2>&1 || skip_all "no $WQCTL on PATH"
	[ -c /dev/wq ] || skip_all "/dev/wq missing (module not loaded)"
	mkdir -p "$TMP" 2>/dev/null
	trap cleanup EXIT
}

# run EXPECTED_STATUS ARGS...: runs wqctl ARGS, stdout in $out, stderr in
# $err; true iff it exited with EXPECTED_STATUS (else says why)
run() {
	run_in /dev/null "$@"
}

# run_in FILE EXPECTED_STATUS ARGS...: run with standard input from FILE
run_in() {
	stdin=$1
	want=$2
	shift 2
	"$WQCTL" "$@" >"$out" 2>"$err" <"$stdin"
	rc=$?
	[ "$rc" -eq "$want" ] && return 0
	echo "# wqctl $* <$stdin: exit $rc, expected $want"
	sed 's/^/#   stdout: /' "$out"
	sed 's/^/#   stderr: /' "$err"
	return 1
}

# err_has TEXT: stderr of the last run contains TEXT
err_has() {
	grep -qF -- "$1" "$err" || explain "$err" "stderr has no '$1':"
}

# out_is TEXT: stdout of the last run is exactly TEXT (one line)
out_is() {
	got=$(cat "$out")
	[ "$got" = "$1" ] && return 0
	echo "# stdout: '$got', expected '$1'"
	return 1
}

# run_out EXPECTED_STATUS TEXT ARGS...: run, then out_is
run_out() {
	want=$1
	text=$2
	shift 2
	run "$want" "$@" && out_is "$text"
}

# stat_is Q FIELD VALUE: "wqctl stat Q" has the line "FIELD: VALUE"
stat_is() {
	got=$("$WQCTL" stat "$1" 2>&1 | awk -v f="$2:" '$1 == f { print $2 }')
	[ "$got" = "$3" ] && return 0
	echo "# wqctl stat $1: $2 is '$got', expected '$3'"
	return 1
}

# cs: /proc/uptime in centiseconds
cs() {
	awk '{ printf "%d\n", $1 * 100 + 0.5 }' /proc/uptime
}

# since T0 TEST LIMIT DESC: one test point, DESC: the centiseconds since
# T0 (from cs) are TEST (-lt or -ge) LIMIT
since() {
	dt=$(($(cs) - $1))
	if test "$dt" "$2" "$3"; then
		ok "$4 ($dt cs)"
	else
		not_ok "$4 (took $dt cs)"
	fi
}
