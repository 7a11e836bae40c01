# SPDX-License-Identifier: GPL-2.0
#
# install_admin.sh: the phases of install_test.sh that check what an
# administrator meets first, sourced by it (its helpers: expect, fail,
# skip, note, headers, release, $out, $dest, $version):
#   admin    one version everywhere; KDIR defaults to the running kernel's
#            headers; make install and uninstall leave an admin's /etc
#            files alone (a re-install and an upgrade from files wq put in
#            /etc before) and the defaults' texts say so
#   scrape   the wqctl package's wq-metrics.service command, run in a 6.1
#            guest, writes the textfile; Debian's prometheus-node-exporter
#            serves it; its /metrics has the workqueue_* series of two
#            queues
# shellcheck shell=bash

# defaults_texts ROOT: the shipped defaults under ROOT/usr/lib tell the
# admin to write /etc, never to edit them in place, and every doc they
# cite exists
defaults_texts() {
	local f d
	for f in "$1"/usr/lib/udev/rules.d/60-wq.rules "$1"/usr/lib/modprobe.d/wq.conf \
		 "$1"/usr/lib/modules-load.d/wq.conf; do
		grep -q '/etc/' "$f" || fail "${f#"$1"}: says nothing of its /etc replacement"
		! grep -qiE 'uncomment|copy this file|^# /etc/[^ ]*: ' "$f" && grep -qi 'not edit' "$f" ||
			fail "${f#"$1"}: tells the admin to edit it in place"
		for d in $(grep -o 'doc/[a-z]*\.md\|README\.md' "$f"); do
			[ -f "$d" ] || fail "${f#"$1"} cites $d, which does not exist"
		done
		! grep -q 'README.md, "' "$f" || fail "${f#"$1"} cites a README section"
		# doc/X.md, "Section": X.md has that heading
		{ grep -o 'doc/[a-z]*\.md, "[^"]*"' "$f" || :; } | while IFS='"' read -r d sec _; do
			d=${d%, }
			grep -q "^#.* $sec\$" "$d" || { echo "${f#"$1"} cites $d, \"$sec\": no such section"; exit 1; }
		done || fail "a default cites a section that does not exist"
	done
	echo "ok: the defaults tell admins to write /etc and cite docs that exist"
}

# The one version: wq.h's, and every other place that says it.
check_versions() {
	local h maj min pat v node
	h=userspace/include/wq.h
	maj=$(sed -n 's/^#define WQ_VERSION_MAJOR[[:space:]]*//p' "$h")
	min=$(sed -n 's/^#define WQ_VERSION_MINOR[[:space:]]*//p' "$h")
	pat=$(sed -n 's/^#define WQ_VERSION_PATCH[[:space:]]*//p' "$h")
	v=$maj.$min.$pat
	node=$(grep -o '^WQ_[0-9]*\.[0-9]*' userspace/libwq.map | sort -t. -k2 -n | tail -n1)
	expect "wq.h $v is dkms.conf's version ($version)" [ "$v" = "$version" ]
	expect "the newest symbol node is WQ_$maj.$min ($node)" [ "$node" = "WQ_$maj.$min" ]
	expect "MODULE_VERSION is $v (kmod/wq.ko: $(modinfo -F version kmod/wq.ko))" \
		[ "$(modinfo -F version kmod/wq.ko)" = "$v" ]
	expect "debian/changelog's newest entry is $v" \
		[ "$(sed -n '1s/^wq (\([^)]*\)).*/\1/p' debian/changelog)" = "$v" ]
	expect "wqctl --version says wqctl $v and libwq $v" \
		sh -c "userspace/wqctl --version | head -n2 | tr '\\n' ' ' | grep -qx 'wqctl $v libwq $v '"
}

# make -n module's KDIR with uname -r answering $1
kdir_for() {
	local bin=$out/fake-uname
	mkdir -p "$bin"
	printf '#!/bin/sh\n[ "$1" = -r ] && { echo %s; exit 0; }\nexec /bin/uname "$@"\n' "$1" >"$bin/uname"
	chmod 755 "$bin/uname"
	PATH=$bin:$PATH make -n module | sed -n 's/^make -C \([^ ]*\) M=.*/\1/p' | head -n1
}

