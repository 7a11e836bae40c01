# SPDX-License-Identifier: GPL-2.0
#
# module_lib.sh: the wq module and /dev/wq, for the shell tests that load
# and unload it (busybox sh), sourced by them (module_load.sh, soak.sh,
# fuzz.sh).
# shellcheck shell=sh

loaded() {
	[ -d /sys/module/wq ]
}

# built_in: wq is part of the kernel (CONFIG_WQ=y), not a module that can
# be unloaded
built_in() {
	loaded && ! grep -q '^wq ' /proc/modules
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

# unreferenced: waits up to 30 s for the module's references to go. An
# io_uring ring is freed by a kernel worker after its last close, and
# holds its commands' /dev/wq files until then.
unreferenced() {
	i=0
	while [ "$(cat /sys/module/wq/refcnt 2>/dev/null || echo 0)" != 0 ] &&
	      [ "$i" -lt 300 ]; do
		sleep 0.1
		i=$((i + 1))
	done
}
