#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Loads and unloads the wq module several times, with queues and handles in
# between (busybox sh; TAP output; exit 0 pass, 1 fail, 4 skip):
# - rmmod is refused while a process holds a handle, and works once that
#   process is killed;
# - a queue outlives its handles while the module stays loaded, but does
#   not survive an unload and reload;
# - /dev/wq comes and goes with the module;
# - with the module unloaded, wqctl version and list say so
# - a key-count limit out of its range at load makes the load fail
#   (EINVAL, or ERANGE past a uint) and leaves no module;
# - with metrics=N the counters count and no duration is timed (and wqctl
#   top's GETS/S still counts); without it
#   (the default) they are (wqctl, if it is on the PATH).
# The module is expected loaded at the start and is left loaded at the end.
#
# WQ_KO_DIR: directory of wq.ko (default /wq). wq_hold: next to this script.

. "$(dirname "$0")/tap.sh"
. "$(dirname "$0")/module_lib.sh"

KO=${WQ_KO_DIR:-/wq}/wq.ko
DIR=$(cd "$(dirname "$0")" && pwd)
HOLD=$DIR/wq_hold
TMP=${TMPDIR:-/tmp}
ROUNDS=3

holder=

not_loaded() { ! loaded; }

# rmmod that may need a moment for the last handle to be released
rmmod_soon() {
	wait_for rmmod wq 2>/dev/null
}

rmmod_refused() {
	if rmmod wq 2>/dev/null; then
		echo "# rmmod wq succeeded while a handle was open"
		return 1
	fi
	loaded
}

# open_status NAME EXPECTED: wq_hold open NAME exits with EXPECTED
open_status() {
	"$HOLD" open "$1" >/dev/null 2>&1
	rc=$?
	[ "$rc" -eq "$2" ] || echo "# wq_hold open $1: exit $rc, expected $2"
	[ "$rc" -eq "$2" ]
}

# start_holder NAME: a process holding a handle (and a processing key)
start_holder() {
	out=$TMP/wq_hold.$$.out
	: >"$out"
	"$HOLD" hold "$1" 5 >"$out" 2>&1 &
	holder=$!
	i=0
	while [ "$i" -lt 100 ]; do
		grep -q ready "$out" && return 0
		kill -0 "$holder" 2>/dev/null || break
		sleep 0.1
		i=$((i + 1))
	done
	sed "s/^/# /" "$out"
	return 1
}

stop_holder() {
	[ -n "$holder" ] || return 0
	kill -9 "$holder" 2>/dev/null
	wait "$holder" 2>/dev/null
	holder=
	return 0
}

