#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# wqctl's job-queue commands against the module (busybox sh; TAP output;
# exit 0 pass, 1 fail, 4 skip): "add --wait [--timeout]" (a full queue, a
# wait ended by a done or a shutdown, a held key that does not wait),
# "add" reading keys from standard input in batches (order, duplicates,
# bad lines by number, a full queue, a shutdown stopping the reading,
# --escaped, a batch sent before the input ends), "get -n" (batches,
# detached keys, --done), "shutdown --discard" (the count printed, the
# in-flight key finishing), and "watch" (the columns, the rates, -c COUNT,
# 80 columns, quitting on a signal; on a terminal, wq_pty: the line redrawn
# in place, q and Ctrl-C quitting).
#
# Timing is one-sided (the guest runs under QEMU TCG): never early; upper
# bounds are seconds.
#
# WQCTL: the wqctl binary (default: wqctl on PATH).

. "$(dirname "$0")/tap.sh"
. "$(dirname "$0")/wqctl_lib.sh"

P=wqctl-jobs-$$
in=$TMP/wqctl-jobs.$$.in
bg=$TMP/wqctl-jobs.$$.bg

# asleep PID: waits (up to 20 s) until process PID sleeps; false if it
# exited or never slept
asleep() {
	i=0
	while [ $i -lt 200 ]; do
		st=$(awk '{ print $3 }' "/proc/$1/stat" 2>/dev/null)
		[ -z "$st" ] && return 1
		[ "$st" = S ] && return 0
		sleep 0.1
		i=$((i + 1))
	done
	return 1
}

# wait_len Q N: waits (up to 20 s) until "wqctl len Q" is N
wait_len() {
	i=0
	while [ $i -lt 200 ]; do
		[ "$("$WQCTL" len "$1" 2>/dev/null)" = "$2" ] && return 0
		sleep 0.1
		i=$((i + 1))
	done
	echo "# len of $1 is $("$WQCTL" len "$1" 2>&1), expected $2"
	return 1
}

# reaped PID STATUS: PID (started in the background) exits with STATUS
# within 60 s; one still running then is killed, and this fails
reaped() {
	i=0
	while [ $i -lt 600 ]; do
		st=$(awk '{ sub(/.*\) /, ""); print $1 }' "/proc/$1/stat" 2>/dev/null)
		{ [ -z "$st" ] || [ "$st" = Z ]; } && break
		sleep 0.1
		i=$((i + 1))
	done
	if [ $i -ge 600 ]; then
		echo "# background wqctl still running after 60 s, killed"
		kill -KILL "$1"
	fi
	wait "$1"
	rc=$?
	[ "$rc" -eq "$2" ] ||
		explain "$bg" "background wqctl exited $rc, expected $2:"
}

# lines FILE N: FILE has N lines
lines() {
	got=$(wc -l <"$1")
	[ "$got" -eq "$2" ] && return 0
	echo "# $1 has $got lines, expected $2"
	return 1
}

wqctl_start
trap 'cleanup; rm -f "$in" "$bg"' EXIT

# ---- add --wait ---------------------------------------------------------------

Q=$P-w
check "create a queue of 2" new_queue "$Q" --max-items 2 --limiter none
check "add --wait with room" run 0 add "$Q" --wait a
check "add b" run 0 add "$Q" b
check "add c to the full queue: exit 1" run 1 add "$Q" c
check "... -EAGAIN" err_has "queue is full (-EAGAIN)"
check "--timeout without --wait: exit 2" run 2 add "$Q" c --timeout 1s
check "--wait with --after: exit 2" run 2 add "$Q" c --wait --after 1s
check "--wait with --rate-limited: exit 2" run 2 add "$Q" c --wait --rate-limited
t0=$(cs)
check "add --wait --timeout 300ms on the full queue: exit 1" \
	run 1 add "$Q" --wait --timeout 300ms c
