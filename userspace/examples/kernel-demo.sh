#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The kernel side of `make demo` (runs in the guest): wq_sample.ko produces
# keys from a timer inside the kernel into the named queue "kernel.sample"
# (the prefix: a name only the kernel may create), and
# this shell consumes them from userspace with wqctl; then the module's own
# kthread workers take over, retrying failures with rate-limited backoff.
set -e
ko=${WQ_KO_DIR:-/wq}/wq_sample.ko

echo
echo "== kernel producer -> userspace consumer: one named queue"
insmod "$ko" workers=0 period_ms=50 objects=4
sleep 1
wqctl list
echo "-- wqctl get kernel.sample -n 6 --done   (keys produced in the kernel)"
wqctl get kernel.sample -n 6 --done --timeout 5s
echo "-- the kernel adds one of the same 4 objects every 50 ms; 'adds' counts only"
echo "   the adds that made a key pending: the rest were coalesced (dedup)"
wqctl stat kernel.sample | grep -E '^(queued|adds):'
rmmod wq_sample

echo
echo "== kernel workers with rate-limited retries (every 3rd attempt fails)"
insmod "$ko" workers=2 period_ms=20
sleep 2
wqctl stat kernel.sample | grep -E '^(processing|waiting|tracked|retries):'
rmmod wq_sample
dmesg | sed -n 's/.*\(wq_sample: produced.*\)/\1/p' | tail -n 1
echo "== done"
