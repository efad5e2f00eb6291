# SPDX-License-Identifier: GPL-2.0-only
#
# iowprobe - top-level wrapper (kbuild reads Kbuild, never this file)
#
#   make                 iowprobe.ko for $(KVER) and user/iowstat
#   make modules-all     the module for both test kernels, side by side
#   make check           deps, build, host tests, guest tests on 6.1 and 6.12
#   make demo            boot the 6.1 test box, load, copy, watch
#   make lint            checkpatch, sparse, shellcheck
#   make install         module, iowstat and man pages (DESTDIR, PREFIX)

CACHE ?= $(or $(IOWPROBE_CACHE),$(HOME)/.cache/iowprobe)
TEST_KERNELS := 6.1 6.12
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
KSRC := Kbuild $(wildcard kmod/*.c kmod/*.h)

.PHONY: all modules modules-all modules-testing user guest-progs check host-tests guest-tests demo \
	lint clean deps
.DELETE_ON_ERROR:

all: modules user

# module_in(release, dir suffix, extra kbuild args) - build a private copy
# under build/RELEASE so builds for different kernels never clobber each
# other's objects
define module_in
	@test -f /lib/modules/$(1)/build/Makefile || { \
		echo "no headers for kernel '$(1)': run sudo scripts/deps" >&2; \
		exit 2; }
	@mkdir -p $(BUILD)/$(1)$(2)/kmod
	@cp -pu Kbuild $(BUILD)/$(1)$(2)/
	@cp -pu kmod/*.c kmod/*.h $(BUILD)/$(1)$(2)/kmod/
	$(MAKE) -C /lib/modules/$(1)/build M=$(CURDIR)/$(BUILD)/$(1)$(2) $(3) modules
endef

modules: $(KSRC)
	$(call module_in,$(KVER))
	cp $(BUILD)/$(KVER)/iowprobe.ko iowprobe.ko

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

demo: deps modules-all user
	scripts/demo

lint:
	scripts/lint

clean:
	rm -rf $(BUILD) iowprobe.ko
	$(MAKE) -C user clean
	$(MAKE) -C selftests clean
