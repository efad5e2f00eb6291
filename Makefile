# SPDX-License-Identifier: GPL-2.0-only
#
# iowprobe - top-level wrapper (kbuild reads Kbuild, never this file)
#
#   make                 iowprobe.ko for $(KVER) and user/iowstat
#   make modules-all     the module for every test kernel (scripts/kernels),
#                        side by side
#   make check           deps, build, host tests, guest tests on every test
#                        kernel
#   make debug-kernel    build the 6.12 debug kernel (lockdep, KASAN, ...)
#                        into the cache, once (scripts/debug-kernel)
#   make check-debug     the whole guest suite on it, in one boot
#   make demo            boot the 6.1 test box, load, copy, watch
#   make compare         dd copy + dbench on 6.1 and 7.3, report with
#                        pictures (COMPARE_ARGS=--quick: the 3-minute one)
#   make lint            checkpatch, sparse, shellcheck, man pages, versions
#   make bench           what the probes cost, beside a floor module, --bpf
#                        and bpftrace (BENCH_ARGS=--quick: the 3-minute one)
#   make install         module, iowstat, man pages, completion (DESTDIR,
#                        PREFIX, KVER); make uninstall undoes it
#   make dkms-install    sources into /usr/src, dkms add + install for KVER;
#                        make dkms-remove undoes it
#   make deb             iowprobe-dkms and iowstat .debs in build/deb/
#                        (debian/; scripts/deb-check lints and checks them)

# the cache folder: scripts/lib.sh says where (once, not at every use)
ifndef CACHE
CACHE := $(shell bash scripts/lib.sh cache)
endif
# the kernel matrix: scripts/kernels
TEST_KERNELS := $(shell scripts/kernels)
# a test kernel's release, from the cache symlinks scripts/deps made
kernel_release = $(notdir $(shell readlink $(CACHE)/kernels/$(1) 2>/dev/null))

