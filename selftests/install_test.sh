#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# install_test.sh: wq as an administrator installs it, checked in scratch
# trees under build/install-test/ (never the host's /lib/modules, /usr,
# /etc or /var/lib/dkms; nothing is loaded on the host).
#
#   selftests/install_test.sh PHASE    run one phase (exit 0 ok, 1 fail, 4 skip)
#   selftests/install_test.sh --list   the phases, "PHASE TITLE" a line
#   selftests/install_test.sh          every phase in order
#
# Phases, in order (later ones use what earlier ones left):
#   tree        make install DESTDIR=scratch: the tree, soname and links,
#               depmod -b, libwq.pc, config examples; PREFIX=/usr; uninstall
#   man         every man page renders with groff -ww and man --warnings
#   pkg-config  a program built with `pkg-config --cflags --libs libwq`
#               against the installed copy links (shared and --static) and
#               runs; <linux/wq.h> compiles
#   kernel-api  a module using <wq/kwq.h> builds against the installed
#               headers and Module.symvers
#   dkms-6.1    dkms add/build/install/remove for the 6.1 headers (scratch
#   dkms-6.12   --dkmstree/--sourcetree/--installtree, --no-depmod)
#   guest       a 6.1 guest swaps vm-run's wq.ko for the DKMS-built one and
#               runs the pkg-config program, wqctl, and a consumer module
#               built against the DKMS Module.symvers
#   admin       one version everywhere; KDIR's default; an admin's /etc
#               kept by install, re-install and uninstall (install_admin.sh)
#   deb         debian/: dpkg-buildpackage -us -uc on a copy of the tree,
#               lintian --fail-on error,warning, the packages unpacked (dpkg-deb -x,
#               no maintainer scripts run) into a scratch root and used
#   scrape      the wqctl package's metrics unit writes the textfile in a
#               guest, Debian's prometheus-node-exporter serves it
#               (install_admin.sh)
set -u -o pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root" || exit 2
out=$root/build/install-test
dest=$out/root			# make install DESTDIR
version=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"$/\1/p' dkms.conf)
ksrc=/usr/src/wq-$version

phases=(
	"tree make install DESTDIR=scratch: tree, soname, depmod -b, libwq.pc, PREFIX=/usr, uninstall"
	"man man pages render with groff -ww -z and man --warnings -l"
	"pkg-config pkg-config --cflags --libs libwq: shared and static programs link and run"
	"kernel-api a <wq/kwq.h> consumer builds against the installed headers and Module.symvers"
	"dkms-6.1 dkms add/build/install/remove, 6.1 headers (scratch trees)"
	"dkms-6.12 dkms add/build/install/remove, 6.12 headers (scratch trees)"
	"guest 6.1 guest boots the DKMS wq.ko: libwq program, wqctl, consumer module"
	"admin one version everywhere, KDIR defaults to the running kernel's, an admin's /etc kept"
	"deb dpkg-buildpackage -us -uc (wq-dkms, libwq1, libwq-dev, wqctl), lintian errors and warnings 0, unpacked into a scratch root"
	"scrape 6.1 guest: wq-metrics.service's command writes the textfile, prometheus-node-exporter serves it"
)

fail() { echo "FAIL: $*"; exit 1; }
skip() { echo "SKIP: $*"; exit 4; }
note() { echo "# $*"; }
# expect DESCRIPTION COMMAND...: run, fail with the description if it fails
expect() {
	local what=$1
	shift
	"$@" || fail "$what"
	echo "ok: $what"
}

# headers SERIES: the newest /usr/src/linux-headers-SERIES.*-amd64 (not -rt)
headers() {
	local d
	for d in /usr/src/linux-headers-"$1".*-amd64; do
		[ -d "$d" ] && [[ $d != *-rt-amd64 ]] && printf '%s\n' "$d"
	done | sort -V | tail -n1
}
# release KDIR: the kernel release modules built there load into
release() {
	sed -n 's/^#define UTS_RELEASE "\(.*\)"/\1/p' "$1/include/generated/utsrelease.h"
}

