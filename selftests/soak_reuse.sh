#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# soak_reuse.sh: the race of a handle opened by name again with the
# name's reuse, forced (busybox sh; TAP). wq_soak -x reuse destroys every
# queue in mid-round and gives its name to a new queue while every
# consumer thread opens its second handle by name and sends its next get
# and done through it: the consumers compare the queue's id and keep off
# the new queue, and every invariant holds. wq_soak -x blind does the
# same without comparing ids, as the soak did before queues had one: it
# must fail, with a done that reaches the new queue (-ENOENT), or this
# test could not catch the race.
#
#	soak_reuse.sh [ROUNDS [SEED]]	(defaults 2, from the clock)

. "$(dirname "$0")/tap.sh"

DIR=$(cd "$(dirname "$0")" && pwd)
ROUNDS=${1:-2}
SEED=${2:-0}
SOAK=$DIR/wq_soak
TMP=${TMPDIR:-/tmp}

[ "$(id -u)" = 0 ] || skip_all "needs root"
[ -x "$SOAK" ] || skip_all "no $SOAK"
[ -c /dev/wq ] || skip_all "/dev/wq missing (module not loaded)"

# soak MODE OUT: wq_soak -x MODE, its output in OUT (indented on the
# console), its status returned
soak() {
	timeout 600 "$SOAK" -x "$1" -r "$ROUNDS" -s "$SEED" >"$2" 2>&1
	rc=$?
	sed 's/^/    /' "$2"
	return $rc
}

soak reuse "$TMP/reuse.out"
rc=$?
seed=$(sed -n 's/^# wq_soak: seed \([0-9]*\).*/\1/p' "$TMP/reuse.out" | head -n 1)
check "wq_soak -x reuse: every invariant holds [seed $seed]" [ "$rc" -eq 0 ]
relanded=$(sed -n 's/.* \([0-9]*\) opened again by name found a new queue.*/\1/p' \
	"$TMP/reuse.out")
check "wq_soak -x reuse: reopens found the new queue and kept off it ($relanded)" \
	[ "${relanded:-0}" -gt 0 ]

soak blind "$TMP/blind.out"
rc=$?
seed=$(sed -n 's/^# wq_soak: seed \([0-9]*\).*/\1/p' "$TMP/blind.out" | head -n 1)
check "wq_soak -x blind fails (exit $rc) [seed $seed]" [ "$rc" -eq 1 ]
check "... with a done through a handle of the new queue: -ENOENT" \
	grep -qE "^# FAIL .*done(_batch)? .* through second handle .*queue id [0-9]+ \(round's [0-9]+\).*-ENOENT" \
	"$TMP/blind.out"

echo "1..$n"
[ "$failed" -eq 0 ] && echo "$n passed, 0 failed" || echo "failed"
exit "$failed"
