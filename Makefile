# SPDX-License-Identifier: GPL-2.0
#
# wq: client-go's workqueue as a kernel module.
#
#   make demo          build, boot a Debian kernel under QEMU, show the queue
#   make check         install what is missing, static gates, every test
#   make bench         the performance figures (doc/performance.md)
#   make soak          ten minutes of the soak test on the debug kernel (SOAK_SECONDS)
#   make               module (for KDIR), libwq, wqctl, tests
#   make KDIR=/lib/modules/X/build module    build for another kernel
#
# The module is never loaded into the machine that builds it: tests run in
# a QEMU guest (selftests/vm/vm-run).

# The running kernel's headers, as every out-of-tree module builds (kbuild's
# own default); where they are not installed (a build machine), the newest
# Debian 6.1 headers. KDIR=... or KVER=... (mk/install.mk) choose another.
KDIR_RUNNING := /lib/modules/$(shell uname -r)/build
ifeq ($(origin KDIR),undefined)
ifndef KVER
KDIR := $(if $(wildcard $(KDIR_RUNNING)/Makefile),$(KDIR_RUNNING),$(shell \
	ls -d /usr/src/linux-headers-6.1.*-amd64 2>/dev/null | sort -V | tail -n1))
endif
endif
LINUX_SOURCE ?= $(lastword $(sort $(wildcard /usr/src/linux-source-6.12.tar.xz)))
TOOLS := build/linux-tools
KSFT_DIR := $(CURDIR)/$(TOOLS)/tools/testing/selftests

all: module userspace selftests

module:
	@test -n "$(KDIR)" || { echo "no kernel headers: run 'make deps' or pass KDIR=..." >&2; exit 1; }
	$(MAKE) -C $(KDIR) M=$(CURDIR) W=1 KCFLAGS=-Werror modules

userspace:
	$(MAKE) -C userspace

# Files taken from Debian's linux-source package at build time (kselftest:
# its harness, Makefile, lib.mk and runner; KUnit's kunit.py; checkpatch);
# nothing from the kernel tree is kept in the repo. Extracted again when
# this Makefile changes.
$(TOOLS)/.stamp: Makefile
	@test -n "$(LINUX_SOURCE)" || { echo "linux-source-6.12 missing: run 'make deps'" >&2; exit 1; }
	rm -rf $(TOOLS) && mkdir -p $(TOOLS)
	tar -xJf $(LINUX_SOURCE) -C $(TOOLS) --strip-components=1 \
		linux-source-6.12/tools/testing/selftests/kselftest.h \
		linux-source-6.12/tools/testing/selftests/kselftest_harness.h \
		linux-source-6.12/tools/testing/selftests/Makefile \
		linux-source-6.12/tools/testing/selftests/lib.mk \
		linux-source-6.12/tools/testing/selftests/run_kselftest.sh \
		linux-source-6.12/tools/testing/selftests/kselftest \
		linux-source-6.12/tools/testing/kunit \
		linux-source-6.12/scripts/subarch.include \
		linux-source-6.12/scripts/checkpatch.pl \
		linux-source-6.12/scripts/spelling.txt \
		linux-source-6.12/scripts/const_structs.checkpatch \
		linux-source-6.12/scripts/kernel-doc
	touch $@