# shellcheck source-path=SCRIPTDIR source=install_admin.sh
. "$root/selftests/install_admin.sh"

need() {	# need COMMAND PACKAGE
	command -v "$1" >/dev/null 2>&1 || fail "$1 not found (apt package $2: selftests/vm/install-deps base)"
}

# --------------------------------------------------------------- tree
phase_tree() {
	local kdir kver d2 f missing=() parm left
	kdir=$(headers 6.1)
	[ -n "$kdir" ] || fail "no 6.1 headers"
	kver=$(release "$kdir")
	rm -rf "$out" && mkdir -p "$out"
	expect "make install DESTDIR=$dest (KDIR=$kdir)" \
		make -s install DESTDIR="$dest" KDIR="$kdir"
	printf '%s\n' "$kver" >"$out/kver"

	local p=$dest/usr/local
	for f in "lib/modules/$kver/updates/wq.ko" "lib/modules/$kver/modules.dep" \
		 usr/local/bin/wqctl "usr/local/lib/libwq.so.$version" usr/local/lib/libwq.a \
		 usr/local/include/wq.h usr/local/include/wq/linux/wq.h \
		 usr/local/lib/pkgconfig/libwq.pc usr/local/share/man/man1/wqctl.1 \
		 usr/local/share/man/man3/libwq.3 usr/local/share/man/man3/wq_get.3 \
		 usr/local/share/man/man4/wq.4 \
		 usr/lib/udev/rules.d/60-wq.rules usr/lib/modprobe.d/wq.conf \
		 usr/lib/modules-load.d/wq.conf usr/lib/systemd/system/wq-metrics.service \
		 usr/lib/systemd/system/wq-metrics.timer \
		 "${ksrc#/}/dkms.conf" "${ksrc#/}/Kbuild" "${ksrc#/}/kmod/Kbuild" \
		 "${ksrc#/}/kmod/wq_main.c" "${ksrc#/}/kmod/include/wq/kwq.h" \
		 "${ksrc#/}/uapi/linux/wq.h" "${ksrc#/}/packaging/dkms-post-build" \
		 "${ksrc#/}/$kver/Module.symvers"; do
		[ -f "$dest/$f" ] || missing+=("$f")
	done
	[ ${#missing[@]} -eq 0 ] || fail "missing from the installed tree: ${missing[*]}"
	echo "ok: every expected file is installed"

	expect "nothing in etc/ (the admin's), nothing in usr/include/linux (linux-libc-dev's)" \
		sh -c "[ ! -e '$dest/etc' ] && [ ! -e '$p/include/linux' ]"
	expect "libwq.so.1 -> libwq.so.$version" [ "$(readlink "$p/lib/libwq.so.1")" = "libwq.so.$version" ]
	expect "libwq.so -> libwq.so.1" [ "$(readlink "$p/lib/libwq.so")" = libwq.so.1 ]
	expect "the soname is libwq.so.1" \
		sh -c "readelf -d '$p/lib/libwq.so.$version' | grep -q 'SONAME.*\\[libwq.so.1\\]'"
	expect "wq.ko is for $kver" \
		sh -c "modinfo -F vermagic '$dest/lib/modules/$kver/updates/wq.ko' | grep -q '^$kver '"
	expect "depmod -b put updates/wq.ko in modules.dep" \
		grep -q '^updates/wq.ko:' "$dest/lib/modules/$kver/modules.dep"
	expect "Module.symvers exports the kernel API" \
		grep -q '	kwq_create	' "$dest$ksrc/$kver/Module.symvers"
	expect "the DKMS tree's dkms.conf is version $version" \
		grep -qx "PACKAGE_VERSION=\"$version\"" "$dest$ksrc/dkms.conf"
	expect "dkms-post-build is executable" [ -x "$dest$ksrc/packaging/dkms-post-build" ]
	expect "libwq.pc: prefix /usr/local, version $version" \
		sh -c "grep -qx 'prefix=/usr/local' '$p/lib/pkgconfig/libwq.pc' &&
		       grep -qx 'Version: $version' '$p/lib/pkgconfig/libwq.pc'"
	expect "the udev rule gives /dev/wq mode 0666" \
		grep -q '^SUBSYSTEM=="misc", KERNEL=="wq", MODE="0666"$' "$dest/usr/lib/udev/rules.d/60-wq.rules"
	expect "modprobe.d and modules-load.d defaults are all commented out" \
		sh -c "! grep -v '^#' '$dest/usr/lib/modprobe.d/wq.conf' '$dest/usr/lib/modules-load.d/wq.conf' | grep -q ."
	expect "wq-metrics.service runs wqctl by its absolute path, into node-exporter's directory" \
		grep -qx 'ExecStart=/usr/local/bin/wqctl metrics --textfile /var/lib/prometheus/node-exporter/wq.prom' \
			"$dest/usr/lib/systemd/system/wq-metrics.service"
	defaults_texts "$dest"
	# Every parameter of the module is documented, with its default.
	for parm in $(modinfo -F parm kmod/wq.ko | cut -d: -f1); do
		grep -q "^#   $parm " "$dest/usr/lib/modprobe.d/wq.conf" ||
			fail "modprobe.d/wq.conf does not document parameter $parm"
		grep -q "^.It Va $parm " doc/man/wq.4 ||
			fail "wq(4) does not document parameter $parm"
		grep -q "^#options wq .*\\b$parm=" "$dest/usr/lib/modprobe.d/wq.conf" ||
			fail "modprobe.d/wq.conf has no commented options line for $parm"
	done
	echo "ok: modprobe.d/wq.conf and wq(4) document every parameter of modinfo kmod/wq.ko"

	# PREFIX=/usr, then uninstall: nothing but depmod's indexes is left.
	d2=$out/root-usr
	expect "make install PREFIX=/usr DESTDIR=$d2" \
		make -s install PREFIX=/usr DESTDIR="$d2" KDIR="$kdir"
	expect "PREFIX=/usr: /usr/lib/libwq.so.$version, /usr/bin/wqctl, prefix=/usr" \
		sh -c "[ -f '$d2/usr/lib/libwq.so.$version' ] && [ -x '$d2/usr/bin/wqctl' ] &&
		       grep -qx 'prefix=/usr' '$d2/usr/lib/pkgconfig/libwq.pc'"
	expect "make uninstall PREFIX=/usr DESTDIR=$d2" \
		make -s uninstall PREFIX=/usr DESTDIR="$d2" KDIR="$kdir"
	left=$(find "$d2" \( -type f -o -type l \) ! -path "*/lib/modules/$kver/modules.*")
	[ -z "$left" ] || fail "make uninstall left: $left"
	expect "depmod -b after uninstall dropped wq" \
		sh -c "! grep -q wq.ko '$d2/lib/modules/$kver/modules.dep'"
}

# --------------------------------------------------------------- man
phase_man() {
	local man=$dest/usr/local/share/man page err bad=0 f fns missing=()
	[ -d "$man" ] || fail "no $man: run the tree phase first"
	need groff groff-base
	need man man-db
	for page in "$man"/man1/*.1 "$man"/man3/*.3; do
		[ -e "$page" ] || fail "dangling man page link $page"
		[ -L "$page" ] && continue
		err=$(groff -ww -z -mandoc "$page" 2>&1)
		[ -z "$err" ] || { echo "groff -ww: ${page##*/}: $err"; bad=1; }
		err=$(LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -E UTF-8 -l "$page" 2>&1 >/dev/null)
		[ -z "$err" ] || { echo "man --warnings -l: ${page##*/}: $err"; bad=1; }
		echo "checked ${page#"$man"/}"
	done
	[ "$bad" -eq 0 ] || fail "man pages with warnings"
	echo "ok: every page renders without warnings"
	# Each function of <wq.h> has a page (link or page of its own).
	fns=$(sed -n 's/^[a-z_ ]*[ *]\(wq_[a-z_]*\)(.*/\1/p' "$dest/usr/local/include/wq.h")
	for f in $fns; do
		[ -e "$man/man3/$f.3" ] || missing+=("$f")
	done
	# A note, not a failure: a new call lands before its page does.
	if [ ${#missing[@]} -gt 0 ]; then
		note "functions of <wq.h> without a man page (add them to doc/man/): ${missing[*]}"
	else
		echo "ok: every function of <wq.h> has a page ($(wc -w <<<"$fns") functions)"
	fi
	expect "man -l of a link page (wq_done.3) shows WQ_GET(3)" \
		sh -c "MANWIDTH=80 man -l '$man/man3/wq_done.3' 2>/dev/null | grep -q 'WQ_GET(3)'"
}

# --------------------------------------------------------------- pkg-config
write_program() {	# write_program DIR: the libwq test program and a uapi user
	mkdir -p "$1"
	cat >"$1/prog.c" <<'EOF'
/* A libwq user built against the installed copy (install_test.sh). */
#include <stdio.h>
#include <string.h>
#include <wq.h>

int main(int argc, char **argv)
{
	char key[WQ_KEY_MAX];
	uint64_t ns = 0;
	ssize_t n;
	int fd, ret;

	/* probe: the library works without the device */
	if (wq_parse_duration("1.5s", &ns) || ns != 1500000000ULL) {
		fprintf(stderr, "wq_parse_duration: %llu\n", (unsigned long long)ns);
		return 1;
	}
	if (argc < 2 || strcmp(argv[1], "run")) {
		printf("libwq probe: ok\n");
		return 0;
	}
	fd = wq_create("install-smoke", NULL);
	if (fd < 0) {
		fprintf(stderr, "wq_create: %d\n", fd);
		return 1;
	}
	if ((ret = wq_add(fd, "ns/pod-1", 8)) || (ret = wq_add(fd, "ns/pod-1", 8)) ||
	    (ret = wq_len(fd)) != 1) {
		fprintf(stderr, "wq_add/wq_len: %d\n", ret);
		return 1;
	}
	n = wq_get(fd, key, sizeof(key), 5000);
	if (n != 8 || memcmp(key, "ns/pod-1", 8) || (ret = wq_done(fd, key, n)) ||
	    (ret = wq_close(fd)) || (ret = wq_destroy("install-smoke"))) {
		fprintf(stderr, "wq_get %zd, done/close/destroy %d\n", n, ret);
		return 1;
	}
	printf("libwq run: ok\n");
	return 0;
}
EOF
	cat >"$1/uapi.c" <<'EOF'
/* The ioctl ABI alone, as <linux/wq.h> (install_test.sh). */
#include <linux/wq.h>

_Static_assert(WQ_KEY_MAX == 4096, "WQ_KEY_MAX");
unsigned long wq_uapi_create = WQ_IOC_CREATE;
EOF
}

phase_pkg_config() {
	local b=$out/pkg-config pc=(pkg-config) cflags libs slibs
	[ -f "$dest/usr/local/lib/pkgconfig/libwq.pc" ] || fail "no installed libwq.pc: run the tree phase first"
	need pkg-config pkgconf
	write_program "$b"
	# Only the scratch root: its .pc, its -I and -L paths.
	export PKG_CONFIG_LIBDIR=$dest/usr/local/lib/pkgconfig PKG_CONFIG_SYSROOT_DIR=$dest
	unset PKG_CONFIG_PATH
	expect "pkg-config --modversion libwq is $version" [ "$("${pc[@]}" --modversion libwq)" = "$version" ]
	cflags=$("${pc[@]}" --cflags libwq) libs=$("${pc[@]}" --libs libwq)
	slibs=$("${pc[@]}" --static --libs libwq)
	echo "cflags: $cflags; libs: $libs; static: $slibs"
	# shellcheck disable=SC2086 # pkg-config output is a word list
	expect "cc \$(pkg-config --cflags --libs libwq) prog.c" \
		cc -std=gnu11 -Wall -Werror $cflags -o "$b/prog" "$b/prog.c" $libs
	expect "it needs libwq.so.1" \
		sh -c "readelf -d '$b/prog' | grep -q 'NEEDED.*\\[libwq.so.1\\]'"
	expect "it runs against the installed libwq.so.1 (LD_LIBRARY_PATH)" \
		env LD_LIBRARY_PATH="$dest/usr/local/lib" "$b/prog"
	# shellcheck disable=SC2086
	expect "cc -static \$(pkg-config --cflags --static --libs libwq) prog.c" \
		cc -std=gnu11 -Wall -Werror -static $cflags -o "$b/prog-static" "$b/prog.c" $slibs
	expect "the static program has no interpreter" \
		sh -c "! readelf -l '$b/prog-static' | grep -q INTERP"
	expect "the static program runs" "$b/prog-static"
	# shellcheck disable=SC2086
	expect "<linux/wq.h> compiles with pkg-config's cflags" \
		cc -std=gnu11 -Wall -Werror $cflags -c -o "$b/uapi.o" "$b/uapi.c"
}

# --------------------------------------------------------------- kernel API
write_consumer() {	# write_consumer DIR: a module using <wq/kwq.h>
	mkdir -p "$1"
	cat >"$1/Kbuild" <<'EOF'
# A consumer of wq's kernel API built against an installed wq:
# WQ_SRC=/usr/src/wq-VERSION (make install, wq-dkms).
obj-m += wq_consumer.o
ccflags-y += -I$(WQ_SRC)/kmod/include -I$(WQ_SRC)
EOF
	cat >"$1/wq_consumer.c" <<'EOF'
// SPDX-License-Identifier: GPL-2.0
/* A kernel-API consumer built against an installed wq (install_test.sh). */
#include <linux/module.h>
#include <linux/string.h>
#include <wq/kwq.h>

static int __init wq_consumer_init(void)
{
	struct kwq *q = kwq_create(NULL, NULL);
	char key[8];
	ssize_t n;
	int ret = 0;

	if (IS_ERR(q))
		return PTR_ERR(q);
	if (kwq_add(q, "hello", 5, GFP_KERNEL) || kwq_len(q) != 1)
		ret = -EIO;
	n = kwq_try_get(q, key, sizeof(key));
	if (n != 5 || memcmp(key, "hello", 5) || kwq_done(q, key, n))
		ret = -EIO;
	kwq_put(q);
	pr_info("wq_consumer: %s\n", ret ? "FAIL" : "ok");
	return ret;
}

static void __exit wq_consumer_exit(void)
{
}
module_init(wq_consumer_init);
module_exit(wq_consumer_exit);
MODULE_IMPORT_NS(WQ_NS);
MODULE_DESCRIPTION("wq kernel-API consumer (install test)");
MODULE_LICENSE("GPL");
EOF
}

# build_consumer DIR KDIR WQ_SRC SYMVERS
build_consumer() {
	write_consumer "$1"
	make -C "$2" M="$1" WQ_SRC="$3" KBUILD_EXTRA_SYMBOLS="$4" modules ||
		fail "consumer build (make -C $2 M=$1 WQ_SRC=$3 KBUILD_EXTRA_SYMBOLS=$4)"
	expect "wq_consumer.ko depends on wq" \
		sh -c "modinfo -F depends '$1/wq_consumer.ko' | grep -qx wq"
}

phase_kernel_api() {
	local kver kdir
	kver=$(cat "$out/kver" 2>/dev/null) || fail "run the tree phase first"
	kdir=/usr/src/linux-headers-$kver
	build_consumer "$out/consumer-install" "$kdir" "$dest$ksrc" "$dest$ksrc/$kver/Module.symvers"
}

# --------------------------------------------------------------- DKMS
phase_dkms() {	# phase_dkms SERIES
	local series=$1 kdir kver t opts m keep ko
	need dkms dkms
	kdir=$(headers "$series")
	[ -n "$kdir" ] || skip "no linux-headers-$series.*-amd64 (selftests/vm/install-deps $series)"
	kver=$(release "$kdir")
	# dkms install may run modprobe on the host when the admin asked for it.
	if grep -qs '^[^#]*modprobe_on_install' /etc/dkms/framework.conf /etc/dkms/framework.conf.d/*.conf; then
		skip "/etc/dkms sets modprobe_on_install: not running dkms install here"
	fi
	t=$out/dkms-$series
	rm -rf "$t" && mkdir -p "$t/tree" "$t/lib/modules/$kver"
	expect "make dkms-src DESTDIR=$t/src" make -s dkms-src DESTDIR="$t/src"
	# Scratch trees only; signing (Debian kernels) with a scratch key.
	export mok_signing_key=$t/mok.key mok_certificate=$t/mok.pub
	opts=(--dkmstree "$t/tree" --sourcetree "$t/src/usr/src" --installtree "$t/lib/modules")
	expect "dkms add wq/$version" dkms add "wq/$version" "${opts[@]}"
	expect "dkms build wq/$version -k $kver" \
		dkms build "wq/$version" -k "$kver" --kernelsourcedir "$kdir" "${opts[@]}"
	m=$t/tree/wq/$version/$kver/$(uname -m)/module
	expect "POST_BUILD kept Module.symvers beside the module" \
		grep -q '	kwq_create	' "$m/Module.symvers"
	expect "dkms install wq/$version -k $kver --no-depmod" \
		dkms install "wq/$version" -k "$kver" --kernelsourcedir "$kdir" --no-depmod "${opts[@]}"
	# Compressed as the kernel's own modules are (6.12: CONFIG_MODULE_COMPRESS_XZ).
	ko=$(ls "$t/lib/modules/$kver/updates/dkms/"wq.ko* 2>/dev/null | head -n1)
	[ -n "$ko" ] || fail "no wq.ko* in $t/lib/modules/$kver/updates/dkms/"
	expect "${ko#"$t"/} is for $kver" \
		sh -c "modinfo -F vermagic '$ko' | grep -q '^$kver '"
	expect "dkms status: installed" \
		sh -c "dkms status ${opts[*]} | grep -q '^wq/$version, $kver, .*: installed'"
	expect "depmod -b finds it" \
		sh -c "depmod -b '$t' '$kver' 2>/dev/null && grep -q '^updates/dkms/${ko##*/}:' '$t/lib/modules/$kver/modules.dep'"
	keep=$t/keep
	mkdir -p "$keep" && cp "$m/Module.symvers" "$keep/" && printf '%s\n' "$kver" >"$keep/kver" &&
	case $ko in
	*.xz) xz -dc "$ko" >"$keep/wq.ko" ;;
	*.zst) zstd -qdc "$ko" >"$keep/wq.ko" ;;
	*.gz) gzip -dc "$ko" >"$keep/wq.ko" ;;
	*) cp "$ko" "$keep/wq.ko" ;;
	esac || fail "cannot keep the module"
	expect "dkms remove wq/$version --all --no-depmod" \
		dkms remove "wq/$version" --all --no-depmod "${opts[@]}"
	expect "nothing of wq is left in the install and DKMS trees" \
		sh -c "[ ! -e '$t/lib/modules/$kver/updates/dkms/wq.ko' ] && [ ! -e '$t/tree/wq' ]"
	# The kernel API against the DKMS build (the guest loads it).
	build_consumer "$keep/consumer" "$kdir" "$t/src$ksrc" "$keep/Module.symvers"
	cp "$keep/consumer/wq_consumer.ko" "$keep/" || fail "cannot keep wq_consumer.ko"
}

