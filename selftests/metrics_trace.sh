#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# metrics_trace.sh: the kwq tracepoints through tracefs. Enables
# events/kwq, runs a small scenario with wqctl and checks each record:
# the queue's name, the key's bounded prefix and length, and what each
# event reports (the add's outcome, the done's requeue, the delay, the
# keys a timer moved, the rate limiter's delay and failures, the kind of
# shutdown). Skips where the kernel has no tracefs events. busybox sh.
# shellcheck shell=sh

cd "$(dirname "$0")" || exit 1
. ./tap.sh
. ./wqctl_lib.sh
wqctl_start

T=
for d in /sys/kernel/tracing /sys/kernel/debug/tracing; do
	[ -d "$d/events/kwq" ] && T=$d && break
done
[ -n "$T" ] || skip_all "no tracefs events/kwq (kernel without tracing)"

q=mtrace.$$
long=k0123456789abcdefghijklmnopqrstuvwxyz0123456789	# 47 bytes
new_queue "$q" --limiter exponential:1ms:1ms
echo 0 >"$T/tracing_on"
echo >"$T/trace"
# The first event enabled would turn on the recording of task names and
# tgids, which live-patches the core kernel's sched_switch and
# sched_wakeup tracepoints: under QEMU TCG that patching once crashed a
# 6.12-rt guest (int3 in ttwu_do_activate). These records need neither.
opts=
for o in record-cmd record-tgid; do
	[ -w "$T/options/$o" ] || continue
	opts="$opts $o=$(cat "$T/options/$o")"
	echo 0 >"$T/options/$o"
done
echo 1 >"$T/events/kwq/enable"
echo 1 >"$T/tracing_on"
"$WQCTL" add "$q" k1 >/dev/null		# queued
"$WQCTL" add "$q" k1 >/dev/null		# coalesced
"$WQCTL" get "$q" >/dev/null		# k1 processing
"$WQCTL" add "$q" k1 >/dev/null		# dirty
"$WQCTL" done "$q" k1 >/dev/null		# requeued
"$WQCTL" add "$q" "$long" >/dev/null
"$WQCTL" add "$q" w --after 10ms >/dev/null
sleep 1					# the timer fires
"$WQCTL" add "$q" r --rate-limited >/dev/null
"$WQCTL" shutdown "$q" >/dev/null
echo 0 >"$T/tracing_on"
echo 0 >"$T/events/kwq/enable"
for ov in $opts; do
	echo "${ov#*=}" >"$T/options/${ov%%=*}"
done
tr=$TMP/mtrace.$$
grep " kwq_" "$T/trace" | grep -F "queue=$q " >"$tr"
echo >"$T/trace"
sed 's/^/# /' "$tr"

has() {
	grep -qE -- "$1" "$tr" && return 0
	echo "# no record matches: $1"
	return 1
}
check "kwq_add queued" has "kwq_add: queue=$q key=k1 len=2 outcome=queued"
check "kwq_add coalesced" has "kwq_add: queue=$q key=k1 len=2 outcome=coalesced"
check "kwq_add dirty" has "kwq_add: queue=$q key=k1 len=2 outcome=dirty"
check "kwq_get with its queue time" has "kwq_get: queue=$q key=k1 len=2 queued_ns=[0-9]+"
check "kwq_done requeued" has "kwq_done: queue=$q key=k1 len=2 work_ns=[0-9]+ requeued=1"
check "a long key: 24 bytes and its length" \
	has "kwq_add: queue=$q key=k0123456789abcdefghijklm len=47 outcome=queued"
check "kwq_add_after with the delay" has "kwq_add_after: queue=$q key=w len=1 delay_ns=10000000\$"
check "kwq_timer_fire moved one" has "kwq_timer_fire: queue=$q moved=1 waiting=0"
check "kwq_rate_limited delay and failures" \
	has "kwq_rate_limited: queue=$q key=r len=1 delay_ns=1000000 failures=1"
check "kwq_shutdown" has "kwq_shutdown: queue=$q how=shutdown queued=[0-9]+ processing=0 waiting=[0-9]+"
check "records in order: queued before get before done" awk '
	/outcome=queued/ && !q { q = NR } / kwq_get: / && !g { g = NR }
	/ kwq_done: / && !d { d = NR } END { exit !(q && q < g && g < d) }' "$tr"
check "format: name and key copied into the record" sh -c "
	grep -q 'char name\\[64\\]' '$T/events/kwq/kwq_add/format' &&
	grep -q 'char key\\[25\\]' '$T/events/kwq/kwq_add/format'"
rm -f "$tr"

echo "1..$n"
exit $failed
