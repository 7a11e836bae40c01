# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# shellcheck disable=SC2154,SC2034 # vm-run's settings in, results out
#
# vm-run-lib.sh: the functions of vm-run (sourced by it, which reads the
# whole file at once: editing it cannot disturb a running vm-run). They
# use vm-run's settings and die(): the kernel to boot (resolve_kernel),
# the image that boots it (prepare_boot_image), the module built for it
# (build_module), and the guest's libraries and init (copy_libs,
# write_init).

# ---------------------------------------------------------------- kernel
newest() { printf '%s\n' "$@" | sort -V | tail -n 1; }

# Which apt packages provide kernel series $1 (e.g. 6.12) in flavour $2
# (amd64 or rt-amd64)? Prints "image-pkg headers-pkg", or nothing.
series_packages() {
	local s=$1 f=$2
	command -v apt-cache >/dev/null 2>&1 || return 0
	if apt-cache show "linux-image-$s-$f" >/dev/null 2>&1; then
		printf 'linux-image-%s-%s linux-headers-%s-%s' "$s" "$f" "$s" "$f"
	elif apt-cache depends "linux-image-$f" 2>/dev/null |
		grep -q "Depends: linux-image-${s//./\\.}\\."; then
		printf 'linux-image-%s linux-headers-%s' "$f" "$f"
	fi
}