check "... -ETIMEDOUT" err_has "timed out waiting for room (-ETIMEDOUT)"
since "$t0" -ge 29 "add --wait waited its timeout"
t0=$(cs)
check "add --wait of a key the queue holds does not wait" \
	run 0 add "$Q" --wait --timeout 20s a
since "$t0" -lt 1000 "... returned before its timeout"

"$WQCTL" add "$Q" --wait --timeout 20s c >"$bg" 2>&1 &
pid=$!
check "a waiting add sleeps" asleep "$pid"
check "get a (stays processing: still full)" run_out 0 a get "$Q"
check "done a: room" run 0 done "$Q" a
check "the waiting add goes in" reaped "$pid" 0
check "len 2 (b, c)" run_out 0 2 len "$Q"

"$WQCTL" add "$Q" --wait d >"$bg" 2>&1 &
pid=$!
check "another waiting add sleeps" asleep "$pid"
check "shutdown" run 0 shutdown "$Q"
check "the waiting add fails: exit 1" reaped "$pid" 1
if grep -q ESHUTDOWN "$bg"; then ok "... -ESHUTDOWN"; else not_ok "... -ESHUTDOWN: $(cat "$bg")"; fi

# ---- add from standard input ------------------------------------------------------

Q=$P-in
check "create" new_queue "$Q" --limiter none
printf 'a\nb\na\nc\n' >"$in"
check "add four lines, one repeated" run_in "$in" 0 add "$Q"
check "len 3" run_out 0 3 len "$Q"
check "get -n 3: in order of first add" run 0 get "$Q" -n 3 --done
check "... a b c" out_is "$(printf 'a\nb\nc')"

seq 1 2500 >"$in"
check "add 2500 lines (three batches)" run_in "$in" 0 add "$Q"
check "len 2500" run_out 0 2500 len "$Q"
check "get -n 2500 --done" run 0 get "$Q" -n 2500 --done
check "... 2500 keys" lines "$out" 2500
if seq 1 2500 | cmp -s - "$out"; then ok "... in order"; else not_ok "... in order"; fi
check "len 0" run_out 0 0 len "$Q"

printf 'x\n\ny\n' >"$in"
check "an empty line: exit 1" run_in "$in" 1 add "$Q"
check "... names line 2" err_has "line 2: empty key"
check "... the others are added" run_out 0 2 len "$Q"
check "clear" run 0 get "$Q" -n 2 --done

printf 'last\nno-newline' >"$in"
check "a last line without a newline is a key" run_in "$in" 0 add "$Q"
check "... len 2" run_out 0 2 len "$Q"
check "clear" run 0 get "$Q" -n 2 --done

printf 'a\\x00b\nt\\tab\n' >"$in"
check "--escaped lines" run_in "$in" 0 add "$Q" --escaped
check "... the NUL key back, escaped" run_out 0 'a\x00b' get "$Q" --done
check "... the tab key back, escaped" run_out 0 't\tab' get "$Q" --done
printf 'bad\\q\nok\n' >"$in"
check "a bad escape: exit 1" run_in "$in" 1 add "$Q" -e
check "... names line 1" err_has "line 1: bad escape"
check "... the other is added" run_out 0 ok get "$Q" --done

printf 'd1\nd2\n' >"$in"
check "--after from stdin" run_in "$in" 0 add "$Q" --after 1h
check "... 2 waiting" stat_is "$Q" waiting 2

Q2=$P-full
check "create a queue of 3" new_queue "$Q2" --max-items 3 --limiter none
printf 'a\nb\nc\nd\ne\n' >"$in"
check "five lines into three slots: exit 1" run_in "$in" 1 add "$Q2"
check "... line 4 refused" err_has "line 4 (d): queue is full (-EAGAIN)"
check "... line 5 refused" err_has "line 5 (e): queue is full (-EAGAIN)"
check "... len 3" run_out 0 3 len "$Q2"
printf 'k1\nk2\nk3\n' >"$in"
check "--wait --timeout from stdin on the full queue: exit 1" \
	run_in "$in" 1 add "$Q2" --wait --timeout 200ms
