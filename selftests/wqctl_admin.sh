#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# wqctl_admin.sh: what an administrator and a script meet first: wqctl
# version (--version, -V) and the module's MODULE_VERSION; --json and
# -o json of list, stat, state, metrics and version, each one JSON
# document (wq_json checks it and reads fields); errors that name the
# errno and say which quota, which ceiling, the device's mode rather than
# a queue's; create --mode exactly as given; watch -n as watch(1)'s
# interval and -c/--count; top -d and its name column. busybox sh, as
# root (wq_as runs wqctl as an unprivileged user).
# shellcheck shell=sh

cd "$(dirname "$0")" || exit 1
. ./tap.sh
. ./wqctl_lib.sh
wqctl_start
[ "$(id -u)" = 0 ] || skip_all "needs root"
[ -x ./wq_json ] && [ -x ./wq_as ] || skip_all "no wq_json or wq_as"
J=./wq_json
U=4321			# an unprivileged user
P=/sys/module/wq/parameters

# json_is PATH VALUE: the field of the last run's stdout
json_is() {
	got=$($J "$1" <"$out") || { explain "$out" "not JSON, or no $1:"; return; }
	[ "$got" = "$2" ] && return 0
	echo "# $1: '$got', expected '$2'"
	return 1
}

# ---- versions ---------------------------------------------------------
v=$(cat /sys/module/wq/version 2>/dev/null)
check "the module has a version (/sys/module/wq/version: $v)" \
	sh -c "echo '$v' | grep -Eqx '[0-9]+\\.[0-9]+\\.[0-9]+'"
check "wqctl --version" run 0 --version
check "it names wqctl, libwq and the module, each $v" sh -c "
	grep -qx 'wqctl $v' '$out' && grep -qx 'libwq $v' '$out' && grep -qx 'module $v' '$out'"
cp "$out" "$TMP/ver.$$"
check "-V and version say the same" sh -c "
	'$WQCTL' -V | cmp -s - '$TMP/ver.$$' && '$WQCTL' version | cmp -s - '$TMP/ver.$$'"
rm -f "$TMP/ver.$$"
check "version --json" run 0 version --json
check "version --json: module.version" json_is module.version "$v"
check "version --json: the module's features" sh -c "$J module.features <'$out' | grep -q priority"

# ---- --json -----------------------------------------------------------
q=jadm.$$
new_queue "$q" --limiter none --mode 0640
"$WQCTL" add "$q" a b c >/dev/null && "$WQCTL" get "$q" >/dev/null
"$WQCTL" add "$q" w --after 1h >/dev/null
check "stat --json" run 0 stat "$q" --json
check "stat --json: name" json_is name "$q"
check "stat --json: queued 2" json_is queued 2
check "stat --json: processing 1" json_is processing 1
check "stat --json: mode as octal text" json_is mode 0640
check "stat --json: yes/no as booleans" json_is shutting_down false
check "stat -o json is --json" sh -c "
	'$WQCTL' stat '$q' -o json | cmp -s - '$out'"
