#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# wqctl and the rate limiter (busybox sh; TAP output; exit 0 pass, 1 fail,
# 4 skip): "create --limiter SPEC" and the spec shown by "wqctl list" and
# "wqctl stat", "add --rate-limited" printing the delay, "requeues" and
# "forget", the default limiter, "none", and bad specs refused (exit 1 or 2,
# a message on stderr, no queue created).
#
# Per-key delays are exact; keys of the bucket are not (it refills while the
# commands run), so only per-key terms are checked for exact numbers.
#
# WQCTL: the wqctl binary (default: wqctl on PATH).

. "$(dirname "$0")/tap.sh"
. "$(dirname "$0")/wqctl_lib.sh"

P=wqctl-rl-$$
SPEC='exponential:5ms:1000s,bucket:10:100'

# list_limiter Q SPEC: Q's row in "wqctl list" ends with SPEC (LIMITER is
# the last column)
list_limiter() {
	got=$("$WQCTL" list 2>/dev/null | awk -v q="$1" '$1 == q { print $NF }')
	[ "$got" = "$2" ] && return 0
	echo "# wqctl list: limiter of $1 is '$got', expected '$2'"
	"$WQCTL" list 2>&1 | sed 's/^/#   /'
	return 1
}

# bad_spec SPEC: "create --limiter SPEC" fails with 1 or 2, says why on
# stderr, and creates no queue
bad_spec() {
	q=$P-bad
	queues="$queues $q"
	"$WQCTL" create "$q" --limiter "$1" >"$out" 2>"$err" </dev/null
	rc=$?
	if [ "$rc" -ne 1 ] && [ "$rc" -ne 2 ]; then
		echo "# wqctl create --limiter '$1': exit $rc, expected 1 or 2"
		return 1
	fi
	if [ ! -s "$err" ]; then
		echo "# wqctl create --limiter '$1': exit $rc without a message"
		return 1
	fi
	sed 's/^/#   stderr: /' "$err"
	if "$WQCTL" stat "$q" >/dev/null 2>&1; then
		echo "# wqctl create --limiter '$1' created the queue"
		"$WQCTL" destroy "$q" >/dev/null 2>&1
		return 1
	fi
	if "$WQCTL" list 2>/dev/null | awk -v q="$q" '$1 == q { f = 1 } END { exit !f }'; then
		echo "# wqctl list shows $q"
		return 1
	fi
	return 0
}

wqctl_start

# ---- a queue with an explicit spec -----------------------------------------

Q=$P-q
check "create --limiter '$SPEC'" new_queue "$Q" --limiter "$SPEC"
check "list shows the spec" list_limiter "$Q" "$SPEC"
check "stat shows the spec" stat_is "$Q" limiter "$SPEC"
check "requeues of a new key: 0" run_out 0 0 requeues "$Q" k
check "add --rate-limited: first failure waits 5ms" \
	run_out 0 "k: delay 5ms" add --rate-limited "$Q" k
check "requeues: 1" run_out 0 1 requeues "$Q" k
check "stat: tracked 1" stat_is "$Q" tracked 1
check "add --rate-limited again: 10ms" \
	run_out 0 "k: delay 10ms" add "$Q" k --rate-limited
check "requeues: 2" run_out 0 2 requeues "$Q" k
check "the key is handed out after its delay" \
	run_out 0 k get "$Q" --timeout 10s --done
check "requeues after get and done: still 2" run_out 0 2 requeues "$Q" k
check "forget" run_out 0 "" forget "$Q" k
check "requeues after forget: 0" run_out 0 0 requeues "$Q" k
check "stat: tracked 0" stat_is "$Q" tracked 0
check "add --rate-limited after forget: 5ms again" \
	run_out 0 "k: delay 5ms" add --rate-limited "$Q" k
check "forget of an unknown key: 0" run_out 0 "" forget "$Q" nobody
check "requeues of an unknown key: 0" run_out 0 0 requeues "$Q" nobody
check "add --rate-limited of two keys prints both" \
	run 0 add --rate-limited "$Q" a b
check "  ... a: delay 5ms, b: delay 5ms" out_is "a: delay 5ms
b: delay 5ms"
check "--after and --rate-limited together: usage error" \
	run 2 add "$Q" c --after 1s --rate-limited
check "  ... counted nothing" run_out 0 0 requeues "$Q" c

# ---- default and none --------------------------------------------------------

D=$P-default
check "create without --limiter" new_queue "$D"
check "list shows the default spec" list_limiter "$D" "$SPEC"
check "default: 5ms" run_out 0 "k: delay 5ms" add --rate-limited "$D" k
check "default: 10ms" run_out 0 "k: delay 10ms" add --rate-limited "$D" k
check "default: 20ms" run_out 0 "k: delay 20ms" add --rate-limited "$D" k
check "default: requeues 3" run_out 0 3 requeues "$D" k

N=$P-none
check "create --limiter none" new_queue "$N" --limiter none
check "list shows none" list_limiter "$N" none
check "none: delay 0s" run_out 0 "k: delay 0s" add --rate-limited "$N" k
check "none: queued at once" run_out 0 1 len "$N"
check "none: requeues 0" run_out 0 0 requeues "$N" k

F=$P-fastslow
check "create --limiter fastslow:5ms:10s:2,maxwait:3s" \
	new_queue "$F" --limiter fastslow:5ms:10s:2,maxwait:3s
check "list shows it" list_limiter "$F" fastslow:5ms:10s:2,maxwait:3s
check "fastslow: 5ms" run_out 0 "k: delay 5ms" add --rate-limited "$F" k
check "fastslow: 5ms" run_out 0 "k: delay 5ms" add --rate-limited "$F" k
check "fastslow, capped by maxwait: 3s" \
	run_out 0 "k: delay 3s" add --rate-limited "$F" k

# ---- bad specs ---------------------------------------------------------------

for spec in 'exponential:5ms' 'exponential:5ms:' 'exponential:5:10s' \
	'bucket:10' 'bucket:0:1' 'bucket:10:0' 'fastslow:5ms:10s' \
	'maxwait' 'exponential:5ms:1000s,' ',none' 'bogus' ''; do
	check "bad spec '$spec' refused, no queue" bad_spec "$spec"
done

echo "1..$n"
exit $failed