phase_admin() {
	local run kdir kver d f sum
	check_versions
	run=$(ls -d /lib/modules/*/build/ 2>/dev/null | head -n1)
	run=${run%/build/}
	run=${run##*/}
	[ -n "$run" ] || fail "no /lib/modules/*/build on this machine (linux-headers-amd64)"
	expect "KDIR is /lib/modules/$run/build when uname -r is $run" \
		[ "$(kdir_for "$run")" = "/lib/modules/$run/build" ]
	expect "without the running kernel's headers KDIR is the newest 6.1 headers" \
		[ "$(kdir_for 0.0.0-no-such-kernel)" = "$(headers 6.1)" ]
	expect "KVER=$run gives /lib/modules/$run/build" \
		[ "$(make -n module KVER="$run" | sed -n 's/^make -C \([^ ]*\) M=.*/\1/p' | head -n1)" = "/lib/modules/$run/build" ]

	# An admin's /etc, and the /etc files of wq before 1.6 (an upgrade):
	# install writes none of them, uninstall removes none.
	kdir=$(headers 6.1)
	kver=$(release "$kdir")
	d=$out/root-admin
	rm -rf "$d" && mkdir -p "$d/etc/udev/rules.d" "$d/etc/modprobe.d" "$d/etc/modules-load.d"
	echo 'SUBSYSTEM=="misc", KERNEL=="wq", GROUP="wq", MODE="0660"' >"$d/etc/udev/rules.d/60-wq.rules"
	echo 'options wq user_max_queues=8' >"$d/etc/modprobe.d/wq.conf"
	echo wq >"$d/etc/modules-load.d/wq.conf"
	sum=$(cd "$d" && find etc -type f | sort | xargs sha256sum)
	expect "make install DESTDIR=$d (an admin's /etc there)" \
		make -s install DESTDIR="$d" KDIR="$kdir"
	expect "make install again (a re-install)" make -s install DESTDIR="$d" KDIR="$kdir"
	expect "the admin's /etc files are untouched by install" \
		[ "$(cd "$d" && find etc -type f | sort | xargs sha256sum)" = "$sum" ]
	expect "make uninstall DESTDIR=$d" make -s uninstall DESTDIR="$d" KDIR="$kdir"
	expect "the admin's /etc files are untouched by uninstall" \
		[ "$(cd "$d" && find etc -type f | sort | xargs sha256sum)" = "$sum" ]
	for f in usr/lib/udev/rules.d/60-wq.rules usr/lib/modprobe.d/wq.conf \
		 usr/lib/modules-load.d/wq.conf usr/lib/systemd/system/wq-metrics.timer; do
		[ ! -e "$d/$f" ] || fail "uninstall left the default $f"
	done
	echo "ok: uninstall removed the defaults under usr/lib"
	# With a directory pointed at /etc by hand, uninstall still keeps it.
	expect "install with MODPROBEDIR=/etc/modprobe.d (by hand)" \
		make -s install-user DESTDIR="$d" MODPROBEDIR=/etc/modprobe.d
	expect "uninstall MODPROBEDIR=/etc/modprobe.d keeps /etc/modprobe.d/wq.conf" \
		sh -c "make -s uninstall DESTDIR='$d' KDIR='$kdir' MODPROBEDIR=/etc/modprobe.d &&
		       [ -f '$d/etc/modprobe.d/wq.conf' ]"
	echo "# $kver"

	expect "make demo installs the demo lane only, and names the rest" \
		sh -c "make -n demo | grep -q '^selftests/vm/install-deps demo\$' &&
		       ! make -n demo | grep -qE 'install-deps( base| [^-]*base)|deps-quick'"
	expect "the demo lane holds no tool only make check needs" \
		sh -c "! sed -n '/^demo=/,/)/p' selftests/vm/install-deps |
			grep -qE 'lintian|prometheus|golang|debhelper|cppcheck|dkms|sparse|linux-source'"
}