# metrics_are QUEUE "ADDS QCOUNT WCOUNT": a new queue, two adds and one
# get+done; then adds_total and the counts of the queue and work duration
# histograms must be as given
metrics_are() {
	wqctl create "$1" && wqctl add "$1" k1 && wqctl add "$1" k2 &&
		wqctl get "$1" --done >/dev/null || return 1
	got=$(wqctl metrics "$1" | awk '
		/^workqueue_adds_total/ { a = $2 }
		/^workqueue_queue_duration_seconds_count/ { q = $2 }
		/^workqueue_work_duration_seconds_count/ { w = $2 }
		END { print a, q, w }')
	wqctl destroy "$1"
	[ "$got" = "$2" ] || echo "# $1: adds, queue and work counts: $got, expected $2"
	[ "$got" = "$2" ]
}

# top_gets QUEUE: between two refreshes of wqctl top, 4 adds and 3 gets;
# the second refresh's GETS/S is above 0 (metrics=N times nothing: the
# rate must come from the counters that still count)
top_gets() {
	t=$TMP/top.$$
	wqctl create "$1" || return 1
	wqctl top -n 2 -d 4 >"$t" &
	tp=$!
	i=0
	until grep -q "^$1 " "$t" 2>/dev/null; do
		i=$((i + 1)); [ $i -lt 100 ] || break; sleep 0.1
	done
	wqctl add "$1" k1 k2 k3 k4 && wqctl get "$1" -n 3 --done >/dev/null
	wait "$tp"
	wqctl destroy "$1"
	sed 's/^/# /' "$t"
	awk -v q="$1" '$1 == q { n++; if (n == 2) g = $4 } END { exit !(g > 0) }' "$t"
	rc=$?
	rm -f "$t"
	return $rc
}

cleanup() {
	stop_holder
	rm -f "$TMP/wq_hold.$$.out"
	# left loaded as found: with the default parameters
	if loaded && [ "$(cat /sys/module/wq/parameters/metrics)" != Y ]; then
		rmmod_soon
	fi
	loaded || insmod "$KO" 2>/dev/null
}

[ "$(id -u)" = 0 ] || skip_all "needs root"
built_in && skip_all "wq is built into the kernel (CONFIG_WQ=y): it cannot be unloaded"
[ -f "$KO" ] || skip_all "no module at $KO"
[ -x "$HOLD" ] || skip_all "no $HOLD"
mkdir -p "$TMP" 2>/dev/null
trap cleanup EXIT

if loaded; then
	check "rmmod of the preloaded module" rmmod wq
	check "/dev/wq gone after rmmod" wait_for dev_absent
fi

prev=
r=1
while [ $r -le $ROUNDS ]; do
	qa=modload-$$-$r-a
	qb=modload-$$-$r-b
	check "round $r: insmod" insmod "$KO"
	check "round $r: /dev/wq appears" wait_for dev_present
	check "round $r: create a queue and close it" "$HOLD" create "$qa" 3
	check "round $r: the queue outlives its handles" open_status "$qa" 0
	if [ -n "$prev" ]; then
		check "round $r: a queue from before the reload is gone" \
			open_status "$prev" 2
	fi
	check "round $r: a process holds a handle" start_holder "$qb"
	check "round $r: rmmod refused while a handle is open" rmmod_refused
	check "round $r: queues still work after the refused rmmod" \
		open_status "$qb" 0
	stop_holder
	check "round $r: rmmod after the holder is killed" rmmod_soon
	check "round $r: module gone" not_loaded
	check "round $r: /dev/wq gone" wait_for dev_absent
	prev=$qa
	r=$((r + 1))
done

if command -v wqctl >/dev/null; then
	check "no module: wqctl version says so" sh -c "
		wqctl version | grep -qx 'module: not loaded (no /dev/wq)'"
	check "no module: wqctl list fails, its error names /dev/wq" sh -c "
		! wqctl list >/dev/null 2>'$TMP/e.$$' &&
		grep -q '/dev/wq not found: is the wq module loaded?' '$TMP/e.$$'"
	check "no module: stat, state and metrics NAME say so too" sh -c "
		for c in 'stat q' 'state q k --json' 'metrics q --json'; do
			! wqctl \$c >/dev/null 2>'$TMP/e.$$' || exit 1
			grep -q '/dev/wq not found: is the wq module loaded?' '$TMP/e.$$' || exit 1
		done"
	rm -f "$TMP/e.$$"
	check "metrics=N: insmod" insmod "$KO" metrics=0
	check "metrics=N: /dev/wq appears" wait_for dev_present
	check "metrics=N: the counters count, no duration is timed" \
		metrics_are "modload-$$-nometrics" "2 0 0"
	check "metrics=N: top's GETS/S counts the gets" top_gets "modload-$$-top"
	check "metrics=N: rmmod" rmmod_soon
else
	n=$((n + 1))
	echo "ok $n metrics=N # SKIP no wqctl"
fi

# the load fails, with its errno's message, and nothing is left loaded
load_refused() {
	if insmod "$KO" "$1" 2>"$TMP/e.$$"; then
		rmmod_soon
		echo "# insmod $1 succeeded"
		return 1
	fi
	grep -q "$2" "$TMP/e.$$" && not_loaded && [ ! -e /dev/wq ] ||
		{ sed 's/^/# /' "$TMP/e.$$"; return 1; }
}
# busybox's insmod prints strerror, kmod's "Invalid parameters"
for v in max_items_limit=0 max_items_limit=2000000 default_max_items=0; do
	check "$v: the load fails (EINVAL)" load_refused $v "Invalid"
done
check "max_items_limit=4294967296: the load fails (ERANGE)" \
	load_refused max_items_limit=4294967296 "Numerical result out of range"
rm -f "$TMP/e.$$"

check "final insmod (module left loaded)" insmod "$KO"
check "final: /dev/wq appears" wait_for dev_present
check "final: queues did not survive the reload" open_status "$prev" 2
if command -v wqctl >/dev/null; then
	check "final: metrics time by default" \
		metrics_are "modload-$$-metrics" "2 1 1"
else
	n=$((n + 1))
	echo "ok $n metrics by default # SKIP no wqctl"
fi

echo "1..$n"
exit $failed
