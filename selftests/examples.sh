#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The examples of userspace/examples/ against the module (busybox sh; TAP
# output; exit 0 pass, 1 fail, 4 skip): each runs to its end with status 0
# (it checks its own tallies) and prints the summary it promises:
#   shed            try-add sheds load: offered = accepted + shed, some shed,
#                   every accepted job processed
#   worker_pool     the controller loop: 40 handler calls, 16 successes,
#                   4 give-ups, a drained stop
#   epoll_consumer  two queues and a timerfd in one epoll loop: 50 + 20 keys
#                   served, both queues hung up (EPOLLHUP) after shutdown
# and leaves no queue behind.

. "$(dirname "$0")/tap.sh"

D=$(dirname "$0")/examples
TMP=${TMPDIR:-/tmp}
out=$TMP/examples.$$.out

[ -c /dev/wq ] || skip_all "/dev/wq missing (module not loaded)"
[ -x "$D/shed" ] || skip_all "examples not built ($D)"
trap 'rm -f "$out"' EXIT

# example NAME: runs it (at most 120 s), output in $out; true on status 0
example() {
	timeout 120 "$D/$1" >"$out" 2>&1
	rc=$?
	[ "$rc" -eq 0 ] || explain "$out" "$1 exited $rc:"
}

# shows LINE: the output has exactly LINE
shows() {
	grep -qxF -- "$1" "$out" || explain "$out" "no line '$1' in:"
}

check "shed runs" example shed
# offered 200, accepted A, shed S, processed P
set -- $(sed -n 's/^offered \([0-9]*\), accepted \([0-9]*\), shed \([0-9]*\), processed \([0-9]*\)$/\1 \2 \3 \4/p' "$out")
if [ $# -eq 4 ] && [ $(($2 + $3)) -eq "$1" ] && [ "$3" -gt 0 ] && [ "$4" -eq "$2" ]; then
	ok "shed: offered $1 = accepted $2 + shed $3; processed $4"
else
	not_ok "shed: summary"
	sed 's/^/#   /' "$out"
fi
check "shed: reports the jobs it shed" grep -q 'queue full, shed (503' "$out"

check "worker_pool runs" example worker_pool
check "worker_pool: exact counts, drained" \
	shows "handler calls 40, successes 16, give-ups 4, stop drained"
n_give=$(grep -c '^giving up on ns/obj-' "$out")
check "worker_pool: give_up called 4 times ($n_give)" [ "$n_give" -eq 4 ]

check "epoll_consumer runs" example epoll_consumer
check "epoll_consumer: all served, both hung up" \
	shows "served orders 50, mails 20; hung up: orders yes, mails yes"
check "epoll_consumer: the timer ticked" grep -q '^tick [0-9]' "$out"

if command -v wqctl >/dev/null 2>&1; then
	left=$(wqctl list | awk 'NR > 1 && $1 ~ /^(shed|pool|orders|mails)\./' | wc -l)
	check "no example queue left behind" [ "$left" -eq 0 ]
fi

echo "1..$n"
exit $failed
