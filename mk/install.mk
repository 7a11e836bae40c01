# SPDX-License-Identifier: GPL-2.0
#
# Installation (included by the top Makefile).
#
#   make install [DESTDIR=/scratch] [PREFIX=/usr/local] [KDIR=... | KVER=...]
#   make uninstall   (same variables)
#   make dkms-src    the DKMS source tree only, in $(DESTDIR)$(KSRCDIR)
#
# install = install-kmod + install-user:
#   install-kmod  wq.ko into /lib/modules/$(KVER)/updates/ and depmod for
#                 $(KVER) (depmod -b $(DESTDIR) when DESTDIR is set); the
#                 DKMS source tree in /usr/src/wq-$(VERSION)/, which also
#                 holds <wq/kwq.h> and <uapi/linux/wq.h> for kernel-API
#                 consumers, and this build's Module.symvers in
#                 /usr/src/wq-$(VERSION)/$(KVER)/
#   install-user  libwq.so.1 (+ links), libwq.a, <wq.h>, <wq_uring.h>,
#                 <linux/wq.h>, libwq.pc, wqctl, the man pages, the udev
#                 rule, and the modprobe.d and modules-load.d examples
#                 (commented out)
#
# The module is built for KDIR (default: the newest 6.1 headers, as for
# `make module`); KVER=X gives KDIR=/lib/modules/X/build unless KDIR is
# given too. To install for the running kernel:
#   make install KVER=$(uname -r)
# Kernel paths (/lib/modules, /usr/src for DKMS) and configuration (/etc)
# do not follow PREFIX; every directory below may be overridden.

# One version for the module, libwq and wqctl: wq.h's WQ_VERSION_* (dkms.conf,
# debian/changelog and the module's MODULE_VERSION say the same; make check
# compares them).
wq_hdr_version = $(shell sed -n 's/^\#define WQ_VERSION_$(1)[[:space:]]*\([0-9]*\)$$/\1/p' $(CURDIR)/userspace/include/wq.h)
VERSION := $(call wq_hdr_version,MAJOR).$(call wq_hdr_version,MINOR).$(call wq_hdr_version,PATCH)

ifdef KVER
ifeq ($(origin KDIR),file)
KDIR := /lib/modules/$(KVER)/build
endif
else
# The release the headers' modules load into (Debian's kernel.release file
# holds the upstream version, UTS_RELEASE the real one).
KVER = $(shell sed -n 's/^\#define UTS_RELEASE "\(.*\)"/\1/p' $(KDIR)/include/generated/utsrelease.h 2>/dev/null)
endif

PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
LIBDIR ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
PKGCONFIGDIR ?= $(LIBDIR)/pkgconfig
MANDIR ?= $(PREFIX)/share/man
SYSCONFDIR ?= /etc
UDEVRULESDIR ?= $(SYSCONFDIR)/udev/rules.d
MODPROBEDIR ?= $(SYSCONFDIR)/modprobe.d
MODULESLOADDIR ?= $(SYSCONFDIR)/modules-load.d
MODDIR ?= /lib/modules/$(KVER)/updates
KSRCDIR ?= /usr/src/wq-$(VERSION)

INSTALL ?= install
DEPMOD ?= depmod
LIBWQ_SOVERSION := 1
LIBWQ_SO := libwq.so.$(VERSION)

