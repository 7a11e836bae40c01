#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# wqctl and priority queues against the module (busybox sh; TAP output;
# exit 0 pass, 1 fail, 4 skip): "create --priority [--starve]" (stat says
# so), "add --priority N" (also from standard input, in batches), the
# order keys are handed out in (higher first, a raise to the tail of its
# level, a dirty key at the priority of its adds), "get" printing each
# key's priority after a tab (-n too; a plain queue's keys alone),
# "state" (none, queued, processing, dirty, waiting, the ready time,
# requeues), "cancel" (the waiting copy only), "metrics" (the depth by
# level, promtool when the guest has it), "watch" and "top" (the PRIO
# column, 80 columns), and the usage errors.
#
# WQCTL: the wqctl binary (default: wqctl on PATH).

. "$(dirname "$0")/tap.sh"
. "$(dirname "$0")/wqctl_lib.sh"

P=wqp.$$
TAB=$(printf '\t')
in=$TMP/wqctl-prio.$$.in

# takes Q EXPECTED: "wqctl get Q -n 100 --done" prints EXPECTED, the
# lines "KEY<tab>PRIORITY" joined by spaces
takes() {
	"$WQCTL" get "$1" -n 100 --done -t 0 >"$out" 2>"$err"
	got=$(tr '\t\n' ': ' <"$out" | sed 's/ $//')
	[ "$got" = "$2" ] && return 0
	echo "# get $1: '$got', expected '$2'"
	sed 's/^/#   stderr: /' "$err"
	return 1
}

# state_is Q KEY FIELD VALUE: "wqctl state Q KEY" has "FIELD: VALUE"
state_is() {
	got=$("$WQCTL" state "$1" "$2" 2>&1 | awk -v f="$3:" '$1 == f { print $2 }')
	[ "$got" = "$4" ] && return 0
	echo "# wqctl state $1 $2: $3 is '$got', expected '$4'"
	"$WQCTL" state "$1" "$2" 2>&1 | sed 's/^/#   /'
	return 1
}

wqctl_start

# ---- create, usage ------------------------------------------------------------

Q=$P-q
# a limiter whose delays do not pass during the test
check "create --priority --starve 1h" \
	new_queue "$Q" --priority --starve 1h --limiter exponential:1h:2h
check "stat: priority yes" stat_is "$Q" priority yes
check "create --starve without --priority: exit 2" run 2 create "$P-x" --starve 1s
check "create --priority=1 (no value): exit 2" run 2 create "$P-x" --priority=1
check "add --priority without N: exit 2" run 2 add "$Q" k --priority
check "add --priority 1.5: exit 2" run 2 add "$Q" k --priority 1.5
check "add --priority 2^31: exit 2" run 2 add "$Q" k --priority 2147483648
check "... nothing added" run_out 0 0 len "$Q"
check "state without KEY: exit 2" run 2 state "$Q"
check "cancel without KEY: exit 2" run 2 cancel "$Q"
check "get --priority: exit 2" run 2 get "$Q" --priority 1
R=$P-plain
check "create a plain queue" new_queue "$R"
check "stat: priority no" stat_is "$R" priority no
check "add --priority to a plain queue: exit 1" run 1 add "$R" k --priority 1
check "... says why" err_has "a priority queue's"
check "... nothing added" run_out 0 0 len "$R"

# ---- the order ------------------------------------------------------------------

check "add a b (priority 1), c (5), d (0), e (-2)" sh -c "
	'$WQCTL' add '$Q' a b --priority 1 && '$WQCTL' add '$Q' c --priority 5 &&
	'$WQCTL' add '$Q' d && '$WQCTL' add '$Q' e --priority -2"
check "a raise (b to 5) goes to the tail of its level" run 0 add "$Q" b --priority 5
check "an add never lowers (c to 0)" run 0 add "$Q" c --priority 0
check "higher first, then in the order they became ready" \
	takes "$Q" "c:5 b:5 a:1 d:0 e:-2"

