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
#                 <wq/linux/wq.h> (the ABI, out of linux-libc-dev's
#                 directory), libwq.pc, wqctl, the man pages, the metrics
#                 timer (systemd), and the defaults: the udev rule, the
#                 modprobe.d and modules-load.d files (commented out)
#
# The module is built for KDIR: the running kernel's headers
# (/lib/modules/$(uname -r)/build) when they are installed, as `make
# module` does; KVER=X gives KDIR=/lib/modules/X/build unless KDIR is given.
# Kernel paths (/lib/modules, /usr/src for DKMS) and the system's defaults
# (/usr/lib/udev/rules.d, /usr/lib/modprobe.d, /usr/lib/modules-load.d,
# /usr/lib/systemd/system) do not follow PREFIX: those are where udev,
# kmod and systemd read them. Nothing goes to /etc: it is the
# administrator's (a file of the same name there replaces the default),
# and uninstall never deletes a file under /etc. Every directory below may
# be overridden.

# One version for the module, libwq and wqctl: wq.h's WQ_VERSION_* (dkms.conf,
# debian/changelog and the module's MODULE_VERSION say the same; make check
# compares them).
wq_hdr_version = $(shell sed -n 's/^\#define WQ_VERSION_$(1)[[:space:]]*\([0-9]*\)$$/\1/p' $(CURDIR)/userspace/include/wq.h)
VERSION := $(call wq_hdr_version,MAJOR).$(call wq_hdr_version,MINOR).$(call wq_hdr_version,PATCH)

