#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# wqctl, the shell tool, against the loaded module (busybox sh; TAP output;
# exit 0 pass, 1 fail, 4 skip): create/add/get/done/len/list/stat/shutdown/
# drain/destroy, "add --after" keys that wait (WAITING in "wqctl list") and
# are never handed out early, shutdown dropping waiting keys, and the exit
# codes: 0 ok, 1 failed, 2 usage, 3 nothing to get, 4 shut down and empty.
#
# Timing is read from /proc/uptime (centiseconds) and checked one-sided:
# never early; upper bounds are seconds (the guest runs under QEMU TCG).
#
# WQCTL: the wqctl binary (default: wqctl on PATH).

. "$(dirname "$0")/tap.sh"
. "$(dirname "$0")/wqctl_lib.sh"

P=wqctl-test-$$

# column Q N: field N of queue Q's row in "wqctl list" (2 QUEUED,
# 3 PROCESSING, 4 WAITING, 5 SHUTDOWN)
column() {
	"$WQCTL" list 2>/dev/null | awk -v q="$1" -v f="$2" '$1 == q { print $f }'
}

# list_is Q N VALUE: "wqctl list" shows VALUE in column N for Q
list_is() {
	got=$(column "$1" "$2")
	[ "$got" = "$3" ] && return 0
	echo "# wqctl list: column $2 of $1 is '$got', expected '$3'"
	"$WQCTL" list 2>&1 | sed 's/^/#   /'
	return 1
}

wqctl_start

# ---- usage errors: exit 2 ---------------------------------------------------

Q=$P-a
check "no command: exit 2" run 2
check "unknown command: exit 2" run 2 frobnicate
check "add without a queue: exit 2" run 2 add
check "bad queue name: exit 2" run 2 create "bad/name"
check "unknown option: exit 2" run 2 add "$Q" k --bogus
check "bad --after duration: exit 2" run 2 add "$Q" k --after soon
check "bad --timeout duration: exit 2" run 2 get "$Q" --timeout 5x
check "help: exit 0" run 0 help
check "add --help: exit 0" run 0 add --help

# ---- basics -------------------------------------------------------------------

check "create" new_queue "$Q"
check "add without a key reads stdin (empty here): exit 0" run 0 add "$Q"
check "create again: exit 1" run 1 create "$Q"
check "len of a missing queue: exit 1" run 1 len "$P-missing"
check "len of a new queue is 0" run_out 0 0 len "$Q"
check "add two keys and one again" run 0 add "$Q" ns/a ns/b ns/a
check "len 2" run_out 0 2 len "$Q"
check "list: QUEUED 2" list_is "$Q" 2 2
check "list: WAITING 0" list_is "$Q" 4 0
check "list: SHUTDOWN no" list_is "$Q" 5 no
id=$("$WQCTL" stat "$Q" | awk '$1 == "id:" { print $2 }')
check "stat: an id ($id)" [ "${id:-0}" -gt 0 ]
check "list: ID as stat's" list_is "$Q" 6 "$id"
check "get: first key" run_out 0 ns/a get "$Q" --timeout 0
check "list: PROCESSING 1 after get (key stays processing)" list_is "$Q" 3 1
check "add of a processing key (dirty)" run 0 add "$Q" ns/a
check "stat: dirty 1" stat_is "$Q" dirty 1
check "done" run 0 done "$Q" ns/a
check "done again: exit 1" run 1 done "$Q" ns/a
check "done of a never-added key: exit 1" run 1 done "$Q" ns/zzz
check "get: second key" run_out 0 ns/b get "$Q"
check "get: the dirty key, queued again at done" run_out 0 ns/a get "$Q" --done
check "done of the other" run 0 done "$Q" ns/b
check "len 0" run_out 0 0 len "$Q"
check "get --timeout 0 on an empty queue: exit 3" run 3 get "$Q" --timeout 0

t0=$(cs)
check "get --timeout=1ns on an empty queue: exit 3" run 3 get "$Q" --timeout=1ns
since "$t0" -lt 300 "get --timeout=1ns returns promptly"

t0=$(cs)
check "get --timeout 300ms on an empty queue: exit 3" run 3 get "$Q" --timeout 300ms
since "$t0" -ge 29 "get --timeout 300ms waits its time"

# ---- add --after ------------------------------------------------------------------

check "add --after 1h" run 0 add "$Q" later --after 1h
check "list: WAITING 1" list_is "$Q" 4 1
check "list: QUEUED 0 (waiting keys are not queued)" list_is "$Q" 2 0
check "len 0 with a key waiting" run_out 0 0 len "$Q"
check "stat: waiting 1" stat_is "$Q" waiting 1
check "stat: keys 1" stat_is "$Q" keys 1
check "get --timeout 0 does not see the waiting key: exit 3" run 3 get "$Q" --timeout 0