check "list --json" run 0 list --json
check "list --json: the queue among them" sh -c "
	n=\$($J queues.# <'$out') && i=0 && while [ \$i -lt \$n ]; do
		[ \"\$($J queues.\$i.name <'$out')\" = '$q' ] && exit 0; i=\$((i + 1)); done; exit 1"
check "state --json of a waiting key" run 0 state "$q" w --json
check "state --json: state [\"waiting\"]" json_is state.0 waiting
check "state --json: ready_in_ns a number" sh -c "$J ready_in_ns <'$out' | grep -Eqx '[0-9]+'"
check "state --json of a key not held: [] and null" sh -c "
	'$WQCTL' state '$q' nosuch --json >'$out' && [ \"\$($J state.# <'$out')\" = 0 ] &&
	[ \"\$($J ready_in_ns <'$out')\" = null ]"
check "metrics --json NAME" run 0 metrics "$q" --json
check "metrics --json: depth 2" json_is queues.0.depth 2
check "metrics --json: adds_total 3" json_is queues.0.adds_total 3
check "metrics --json: +Inf bucket is null, its count the count" sh -c "
	nb=\$($J queues.0.queue_duration.buckets.# <'$out') && l=\$((nb - 1)) &&
	[ \"\$($J queues.0.queue_duration.buckets.\$l.le_ns <'$out')\" = null ] &&
	[ \"\$($J queues.0.queue_duration.buckets.\$l.count <'$out')\" = \"\$($J queues.0.queue_duration.count <'$out')\" ]"
check "metrics --json (every queue) is one document" sh -c "'$WQCTL' metrics --json | $J"
check "-o yaml is a usage error" run 2 list -o yaml
check "--json on a command without it is a usage error" run 2 len "$q" --json

# ---- errors -----------------------------------------------------------
check "an unknown queue names -ENOENT" run 1 stat "nosuch.$$"
check "  ... in its text" err_has "no such queue (-ENOENT)"
qm=$(cat $P/user_max_queues)
echo 2 >$P/user_max_queues
./wq_as $U "$WQCTL" create "uq1.$$" && ./wq_as $U "$WQCTL" create "uq2.$$"
check "version shows the user's quota use (2 queues)" sh -c "
	./wq_as $U '$WQCTL' version | grep -qx 'queues: 2 of user_max_queues=2 (yours)'"
check "  ... and --json" sh -c "
	./wq_as $U '$WQCTL' version --json | $J module.user_queues | grep -qx 2"
check "over the queue quota: EDQUOT" sh -c "! ./wq_as $U '$WQCTL' create 'uq3.$$' 2>'$err'"
check "  ... named, with the quota's numbers" sh -c "
	grep -q -- '-EDQUOT' '$err' && grep -q '2 of user_max_queues=2' '$err'" 
sed 's/^/# /' "$err"
./wq_as $U "$WQCTL" destroy "uq1.$$"
./wq_as $U "$WQCTL" destroy "uq2.$$"
echo "$qm" >$P/user_max_queues
ceil=$(cat $P/unpriv_max_items)
lim=$(cat $P/max_items_limit)
check "max_items above the unprivileged ceiling" sh -c "
	! ./wq_as $U '$WQCTL' create 'uc.$$' --max-items $((ceil + 1)) 2>'$err' &&
	grep -q 'above unpriv_max_items ($ceil)' '$err' && grep -q -- '-EINVAL' '$err'"
check "max_items above max_items_limit" sh -c "
	! ./wq_as $U '$WQCTL' create 'uc.$$' --max-items $((lim + 1)) 2>'$err' &&
	grep -q 'max_items_limit ($lim)' '$err'"
echo 0 >$P/unpriv_max_items
check "unpriv_max_items 0: no default max_items, said so" sh -c "
	! '$WQCTL' create 'uc.$$' 2>'$err' &&
	grep -q 'unpriv_max_items is 0' '$err' && grep -q -- '-EINVAL' '$err'"
echo "$ceil" >$P/unpriv_max_items
check "a queue's mode: said so" sh -c "
	! ./wq_as $U '$WQCTL' len '$q' 2>'$err' && grep -q \"by the queue's mode\" '$err' &&
	! grep -q 'by the device' '$err'"
chmod 0600 /dev/wq
check "/dev/wq's own mode: said so, not the queue's" sh -c "
	! ./wq_as $U '$WQCTL' list 2>'$err' && grep -q 'cannot open /dev/wq (mode 0600' '$err' &&
	grep -q 'by the device' '$err' && grep -q -- '-EACCES' '$err'"
sed 's/^/# /' "$err"
chmod 0666 /dev/wq
check "version as a user without /dev/wq: the module's version, the error" sh -c "
	chmod 0600 /dev/wq; ./wq_as $U '$WQCTL' version >'$out'; rc=\$?; chmod 0666 /dev/wq
	[ \$rc = 0 ] && grep -q '^module $v (/dev/wq: .*EACCES)' '$out'"

# ---- create --mode is exact ---------------------------------------------
check "--mode 0660 under umask 022 is 0660" sh -c "
	umask 022 && '$WQCTL' create 'm1.$$' --mode 0660"
queues="$queues m1.$$ m2.$$"
check "  ... stat says 0660" stat_is "m1.$$" mode 0660
check "no --mode under umask 077: 0600" sh -c "umask 077 && '$WQCTL' create 'm2.$$'"
check "  ... stat says 0600" stat_is "m2.$$" mode 0600

# ---- watch and top ------------------------------------------------------
check "watch -c 3 -n 0.2: three lines, quickly" sh -c "
	t0=\$(date +%s); '$WQCTL' watch '$q' -c 3 -n 0.2 >'$out' || exit 1
	[ \$(grep -c running '$out') -eq 3 ] && [ \$((\$(date +%s) - t0)) -lt 30 ]"
check "watch --count (old scripts) still counts" sh -c "
	'$WQCTL' watch '$q' --count 2 -n 0.1 | grep -c running | grep -qx 2"
t0=$(cs)
"$WQCTL" watch "$q" -c 2 -n 2 >/dev/null
since "$t0" -ge 200 "watch -n 2: two refreshes take at least 2 s"
check "watch -n 0.01 is a usage error (at least 0.1)" run 2 watch "$q" -n 0.01
long=name-of-sixty-three-characters-for-the-top-view-width-check.$$
long=$(printf '%.63s' "$long")
new_queue "$long"
check "top off a terminal: the whole 63-character name" sh -c "
	'$WQCTL' top -n 1 -d 0.5 | grep -q '^$long '"
check "top -d 0.1 -n 3" run 0 top -d 0.1 -n 3
check "  ... three refreshes" sh -c "[ \$(grep -c '^# ' '$out') -eq 3 ]"

echo "1..$n"
exit $failed
