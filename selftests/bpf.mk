# SPDX-License-Identifier: GPL-2.0-only
#
# bpf.mk - the BPF backend's test helper, included by selftests/Makefile
#
# bpf_pair (built on the host, run in the test box by test_bpf.sh) links
# the BPF backend's objects, so it is built only where user/ builds the
# BPF backend (user/bpf.mk says what that needs).

BPF_USER := ../user
BPF_POSSIBLE := $(shell command -v clang >/dev/null && \
	command -v bpftool >/dev/null && pkg-config --exists libbpf && \
	test -r /sys/kernel/btf/vmlinux && echo y)

ifeq ($(BPF_POSSIBLE),y)
GUEST_PROGS += $(OUTPUT)/bpf_pair
endif

.PHONY: bpf-progs bpf-user
bpf-progs: $(OUTPUT)/bpf_pair

BPF_OBJS := $(addprefix $(BPF_USER)/,backend_bpf.o bpf_pin.o)

bpf-user:
	$(MAKE) -C $(BPF_USER) BPF=1 iowstat $(notdir $(BPF_OBJS)) libiowstat.a

$(OUTPUT)/bpf_pair: bpf_pair.c bpf-user
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -DIOWSTAT_BPF -o $@ $< $(BPF_OBJS) \
		$(BPF_USER)/libiowstat.a $(LDFLAGS) $(shell pkg-config --libs libbpf)