t0=$(cs)
check "add --after 250ms" run 0 add --after 250ms "$Q" soon
waiting=$(column "$Q" 4)
t1=$(cs)
if [ $((t1 - t0)) -lt 24 ]; then
	if [ "$waiting" = 2 ]; then
		ok "list: WAITING 2 right after add --after 250ms"
	else
		not_ok "list: WAITING $waiting right after add --after 250ms, expected 2"
	fi
else
	skip "list: WAITING 2 right after add --after 250ms"
fi
check "get --timeout 10s: the delayed key" run_out 0 soon get "$Q" --timeout 10s
since "$t0" -ge 24 "the delayed key was not handed out early"
check "list: WAITING 1 after it fired" list_is "$Q" 4 1
check "done of the delayed key" run 0 done "$Q" soon

# an earlier --after advances a waiting key; a later one does not postpone
check "add --after 1h, then --after 200ms, of one key" \
	run 0 add "$Q" adv --after 1h
t0=$(cs)
check "... second add" run 0 add "$Q" adv --after 200ms
check "the earlier time wins" run_out 0 adv get "$Q" --timeout 10s --done
since "$t0" -ge 19 "advanced key not handed out early"
# 3 s, not less: a second add that came after it fired would leave a
# waiting copy (a delayed add of a queued key waits, as client-go's)
check "add --after 3s, then --after 1h: the later does not postpone" \
	run 0 add "$Q" post --after 3s
check "... second add" run 0 add "$Q" post --after 1h
check "the earlier time still wins" run_out 0 post get "$Q" --timeout 10s --done
check "list: WAITING 1 (only the 1h key)" list_is "$Q" 4 1

# ---- shutdown -------------------------------------------------------------------

check "add a key for after the shutdown" run 0 add "$Q" last
check "shutdown" run 0 shutdown "$Q"
check "shutdown is idempotent" run 0 shutdown "$Q"
check "list: SHUTDOWN yes" list_is "$Q" 5 yes
check "list: waiting keys dropped (WAITING 0)" list_is "$Q" 4 0
check "stat: keys 1" stat_is "$Q" keys 1
check "add after shutdown: exit 1" run 1 add "$Q" x
check "add --after after shutdown: exit 1" run 1 add "$Q" x --after 10ms
if grep -q ESHUTDOWN "$err"; then
	ok "add --after after shutdown reports -ESHUTDOWN"
else
	not_ok "add --after after shutdown reports -ESHUTDOWN: $(cat "$err")"
fi
check "a queued key is still handed out" run_out 0 last get "$Q" --done
check "get on a shut-down empty queue: exit 4" run 4 get "$Q"
check "get --timeout 0 on a shut-down empty queue: exit 4" run 4 get "$Q" --timeout 0
check "len 0" run_out 0 0 len "$Q"

# ---- drain ------------------------------------------------------------------------

Q2=$P-b
check "create a second queue" new_queue "$Q2"
check "add a key and a waiting key" run 0 add "$Q2" busy
check "... waiting" run 0 add "$Q2" idle --after 1h
check "get (stays processing)" run_out 0 busy get "$Q2"
check "drain --timeout 200ms with a key processing: exit 1" \
	run 1 drain "$Q2" --timeout 200ms
check "list: the waiting key was dropped" list_is "$Q2" 4 0
check "done ends the processing" run 0 done "$Q2" busy
t0=$(cs)
check "drain now: exit 0" run 0 drain "$Q2" --timeout 10s
since "$t0" -lt 500 "drain did not wait for the dropped key"
check "get after drain: exit 4" run 4 get "$Q2" --timeout 1s

# ---- destroy ----------------------------------------------------------------------

check "destroy" run 0 destroy "$Q"
check "destroy again: exit 1" run 1 destroy "$Q"
check "len of a destroyed queue: exit 1" run 1 len "$Q"
check "create it again" new_queue "$Q"
check "stat: the new queue of the old name has a new id" \
	sh -c "! '$WQCTL' stat '$Q' | grep -qx 'id: $id'"
check "destroy it" run 0 destroy "$Q"
check "destroy the second queue" run 0 destroy "$Q2"
if [ -z "$(column "$Q" 1)$(column "$Q2" 1)" ]; then
	ok "list no longer shows them"
else
	not_ok "list still shows a destroyed queue"
fi

echo "1..$n"
exit $failed
