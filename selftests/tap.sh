# SPDX-License-Identifier: GPL-2.0
#
# tap.sh: TAP helpers for wq's shell tests (busybox sh), sourced by them:
# test points numbered in order, $failed set by any failure.
# shellcheck shell=sh

KSFT_SKIP=4
n=0
failed=0
# the suite's own binaries (wqctl, installed beside the scripts) first
PATH=$(cd "$(dirname "$0")" && pwd):$PATH

echo "TAP version 13"

skip_all() {
	echo "1..0 # SKIP $*"
	exit $KSFT_SKIP
}

ok() {
	n=$((n + 1))
	echo "ok $n $*"
}

not_ok() {
	n=$((n + 1))
	echo "not ok $n $*"
	failed=1
}

skip() {
	n=$((n + 1))
	echo "ok $n $* # SKIP guest stalled"
}

# explain FILE WHAT: why a check failed: "# WHAT", then FILE indented;
# false, for the check
explain() {
	echo "# $2"
	sed 's/^/#   /' "$1"
	return 1
}

# check DESCRIPTION COMMAND...: one test point from the command's status
check() {
	desc=$1
	shift
	if "$@"; then ok "$desc"; else not_ok "$desc"; fi
}
