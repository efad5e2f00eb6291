# SPDX-License-Identifier: GPL-2.0-only
#
# bpf.mk - the BPF backend's guest test helper, included by
# selftests/Makefile
#
# bpf_pair (built on the host, run in the test box by test_bpf.sh) links
# the BPF backend's objects (user/bpf/, built by user/Makefile), so it is
# built only where the BPF backend builds (bpf/bpf.mk says what that needs).

BPF_USER := ../user
BPF_POSSIBLE := $(shell command -v clang >/dev/null && \
	command -v bpftool >/dev/null && pkg-config --exists libbpf && \
	test -r /sys/kernel/btf/vmlinux && echo y)

ifeq ($(BPF_POSSIBLE),y)
GUEST_PROGS += $(OUTPUT)/bpf_pair
endif

.PHONY: bpf-progs bpf-user
bpf-progs: $(OUTPUT)/bpf_pair

# as user/Makefile names them (bpf/: every C file there), and as seen
# from here
BPF_USER_OBJS := $(patsubst $(BPF_USER)/%.c,%.o,$(wildcard $(BPF_USER)/bpf/*.c))
BPF_OBJS := $(addprefix $(BPF_USER)/,$(BPF_USER_OBJS))

bpf-user:
	$(MAKE) -C $(BPF_USER) BPF=1 iowstat $(BPF_USER_OBJS) libiowstat.a

$(OUTPUT)/bpf_pair: guest/bpf_pair.c bpf-user
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -DIOWSTAT_BPF -o $@ $< $(BPF_OBJS) \
		$(BPF_USER)/libiowstat.a $(LDFLAGS) $(shell pkg-config --libs libbpf)