# default: the running kernel when its headers exist, else the 6.1 test kernel
ifeq ($(KVER),)
KVER := $(shell uname -r)
ifeq ($(wildcard /lib/modules/$(KVER)/build/Makefile),)
KVER := $(call kernel_release,6.1)
endif
endif
KDIR ?= /lib/modules/$(KVER)/build
BUILD := build
# the module's source tree as Kbuild sees it: one list for the builds
# under build/, DKMS and the packages
MODULE_SRC := Kbuild $(wildcard kmod/*.c kmod/*.h include/*.h)
KSRC := $(MODULE_SRC)
MODULE_KO := $(BUILD)/$(KVER)/iowprobe.ko
# one version for module, reader and dkms.conf (scripts/lint checks)
VERSION := $(shell scripts/version)

# install locations (GNU conventions); the module goes under /lib/modules
PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
MANDIR ?= $(PREFIX)/share/man
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
INSTALL_MOD_DIR ?= extra
MODDEST = $(DESTDIR)/lib/modules/$(KVER)/$(INSTALL_MOD_DIR)
DKMS_SRC ?= /usr/src/iowprobe-$(VERSION)

.PHONY: all modules modules-all modules-testing user guest-progs check host-tests guest-tests demo \
	lint clean deps install uninstall dkms-source dkms-install dkms-remove deb
.PHONY: compare bench debug-kernel check-debug
.DELETE_ON_ERROR:

all: modules user

# module_in(release, dir suffix, extra kbuild args) - build a private copy
# under build/RELEASE so builds for different kernels never clobber each
# other's objects; a source gone from the tree goes from the copy too (a
# stale header there would shadow the real one)
define module_in
	@mkdir -p $(BUILD)/$(1)$(2)
	@cd $(BUILD)/$(1)$(2) && for f in kmod/*.[ch] include/*.h; do \
		[ ! -f "$$f" ] || [ -e "$(CURDIR)/$$f" ] || rm -f "$$f"; done
	@cp -pu --parents $(MODULE_SRC) $(BUILD)/$(1)$(2)/
	scripts/kbuild $(1) $(CURDIR)/$(BUILD)/$(1)$(2) $(3) modules
endef

modules: $(KSRC)
	$(call module_in,$(KVER))
	cp $(BUILD)/$(KVER)/iowprobe.ko iowprobe.ko

$(MODULE_KO): $(KSRC)
	$(call module_in,$(KVER))

modules-all: $(addprefix module-,$(TEST_KERNELS))

module-%: $(KSRC)
	$(call module_in,$(call kernel_release,$*))

# the module with test-only parameters, for the robustness tests
modules-testing: $(addprefix module-testing-,$(TEST_KERNELS))

module-testing-%: $(KSRC)
	$(call module_in,$(call kernel_release,$*),-testing,IOWPROBE_TESTING=y)

user:
	$(MAKE) -C user

deps:
	scripts/deps

host-tests: user
	$(MAKE) -C selftests host-tests

guest-progs:
	$(MAKE) -C selftests guest-progs

guest-tests: modules-all modules-testing user guest-progs
	scripts/guest-tests

check:
	@scripts/check

debug-kernel:
	scripts/debug-kernel

# the modules in a sub-make: their release comes from the cache link that
# debug-kernel makes
check-debug: debug-kernel user guest-progs
	$(MAKE) module-6.12-debug module-testing-6.12-debug
	scripts/guest-tests -k 6.12-debug

# the demo needs only the 6.1 test kernel
demo:
	scripts/deps 6.1
	$(MAKE) module-6.1 user
	scripts/demo

# the two classic kernel comparisons, one test box per kernel
compare: modules-all user
	scripts/compare $(COMPARE_ARGS)

# the overhead benchmark, one test box per kernel (scripts/bench)
bench: modules-all user
	scripts/bench $(BENCH_ARGS)

lint:
	scripts/lint

# depmod - refresh modules.dep on the live system only: a staged DESTDIR
# tree has no modules.order or modules.builtin for depmod -b to work from
define depmod
	@if [ -n "$(DESTDIR)" ]; then \
		echo "DESTDIR set: depmod skipped; on the target run: depmod -a $(KVER)"; \
	else \
		echo "depmod -a $(KVER)"; depmod -a $(KVER); \
	fi
endef

install: $(MODULE_KO) user
	install -D -m 0644 $(MODULE_KO) $(MODDEST)/iowprobe.ko
	install -D -m 0755 user/iowstat $(DESTDIR)$(BINDIR)/iowstat
	install -D -m 0644 man/iowstat.8 $(DESTDIR)$(MANDIR)/man8/iowstat.8
	install -D -m 0644 man/iowprobe.4 $(DESTDIR)$(MANDIR)/man4/iowprobe.4
	install -D -m 0644 completion/iowstat $(DESTDIR)$(BASHCOMPDIR)/iowstat
	$(depmod)

uninstall:
	rm -f $(MODDEST)/iowprobe.ko $(DESTDIR)$(BINDIR)/iowstat \
		$(DESTDIR)$(MANDIR)/man8/iowstat.8 \
		$(DESTDIR)$(MANDIR)/man4/iowprobe.4 \
		$(DESTDIR)$(BASHCOMPDIR)/iowstat
	$(depmod)

# dkms-source - what DKMS builds from: dkms.conf and Kbuild at the top
dkms-source:
	rm -rf $(DKMS_SRC)
	install -D -m 0644 dkms.conf $(DKMS_SRC)/dkms.conf
	for f in $(MODULE_SRC); do install -D -m 0644 $$f $(DKMS_SRC)/$$f || exit; done

# a second dkms-install of the same version replaces the first
dkms-install: dkms-remove dkms-source
	dkms add -m iowprobe -v $(VERSION)
	dkms install -m iowprobe -v $(VERSION) -k $(KVER)

dkms-remove:
	@if dkms status -m iowprobe -v $(VERSION) | grep -q .; then \
		echo "dkms remove -m iowprobe -v $(VERSION) --all"; \
		dkms remove -m iowprobe -v $(VERSION) --all; \
	fi
	rm -rf $(DKMS_SRC)

# deb - the Debian packages (debian/), built from a copy of the tree (the
# files git knows, uncommitted changes included) in build/deb-src/, so
# that nothing is written beside the repository: the source package
# (orig tarball: the copy without debian/) and, with dpkg-buildpackage -b,
# the binary ones; all of it ends up in build/deb/
DEB_SRC := $(BUILD)/deb-src
DEB_OUT := $(BUILD)/deb
DEB_TREE := iowprobe-$(VERSION)
deb:
	rm -rf $(DEB_SRC) $(DEB_OUT)
	mkdir -p $(DEB_SRC)/$(DEB_TREE) $(DEB_OUT)
	git ls-files -z -co --exclude-standard | \
		xargs -0 sh -c 'for f; do [ ! -f "$$f" ] || printf "%s\0" "$$f"; done' sh | \
		tar -c --null -T - -f - | tar -x -C $(DEB_SRC)/$(DEB_TREE)
	tar -C $(DEB_SRC) --exclude=$(DEB_TREE)/debian --sort=name --owner=0 \
		--group=0 --numeric-owner -cJf $(DEB_SRC)/iowprobe_$(VERSION).orig.tar.xz $(DEB_TREE)
	cd $(DEB_SRC) && dpkg-source -b $(DEB_TREE)
	cd $(DEB_SRC)/$(DEB_TREE) && dpkg-buildpackage -us -uc -b -jauto
	cd $(DEB_SRC) && cp *.deb *.changes *.buildinfo *.dsc *.tar.xz $(abspath $(DEB_OUT))/
	@ls -1 $(DEB_OUT)

clean:
	rm -rf $(BUILD) iowprobe.ko
	$(MAKE) -C user clean
	$(MAKE) -C selftests clean