ifdef KVER
ifeq ($(filter command line environment,$(origin KDIR)),)
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
UAPIDIR ?= $(INCLUDEDIR)/wq
UDEVRULESDIR ?= /usr/lib/udev/rules.d
MODPROBEDIR ?= /usr/lib/modprobe.d
MODULESLOADDIR ?= /usr/lib/modules-load.d
SYSTEMDUNITDIR ?= /usr/lib/systemd/system
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
MAN4 := $(wildcard doc/man/*.4)

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

# The defaults under /usr/lib, and the metrics units (wqctl's absolute path).
DEFAULTS := $(UDEVRULESDIR)/60-wq.rules $(MODPROBEDIR)/wq.conf \
	$(MODULESLOADDIR)/wq.conf $(SYSTEMDUNITDIR)/wq-metrics.service \
	$(SYSTEMDUNITDIR)/wq-metrics.timer

install-user: userspace
	$(INSTALL) -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(LIBDIR) $(DESTDIR)$(PKGCONFIGDIR) \
		$(DESTDIR)$(UAPIDIR)/linux $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man3 \
		$(DESTDIR)$(MANDIR)/man4 $(DESTDIR)$(UDEVRULESDIR) $(DESTDIR)$(MODPROBEDIR) \
		$(DESTDIR)$(MODULESLOADDIR) $(DESTDIR)$(SYSTEMDUNITDIR)
	$(INSTALL) -m 755 userspace/wqctl $(DESTDIR)$(BINDIR)/wqctl
	$(INSTALL) -m 755 userspace/$(LIBWQ_SO) $(DESTDIR)$(LIBDIR)/$(LIBWQ_SO)
	ln -sf $(LIBWQ_SO) $(DESTDIR)$(LIBDIR)/libwq.so.$(LIBWQ_SOVERSION)
	ln -sf libwq.so.$(LIBWQ_SOVERSION) $(DESTDIR)$(LIBDIR)/libwq.so
	$(INSTALL) -m 644 userspace/libwq.a $(DESTDIR)$(LIBDIR)/libwq.a
	$(INSTALL) -m 644 userspace/include/wq.h $(DESTDIR)$(INCLUDEDIR)/wq.h
	$(INSTALL) -m 644 userspace/include/wq_uring.h $(DESTDIR)$(INCLUDEDIR)/wq_uring.h
	$(INSTALL) -m 644 uapi/linux/wq.h $(DESTDIR)$(UAPIDIR)/linux/wq.h
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBDIR@|$(LIBDIR)|' \
		-e 's|@INCLUDEDIR@|$(INCLUDEDIR)|' -e 's|@UAPIDIR@|$(UAPIDIR)|' \
		-e 's|@VERSION@|$(VERSION)|' \
		packaging/libwq.pc.in >$(DESTDIR)$(PKGCONFIGDIR)/libwq.pc
	chmod 644 $(DESTDIR)$(PKGCONFIGDIR)/libwq.pc
	$(INSTALL) -m 644 $(MAN1) $(DESTDIR)$(MANDIR)/man1/
	$(INSTALL) -m 644 $(MAN3) $(DESTDIR)$(MANDIR)/man3/
	$(INSTALL) -m 644 $(MAN4) $(DESTDIR)$(MANDIR)/man4/
	@set -e; for p in $(notdir $(MAN3)); do \
		for n in $$(sed -n '/^\.Sh NAME/,/^\.Nd/s/^\.Nm \([A-Za-z0-9_]*\).*/\1/p' doc/man/$$p); do \
			[ "$$n.3" = "$$p" ] && continue; \
			ln -sf $$p $(DESTDIR)$(MANDIR)/man3/$$n.3; \
		done; \
	done
	$(INSTALL) -m 644 packaging/60-wq.rules $(DESTDIR)$(UDEVRULESDIR)/60-wq.rules
	$(INSTALL) -m 644 packaging/wq-modprobe.conf $(DESTDIR)$(MODPROBEDIR)/wq.conf
	$(INSTALL) -m 644 packaging/wq-modules-load.conf $(DESTDIR)$(MODULESLOADDIR)/wq.conf
	sed -e 's|@BINDIR@|$(BINDIR)|' packaging/wq-metrics.service.in \
		>$(DESTDIR)$(SYSTEMDUNITDIR)/wq-metrics.service
	$(INSTALL) -m 644 packaging/wq-metrics.timer $(DESTDIR)$(SYSTEMDUNITDIR)/wq-metrics.timer
	chmod 644 $(DESTDIR)$(SYSTEMDUNITDIR)/wq-metrics.service
	$(if $(DESTDIR),,-ldconfig)
	@for f in /etc/udev/rules.d/60-wq.rules /etc/modprobe.d/wq.conf /etc/modules-load.d/wq.conf; do \
		[ ! -e "$(DESTDIR)$$f" ] || echo "install: $(DESTDIR)$$f is kept and wins over the default" \
			"(an admin's file, or one wq before 1.6 installed: remove it if unedited)"; \
	done

# Files under /etc are never removed (an admin's, whoever wrote them).
uninstall:
	rm -f $(DESTDIR)$(MODDIR)/wq.ko
	-rmdir $(DESTDIR)$(MODDIR) 2>/dev/null
	@if [ -d $(DESTDIR)/lib/modules/$(KVER) ]; then echo '$(call wq_depmod)'; $(call wq_depmod); fi
	rm -rf $(DESTDIR)$(KSRCDIR)
	rm -f $(DESTDIR)$(BINDIR)/wqctl $(DESTDIR)$(LIBDIR)/$(LIBWQ_SO) \
		$(DESTDIR)$(LIBDIR)/libwq.so.$(LIBWQ_SOVERSION) $(DESTDIR)$(LIBDIR)/libwq.so \
		$(DESTDIR)$(LIBDIR)/libwq.a $(DESTDIR)$(INCLUDEDIR)/wq.h \
		$(DESTDIR)$(INCLUDEDIR)/wq_uring.h \
		$(DESTDIR)$(UAPIDIR)/linux/wq.h $(DESTDIR)$(PKGCONFIGDIR)/libwq.pc \
		$(addprefix $(DESTDIR)$(MANDIR)/man1/,$(notdir $(MAN1))) \
		$(addprefix $(DESTDIR)$(MANDIR)/man4/,$(notdir $(MAN4)))
	-rmdir $(DESTDIR)$(UAPIDIR)/linux $(DESTDIR)$(UAPIDIR) 2>/dev/null
	@set -e; for f in $(addprefix $(DESTDIR),$(DEFAULTS)); do \
		case $$f in \
		$(DESTDIR)/etc/*) echo "uninstall: keeping $$f (under /etc: the admin's)" ;; \
		*) rm -f "$$f" ;; \
		esac; \
	done
	@set -e; for p in $(notdir $(MAN3)); do \
		for n in $$(sed -n '/^\.Sh NAME/,/^\.Nd/s/^\.Nm \([A-Za-z0-9_]*\).*/\1/p' doc/man/$$p); do \
			rm -f $(DESTDIR)$(MANDIR)/man3/$$n.3; \
		done; \
		rm -f $(DESTDIR)$(MANDIR)/man3/$$p; \
	done
	$(if $(DESTDIR),,-ldconfig)