# Sets: release, image, kdir.
resolve_kernel() {
	local series flavor cands=() f
	shopt -s nullglob
	case $kernel in
	builtin)
		kdir=$(cd "$builtin_dir" 2>/dev/null && pwd) || die 2 "--builtin $builtin_dir: no such directory"
		image=$kdir/arch/x86/boot/bzImage
		[[ -f $image && -f $kdir/include/config/kernel.release ]] ||
			die 2 "--builtin $kdir: no built kernel there ($image, include/config/kernel.release)"
		grep -qx 'CONFIG_WQ=y' "$kdir/.config" ||
			die 2 "--builtin $kdir: its .config has no CONFIG_WQ=y (selftests/vm/in-tree adds wq to a tree)"
		release=$(<"$kdir/include/config/kernel.release")
		bdir_prefix=builtin-
		return
		;;
	debug)
		kdir=${WQ_DEBUG_KDIR:-/var/tmp/wq-debug-kernel/current}
		image=$kdir/arch/x86/boot/bzImage
		[[ -f $image ]] ||
			die 2 "--kernel debug: no $image (set WQ_DEBUG_KDIR to the debug kernel build dir; it is built separately, no apt package provides it)"
		[[ -f $kdir/include/config/kernel.release ]] ||
			die 2 "--kernel debug: $kdir/include/config/kernel.release missing (incomplete kernel build)"
		release=$(<"$kdir/include/config/kernel.release")
		[[ -f $kdir/Module.symvers ]] ||
			printf '%s: warning: %s/Module.symvers missing; run make modules there\n' "$prog" "$kdir" >&2
		return
		;;
	[0-9]*.[0-9]* | [0-9]*.[0-9]*-rt)
		if [[ $kernel =~ ^([0-9]+\.[0-9]+)(-rt)?$ ]]; then
			series=${BASH_REMATCH[1]}
			flavor=${BASH_REMATCH[2]:+rt-}amd64
			for f in /boot/vmlinuz-"$series".*-"$flavor"; do
				f=${f#/boot/vmlinuz-}
				[[ $flavor == amd64 && $f == *-rt-amd64 ]] && continue
				[[ $f == *-cloud-amd64 ]] && continue
				cands+=("$f")
			done
			if ((${#cands[@]} == 0)); then
				local pkgs
				pkgs=$(series_packages "$series" "$flavor")
				[[ -n $pkgs ]] ||
					die 2 "--kernel $kernel: no /boot/vmlinuz-$series.*-$flavor installed, and no known apt package provides it"
				die 2 "--kernel $kernel: no /boot/vmlinuz-$series.*-$flavor installed; missing apt packages: $pkgs"
			fi
			release=$(newest "${cands[@]}")
		else
			release=$kernel
		fi
		;;
	*)
		release=$kernel
		;;
	esac
	image=/boot/vmlinuz-$release
	kdir=/usr/src/linux-headers-$release
	local missing=()
	[[ -f $image ]] || missing+=("linux-image-$release")
	[[ -f $kdir/Makefile ]] || missing+=("linux-headers-$release")
	((${#missing[@]} == 0)) ||
		die 2 "--kernel $kernel: $([[ -f $image ]] || printf 'no %s; ' "$image")$([[ -f $kdir/Makefile ]] || printf 'no %s; ' "$kdir")missing apt package(s): ${missing[*]}"
	[[ -r $image ]] || die 2 "$image is not readable by $(id -un)"
}

# ---------------------------------------------------------------- build
# Build products never copied into (and never deleted from) the build dir.
is_product() {
	case ${1##*/} in
	*.o | *.ko | *.mod | *.mod.c | *.cmd | *.a | *.so | *.d | modules.order | \
		Module.symvers | .tmp* | *.order | *.symvers | *.dwo | *.su | *.s | *.i | *.lst)
		return 0 ;;
	esac
	return 1
}

# ELF with a PVH entry note (XEN_ELFNOTE_PHYS32_ENTRY = 18)?
has_pvh_note() {
	[[ $(head -c 4 "$1" 2>/dev/null | od -An -c | tr -d ' ') == 177ELF ]] || return 1
	command -v readelf >/dev/null 2>&1 || return 0
	LC_ALL=C readelf -n "$1" 2>/dev/null | grep -Eq 'Xen[[:space:]].*(\(0x0*12\)|PHYS32)'
}

# Decompress the vmlinux payload of a bzImage.
extract_vmlinux() { # IMAGE OUT
	local magic tool off
	for magic in '\xFD7zXZ\x00:xz' '\x28\xB5\x2F\xFD:zstd' '\x1F\x8B\x08:gzip' '\x02\x21\x4C\x18:lz4'; do
		tool=${magic##*:}
		command -v "$tool" >/dev/null 2>&1 || continue
		for off in $(LC_ALL=C grep -obUaP "${magic%:*}" "$1" 2>/dev/null | head -n 3 | cut -d: -f1); do
			# Trailing data after the payload makes the tool complain; the
			# ELF check below decides.
			tail -c +$((off + 1)) "$1" | "$tool" -dc >"$2" 2>/dev/null
			[[ $(head -c 4 "$2" | od -An -c | tr -d ' ') == 177ELF ]] && return 0
		done
	done
	return 1
}

# Sets boot_image: an uncompressed vmlinux with a PVH entry when possible
# (cached in build/vm/<release>/), else the compressed image.
prepare_boot_image() {
	boot_image=$image
	((bzimage)) && return 0
	if [[ $kernel == debug || $kernel == builtin ]]; then
		if grep -qx 'CONFIG_PVH=y' "$kdir/.config" 2>/dev/null &&
			[[ -f $kdir/vmlinux && ! $kdir/vmlinux -ot $image ]] && has_pvh_note "$kdir/vmlinux"; then
			boot_image=$kdir/vmlinux
		fi
		return 0
	fi
	if [[ -f /boot/config-$release ]] && ! grep -qx 'CONFIG_PVH=y' "/boot/config-$release"; then
		return 0
	fi
	local out=$bdir/vmlinux stamp
	stamp="$image $(stat -c '%s %Y' "$image")"
	if [[ -f $out && "$(cat "$out.stamp" 2>/dev/null)" == "$stamp" ]]; then
		boot_image=$out
		return 0
	fi
	rm -f "$out" "$out.stamp"
	if extract_vmlinux "$image" "$out.tmp" && has_pvh_note "$out.tmp"; then
		mv "$out.tmp" "$out" && printf '%s\n' "$stamp" >"$out.stamp" && boot_image=$out
	else
		rm -f "$out.tmp"
		printf '%s: note: no PVH vmlinux in %s, booting it compressed (slower)\n' "$prog" "$image" >&2
	fi
	return 0
}

# Identity of the kernel build tree: a rebuilt tree at the same path (the
# debug kernel) must trigger a module rebuild.
kdir_stamp() {
	local f
	printf '%s W=1 KCFLAGS=-Werror\n' "$kdir"
	for f in Module.symvers .config include/generated/utsrelease.h; do
		printf '%s %s\n' "$f" "$(stat -L -c '%s %Y' "$kdir/$f" 2>/dev/null)"
	done
}

# Copy kmod/ and uapi/ into $src, only what changed (sets changed=1 then).
sync_sources() {
	local f rel want=() have=()
	changed=0
	# Start from scratch if this release was last built against another tree.
	if [[ "$(cat "$bdir/kdir" 2>/dev/null)" != "$kdir" ]]; then
		rm -rf -- "$src" && mkdir -p "$src" && printf '%s\n' "$kdir" >"$bdir/kdir"
	fi

	[[ -f $root/Kbuild && -d $root/kmod ]] || die 2 "$root/Kbuild or $root/kmod missing"
	local tops=("$root/Kbuild" "$root/kmod")
	[[ -d $root/uapi ]] && tops+=("$root/uapi")
	while IFS= read -r -d '' f; do
		rel=${f#"$root"/}
		is_product "$rel" || want+=("$rel")
	done < <(find "${tops[@]}" \( -type f -o -type l \) -print0)
	# Copy only what changed, so kbuild rebuilds only what changed.
	for rel in "${want[@]}"; do
		cmp -s "$root/$rel" "$src/$rel" && continue
		changed=1
		if ! { mkdir -p "$src/$(dirname "$rel")" &&
			rm -f "$src/$rel" && cp -L "$root/$rel" "$src/$rel"; }; then
			die 2 "cannot copy $rel into $src"
		fi
	done
	# Delete sources that disappeared from the tree.
	while IFS= read -r -d '' f; do
		rel=${f#"$src"/}
		is_product "$rel" && continue
		have+=("$rel")
	done < <(find "$src" \( -type f -o -type l \) -print0)
	local -A wanted=()
	for rel in "${want[@]}"; do wanted[$rel]=1; done
	for rel in "${have[@]}"; do
		[[ -n ${wanted[$rel]:-} ]] && continue
		rm -f -- "$src/$rel"
		changed=1
	done
}

build_module() {
	local f changed stamp
	stamp=$(kdir_stamp)
	sync_sources

	# The modules this build produces (modules.order names .ko or .o).
	local kos=()
	# kmod/samples/ is built on its own, as an out-of-tree consumer of
	# wq would be: against wq's Module.symvers (KBUILD_EXTRA_SYMBOLS).
	local samples=$src/kmod/samples
	list_kos() {
		local dir order
		kos=()
		[[ -f $src/modules.order ]] || return 1
		for dir in "$src" "$samples"; do
			order=$dir/modules.order
			[[ $dir == "$samples" && ! -f $samples/Kbuild ]] && continue
			[[ -f $order ]] || return 1
			while IFS= read -r f; do
				[[ $f == /* ]] || f=$dir/$f
				f=${f%.o}
				f=${f%.ko}.ko
				[[ -f $f ]] || return 1
				kos+=("$f")
			done <"$order"
		done
		((${#kos[@]}))
	}

	# Skip make (~0.7 s) when nothing changed since the last good build.
	if ((changed)) || [[ "$(cat "$bdir/build.stamp" 2>/dev/null)" != "$stamp" ]] || ! list_kos; then
		rm -f "$bdir/build.stamp"
		if ! make -C "$kdir" M="$src" W=1 KCFLAGS=-Werror -j"$(nproc 2>/dev/null || echo 2)" modules \
			>"$bdir/build.log" 2>&1; then
			cat "$bdir/build.log" >&2
			die 2 "module build failed for $release (make -C $kdir M=$src W=1 KCFLAGS=-Werror modules)"
		fi
		# objtool's findings (a call with user access open, say) are
		# warnings to kbuild: here they fail the build
		if grep -q 'objtool: ' "$bdir/build.log"; then
			grep 'objtool: ' "$bdir/build.log" >&2
			# so the next run builds (and checks) it again
			find "$src" -name '*.o' -delete
			die 2 "objtool warned on $release (see above)"
		fi
		# kbuild does not relink a consumer when only the symbol
		# versions it imports changed: start the samples afresh (their
		# Module.symvers too, or modpost, whose inputs may not have
		# changed, is skipped and the .mod.c removed here never comes
		# back: "No rule to make target wq_sample.ko")
		[[ -f $samples/Kbuild ]] &&
			rm -f "$samples"/*.ko "$samples"/*.mod.c "$samples"/*.mod.o \
			      "$samples"/Module.symvers
		if [[ -f $samples/Kbuild ]] &&
		   ! make -C "$kdir" M="$samples" KBUILD_EXTRA_SYMBOLS="$src/Module.symvers" \
			W=1 KCFLAGS=-Werror modules >>"$bdir/build.log" 2>&1; then
			cat "$bdir/build.log" >&2
			die 2 "sample build failed for $release (KBUILD_EXTRA_SYMBOLS=$src/Module.symvers)"
		fi
		list_kos || die 2 "build for $release: modules.order names missing modules"
		printf '%s\n' "$stamp" >"$bdir/build.stamp"
	fi
	for f in "${kos[@]}"; do
		cp "$f" "$initrd_root/wq/" || die 2 "cannot copy $f"
	done
	[[ -f $initrd_root/wq/wq.ko ]] || die 2 "build for $release produced no wq.ko (${#kos[@]} modules)"
}

# --builtin: wq is in the kernel. The modules of the tree's modules.order
# in a directory named wq (wq's test modules) and the sample, built
# against the tree, go to /wq.
build_builtin() {
	local f changed stamp samples=$src/kmod/samples dir
	stamp=$(kdir_stamp)
	sync_sources
	if ((changed)) || [[ "$(cat "$bdir/build.stamp" 2>/dev/null)" != "$stamp" ]] ||
	   [[ ! -f $samples/modules.order ]]; then
		rm -f "$bdir/build.stamp" "$samples"/*.ko "$samples"/*.mod.c "$samples"/*.mod.o \
		      "$samples"/Module.symvers
		if ! make -C "$kdir" M="$samples" W=1 KCFLAGS=-Werror modules >"$bdir/build.log" 2>&1; then
			cat "$bdir/build.log" >&2
			die 2 "sample build failed against $kdir (make -C $kdir M=$samples modules)"
		fi
		printf '%s\n' "$stamp" >"$bdir/build.stamp"
	fi
	for dir in "$kdir" "$samples"; do
		[[ -f $dir/modules.order ]] || die 2 "--builtin: no $dir/modules.order (make modules there)"
		while IFS= read -r f; do
			# the tree's: only those in a directory named wq
			[[ $dir == "$samples" || /$f == */wq/* ]] || continue
			[[ $f == /* ]] || f=$dir/$f
			f=${f%.o}
			f=${f%.ko}.ko
			[[ -f $f ]] || die 2 "--builtin: $f (in modules.order) missing: make modules in $dir"
			cp "$f" "$initrd_root/wq/" || die 2 "cannot copy $f"
		done <"$dir/modules.order"
	done
}

# ---------------------------------------------------------------- initramfs
copy_libs() { # copy the shared libraries a dynamic ELF needs
	local f=$1 line lib
	[[ $(head -c 4 "$f" 2>/dev/null | od -An -c | tr -d ' ') == 177ELF ]] || return 0
	while read -r line; do
		case $line in
		*'=> /'*) lib=${line#*=> }; lib=${lib%% (*} ;;
		/*) lib=${line%% (*} ;;
		*) continue ;;
		esac
		lib=${lib//[[:space:]]/}
		[[ -e $initrd_root$lib ]] && continue
		if ! { mkdir -p "$initrd_root$(dirname "$lib")" && cp -L "$lib" "$initrd_root$lib"; }; then
			die 2 "cannot copy $lib (needed by $f)"
		fi
	done < <(LC_ALL=C ldd "$f" 2>/dev/null)
}

write_init() {
	cat <<'EOF'
#!/bin/busybox sh
# Generated by vm-run. Guest PID 1.
/bin/busybox mount -t devtmpfs devtmpfs /dev
exec </dev/null >/dev/console 2>&1
/bin/busybox --install -s
export PATH=/bin:/sbin:/usr/bin:/ HOME=/root
. /vm-run/config
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t tmpfs -o mode=1777 tmpfs /tmp
WQ_OUT_DIR=/tmp/vm-run-out
mkdir -p "$WQ_OUT_DIR"
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null
mkdir -p /dev/pts /dev/shm
mount -t devpts -o ptmxmode=666 devpts /dev/pts 2>/dev/null
mount -t tmpfs -o mode=1777 tmpfs /dev/shm 2>/dev/null
[ -e /dev/fd ] || ln -s /proc/self/fd /dev/fd
[ -e /dev/stdin ] || ln -s /proc/self/fd/0 /dev/stdin
[ -e /dev/stdout ] || ln -s /proc/self/fd/1 /dev/stdout
[ -e /dev/stderr ] || ln -s /proc/self/fd/2 /dev/stderr
hostname wq-vm

# ttyS1: status lines; ttyS2: logs in @@-marked sections.
if ! stty -F /dev/ttyS1 raw -echo || ! stty -F /dev/ttyS2 raw -echo; then
	echo "vm-run: the guest kernel has no usable ttyS1/ttyS2 (needs 3 8250 UARTs)"
	exec >/dev/null 2>&1 # last close of the console drains it
	poweroff -f
fi
exec 3>/dev/ttyS1 4>/dev/ttyS2
st() { echo "$*" >&3; }
mark="@@vm-run $nonce"

finish() {
	dmesg >/tmp/vm-run.dmesg 2>&1
	st "taint $taint0 $(cat /proc/sys/kernel/tainted)"
	for s in boot-dmesg dmesg insmod rmmod kmemleak; do
		echo "$mark $s" >&4
		[ -f /tmp/vm-run.$s ] && cat /tmp/vm-run.$s >&4
	done
	for f in "$WQ_OUT_DIR"/*; do
		case ${f##*/} in *[!A-Za-z0-9._-]*) continue ;; esac
		[ -f "$f" ] || continue
		echo "$mark out ${f##*/}" >&4
		cat "$f" >&4
		[ -n "$(tail -c 1 "$f")" ] && echo >&4
	done
	echo "$mark end" >&4
	st done
	# Last close of a tty waits until its output has drained.
	exec 3>&- 4>&- >/dev/null 2>&1
	printf '\000' | dd of=/dev/port bs=1 seek=244 count=1 2>/dev/null
	poweroff -f
}

st "start $(uname -r)"
taint0=$(cat /proc/sys/kernel/tainted)
dmesg -c >/tmp/vm-run.boot-dmesg 2>&1
km=/sys/kernel/debug/kmemleak
[ -e $km ] && echo clear >$km 2>/dev/null

if [ "$builtin" = 1 ]; then
	# wq is built in: its device came up at boot
	if [ -c /dev/wq ]; then st "insmod 0"; else st "insmod 1"; finish; fi
	no_rmmod=1
elif insmod /wq/wq.ko >/tmp/vm-run.insmod 2>&1; then
	st "insmod 0"
else
	st "insmod $?"
	finish
fi

export WQ_KO_DIR=/wq WQ_OUT_DIR
echo "$mark cmd-begin"
cd /
sh /vm-run/cmd </dev/null 3>&- 4>&-
rc=$?
echo "$mark cmd-end"
st "cmd $rc"

if [ "$no_rmmod" != 1 ] && grep -q '^wq ' /proc/modules; then
	if rmmod wq >/tmp/vm-run.rmmod 2>&1; then
		st "rmmod 0"
	else
		st "rmmod $?"
		grep '^wq ' /proc/modules >>/tmp/vm-run.rmmod
	fi
fi

if [ "$kmemleak" = 1 ]; then
	if [ ! -e $km ]; then
		st "kmemleak unavailable"
	else
		sleep 6
		if echo scan >$km && echo scan >$km && cat $km >/tmp/vm-run.kmemleak; then
			if [ -s /tmp/vm-run.kmemleak ]; then st "kmemleak found"; else st "kmemleak clean"; fi
		else
			st "kmemleak error"
		fi
	fi
fi
finish
EOF
}