check "get prints KEY, a tab, the priority" sh -c "
	'$WQCTL' add '$Q' 'ns/pod 1' --priority 3 &&
	[ \"\$('$WQCTL' get '$Q')\" = 'ns/pod 1${TAB}3' ]"
check "... processing, at the priority it was handed out with" \
	state_is "$Q" "ns/pod 1" priority 3
check "an add while processing (7): dirty" run 0 add "$Q" "ns/pod 1" --priority 7
check "... state: processing,dirty" state_is "$Q" "ns/pod 1" state processing,dirty
check "add f (4)" run 0 add "$Q" f --priority 4
check "done: queued again at 7, before f" run 0 done "$Q" "ns/pod 1"
check "... the adds' priority" takes "$Q" "ns/pod 1:7 f:4"
check "get --raw prints the key alone" sh -c "
	'$WQCTL' add '$Q' r --priority 9 &&
	[ \"\$('$WQCTL' get '$Q' --raw --done)\" = r ]"

printf 'x\ny\n\nz\n' >"$in"
check "add from stdin --priority 2: the bad line reported" \
	run_in "$in" 1 add "$Q" --priority 2
check "... by its number" err_has "line 3"
check "add w (8)" run 0 add "$Q" w --priority 8
check "... the batch at 2, after w" takes "$Q" "w:8 x:2 y:2 z:2"
check "a plain queue's get prints the key alone" sh -c "
	'$WQCTL' add '$R' k && [ \"\$('$WQCTL' get '$R' --done)\" = k ]"

# ---- state, cancel ------------------------------------------------------------

check "state of a key not held: none" state_is "$Q" nobody state none
check "... priority 0" state_is "$Q" nobody priority 0
check "... ready_in -" state_is "$Q" nobody ready_in -
check "add --after 1h --priority 6" run 0 add "$Q" later --after 1h --priority 6
check "state: waiting" state_is "$Q" later state waiting
check "... priority 6" state_is "$Q" later priority 6
# ms_of DURATION: a duration as wqctl prints it (one unit), in ms
ms_of() {
	case $1 in
	*ms) echo "${1%ms}" ;;
	*s) echo $((${1%s} * 1000)) ;;
	*m) echo $((${1%m} * 60000)) ;;
	*h) echo $((${1%h} * 3600000)) ;;
	*) echo -1 ;;
	esac
}
ready_in_an_hour() {
	v=$("$WQCTL" state "$Q" later | sed -n 's/^ready_in: //p')
	ms=$(ms_of "$v")
	[ "$ms" -gt 3500000 ] && [ "$ms" -le 3600000 ] && return 0
	echo "# ready_in: '$v'"
	return 1
}
check "... ready in about an hour" ready_in_an_hour
check "... ready_ns set" sh -c "
	[ \"\$('$WQCTL' state '$Q' later | sed -n 's/^ready_ns: //p')\" -gt 0 ]"
check "add it now too: queued (the waiting copy dropped)" run 0 add "$Q" later
check "... state: queued" state_is "$Q" later state queued
check "... nothing waiting" stat_is "$Q" waiting 0
check "cancel of a queued key: 0" run_out 0 0 cancel "$Q" later
check "... still queued" state_is "$Q" later state queued
check "take it" takes "$Q" "later:6"
check "add --after 1h again" run 0 add "$Q" later --after 1h
check "cancel: 1" run_out 0 1 cancel "$Q" later
check "... state: none" state_is "$Q" later state none
check "cancel again: 0" run_out 0 0 cancel "$Q" later
check "add --rate-limited" run 0 add "$Q" rl --rate-limited
check "... state: waiting, requeues 1" sh -c "
	'$WQCTL' state '$Q' rl | grep -qx 'state: waiting' &&
	'$WQCTL' state '$Q' rl | grep -qx 'requeues: 1'"
check "cancel of two keys counts both" sh -c "
	'$WQCTL' add '$Q' a1 a2 --after 1h && [ \"\$('$WQCTL' cancel '$Q' a1 a2 a3)\" = 2 ]"
check "state of a missing queue: exit 1" run 1 state "$P-missing" k

# ---- metrics ----------------------------------------------------------------

check "add at 3 levels, one key processing and dirty" sh -c "
	'$WQCTL' add '$Q' m1 m2 --priority 4 && '$WQCTL' add '$Q' m3 --priority -1 &&
	'$WQCTL' add '$Q' m0 --priority 9 && '$WQCTL' get '$Q' >/dev/null &&
	'$WQCTL' add '$Q' m0 --priority 4"
check "metrics" run 0 metrics "$Q"
m=$TMP/wqctl-prio.$$.prom
cp "$out" "$m"
check "the total depth" grep -qx "workqueue_depth{name=\"$Q\"} 4" "$m"
check "depth at priority 4: 3 (m0 dirty at 4)" \
	grep -qx "workqueue_depth{name=\"$Q\",priority=\"4\"} 3" "$m"
check "depth at priority -1: 1" \
	grep -qx "workqueue_depth{name=\"$Q\",priority=\"-1\"} 1" "$m"
check "no other level" sh -c "[ \$(grep -c 'priority=' '$m') -eq 2 ]"
check "HELP and TYPE once per family" awk '
	/^# HELP / { help[$3]++ } /^# TYPE / { type[$3]++ }
	END { for (f in type) if (type[f] != 1 || help[f] != 1) bad = 1
	      if (type["workqueue_depth"] != 1) bad = 1; exit bad }' "$m"
check "the levels follow their family's total" awk -v q="$Q" '
	/^# TYPE / { fam = $3 }
	/priority=/ { n = $1; sub(/\{.*/, "", n); if (n != fam) bad = 1 }
	END { exit bad }' "$m"
if command -v promtool >/dev/null 2>&1; then
	check "promtool check metrics" sh -c "promtool check metrics <'$m'"
else
	echo "ok $((n + 1)) promtool check metrics # SKIP no promtool in the guest"
	n=$((n + 1))
fi
check "a plain queue has no priority label" sh -c "
	'$WQCTL' metrics '$R' | grep -qF 'workqueue_depth{name=\"$R\"} 0' &&
	! '$WQCTL' metrics '$R' | grep -q 'priority='"

# ---- watch, top -------------------------------------------------------------------

check "watch -c 1" run 0 watch "$Q" -c 1
hdr=$(head -n 1 "$out")
case $hdr in
*QUEUED*PROCESSING*WAITING*DIRTY*ADDS/S*GETS/S*PRIO*STATE*) ok "... PRIO in the header" ;;
*) not_ok "... header: $hdr" ;;
esac
row=$(sed -n 2p "$out")
# shellcheck disable=SC2086
set -- $row
if [ "$2" = 3 ] && [ "$5" = 1 ] && [ "$8" = 4 ] && [ "$9" = running ]; then
	ok "... queued 3, dirty 1, PRIO 4 (the highest holding keys), running"
else
	not_ok "... row: $row"
fi
check "... 80 columns" awk 'length($0) > 80 { exit 1 }' "$out"
check "watch of a plain queue: no PRIO" sh -c "
	'$WQCTL' watch '$R' -c 1 | head -n 1 | grep -qv PRIO"
check "top -n 1" run 0 top -n 1
check "... PRIO last in the header" grep -q 'LAT-P99  *PRIO$' "$out"
check "... the queue's PRIO" awk -v q="$Q" '
	index(q, $1) == 1 && $NF == 4 { found = 1 } END { exit !found }' "$out"
check "... a plain queue's: -" awk -v q="$R" '
	index(q, $1) == 1 && $NF == "-" { found = 1 } END { exit !found }' "$out"
check "... 80 columns" awk 'length($0) > 80 { exit 1 }' "$out"
rm -f "$in" "$m"

echo "1..$n"
exit $failed