# --------------------------------------------------------------- guest
phase_guest() {
	local keep=$out/dkms-6.1/keep g=$out/guest f
	for f in "$keep/wq.ko" "$keep/wq_consumer.ko" "$out/pkg-config/prog-static" \
		 "$dest/usr/local/bin/wqctl"; do
		[ -f "$f" ] || fail "no $f: run the earlier phases first"
	done
	rm -rf "$g" && mkdir -p "$g"
	cat >"$g/smoke" <<'EOF'
#!/bin/sh
# In the guest: vm-run loaded its own wq.ko; replace it with the DKMS one.
fail() { echo "FAIL: $*"; exit 1; }
rmmod wq || fail "rmmod of vm-run's wq"
insmod /dkms/wq.ko || fail "insmod of the DKMS-built wq.ko"
echo "ok: the DKMS-built wq.ko is loaded ($(grep '^wq ' /proc/modules))"
[ "$(stat -c %a /dev/wq)" = 666 ] || fail "/dev/wq mode $(stat -c %a /dev/wq)"
echo "ok: /dev/wq is 0666"
/bin/libwq-prog run || fail "the pkg-config-built libwq program"
wqctl create smoke || fail "wqctl create"
wqctl add smoke k1 k2 k1 || fail "wqctl add"
[ "$(wqctl len smoke)" = 2 ] || fail "wqctl len: $(wqctl len smoke)"
[ "$(wqctl get smoke --timeout 5s)" = k1 ] || fail "wqctl get"
wqctl done smoke k1 || fail "wqctl done"
[ "$(wqctl get smoke --done --timeout 5s)" = k2 ] || fail "wqctl get --done"
wqctl destroy smoke || fail "wqctl destroy"
echo "ok: wqctl create/add/len/get/done/destroy"
insmod /dkms/wq_consumer.ko || fail "insmod of the consumer built against the DKMS Module.symvers"
rmmod wq_consumer || fail "rmmod wq_consumer"
echo "ok: the kernel-API consumer loads against it"
EOF
	chmod 755 "$g/smoke"
	selftests/vm/vm-run --kernel 6.1 --timeout 300 \
		--add "$keep/wq.ko:/dkms/wq.ko" --add "$keep/wq_consumer.ko:/dkms/wq_consumer.ko" \
		--add "$out/pkg-config/prog-static:/bin/libwq-prog" \
		--add "$dest/usr/local/bin/wqctl:/bin/wqctl" --add "$g/smoke:/bin/install-smoke" \
		-- /bin/install-smoke || fail "vm-run (status $?)"
}

