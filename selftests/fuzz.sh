#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# fuzz.sh: the fuzzer (ioctls, io_uring commands) in the guest (busybox
# sh; TAP; exit 0 pass, 1 fail): wq_fuzz, then the kernel log it added
# (BUG, WARNING, Oops, KASAN, UBSAN, lockdep), rmmod wq (once io_uring has
# let go of the handles its rings' commands held), and kmemleak where the
# kernel has it (the debug lane). Leaves the module unloaded: run it under
# vm-run --no-rmmod. With FUZZ_RMMOD=0 (run-tests, in make check's debug
# lane) it stops after the kernel log and leaves the module, its unload
# and kmemleak to the caller.
#
#	fuzz.sh [CALLS [PROCS [SEED [THREADS]]]]
#	(defaults 200000, 4, from the clock, 2)

. "$(dirname "$0")/tap.sh"
. "$(dirname "$0")/module_lib.sh"

DIR=$(cd "$(dirname "$0")" && pwd)
CALLS=${1:-200000}
PROCS=${2:-4}
SEED=${3:-0}
THREADS=${4:-2}
RMMOD=${FUZZ_RMMOD:-1}
KM=/sys/kernel/debug/kmemleak

if [ "$RMMOD" = 0 ]; then echo "1..2"; else echo "1..4"; fi
[ "$RMMOD" != 0 ] && [ -e $KM ] && echo clear >$KM 2>/dev/null
before=$(dmesg | wc -l)	# only what the fuzzer adds; the log stays
start=$(date +%s)
check "wq_fuzz -n $CALLS -p $PROCS -t $THREADS" \
	"$DIR/wq_fuzz" -s "$SEED" -n "$CALLS" -p "$PROCS" -t "$THREADS"
echo "# wq_fuzz took $(($(date +%s) - start)) s"

dmesg | tail -n +"$((before + 1))" >/tmp/fuzz.dmesg 2>&1
if grep -E 'BUG|WARNING|Oops|KASAN|UBSAN|lockdep|general protection|sleeping function|Call Trace' \
	/tmp/fuzz.dmesg >/tmp/fuzz.bad; then
	sed 's/^/# /' /tmp/fuzz.dmesg
	not_ok "kernel log clean"
else
	ok "kernel log clean"
fi
if [ "$RMMOD" = 0 ]; then
	echo "# $n tests, failed=$failed"
	exit "$failed"
fi
if built_in; then
	echo "ok 3 rmmod wq # SKIP wq is built into the kernel (CONFIG_WQ=y)"
	echo "ok 4 kmemleak clean # SKIP wq is built in: no unload to scan after"
	exit "$failed"
fi

unreferenced	# rings let go of their files in a kernel worker
if rmmod wq >/tmp/fuzz.rmmod 2>&1; then
	ok "rmmod wq"
else
	sed 's/^/# /' /tmp/fuzz.rmmod
	grep '^wq ' /proc/modules | sed 's/^/# /'
	# who still has /dev/wq open (each open file holds a module reference)
	for f in /proc/[0-9]*/fd/*; do
		[ "$(readlink "$f" 2>/dev/null)" = /dev/wq ] && echo "# open: $f"
	done
	ps -o pid,stat,args 2>/dev/null | sed 's/^/# /'
	not_ok "rmmod wq"
fi

if [ ! -e $KM ]; then
	echo "ok 4 kmemleak clean # SKIP no kmemleak in $(uname -r)"
	n=4
else
	sleep 6
	echo scan >$KM
	echo scan >$KM
	cat $KM >/tmp/fuzz.kmemleak
	if [ -s /tmp/fuzz.kmemleak ]; then
		sed 's/^/# /' /tmp/fuzz.kmemleak
		not_ok "kmemleak clean"
	else
		ok "kmemleak clean"
	fi
fi
echo "# $n tests, failed=$failed"
exit $failed
