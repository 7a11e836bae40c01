# SPDX-License-Identifier: GPL-2.0
#
# module_lib.sh: the wq module and /dev/wq, for the shell tests that load
# and unload it (busybox sh), sourced by them (module_load.sh, soak.sh).
# shellcheck shell=sh

loaded() {
	[ -d /sys/module/wq ]
}

# wait_for COND_COMMAND...: polls up to 5 s
wait_for() {
	i=0
	while [ "$i" -lt 50 ]; do
		"$@" && return 0
		sleep 0.1
		i=$((i + 1))
	done
	return 1
}

dev_present() { [ -c /dev/wq ]; }
dev_absent() { [ ! -e /dev/wq ]; }
