#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# kunit.sh: load wq_kunit.ko (KUnit suites of the key table, the heap,
# the limiters and the scratch pool), which runs its suites at load, and
# report every case as one TAP line. The kernel log of the run (KTAP) is
# left in $WQ_OUT_DIR/kunit.log where that is set (vm-run --out), for
# tools/testing/kunit/kunit.py parse on the host. Without KUnit in the
# kernel the test is skipped; with it, a missing module fails where
# WQ_KO_DIR is set (the guests of make check), else is skipped.
# busybox sh compatible.

ko=${WQ_KO_DIR:-/wq}/wq_kunit.ko
dbg=/sys/kernel/debug/kunit

echo "TAP version 13"
if [ ! -d "$dbg" ] && [ ! -d /sys/module/kunit ]; then
	echo "1..0 # SKIP this kernel has no KUnit (CONFIG_KUNIT): the debug lane has it"
	exit 4
fi
if [ -e "$ko" ]; then
	load() { insmod "$ko"; }
elif [ -z "${WQ_KO_DIR:-}" ] && modprobe -q -n wq_kunit 2>/dev/null; then
	load() { modprobe wq_kunit; }
elif [ -z "${WQ_KO_DIR:-}" ]; then
	echo "1..0 # SKIP no wq_kunit module (CONFIG_WQ_KUNIT_TEST; or set WQ_KO_DIR)"
	exit 4
else
	echo "1..1"
	echo "not ok 1 kunit: the kernel has KUnit, but there is no $ko"
	exit 1
fi
before=$(dmesg | wc -l)
if ! load; then
	echo "1..1"
	echo "not ok 1 kunit: loading wq_kunit failed"
	exit 1
fi
if [ -n "${WQ_OUT_DIR:-}" ] && [ -d "$WQ_OUT_DIR" ]; then
	dmesg | tail -n +"$((before + 1))" >"$WQ_OUT_DIR/kunit.log"
fi

n=0
fail=0
out=/tmp/kunit.$$
: >"$out"
for suite in "$dbg"/wq-*; do
	[ -r "$suite/results" ] || continue
	name=${suite##*/}
	sed 's/^/# /' "$suite/results"
	# The cases are the indented "ok N name [# SKIP ...]" lines.
	sed -nE "s/^    ok [0-9]+ (.*)\$/ok $name.\\1/p
		 s/^    not ok [0-9]+ (.*)\$/not ok $name.\\1/p" \
		"$suite/results" >>"$out"
done
rmmod wq_kunit || echo "# rmmod wq_kunit failed"

total=$(wc -l <"$out")
if [ "$total" -eq 0 ]; then
	echo "1..1"
	echo "not ok 1 kunit: no results under $dbg"
	rm -f "$out"
	exit 1
fi
echo "1..$total"
while read -r line; do
	n=$((n + 1))
	case $line in
	"not ok "*) fail=1; echo "not ok $n ${line#not ok }" ;;
	*) echo "ok $n ${line#ok }" ;;
	esac
done <"$out"
rm -f "$out"
exit $fail
