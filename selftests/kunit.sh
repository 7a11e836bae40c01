#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# kunit.sh: load wq_kunit.ko (KUnit suites of the key table, the heap,
# the limiters and the scratch pool), which runs its suites at load, and
# report every case as one TAP line. Where the kernel has no KUnit the
# module is not built, and the test is skipped. busybox sh compatible.

ko=${WQ_KO_DIR:-/wq}/wq_kunit.ko
dbg=/sys/kernel/debug/kunit

echo "TAP version 13"
if [ ! -e "$ko" ]; then
	echo "1..1"
	echo "ok 1 kunit # SKIP this kernel has no CONFIG_KUNIT (the debug lane runs it)"
	exit 0
fi
if ! insmod "$ko"; then
	echo "1..1"
	echo "not ok 1 kunit: insmod $ko failed"
	exit 1
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
