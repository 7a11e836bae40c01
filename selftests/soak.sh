#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# soak.sh: the soak test in the guest (busybox sh; TAP; ends with the line
# "N passed, N failed"; exit 0 pass, 1 fail). Records the slab usage
# (/proc/meminfo Slab and SUnreclaim, the wq_* caches of /proc/slabinfo),
# runs wq_soak for SECONDS, then checks: the kernel log is clean (BUG,
# WARNING, Oops, KASAN, UBSAN, lockdep), wq's caches hold as many objects
# as at the start and the global slab numbers are near theirs (a generous
# margin: other caches move too), rmmod wq, kmemleak where the kernel has
# it (the debug lane), insmod of $WQ_KO_DIR/wq.ko again and one round of
# wq_soak on the reloaded module. Leaves the module loaded: run it under
# vm-run --no-rmmod.
#
#	soak.sh [SECONDS [SEED [WQ_SOAK_OPTION...]]]
#		(defaults 600, from the clock; e.g. -x reuse)

. "$(dirname "$0")/tap.sh"
. "$(dirname "$0")/module_lib.sh"

DIR=$(cd "$(dirname "$0")" && pwd)
SECS=${1:-600}
SEED=${2:-0}
[ $# -ge 2 ] && shift 2 || shift $#
KO=${WQ_KO_DIR:-/wq}/wq.ko
KM=/sys/kernel/debug/kmemleak
SOAK=$DIR/wq_soak
TMP=${TMPDIR:-/tmp}
# Global slab growth tolerated, kB: other caches (dentries, kmemleak's
# own objects, page tables of the workers) move with a long run.
SLAB_MARGIN_KB=${SLAB_MARGIN_KB:-16384}
BAD='BUG|WARNING|Oops|KASAN|UBSAN|lockdep|general protection|sleeping function|Call Trace|unreferenced object|ODEBUG'

nfailed=0
good() { ok "$@"; }
bad() {
	not_ok "$@"
	nfailed=$((nfailed + 1))
}

# Every cache gives back its empty slabs (and, with KASAN, the objects in
# its quarantine), so the counts below are live objects.
shrink_slabs() {
	for f in /sys/kernel/slab/*/shrink; do
		[ -w "$f" ] && echo 1 >"$f" 2>/dev/null
	done
}

meminfo() { awk -v k="$1:" '$1 == k { print $2 }' /proc/meminfo; }

# wq_caches: "name active_objs" of each wq_* cache, one a line
wq_caches() {
	awk '$1 ~ /^wq_/ { print $1, $2 }' /proc/slabinfo 2>/dev/null
}

# new_log FILE: the kernel log written since the last new_log (the log is
# never cleared: vm-run checks all of it at the end too)
log_mark=0
new_log() {
	dmesg >"$TMP/soak.fulllog" 2>&1
	tail -n +$((log_mark + 1)) "$TMP/soak.fulllog" >"$1"
	log_mark=$(wc -l <"$TMP/soak.fulllog")
}

# log_clean FILE WHAT: one test point from the kernel log in FILE
log_clean() {
	if grep -E "$BAD" "$1" >/dev/null; then
		sed 's/^/# /' "$1"
		bad "kernel log clean $2"
	else
		good "kernel log clean $2"
	fi
}

# run_soak OUT ARGS...: wq_soak live on the console (indented), its TAP
# lines taken over as test points of this script; its status in OUT.rc
run_soak() {
	out=$1
	shift
	{ timeout $((SECS + 900)) "$SOAK" "$@"; echo $? >"$out.rc"; } 2>&1 |
		tee "$out" | sed 's/^/    /'
	rc=$(cat "$out.rc" 2>/dev/null)
	[ -n "$rc" ] || rc=1
	# every result names the seed, so that a failure says how to replay it
	seed=$(sed -n 's/^# wq_soak: seed \([0-9]*\).*/\1/p' "$out" | head -n 1)
	soak_bad=0
	while IFS= read -r line; do
		case $line in
		"ok "[0-9]*)
			good "wq_soak: $(echo "$line" | sed 's/^ok [0-9]* //') [seed $seed]" ;;
		"not ok "[0-9]*)
			bad "wq_soak: $(echo "$line" | sed 's/^not ok [0-9]* //') [seed $seed]"
			soak_bad=1 ;;
		esac
	done <"$out"
	if [ "$rc" -ne 0 ] && [ "$soak_bad" -eq 0 ]; then
		bad "wq_soak $* exited with status $rc"
	fi
}

[ "$(id -u)" = 0 ] || skip_all "needs root"
[ -x "$SOAK" ] || skip_all "no $SOAK"
built_in || [ -f "$KO" ] || skip_all "no module at $KO"
mkdir -p "$TMP" 2>/dev/null
if ! loaded; then
	insmod "$KO" || skip_all "insmod $KO failed"
	wait_for dev_present