# --------------------------------------------------------------- scrape
phase_scrape() {
	local r=$out/deb/root g=$out/scrape ne cmd
	ne=$(command -v prometheus-node-exporter) ||
		fail "no prometheus-node-exporter (selftests/vm/install-deps base)"
	[ -f "$r/lib/systemd/system/wq-metrics.service" ] ||
		fail "no unpacked wqctl package: run the deb phase first"
	cmd=$(sed -n 's/^ExecStart=//p' "$r/lib/systemd/system/wq-metrics.service")
	expect "the unit's command is absolute: $cmd" sh -c "case '$cmd' in /usr/bin/wqctl\ *) ;; *) exit 1 ;; esac"
	expect "the timer runs it every 15 s" \
		grep -qx 'OnUnitActiveSec=15s' "$r/lib/systemd/system/wq-metrics.timer"
	rm -rf "$g" && mkdir -p "$g"
	cat >"$g/scrape" <<EOF
#!/bin/sh
# In the guest: the unit's command (as systemd runs it: no PATH), then
# node-exporter on loopback, then its /metrics.
fail() { echo "FAIL: \$*"; exit 1; }
ip link set lo up || fail "lo up"
mkdir -p /var/lib/prometheus/node-exporter
wqctl create scrape-a && wqctl create scrape-b || fail "wqctl create"
wqctl add scrape-a k1 k2 k3 && wqctl add scrape-b k1 || fail "wqctl add"
wqctl get scrape-a --done >/dev/null || fail "wqctl get"
env -i $cmd || fail "the unit's command: $cmd"
ls -l /var/lib/prometheus/node-exporter
[ -f /var/lib/prometheus/node-exporter/wq.prom ] || fail "no wq.prom"
! ls /var/lib/prometheus/node-exporter | grep -v '^wq.prom\$' || fail "a temporary file was left"
/usr/bin/prometheus-node-exporter --web.listen-address=127.0.0.1:9100 \\
	--collector.disable-defaults --collector.textfile >/tmp/ne.log 2>&1 &
ne=\$!
i=0
until wget -q -O /tmp/metrics http://127.0.0.1:9100/metrics 2>/dev/null; do
	i=\$((i + 1)); [ \$i -lt 60 ] || { cat /tmp/ne.log; fail "node-exporter never answered"; }
	sleep 1
done
kill \$ne
grep -E '^workqueue_(depth|adds_total)' /tmp/metrics
grep -qx 'workqueue_depth{name="scrape-a"} 2' /tmp/metrics || fail "scrape-a's depth"
grep -qx 'workqueue_depth{name="scrape-b"} 1' /tmp/metrics || fail "scrape-b's depth"
grep -qx 'workqueue_adds_total{name="scrape-a"} 3' /tmp/metrics || fail "scrape-a's adds"
grep -q '^workqueue_queue_duration_seconds_count{name="scrape-a"} 1' /tmp/metrics || fail "scrape-a's histogram"
grep -q '^node_textfile_scrape_error 0' /tmp/metrics || fail "node-exporter's textfile error"
echo "ok: node-exporter serves the workqueue_* series of both queues"
EOF
	chmod 755 "$g/scrape"
	selftests/vm/vm-run --kernel 6.1 --timeout 600 \
		--add "$r/usr/bin/wqctl:/usr/bin/wqctl" --add "$ne:/usr/bin/prometheus-node-exporter" \
		--add "$g/scrape:/bin/scrape" -- /bin/scrape || fail "vm-run (status $?)"
}

# debian/copyright: its LGPL paragraph names exactly the files whose SPDX
# line says LGPL (its patterns as the format's: * matches across /).
copyright_check() {
	local pats f p hit bad=0
	pats=$(awk '/^Files:/ { files = 1; list = "" }
		   files && /^(Files:| )/ { sub(/^Files:/, ""); list = list " " $0; next }
		   files { files = 0 }
		   /^License: LGPL/ { print list }' debian/copyright)
	while read -r f; do
		hit=0
		for p in $pats; do
			# shellcheck disable=SC2053 # the pattern is a glob
			[[ $f == $p ]] && hit=1
		done
		if grep -m1 'SPDX-License-Identifier:' "$f" | grep -q ': LGPL'; then
			[ "$hit" -eq 1 ] || { echo "debian/copyright: $f is LGPL, not listed"; bad=1; }
		elif [ "$hit" -eq 1 ]; then
			echo "debian/copyright: $f is listed LGPL but is not"; bad=1
		fi
	done < <(git ls-files -co --exclude-standard | grep -v '^build/')
	[ "$bad" -eq 0 ] || fail "debian/copyright does not match the SPDX lines"
	echo "ok: debian/copyright's LGPL files are the SPDX LGPL files"
}
