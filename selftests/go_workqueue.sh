#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# go_workqueue.sh: the Go packages' tests (go/workqueue and
# go/priorityqueue: their own, controller-runtime's priority-queue tests
# and the fuzzers) run against the module in this guest, as TAP: one line
# per test of go_workqueue.test and go_priorityqueue.test -test.v (built
# by `make go`, static, no cgo: so no race detector, which needs cgo).
# The layout of the ABI is checked on the host (make go-check). busybox sh.
cd "$(dirname "$0")" || exit 1
TMP=${TMPDIR:-/tmp}
out=$TMP/go_wq.out
: >"$out"
rc=0 ran=0
for pkg in workqueue priorityqueue; do
	bin=./go_$pkg.test
	if [ ! -x "$bin" ]; then
		echo "# no $bin (make go)"
		continue
	fi
	ran=$((ran + 1))
	"$bin" -test.v -test.timeout 600s >"$TMP/go_$pkg.out" 2>&1 || rc=1
	# failure details first, as comments
	grep -v -e '^=== ' -e '^--- PASS' -e '^    --- PASS' -e '^PASS$' \
		"$TMP/go_$pkg.out" | sed "s/^/# $pkg: /"
	sed "s/^--- \([A-Z]*\): /--- \1: $pkg\//" "$TMP/go_$pkg.out" >>"$out"
	rm -f "$TMP/go_$pkg.out"
done
if [ "$ran" -eq 0 ]; then
	echo "1..0 # SKIP no Go test binary (make go)"
	exit 4
fi
awk '/^--- (PASS|FAIL|SKIP): / {
	n++
	if ($2 == "PASS:") print "ok " n " " $3
	else if ($2 == "SKIP:") print "ok " n " " $3 " # SKIP"
	else print "not ok " n " " $3
}
END { print "1.." n }' "$out"
rm -f "$out"
exit $rc