# --------------------------------------------------------------- debian/
phase_deb() {
	local b=$out/deb src r arch ma d changes
	need dpkg-buildpackage dpkg-dev
	need dh debhelper
	need dh_dkms dh-dkms
	need lintian lintian
	arch=$(dpkg --print-architecture) ma=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
	expect "debian/changelog is version $version (dkms.conf)" \
		[ "$(dpkg-parsechangelog -S Version)" = "$version" ]
	rm -rf "$b" && src=$b/wq-$version && mkdir -p "$src"
	# The tree as a clone has it (plus files not yet committed), no build/.
	if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
		git ls-files -co --exclude-standard -z | grep -zv '^build/' |
			tar --null -T - --ignore-failed-read -c 2>/dev/null | tar -x -C "$src"
	else
		tar -c --exclude=./build --exclude='*.o' --exclude='*.ko' . | tar -x -C "$src"
	fi || fail "cannot copy the tree"
	(cd "$src" && dpkg-buildpackage -us -uc) || fail "dpkg-buildpackage -us -uc"
	echo "ok: dpkg-buildpackage -us -uc"
	changes=$b/wq_${version}_$arch.changes
	expect "lintian --fail-on error,warning (none of either)" lintian --fail-on error,warning "$changes"
	r=$b/root
	for d in wq-dkms_"$version"_all libwq1_"$version"_"$arch" libwq-dev_"$version"_"$arch" \
		 wqctl_"$version"_"$arch"; do
		expect "dpkg-deb -x $d.deb" dpkg-deb -x "$b/$d.deb" "$r"
	done
	expect "libwq1: libwq.so.1 -> libwq.so.$version in /usr/lib/$ma" \
		[ "$(readlink "$r/usr/lib/$ma/libwq.so.1")" = "libwq.so.$version" ]
	expect "wq-dkms: dkms.conf, kwq.h, the udev rule, the examples" \
		sh -c "grep -qx 'PACKAGE_VERSION=\"$version\"' '$r$ksrc/dkms.conf' &&
		       [ -f '$r$ksrc/kmod/include/wq/kwq.h' ] && [ -f '$r/usr/lib/udev/rules.d/60-wq.rules' ] &&
		       [ -f '$r/usr/lib/modprobe.d/wq.conf' ] && [ -f '$r/usr/lib/modules-load.d/wq.conf' ] &&
		       [ -f '$r/usr/share/man/man4/wq.4.gz' ]"
	expect "no package ships anything in /etc (no conffile) or /usr/include/linux" \
		sh -c "[ ! -e '$r/etc' ] && [ ! -e '$r/usr/include/linux' ]"
	expect "libwq-dev: <wq/linux/wq.h>" [ -f "$r/usr/include/wq/linux/wq.h" ]
	expect "wqctl: wq-metrics.service and .timer, not enabled by the package" \
		sh -c "[ -f '$r/lib/systemd/system/wq-metrics.timer' ] &&
		       dpkg-deb -e '$b/wqctl_${version}_$arch.deb' '$b/ctl-wqctl' &&
		       grep -q \"deb-systemd-helper debian-installed 'wq-metrics.timer'\" '$b/ctl-wqctl/postinst' &&
		       ! grep -q 'was-enabled defaults to true' '$b/ctl-wqctl/postinst'"
	copyright_check
	mkdir -p "$b/ctl" && dpkg-deb -e "$b/wq-dkms_${version}_all.deb" "$b/ctl" || fail "dpkg-deb -e"
	expect "wq-dkms's postinst runs DKMS (dh_dkms)" grep -q 'dh_dkms' "$b/ctl/postinst"
	expect "wqctl runs (--help)" sh -c "'$r/usr/bin/wqctl' --help >/dev/null"
	expect "libwq-dev: man pages, wq_done(3) a link" \
		sh -c "[ -f '$r/usr/share/man/man3/libwq.3.gz' ] && [ -L '$r/usr/share/man/man3/wq_done.3.gz' ] &&
		       [ -e '$r/usr/share/man/man3/wq_done.3.gz' ]"
	write_program "$b/prog"
	# shellcheck disable=SC2046 # pkg-config output is a word list
	expect "libwq-dev: a pkg-config-built program links and runs" \
		sh -c "cc -std=gnu11 -Wall -Werror -o '$b/prog/prog' '$b/prog/prog.c' \
			\$(PKG_CONFIG_LIBDIR='$r/usr/lib/$ma/pkgconfig' PKG_CONFIG_SYSROOT_DIR='$r' \
			  pkg-config --cflags --libs libwq) && LD_LIBRARY_PATH='$r/usr/lib/$ma' '$b/prog/prog'"
}

run_phase() {
	case $1 in
	tree) phase_tree ;;
	man) phase_man ;;
	pkg-config) phase_pkg_config ;;
	kernel-api) phase_kernel_api ;;
	dkms-6.1) phase_dkms 6.1 ;;
	dkms-6.12) phase_dkms 6.12 ;;
	guest) phase_guest ;;
	admin) phase_admin ;;
	deb) phase_deb ;;
	scrape) phase_scrape ;;
	*) echo "install_test.sh: unknown phase $1 (--list)" >&2; exit 2 ;;
	esac
}

case ${1:-} in
--list) printf '%s\n' "${phases[@]}" ;;
-h|--help) sed -n '3,/^set -u/p' "$0" | sed '$d' ;;
"")
	rc=0
	mkdir -p build
	for p in "${phases[@]}"; do
		p=${p%% *}
		(run_phase "$p") >"$out-$p.log" 2>&1
		s=$?
		case $s in
		0) echo "ok - install: $p" ;;
		4) echo "ok - install: $p # SKIP" ;;
		*) echo "not ok - install: $p (log: $out-$p.log)"; rc=1 ;;
		esac
	done
	exit $rc
	;;
*) run_phase "$1"; exit 0 ;;
esac