n_err=$(grep -c 'line' "$err")
if [ "$n_err" -eq 1 ]; then ok "... stops at the deadline (one error)"; else not_ok "... $n_err errors"; sed 's/^/#   /' "$err"; fi
check "shutdown" run 0 shutdown "$Q2"
check "stdin after shutdown: exit 1" run_in "$in" 1 add "$Q2"
n_err=$(grep -c 'ESHUTDOWN' "$err")
if [ "$n_err" -eq 1 ]; then ok "... stops at the first -ESHUTDOWN"; else not_ok "... $n_err errors"; sed 's/^/#   /' "$err"; fi

# A slow producer: the first key goes in before the input ends.
Q3=$P-slow
check "create" new_queue "$Q3" --limiter none
(echo early; sleep 5; echo late) | "$WQCTL" add "$Q3" >"$bg" 2>&1 &
pid=$!
check "the first line is added while the producer sleeps" wait_len "$Q3" 1
if kill -0 "$pid" 2>/dev/null; then
	ok "... before the input ended"
else
	not_ok "... the add had already ended"
fi
check "both lines in the end" reaped "$pid" 0
check "... len 2" run_out 0 2 len "$Q3"

# ---- get -n (batches) -----------------------------------------------------------

Q=$P-get
check "create" new_queue "$Q" --limiter none
seq 1 5 | "$WQCTL" add "$Q"
check "get -n 3" run 0 get "$Q" -n 3
check "... 1 2 3" out_is "$(printf '1\n2\n3')"
check "... they stay processing after wqctl exits" stat_is "$Q" processing 3
check "get -n 10 --timeout 0: the 2 there are, exit 0" run 0 get "$Q" -n 10 --timeout 0
check "... 4 5" out_is "$(printf '4\n5')"
check "get -n 2 --timeout 0 on an empty queue: exit 3" run 3 get "$Q" -n 2 --timeout 0
check "done 1..5" run 0 done "$Q" 1 2 3 4 5
seq 1 5 | "$WQCTL" add "$Q"
check "get -n 5 --done" run 0 get "$Q" -n 5 --done
check "... nothing processing" stat_is "$Q" processing 0
check "... nothing queued" run_out 0 0 len "$Q"

# ---- shutdown --discard ------------------------------------------------------------

Q=$P-discard
check "create" new_queue "$Q" --limiter none
check "add p q1 q2 q3" run 0 add "$Q" p q1 q2 q3
check "add w --after 1h" run 0 add "$Q" w --after 1h
check "get p (processing)" run_out 0 p get "$Q"
check "add p again (dirty)" run 0 add "$Q" p
check "shutdown --discard prints 4 (3 queued, 1 waiting)" \
	run_out 0 4 shutdown "$Q" --discard
check "... queued 0" stat_is "$Q" queued 0
check "... waiting 0" stat_is "$Q" waiting 0
check "... dirty 0" stat_is "$Q" dirty 0
check "... processing 1" stat_is "$Q" processing 1
check "... shutting down" stat_is "$Q" shutting_down yes
check "done p still works" run 0 done "$Q" p
check "... and p is not queued again" stat_is "$Q" keys 0
check "shutdown --discard again prints 0" run_out 0 0 shutdown "$Q" --discard

# ---- watch ---------------------------------------------------------------------------

Q=$P-watch
check "create" new_queue "$Q" --limiter none
check "add 5 keys" run 0 add "$Q" a b c d e
check "watch -c 2 without a tty" run 0 watch "$Q" -c 2
check "... a header and 2 lines" lines "$out" 3
hdr=$(head -n 1 "$out")
case $hdr in
*QUEUED*PROCESSING*WAITING*DIRTY*ADDS/S*GETS/S*STATE*) ok "... the header names the columns" ;;
*) not_ok "... header: $hdr" ;;
esac
row=$(sed -n 2p "$out")
# shellcheck disable=SC2086
set -- $row
if [ "$2" = 5 ] && [ "$3" = 0 ] && [ "$6" = - ] && [ "$8" = running ]; then
	ok "... first row: queued 5, processing 0, no rate yet, running"