# The DKMS source tree: what builds wq.ko with the top Kbuild.
DKMS_FILES := dkms.conf Kbuild LICENSE kmod/Kbuild uapi/linux/wq.h \
	packaging/dkms-post-build \
	$(filter-out %.mod.c,$(wildcard kmod/*.[ch] kmod/include/wq/*.h kmod/tests/*.[ch]))

MAN1 := $(wildcard doc/man/*.1)
MAN3 := $(wildcard doc/man/*.3)

install: install-kmod install-user

install-kmod: module dkms-src
	@test -n "$(KVER)" || { echo "install: no kernel release in $(KDIR)" >&2; exit 1; }
	@vm=$$(modinfo -F vermagic kmod/wq.ko) && case "$$vm" in "$(KVER) "*) ;; \
		*) echo "install: kmod/wq.ko is for '$$vm', not $(KVER)" >&2; exit 1 ;; esac
	$(INSTALL) -d $(DESTDIR)$(MODDIR) $(DESTDIR)$(KSRCDIR)/$(KVER)
	$(INSTALL) -m 644 kmod/wq.ko $(DESTDIR)$(MODDIR)/wq.ko
	$(INSTALL) -m 644 Module.symvers $(DESTDIR)$(KSRCDIR)/$(KVER)/Module.symvers
	$(call wq_depmod)

# depmod for KVER only, inside DESTDIR when it is set (without a System.map
# there: symbols are not checked, the tree may hold only wq).
wq_depmod = $(if $(DESTDIR),$(DEPMOD) -b $(abspath $(DESTDIR)) $(KVER),$(DEPMOD) $(KVER))

dkms-src:
	$(INSTALL) -d $(DESTDIR)$(KSRCDIR)
	@set -e; for f in $(DKMS_FILES); do \
		mode=644; [ -x "$$f" ] && mode=755; \
		$(INSTALL) -D -m $$mode "$$f" "$(DESTDIR)$(KSRCDIR)/$$f"; \
	done

install-user: userspace
	$(INSTALL) -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(LIBDIR) $(DESTDIR)$(PKGCONFIGDIR) \
		$(DESTDIR)$(INCLUDEDIR)/linux $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man3 \
		$(DESTDIR)$(UDEVRULESDIR) $(DESTDIR)$(MODPROBEDIR) $(DESTDIR)$(MODULESLOADDIR)
	$(INSTALL) -m 755 userspace/wqctl $(DESTDIR)$(BINDIR)/wqctl
	$(INSTALL) -m 755 userspace/$(LIBWQ_SO) $(DESTDIR)$(LIBDIR)/$(LIBWQ_SO)
	ln -sf $(LIBWQ_SO) $(DESTDIR)$(LIBDIR)/libwq.so.$(LIBWQ_SOVERSION)
	ln -sf libwq.so.$(LIBWQ_SOVERSION) $(DESTDIR)$(LIBDIR)/libwq.so
	$(INSTALL) -m 644 userspace/libwq.a $(DESTDIR)$(LIBDIR)/libwq.a
	$(INSTALL) -m 644 userspace/include/wq.h $(DESTDIR)$(INCLUDEDIR)/wq.h
	$(INSTALL) -m 644 userspace/include/wq_uring.h $(DESTDIR)$(INCLUDEDIR)/wq_uring.h
	$(INSTALL) -m 644 uapi/linux/wq.h $(DESTDIR)$(INCLUDEDIR)/linux/wq.h
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBDIR@|$(LIBDIR)|' \
		-e 's|@INCLUDEDIR@|$(INCLUDEDIR)|' -e 's|@VERSION@|$(VERSION)|' \
		packaging/libwq.pc.in >$(DESTDIR)$(PKGCONFIGDIR)/libwq.pc
	chmod 644 $(DESTDIR)$(PKGCONFIGDIR)/libwq.pc
	$(INSTALL) -m 644 $(MAN1) $(DESTDIR)$(MANDIR)/man1/
	$(INSTALL) -m 644 $(MAN3) $(DESTDIR)$(MANDIR)/man3/
	@set -e; for p in $(notdir $(MAN3)); do \
		for n in $$(sed -n '/^\.Sh NAME/,/^\.Nd/s/^\.Nm \([A-Za-z0-9_]*\).*/\1/p' doc/man/$$p); do \
			[ "$$n.3" = "$$p" ] && continue; \
			ln -sf $$p $(DESTDIR)$(MANDIR)/man3/$$n.3; \
		done; \
	done
	$(INSTALL) -m 644 packaging/60-wq.rules $(DESTDIR)$(UDEVRULESDIR)/60-wq.rules
	$(INSTALL) -m 644 packaging/wq-modprobe.conf $(DESTDIR)$(MODPROBEDIR)/wq.conf
	$(INSTALL) -m 644 packaging/wq-modules-load.conf $(DESTDIR)$(MODULESLOADDIR)/wq.conf
	$(if $(DESTDIR),,-ldconfig)

uninstall:
	rm -f $(DESTDIR)$(MODDIR)/wq.ko
	-rmdir $(DESTDIR)$(MODDIR) 2>/dev/null
	@if [ -d $(DESTDIR)/lib/modules/$(KVER) ]; then echo '$(call wq_depmod)'; $(call wq_depmod); fi
	rm -rf $(DESTDIR)$(KSRCDIR)
	rm -f $(DESTDIR)$(BINDIR)/wqctl $(DESTDIR)$(LIBDIR)/$(LIBWQ_SO) \
		$(DESTDIR)$(LIBDIR)/libwq.so.$(LIBWQ_SOVERSION) $(DESTDIR)$(LIBDIR)/libwq.so \
		$(DESTDIR)$(LIBDIR)/libwq.a $(DESTDIR)$(INCLUDEDIR)/wq.h \
		$(DESTDIR)$(INCLUDEDIR)/wq_uring.h \
		$(DESTDIR)$(INCLUDEDIR)/linux/wq.h $(DESTDIR)$(PKGCONFIGDIR)/libwq.pc \
		$(DESTDIR)$(UDEVRULESDIR)/60-wq.rules $(DESTDIR)$(MODPROBEDIR)/wq.conf \
		$(DESTDIR)$(MODULESLOADDIR)/wq.conf \
		$(addprefix $(DESTDIR)$(MANDIR)/man1/,$(notdir $(MAN1)))
	@set -e; for p in $(notdir $(MAN3)); do \
		for n in $$(sed -n '/^\.Sh NAME/,/^\.Nd/s/^\.Nm \([A-Za-z0-9_]*\).*/\1/p' doc/man/$$p); do \
			rm -f $(DESTDIR)$(MANDIR)/man3/$$n.3; \
		done; \
		rm -f $(DESTDIR)$(MANDIR)/man3/$$p; \
	done
	$(if $(DESTDIR),,-ldconfig)
