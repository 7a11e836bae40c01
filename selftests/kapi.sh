#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# kapi.sh: load wq_test_kapi.ko, the test module of wq's kernel API (as
# tools/testing/selftests/lib/*.sh load lib/test_*.ko): it runs its cases at
# load, reports KTAP in the kernel log and fails its load if any failed.
# The log lines become this script's TAP output. Without WQ_KO_DIR (a
# kernel CI's machine) the module is modprobe'd, and skipped if it is not
# installed. busybox sh compatible.

ko=${WQ_KO_DIR:-/wq}/wq_test_kapi.ko
log=/tmp/kapi.$$

echo "TAP version 13"
if [ -e "$ko" ]; then
	load() { insmod "$ko" "$@"; }
elif [ -z "${WQ_KO_DIR:-}" ] && modprobe -q -n wq_test_kapi 2>/dev/null; then
	load() { modprobe wq_test_kapi "$@"; }
elif [ -z "${WQ_KO_DIR:-}" ]; then
	echo "1..0 # SKIP no wq_test_kapi module (CONFIG_WQ_TEST_KAPI; or set WQ_KO_DIR)"
	exit 4
else
	echo "1..1"
	echo "not ok 1 kapi: $ko missing"
	exit 1
fi
# The failnth case fails allocations with current->fail_nth: failslab
# fails those that may sleep only with ignore-gfp-wait N, and prints a
# stack trace for each unless verbose is 0 (the runner would count it as a
# kernel problem). Set where the kernel has failslab, restored after.
# Each injection also uses up one of failslab's "times", which is saved
# and put back too; so are the others, on any exit (the runner's watchdog
# sends SIGTERM).
fs=/sys/kernel/debug/failslab
knobs="ignore-gfp-wait=N verbose=0 probability=0 times="
saved=
restore() {
	for kv in $saved; do
		echo "${kv#*=}" >"$fs/${kv%%=*}"
	done
	saved=
}
trap restore EXIT
trap 'exit 143' INT TERM
if [ -w "$fs/ignore-gfp-wait" ]; then
	for kv in $knobs; do
		saved="${kv%%=*}=$(cat "$fs/${kv%%=*}") $saved"
		[ -n "${kv#*=}" ] && echo "${kv#*=}" >"$fs/${kv%%=*}"
	done
fi
# Only the lines this load adds (the log is left for the runner to judge).
before=$(dmesg | wc -l)
# The debug lane (WQ_DEBUG_LANE=1) must run the failnth case, not skip it.
if [ "${WQ_DEBUG_LANE:-0}" = 1 ]; then
	load failnth_required=1
else
	load
fi
rc=$?
restore
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