else
	not_ok "... first row: $row"
fi
row=$(sed -n 3p "$out")
# shellcheck disable=SC2086
set -- $row
if [ "$6" = 0.0 ] && [ "$7" = 0.0 ]; then
	ok "... second row: no adds, no gets"
else
	not_ok "... second row: $row"
fi
wide=$(awk 'length($0) > 80' "$out" | wc -l)
check "... fits in 80 columns" [ "$wide" -eq 0 ]

# Emptied here: the job truncates it only once it runs, and the loop
# below must not read an earlier call's lines meanwhile.
: >"$bg"
"$WQCTL" watch "$Q" -c 6 >"$bg" 2>&1 &
pid=$!
i=0
while [ "$(wc -l <"$bg")" -lt 2 ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
seq 1 10 | "$WQCTL" add "$Q"
while [ "$(wc -l <"$bg")" -lt 3 ] && [ $i -lt 400 ]; do sleep 0.05; i=$((i + 1)); done
"$WQCTL" get "$Q" -n 15 --done >/dev/null
check "watch -c 6 while keys come and go" reaped "$pid" 0
adds=$(awk 'NR > 2 && $6 + 0 > 0' "$bg" | wc -l)
gets=$(awk 'NR > 2 && $7 + 0 > 0' "$bg" | wc -l)
if [ "$adds" -ge 1 ] && [ "$gets" -ge 1 ]; then
	ok "... some row shows adds/s and some gets/s"
else
	not_ok "... adds/s or gets/s never above 0"
	sed 's/^/#   /' "$bg"
fi
last=$(tail -n 1 "$bg")
# shellcheck disable=SC2086
set -- $last
check "... the last row: queued 0" [ "$2" = 0 ]

: >"$bg"
"$WQCTL" watch "$Q" >"$bg" 2>&1 &
pid=$!
i=0
# Up to 60 s: a guest of a loaded machine (make check builds packages
# and the debug kernel beside the first lane) can be that slow to start.
while [ "$(wc -l <"$bg")" -lt 2 ] && [ $i -lt 1200 ]; do sleep 0.05; i=$((i + 1)); done
# Its first row means it catches SIGINT: one sent earlier would be lost
# (a background job starts with SIGINT ignored) and it would run on.
check "watch without -c printed its first row" [ "$(wc -l <"$bg")" -ge 2 ]
kill -INT "$pid"
check "watch without -c ends on SIGINT, exit 0" reaped "$pid" 0

# On a terminal (wq_pty): the line is redrawn in place; q and Ctrl-C quit.
PTY=$(dirname "$0")/wq_pty
if [ -x "$PTY" ]; then
	"$PTY" 1500 q "$WQCTL" watch "$Q" >"$out" 2>&1
	check "watch on a terminal quits on q, exit 0" [ $? -eq 0 ]
	check "... says how to quit" grep -qF "wqctl watch $Q (q quits)" "$out"
	check "... redraws the line in place" grep -qF "$(printf '\r\033[K')" "$out"
	"$PTY" 1500 "$(printf '\003')" "$WQCTL" watch "$Q" >"$out" 2>&1
	check "watch on a terminal quits on Ctrl-C, exit 0" [ $? -eq 0 ]
	"$PTY" 1500 x "$WQCTL" watch "$Q" -c 3 >"$out" 2>&1
	check "... other keys do not quit it (-c 3 ends it)" [ $? -eq 0 ]
	rows=$(tr -cd '\033' <"$out" | wc -c)	# one ESC [K a row
	check "... 3 rows drawn ($rows)" [ "$rows" -eq 3 ]
else
	skip "watch on a terminal (no wq_pty)"
fi
check "watch of a missing queue: exit 1" run 1 watch "$P-missing" -c 1
check "watch -c 0: exit 2" run 2 watch "$Q" -c 0
check "watch -n 0 (the interval): exit 2" run 2 watch "$Q" -n 0

echo "1..$n"
exit $failed
