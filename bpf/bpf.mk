# SPDX-License-Identifier: GPL-2.0-only
#
# bpf.mk - the BPF program of iowstat's BPF backend (--bpf), included by
# user/Makefile, which builds the backend's userspace side (user/bpf/)
#
#   make            builds it when clang, bpftool, libbpf (pkg-config) and
#                   the build machine's BTF are all there, else leaves it out
#   make BPF=1      insists: a missing tool is an error
#   make BPF=0      leaves it out
#
# The chain, as libbpf-tools do it: the build machine's BTF ->
# bpf/.output/vmlinux.h -> bpf/.output/iowprobe.bpf.o (CO-RE, so it loads
# on other kernels) -> bpf/.output/iowprobe.skel.h -> the backend's
# userspace objects (user/bpf/*.o, by user/Makefile's own rule and flags,
# with BPF_CPPFLAGS and BPF_LDLIBS from here).  This folder holds only
# what runs in the kernel.  Nothing in .output/ is committed.

# this folder, as the includer names it (user/Makefile: ../bpf)
BPF_DIR		:= $(patsubst %/,%,$(dir $(lastword $(MAKEFILE_LIST))))

# included before the includer's first rule or after it: its default
# goal stays what it was
BPF_SAVED_GOAL := $(.DEFAULT_GOAL)

BPF_CLANG	?= clang
BPF_STRIP	?= llvm-strip
BPFTOOL		?= bpftool
VMLINUX_BTF	?= /sys/kernel/btf/vmlinux
BPF_OUT		:= $(BPF_DIR)/.output
BPF_ARCH	:= $(shell uname -m | sed -e 's/x86_64/x86/' -e 's/aarch64/arm64/' \
			-e 's/ppc64le/powerpc/' -e 's/s390x/s390/' -e 's/riscv64/riscv/')

# bpf_missing - the first thing the BPF build lacks, or nothing
bpf_missing = $(strip \
	$(if $(shell command -v $(BPF_CLANG)),,$(BPF_CLANG)) \
	$(if $(shell command -v $(BPFTOOL)),,$(BPFTOOL)) \
	$(if $(shell pkg-config --exists libbpf && echo y),,libbpf-dev (pkg-config libbpf)) \
	$(if $(wildcard $(VMLINUX_BTF)),,$(VMLINUX_BTF)))

ifneq ($(BPF),0)
BPF_MISSING := $(bpf_missing)
ifneq ($(BPF_MISSING),)
ifeq ($(BPF),1)
$(error BPF=1 but the BPF build needs: $(BPF_MISSING))
endif
$(info iowstat: building without --bpf (missing: $(BPF_MISSING)))
else
BPF_ENABLED := 1
endif
endif

ifeq ($(BPF_ENABLED),1)

BPF_CFLAGS := -g -O2 -target bpf -mcpu=v3 -D__TARGET_ARCH_$(BPF_ARCH) \
	-I$(BPF_OUT) -I$(BPF_DIR)/../include -Wall -Wno-unused-function
LIBBPF_CFLAGS := $(shell pkg-config --cflags libbpf)
LIBBPF_LIBS := $(shell pkg-config --libs libbpf)
BPF_HEADERS := $(wildcard $(BPF_DIR)/*.h) $(wildcard $(BPF_DIR)/../include/*.h)

# for the userspace side: the skeleton, and iowprobe_bpf.h, the layout of
# the program's maps it reads
BPF_CPPFLAGS := -DIOWSTAT_BPF -I$(BPF_OUT) -I$(BPF_DIR) $(LIBBPF_CFLAGS)
BPF_LDLIBS := $(LIBBPF_LIBS)
BPF_SKEL := $(BPF_OUT)/iowprobe.skel.h

.SECONDARY: $(BPF_OUT)/vmlinux.h $(BPF_OUT)/iowprobe.bpf.o

$(BPF_OUT):
	$(Q)mkdir -p $@

$(BPF_OUT)/vmlinux.h: | $(BPF_OUT)
	$(call msg,GEN,$@)
	$(Q)$(BPFTOOL) btf dump file $(VMLINUX_BTF) format c > $@

$(BPF_OUT)/iowprobe.bpf.o: $(BPF_DIR)/iowprobe.bpf.c $(BPF_HEADERS) $(BPF_OUT)/vmlinux.h
	$(call msg,BPF,$@)
	$(Q)$(BPF_CLANG) $(BPF_CFLAGS) -c $< -o $@
	$(Q)$(BPF_STRIP) -g $@ 2>/dev/null || true

$(BPF_OUT)/iowprobe.skel.h: $(BPF_OUT)/iowprobe.bpf.o
	$(call msg,GEN-SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< name iowprobe_bpf > $@

endif

clean: clean-bpf

.PHONY: clean-bpf
clean-bpf:
	$(Q)rm -rf $(BPF_OUT)

.DEFAULT_GOAL := $(BPF_SAVED_GOAL)
