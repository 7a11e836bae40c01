#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# kapi.sh: load wq_test_kapi.ko, the test module of wq's kernel API (as
# tools/testing/selftests/lib/*.sh load lib/test_*.ko): it runs its cases at
# load, reports KTAP in the kernel log and fails its load if any failed.
# The log lines become this script's TAP output. busybox sh compatible.

ko=${WQ_KO_DIR:-/wq}/wq_test_kapi.ko
log=/tmp/kapi.$$

echo "TAP version 13"
if [ ! -e "$ko" ]; then
	echo "1..1"
	echo "not ok 1 kapi: $ko missing"
	exit 1
fi
# Only the lines this load adds (the log is left for the runner to judge).
before=$(dmesg | wc -l)
insmod "$ko"
rc=$?
dmesg | tail -n +"$((before + 1))" | sed -n 's/^.*wq_test_kapi: //p' >"$log"
sed -e 's/^    #/#/' "$log" | grep -E '^(ok |not ok |# |1\.\.)'
if [ "$rc" -eq 0 ]; then
	rmmod wq_test_kapi || { echo "not ok - rmmod wq_test_kapi failed"; rc=1; }
elif ! grep -q '^not ok' "$log"; then
	echo "not ok - insmod failed (status $rc) without a failed case"
fi
grep -q '^ok ' "$log" || { echo "not ok - no results in the kernel log"; rc=1; }
rm -f "$log"
[ "$rc" -eq 0 ]