# Host unit tests of the module's pure logic (heap, limiters), built from
# the kernel sources against a tiny shim.
HOST_TESTS := build/host/heap_test build/host/limiter_test
build/host/%_test: selftests/host/%_test.c kmod/wq_%.c kmod/wq_%.h $(TOOLS)/.stamp \
		$(wildcard selftests/host/shim/linux/*.h kmod/tests/*.h)
	@mkdir -p build/host
	$(CC) -std=gnu11 -O2 -Wall -Wextra -Werror -Iselftests/host/shim -Ikmod \
		-isystem $(KSFT_DIR) -o $@ $< kmod/wq_$*.c

selftests: userspace $(TOOLS)/.stamp $(HOST_TESTS) go
	$(MAKE) -C userspace tests KSFT_DIR=$(KSFT_DIR)
	$(MAKE) -C selftests OUTPUT=$(CURDIR)/build/selftests KSFT_DIR=$(KSFT_DIR)

# The suite as a kernel CI takes it: selftests/ copied to the kselftest tree
# of build/linux-tools as its target wq, built by kselftest's own Makefile
# (O=: its output out of the tree) and installed with run_kselftest.sh
# into build/kselftest (doc/testing.md).
KSFT_INSTALL := $(CURDIR)/build/kselftest
kselftest: userspace $(TOOLS)/.stamp
	rsync -a --delete selftests/ $(KSFT_DIR)/wq/
	rm -rf $(KSFT_INSTALL)
	$(MAKE) -C $(KSFT_DIR) O=$(CURDIR)/build/kselftest-build TARGETS=wq WQ_SRC=$(CURDIR) \
		install INSTALL_PATH=$(KSFT_INSTALL)

# selftests/vm/in-tree: wq added to the kernel tree KSRC as drivers/misc/wq/.
in-tree:
	@test -n "$(KSRC)" || { echo "make in-tree KSRC=/path/to/linux" >&2; exit 2; }
	selftests/vm/in-tree $(KSRC)

# The Go packages (go/): the module wq.dev/go (client-go's workqueue) and
# the module wq.dev/go/priorityqueue (controller-runtime's), on client-go
# and controller-runtime's released modules, which the go command fetches
# into the default module cache (`make go-deps`, run by `make deps`). They
# need Go 1.26: the first of /usr/local/go, `go` on PATH and Debian 12's
# golang-1.23-go that knows GOTOOLCHAIN (1.21 or later: Debian's
# golang-go 1.19 does not), which takes Go $(GO_TOOLCHAIN) as a module if
# it is older than 1.26. `go` builds the test binaries for the guest
# (static, no cgo; workqueue's with client-go's own tests, made by
# go/scripts/clientgo-tests) and the C view of the ABI
# (go/internal/kq/testdata/layout.c) the layout test compares with;
# `go-check` is the host's part: gofmt, go vet, the tests without a
# kernel (the in-process fallback's among them), running those same test
# binaries rather than linking them twice.
go_at_least = $(shell v=$$($(1) env GOVERSION 2>/dev/null) && \
	[ "$$(printf '%s\n' $(2) "$$v" | sort -V | head -n1)" = $(2) ] && echo $(1))
ifeq ($(origin GO),undefined)
GO := $(firstword $(foreach g,$(wildcard /usr/local/go/bin/go) $(shell command -v go),$(call go_at_least,$(g),go1.21)) \
	/usr/lib/go-1.23/bin/go)
endif
GOFMT ?= $(dir $(GO))gofmt
GO_TOOLCHAIN := go1.27.3
GO_LOCAL := $(if $(call go_at_least,$(GO),go1.26),local)
GOENV := CGO_ENABLED=0 GOTOOLCHAIN=$(or $(GO_LOCAL),$(GO_TOOLCHAIN)) GOFLAGS=-buildvcs=false \
	 GOWORK=off GOCACHE=$(CURDIR)/build/go/cache
GO_SRC := go/go.mod go/go.sum go/priorityqueue/go.mod go/priorityqueue/go.sum \
	$(wildcard go/*/*.go go/internal/*/*.go)
GO_TESTS := build/selftests/go_workqueue.test build/selftests/go_priorityqueue.test
GO_CLIENTGO := build/go/clientgo/overlay.json

go: $(GO_TESTS) build/selftests/go_layout.txt

go-deps:
	cd go && $(GOENV) $(GO) mod download
	cd go/priorityqueue && $(GOENV) $(GO) mod download

$(GO_CLIENTGO): go/scripts/clientgo-tests go/go.mod go/go.sum
	cd go && $(GOENV) scripts/clientgo-tests $(GO) $(CURDIR)/build/go/clientgo

build/selftests/go_workqueue.test: $(GO_SRC) $(GO_CLIENTGO)
	@mkdir -p build/selftests
	cd go && $(GOENV) $(GO) test -c -overlay $(CURDIR)/$(GO_CLIENTGO) -o $(CURDIR)/$@ ./workqueue

build/selftests/go_priorityqueue.test: $(GO_SRC)
	@mkdir -p build/selftests
	cd go/priorityqueue && $(GOENV) $(GO) test -c -o $(CURDIR)/$@ .

build/selftests/go_layout.txt: go/internal/kq/testdata/layout.c uapi/linux/wq.h
	@mkdir -p build/host build/selftests
	$(CC) -std=gnu11 -O2 -Wall -Wextra -Werror -I. -o build/host/go_layout $<
	build/host/go_layout > $@

go-check: build/selftests/go_layout.txt $(GO_CLIENTGO) $(GO_TESTS)
	@out=$$(cd go && $(GOFMT) -l .); [ -z "$$out" ] || { echo "gofmt -l: $$out"; exit 1; }
	cd go && $(GOENV) $(GO) vet ./...
	cd go/priorityqueue && $(GOENV) $(GO) vet ./...
	cd go && $(GOENV) WQ_LAYOUT_FILE=$(CURDIR)/build/selftests/go_layout.txt \
		$(GO) test -count=1 ./internal/...
	cd go/workqueue && $(CURDIR)/build/selftests/go_workqueue.test
	cd go/priorityqueue && $(CURDIR)/build/selftests/go_priorityqueue.test

# Everything the lanes and the in-tree build need (check-quick needs only
# the base); each says what it installs first. deps-list: what deps would
# install.
deps:
	selftests/vm/install-deps base 6.12 6.12-rt debug intree
	$(MAKE) go-deps

deps-list:
	@selftests/vm/install-deps --list base 6.12 6.12-rt debug intree

deps-quick:
	selftests/vm/install-deps base
	$(MAKE) go-deps

# Static gates: sparse, W=1, checkpatch --strict, kernel-doc, cppcheck.
static: $(TOOLS)/.stamp
	selftests/vm/check --static-only

check: deps
	selftests/vm/check

check-quick: deps-quick
	selftests/vm/check --lanes 6.1

# demo: installs only what it needs (install-deps says what first), then
# names what `make deps` would add for make check.
demo:
	selftests/vm/install-deps demo
	@rest=$$(selftests/vm/install-deps --list base 6.12 6.12-rt debug | tr '\n' ' '); \
	[ -z "$$rest" ] || echo "make demo: not installed, for make check ('make deps'): $$rest"
	$(MAKE) userspace
	selftests/vm/vm-run --add userspace/examples/demo:/bin/demo \
		--add userspace/wqctl:/bin/wqctl \
		--add userspace/examples/kernel-demo.sh:/bin/kernel-demo \
		-- sh -c 'demo && kernel-demo'

# Benchmarks (not tests: nothing here is asserted by make check).
# bench: the performance figures with their goals, 6.1 guest boots: two
# counting instructions (vm-run --icount), one on the wall clock
# (bench/run); writes build/bench/results.json, keeps the previous one as
# results.prev.json. bench-compare: the last run against the one before.
bench: deps-quick
	bench/run

bench-compare:
	bench/run --compare-only

# bench-irqsoff: the longest interrupts-off section while the queue moves
# 1,000 / 1,000,000 expiring keys and a close of 100,000 held keys, on the
# debug kernel's irqsoff tracer; then, on 6.1 and 6.12-rt, how late a 1 ms
# sleeper wakes while a million keys expire, against its floor (goal: 2x).
bench-irqsoff: deps all
	WQ_DEBUG_KDIR=$$(selftests/vm/build-debug-kernel | grep '^/' | tail -n1) && \
	export WQ_DEBUG_KDIR && \
	selftests/vm/vm-run --kernel debug --mem 3072 --timeout 1800 \
		--add build/selftests:/t -- /t/irqsoff-bench
	rc=0; for k in 6.1 6.12-rt; do \
		selftests/vm/vm-run --kernel $$k --mem 3072 --timeout 1800 \
			--add build/selftests:/t -- /t/sleeper-bench || rc=1; \
	done; exit $$rc

# fuzz: the ioctl fuzzer (selftests/fuzz/) in a 6.1 guest, FUZZ_CALLS
# calls (default 200,000), then the kernel log, rmmod and kmemleak
# (selftests/fuzz.sh). FUZZ_SEED replays a seed. Not part of make check.
FUZZ_CALLS ?= 200000
FUZZ_LONG_CALLS ?= 1000000
FUZZ_SEED ?= 0
fuzz: deps-quick all
	selftests/vm/vm-run --no-rmmod --timeout 3600 --add build/selftests:/t -- \
		/t/fuzz.sh $(FUZZ_CALLS) 4 $(FUZZ_SEED)

# check-long: what is too long for make check: the fuzzer at 10^6 calls on
# 6.12-rt (PREEMPT_RT: sleeping spinlocks, threaded interrupts) and on the
# debug kernel (KASAN, UBSAN, lockdep, kmemleak).
check-long: deps all
	selftests/vm/vm-run --kernel 6.12-rt --no-rmmod --timeout 7200 \
		--add build/selftests:/t -- /t/fuzz.sh $(FUZZ_LONG_CALLS) 4 $(FUZZ_SEED)
	WQ_DEBUG_KDIR=$$(selftests/vm/build-debug-kernel | grep '^/' | tail -n1) && \
	export WQ_DEBUG_KDIR && \
	selftests/vm/vm-run --kernel debug --mem 3072 --timeout 14400 --no-rmmod \
		--add build/selftests:/t -- /t/fuzz.sh $(FUZZ_LONG_CALLS) 4 $(FUZZ_SEED)

# soak: the soak test on the debug kernel (KASAN, UBSAN,
# lockdep, kmemleak): SOAK_SECONDS (default 600) of rounds of queues with
# producers, consumers, kills, passed handles, quota users, shutdowns,
# drains, discards and destroys, every invariant checked (selftests/soak/); then
# the kernel log, wq's slab caches back to their start, rmmod, kmemleak,
# insmod and one more round (soak.sh). SOAK_SEED=N replays a seed (up to
# timing); SOAK_ARGS passes options to wq_soak (-x reuse: the race of a
# reopen by name with the name's reuse, every round). make check runs a
# short one on the debug lane.
SOAK_SECONDS ?= 600
SOAK_SEED ?= 0
SOAK_ARGS ?=
soak: deps all
	WQ_DEBUG_KDIR=$$(selftests/vm/build-debug-kernel | grep '^/' | tail -n1) && \
	export WQ_DEBUG_KDIR && \
	selftests/vm/vm-run --kernel debug --no-rmmod --timeout $$(($(SOAK_SECONDS) * 3 + 1200)) \
		--add build/selftests:/t -- /t/soak.sh $(SOAK_SECONDS) $(SOAK_SEED) $(SOAK_ARGS)

clean:
	@if [ -n "$(KDIR)" ]; then $(MAKE) -C $(KDIR) M=$(CURDIR) clean; fi
	$(MAKE) -C userspace clean
	rm -rf build

include mk/install.mk

.PHONY: all module userspace selftests kselftest in-tree go go-check go-deps deps deps-list deps-quick static check check-quick demo clean \
	bench bench-compare bench-irqsoff fuzz check-long soak install install-kmod install-user uninstall dkms-src
