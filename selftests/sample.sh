#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# sample.sh: the sample consumer module (kmod/samples/wq_sample.c, built out
# of tree against wq's Module.symvers) in both of its modes (busybox sh; TAP
# output; exit 0 pass, 1 fail, 4 skip):
# - kernel producer (one key at priority 10), kernel kthread workers with
#   priorities and rate-limited retries,
#   watched from userspace with wqctl;
# - kernel producer, userspace consumer (workers=0) on the same named queue.
# Unloading it must leave nothing behind: wq unloads cleanly afterwards
# (module_load.sh and the runner's final rmmod check that).
#
# WQ_KO_DIR: directory of the modules (default /wq).

. "$(dirname "$0")/tap.sh"
. "$(dirname "$0")/wqctl_lib.sh"

KO=${WQ_KO_DIR:-/wq}/wq_sample.ko
[ -f "$KO" ] || skip_all "no $KO"
command -v "$WQCTL" >/dev/null 2>&1 || skip_all "no wqctl on PATH"

# stat_num FIELD: a number from "wqctl stat kernel.sample"
stat_num() {
	"$WQCTL" stat kernel.sample | sed -n "s/^$1: //p"
}

check "insmod wq_sample (2 workers, a key every 20 ms)" \
	insmod "$KO" workers=2 period_ms=20 objects=4
check "its queue is visible to userspace" run 0 list
grep -q '^kernel\.sample ' "$out" || not_ok "wqctl list shows kernel.sample"
sleep 2
adds=$(stat_num adds)
retries=$(stat_num retries)
check "the kernel producer added keys (adds=$adds)" [ "${adds:-0}" -gt 10 ]
check "workers retried failures through AddRateLimited (retries=$retries)" \
	[ "${retries:-0}" -gt 0 ]
check "rmmod wq_sample" rmmod wq_sample
check "its queue is gone" run 1 stat kernel.sample
line=$(dmesg | sed -n 's/.*wq_sample: produced \([0-9]*\), processed \([0-9]*\), retried \([0-9]*\), urgent \([0-9]*\).*/\1 \2 \3 \4/p' | tail -n 1)
set -- $line
check "workers processed keys ($*)" [ "${2:-0}" -gt 0 ]
check "workers got the priority-10 key at its priority (urgent=${4:-0})" \
	[ "${4:-0}" -gt 0 ]

check "insmod wq_sample workers=0 (userspace consumes)" \
	insmod "$KO" workers=0 period_ms=20 objects=4
check "wqctl gets 3 keys produced in the kernel" \
	run 0 get kernel.sample -n 3 --done --timeout 5s
check "they are the sample's keys" \
	[ "$(cut -f1 "$out" | grep -c '^sample/obj-[0-3]$')" -eq 3 ]
check "wqctl get of one more key (detached: it stays processing)" \
	run 0 get kernel.sample --timeout 5s
key=$(cut -f1 "$out")	# a priority queue's line: KEY<TAB>PRIORITY
check "it is processing (no kernel worker took it)" [ "$(stat_num processing)" = 1 ]
check "wqctl done of that key" run 0 done kernel.sample "$key"
check "nothing is processing" [ "$(stat_num processing)" = 0 ]
check "rmmod wq_sample" rmmod wq_sample

rm -f "$out" "$err"
echo "1..$n"
exit $failed