fi

# ---- before (kmemleak is not cleared: vm-run did at boot, and a leak of
# a test that ran before this one in the same guest is a leak too)
new_log "$TMP/soak.dmesg"
shrink_slabs
slab0=$(meminfo Slab)
sunr0=$(meminfo SUnreclaim)
wq_caches >"$TMP/soak.caches0"
echo "# before: Slab ${slab0} kB, SUnreclaim ${sunr0} kB; wq caches (name, active objects):" \
	"$(tr '\n' ' ' <"$TMP/soak.caches0")"
[ -s "$TMP/soak.caches0" ] || echo "# no wq_* cache in /proc/slabinfo: only the global numbers are checked"

# ---- the soak
start=$(date +%s)
run_soak "$TMP/soak.out" -t "$SECS" -s "$SEED" "$@"
echo "# wq_soak took $(($(date +%s) - start)) s"

# ---- after: the kernel log, then memory
new_log "$TMP/soak.dmesg"
log_clean "$TMP/soak.dmesg" "after the soak"

# wq's caches: every object allocated during the run freed (the last
# frees may trail the close by an RCU grace period: a few tries)
caches_back() {
	shrink_slabs
	wq_caches >"$TMP/soak.caches1"
	cmp -s "$TMP/soak.caches0" "$TMP/soak.caches1"
}
tries=0
until caches_back || [ "$tries" -ge 10 ]; do
	sleep 1
	tries=$((tries + 1))
done
echo "# after: wq caches (name, active objects): $(tr '\n' ' ' <"$TMP/soak.caches1")"
if cmp -s "$TMP/soak.caches0" "$TMP/soak.caches1"; then
	good "wq's slab caches back to their start ($(tr '\n' ' ' <"$TMP/soak.caches0" | sed 's/ $//'))"
else
	bad "wq's slab caches back to their start (before: $(tr '\n' ' ' <"$TMP/soak.caches0"), after: $(tr '\n' ' ' <"$TMP/soak.caches1"))"
fi
slab1=$(meminfo Slab)
sunr1=$(meminfo SUnreclaim)
echo "# after: Slab ${slab1} kB ($((slab1 - slab0)) kB), SUnreclaim ${sunr1} kB ($((sunr1 - sunr0)) kB); margin ${SLAB_MARGIN_KB} kB"
if [ "$((sunr1 - sunr0))" -le "$SLAB_MARGIN_KB" ]; then
	good "unreclaimable slab near its start ($((sunr1 - sunr0)) kB)"
else
	bad "unreclaimable slab near its start ($((sunr1 - sunr0)) kB, more than ${SLAB_MARGIN_KB} kB)"
fi

# ---- unload, leaks, reload
if built_in; then
	n=$((n + 1))
	echo "ok $n rmmod wq, kmemleak, insmod and a round again # SKIP wq is built into the kernel (CONFIG_WQ=y)"
	echo "1..$n"
	echo "$((n - nfailed)) passed, $nfailed failed"
	exit "$failed"
fi
unreferenced	# rings let go of their files in a kernel worker
if rmmod wq >"$TMP/soak.rmmod" 2>&1; then
	good "rmmod wq"
else
	sed 's/^/# /' "$TMP/soak.rmmod"
	grep '^wq ' /proc/modules | sed 's/^/# /'
	bad "rmmod wq"
fi
if wait_for dev_absent && [ -z "$(wq_caches)" ]; then
	good "/dev/wq and the wq caches gone after rmmod"
else
	bad "/dev/wq and the wq caches gone after rmmod"
fi

if [ ! -e $KM ]; then
	echo "ok $((n + 1)) kmemleak clean # SKIP no kmemleak in $(uname -r)"
	n=$((n + 1))
else
	sleep 6
	echo scan >$KM
	echo scan >$KM
	cat $KM >"$TMP/soak.kmemleak"
	if [ -s "$TMP/soak.kmemleak" ]; then
		sed 's/^/# /' "$TMP/soak.kmemleak"
		bad "kmemleak clean"
	else
		good "kmemleak clean"
	fi
fi

new_log "$TMP/soak.dmesg"
log_clean "$TMP/soak.dmesg" "after rmmod"

if insmod "$KO" >"$TMP/soak.insmod" 2>&1 && wait_for dev_present; then
	good "insmod wq again"
	run_soak "$TMP/soak.reload" -r 1 -s "$SEED" "$@"
else
	sed 's/^/# /' "$TMP/soak.insmod"
	bad "insmod wq again"
fi
new_log "$TMP/soak.dmesg"
log_clean "$TMP/soak.dmesg" "after the reload"

echo "1..$n"
echo "$((n - nfailed)) passed, $nfailed failed"
exit "$failed"
