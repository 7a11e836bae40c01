#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# metrics_prom.sh: `wqctl metrics` after a known sequence: every family's
# HELP and TYPE once, the values, histograms cumulative with +Inf equal to
# _count; the whole output through `promtool check metrics` (when promtool
# is in the guest: selftests/vm/check adds it); and the debugfs listing
# /sys/kernel/debug/wq/queues agreeing with `wqctl list`, with the queues
# of another IPC namespace and their namespace's inode. busybox sh.
# shellcheck shell=sh

cd "$(dirname "$0")" || exit 1
. ./tap.sh
. ./wqctl_lib.sh
wqctl_start

q=mprom.$$
new_queue "$q" --limiter none
"$WQCTL" add "$q" a b c >/dev/null
"$WQCTL" get "$q" --done >/dev/null		# a: one get, one done
"$WQCTL" add "$q" w --after 1h >/dev/null	# one retry, waiting
"$WQCTL" get "$q" >/dev/null			# b: processing

check "metrics NAME" run 0 metrics "$q"
cp "$out" "$TMP/mprom.$$"
m=$TMP/mprom.$$

# value NAME: the sample of family NAME for the queue
value() {
	awk -v k="$1{name=\"$q\"}" '$1 == k { print $2 }' "$m"
}
expect() {	# expect NAME VALUE
	v=$(value "$1")
	[ "$v" = "$2" ] && return 0
	echo "# $1: got '$v', want '$2'"
	return 1
}
check "depth 1 (c queued)" expect workqueue_depth 1
check "adds_total 3" expect workqueue_adds_total 3
check "retries_total 1" expect workqueue_retries_total 1
check "wq_queued 1" expect wq_queued 1
check "wq_processing 1" expect wq_processing 1
check "wq_waiting 1" expect wq_waiting 1
check "wq_refused_total 0" expect wq_refused_total 0
check "wq_requeued_on_close_total 0" expect wq_requeued_on_close_total 0
check "wq_discarded_total 0" expect wq_discarded_total 0
positive() {	# positive NAME: the queue's sample is > 0
	v=$(value "$1")
	awk -v v="$v" 'BEGIN { exit !(v > 0) }' && return 0
	echo "# $1: got '$v', want > 0"
	return 1
}
check "unfinished work > 0" positive workqueue_unfinished_work_seconds
check "longest running > 0" positive workqueue_longest_running_processor_seconds
check "queue_duration_seconds_count 2" \
	expect workqueue_queue_duration_seconds_count 2
check "work_duration_seconds_count 1" \
	expect workqueue_work_duration_seconds_count 1
check "+Inf bucket is the count" \
	sh -c "grep -qF 'workqueue_queue_duration_seconds_bucket{name=\"$q\",le=\"+Inf\"} 2' '$m'"
check "client-go's bounds among the buckets" \
	sh -c "for le in 1e-08 1e-07 1e-06 1e-05 0.0001 0.001 0.01 0.1 1 10; do
		grep -qF \"workqueue_work_duration_seconds_bucket{name=\\\"$q\\\",le=\\\"\$le\\\"}\" '$m' || exit 1; done"
check "buckets cumulative" awk -v q="$q" '
	/_bucket\{/ && index($0, "\"" q "\"") {
		f = $1; sub(/\{.*/, "", f)
		if (f == last && $2 < prev) bad = 1
		last = f; prev = $2
	}
	END { exit bad }' "$m"
check "HELP and TYPE once per family, before its samples" awk '
	/^# HELP / { help[$3]++ }
	/^# TYPE / { type[$3]++; fam = $3 }
	/^[a-z]/ { n = $1; sub(/\{.*/, "", n); sub(/_(bucket|sum|count)$/, "", n)
		   if (n != fam) bad = 1 }
	END { for (f in type) if (type[f] != 1 || help[f] != 1) bad = 1
	      if (length(type) != 14) bad = 1
	      exit bad }' "$m"
check "histograms and counters typed" sh -c "
	grep -qx '# TYPE workqueue_queue_duration_seconds histogram' '$m' &&
	grep -qx '# TYPE workqueue_adds_total counter' '$m' &&
	grep -qx '# TYPE workqueue_depth gauge' '$m' &&
	grep -qx '# TYPE wq_refused_total counter' '$m'"
if command -v promtool >/dev/null 2>&1; then
	check "promtool check metrics" sh -c "promtool check metrics <'$m'"
	run 0 metrics
	check "promtool check metrics (every queue)" \
		sh -c "promtool check metrics <'$out'"
else
	echo "ok $((n + 1)) promtool check metrics # SKIP no promtool in the guest"
	n=$((n + 1))
fi

check "metrics (all) lists the queue" \
	sh -c "'$WQCTL' metrics | grep -qF 'workqueue_depth{name=\"$q\"} 1'"
check "metrics of a missing queue fails" run 1 metrics "nosuch.$$"
check "metrics with a bad name is a usage error" run 2 metrics 'bad name'

# ---- debugfs --------------------------------------------------------------
D=/sys/kernel/debug/wq/queues
if [ -r "$D" ]; then
	check "debugfs: read-only, root only" \
		sh -c "ls -l '$D' | grep -q '^-r-------- '"
	id=$("$WQCTL" stat "$q" | sed -n 's/^id: //p')
	check "debugfs: the queue's line, its id as wqctl stat's ($id)" \
		sh -c "grep -q '^$q [0-9]* 1 1 1 no 0 0 0600 $id\$' '$D'"
	check "debugfs: the same names as wqctl list" sh -c "
		'$WQCTL' list | awk 'NR > 1 { print \$1 }' | sort >'$TMP/l1.$$'
		awk 'NR > 1 { print \$1 }' '$D' | sort >'$TMP/l2.$$'
		cmp -s '$TMP/l1.$$' '$TMP/l2.$$'"
	if unshare -i true 2>/dev/null; then
		# fd 3 keeps the namespace's names: they go with its last file
		unshare -i sh -c "exec 3</dev/wq; '$WQCTL' create nsq.$$ && sleep 3" &
		pid=$!
		sleep 1
		check "debugfs: another IPC namespace's queue, its own inode" sh -c "
			a=\$(awk '\$1 == \"$q\" { print \$2 }' '$D')
			b=\$(awk '\$1 == \"nsq.$$\" { print \$2 }' '$D')
			[ -n \"\$b\" ] && [ \"\$a\" != \"\$b\" ]"
		check "wqctl list does not show it" \
			sh -c "! '$WQCTL' list | grep -q '^nsq.$$ '"
		wait "$pid"
	fi
else
	echo "ok $((n + 1)) debugfs listing # SKIP no debugfs"
	n=$((n + 1))
fi
rm -f "$m" "$TMP/l1.$$" "$TMP/l2.$$"

echo "1..$n"
exit $failed
