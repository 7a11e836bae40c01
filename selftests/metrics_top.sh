#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# metrics_top.sh: `wqctl top`. Off a terminal: plain lines, -n refreshes,
# the queues' numbers. On a pseudo-terminal (wq_pty): the screen is drawn,
# fits 80 columns, a key changes the sort and q quits. busybox sh.
# shellcheck shell=sh

cd "$(dirname "$0")" || exit 1
. ./tap.sh
. ./wqctl_lib.sh
wqctl_start

q1=mtop1.$$
q2=mtop2.$$
new_queue "$q1"
new_queue "$q2"
"$WQCTL" add "$q1" a b c >/dev/null
"$WQCTL" get "$q1" >/dev/null			# a in flight
"$WQCTL" add "$q2" x >/dev/null

check "top -n 2 off a terminal" run 0 top -n 2
check "two refreshes, plain lines" sh -c "
	[ \$(grep -c '^# ' '$out') -eq 2 ] &&
	[ \$(grep -c '^NAME  *DEPTH  *ADDS/S  *GETS/S  *INFLGHT  *OLDEST  *LAT-P50  *LAT-P99\$' '$out') -eq 2 ] &&
	! grep -q \"\$(printf '\\033')\" '$out'"
check "the queue's depth and in-flight" \
	awk -v q="$q1" '$1 == q && $2 == 2 && $5 == 1 { n++ } END { exit n != 2 }' "$out"
check "the other queue" \
	awk -v q="$q2" '$1 == q && $2 == 1 && $5 == 0 { n++ } END { exit n != 2 }' "$out"
check "rates on the second refresh" \
	awk -v q="$q1" '$1 == q && $3 ~ /^[0-9.]+$/ && $4 ~ /^[0-9.]+$/ { n++ } END { exit n != 1 }' "$out"
check "sorted by depth" awk -v a="$q1" -v b="$q2" '
	$1 == a && !x { x = NR } $1 == b && !y { y = NR } END { exit !(x && x < y) }' "$out"
check "80 columns" awk 'length($0) > 80 { exit 1 }' "$out"
check "top with an argument is a usage error" run 2 top "$q1"

if [ -x ./wq_pty ] && [ -e /dev/ptmx ]; then
	scr=$TMP/mtop.$$
	./wq_pty 1500 nq "$WQCTL" top >"$scr" 2>&1
	rc=$?
	check "on a terminal: q quits" [ "$rc" -eq 0 ]
	check "on a terminal: the screen is cleared and drawn" sh -c "
		grep -q \"\$(printf '\\033')\\[2J\" '$scr' &&
		grep -q 'wqctl top .* sort: d' '$scr' && grep -q '^$q1 ' '$scr'"
	check "on a terminal: n sorts by name" grep -q "sort: n" "$scr"
	check "on a terminal: 80 columns" sh -c "
		tr -d '\\r' <'$scr' | sed 's/$(printf '\\033')\\[[0-9;]*[A-Za-z]//g' |
			awk 'length(\$0) > 80 { exit 1 }'"
	sed 's/^/# screen: /' "$scr" | tr -d '\033' | tail -n 8
	rm -f "$scr"
else
	echo "ok $((n + 1)) top on a terminal # SKIP no wq_pty or /dev/ptmx"
	n=$((n + 1))
fi

echo "1..$n"
exit $failed
