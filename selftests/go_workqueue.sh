#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# go_workqueue.sh: the Go package's tests (go/workqueue: its own, layout
# against the C header included) run against the module in this guest, as
# TAP: one line per test of go_workqueue.test -test.v (built by `make go`,
# static, no cgo: so no race detector, which needs cgo). busybox sh.
cd "$(dirname "$0")" || exit 1
TMP=${TMPDIR:-/tmp}
if [ ! -x ./go_workqueue.test ]; then
	echo "1..0 # SKIP no go_workqueue.test (make go)"
	exit 0
fi
WQ_LAYOUT_FILE=./go_layout.txt ./go_workqueue.test -test.v -test.timeout 300s \
	>"$TMP/go_wq.out" 2>&1
rc=$?
# failure details first, as comments
grep -v -e '^=== ' -e '^--- PASS' -e '^PASS$' "$TMP/go_wq.out" | sed 's/^/# /'
awk '/^--- (PASS|FAIL|SKIP): / {
	n++
	if ($2 == "PASS:") print "ok " n " " $3
	else if ($2 == "SKIP:") print "ok " n " " $3 " # SKIP"
	else print "not ok " n " " $3
}
END { print "1.." n }' "$TMP/go_wq.out"
rm -f "$TMP/go_wq.out"
exit $rc
