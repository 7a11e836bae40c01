# SPDX-License-Identifier: GPL-2.0
#
# wqctl_lib.sh: running wqctl from wq's shell tests (busybox sh), sourced
# after tap.sh. WQCTL is the binary; stdout and stderr of the last run are
# in $out and $err.
# shellcheck shell=sh

WQCTL=${WQCTL:-wqctl}
TMP=${TMPDIR:-/tmp}
out=$TMP/wqctl.$$.out
err=$TMP/wqctl.$$.err

# run EXPECTED_STATUS ARGS...: runs wqctl ARGS, stdout in $out, stderr in
# $err; true iff it exited with EXPECTED_STATUS (else says why)
run() {
	want=$1
	shift
	"$WQCTL" "$@" >"$out" 2>"$err" </dev/null
	rc=$?
	if [ "$rc" -ne "$want" ]; then
		echo "# wqctl $*: exit $rc, expected $want"
		sed 's/^/#   stdout: /' "$out"
		sed 's/^/#   stderr: /' "$err"
		return 1
	fi
	return 0
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
