# SPDX-License-Identifier: GPL-2.0-only
#
# fuzz.mk - iowstat under libFuzzer and under the sanitizers.  Included
# by selftests/Makefile after OUTPUT and CFLAGS are set, before
# iowstat.mk.
#
#   make fuzz [FUZZ_SECONDS=60] [FUZZ_JOBS=2]
#                    every libFuzzer target for FUZZ_SECONDS (0: only its
#                    corpus, once), FUZZ_JOBS at a time; KTAP, one line
#                    per target with its executions; fails on a finding
#   make fuzz-build  only build them (clang: FUZZ_CC)
#   make fuzz-corpus rewrite fuzz/corpus/ from fixtures/iowstat
#
# The targets (fuzz/fuzz_*.c) link iowstat's own sources, compiled with
# -fsanitize=fuzzer-no-link,address,undefined into selftests/out/fuzz/user/,
# never user/'s objects.  A finding is kept as a fixture in
# fixtures/iowstat/fuzz/NAME/ (NAME: the target without "fuzz_"), and
# host-tests replays those and the seeds through $(FUZZ_REGRESS): each
# target built with $(CC) and fuzz/regress.c instead of libFuzzer.
#
# SAN=1: the iowstat sources are compiled with $(CFLAGS) (ASan and UBSan)
# into $(OUTPUT)/user/; the unit tests link that libiowstat.a, the python
# tests run that iowstat, the regress binaries link it too (iowstat.mk
# takes IOWSTAT_LIB, IOWSTAT_BIN and IOWSTAT_USER_DEP from here).  The
# python tests run through small wrappers ($(IOWSTAT_PY_RUNNERS)) that
# pass the iowstat to test, as run-host-tests gives a test no arguments.

# this folder (selftests/host) and selftests/, whose out/ takes the builds
FUZZ_HERE	:= $(abspath $(dir $(lastword $(MAKEFILE_LIST))))
FUZZ_SELFTESTS	:= $(abspath $(FUZZ_HERE)/..)
FUZZ_SRC	:= $(FUZZ_HERE)/fuzz
FUZZ_USER	:= $(abspath $(FUZZ_SELFTESTS)/../user)
FUZZ_FIXTURES	:= $(FUZZ_HERE)/fixtures/iowstat/fuzz
FUZZ_OUT	:= $(FUZZ_SELFTESTS)/out/fuzz
FUZZ_CC		?= clang
FUZZ_SECONDS	?= 60
FUZZ_JOBS	?= 2
FUZZ_TARGETS	:= fuzz_procfs fuzz_cpus fuzz_replay fuzz_numbers fuzz_owners
# no recovery: a UBSan report is a finding, not a line in a log
FUZZ_SANFLAGS	:= -fsanitize=address,undefined -fno-sanitize-recover=all \
	-fno-omit-frame-pointer
FUZZ_CFLAGS	:= -O1 -g -Wall -Wextra -D_GNU_SOURCE -I$(FUZZ_USER) \
	-I$(abspath $(FUZZ_SELFTESTS)/../include) $(FUZZ_SANFLAGS)

# everything of iowstat but main() (the BPF backend, user/bpf/, is not here)
FUZZ_USER_SRCS	:= $(filter-out %/iowstat.c,$(wildcard $(FUZZ_USER)/*.c))
user_objs	= $(patsubst $(FUZZ_USER)/%.c,$(1)/%.o,$(FUZZ_USER_SRCS))

# user_build(dir, cc, cflags) - iowstat's sources into dir/, libiowstat.a
# (the makefiles are prerequisites: new flags rebuild everything)
define user_build
$(1)/%.o: $(FUZZ_USER)/%.c $(FUZZ_HERE)/fuzz.mk $(FUZZ_SELFTESTS)/Makefile
	@mkdir -p $$(@D)
	$(2) $(3) -MMD -MP -c -o $$@ $$<

$(1)/libiowstat.a: $(call user_objs,$(1))
	rm -f $$@
	$(AR) rcs $$@ $$^

-include $(wildcard $(1)/*.d)
endef

$(eval $(call user_build,$(FUZZ_OUT)/user,$(FUZZ_CC),$(FUZZ_CFLAGS) \
	-fsanitize=fuzzer-no-link))

$(FUZZ_OUT)/fuzz_%: $(FUZZ_SRC)/fuzz_%.c $(FUZZ_SRC)/fuzz.h \
		$(FUZZ_OUT)/user/libiowstat.a
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer -o $@ $< \
		$(FUZZ_OUT)/user/libiowstat.a

.PHONY: fuzz fuzz-build fuzz-corpus fuzz-regress-build iowstat-san-user

fuzz-build: $(addprefix $(FUZZ_OUT)/,$(FUZZ_TARGETS))

fuzz: fuzz-build
	$(FUZZ_SRC)/run-fuzz $(FUZZ_OUT) $(FUZZ_SECONDS) $(FUZZ_JOBS) \
		$(FUZZ_TARGETS)

fuzz-corpus:
	$(FUZZ_SRC)/mkcorpus.py $(FUZZ_SRC)/corpus

# --- SAN=1: a sanitized iowstat for the unit and python tests ------------

ifeq ($(SAN),1)
IOWSTAT_SAN	:= $(CURDIR)/$(OUTPUT)/user
IOWSTAT_LIB	:= $(IOWSTAT_SAN)/libiowstat.a
IOWSTAT_BIN	:= $(IOWSTAT_SAN)/iowstat
IOWSTAT_USER_DEP := iowstat-san-user

$(eval $(call user_build,$(IOWSTAT_SAN),$(CC),$(CFLAGS)))

$(IOWSTAT_BIN): $(IOWSTAT_SAN)/iowstat.o $(IOWSTAT_LIB)
	$(CC) $(CFLAGS) -o $@ $^ $(LDFLAGS)

iowstat-san-user: $(IOWSTAT_BIN) $(IOWSTAT_LIB)
else
IOWSTAT_LIB	:= $(FUZZ_USER)/libiowstat.a
IOWSTAT_BIN	:= $(FUZZ_USER)/iowstat
IOWSTAT_USER_DEP := iowstat-user
endif

# --- the python tests, with the iowstat to test --------------------------

IOWSTAT_PY_RUNNERS = $(patsubst %.py,$(IOWSTAT_OUT)/py/%,$(IOWSTAT_PY_TESTS))

$(IOWSTAT_OUT)/py/%: $(FUZZ_HERE)/%.py
	@mkdir -p $(@D)
	printf '#!/bin/sh\nexec python3 %s %s "$$@"\n' $< $(IOWSTAT_BIN) > $@
	chmod +x $@

# --- findings and seeds, replayed without libFuzzer by host-tests --------

FUZZ_REGRESS_OUT := $(CURDIR)/$(OUTPUT)/fuzz-regress
FUZZ_REGRESS	:= $(addprefix $(FUZZ_REGRESS_OUT)/, \
	$(addsuffix -regress,$(FUZZ_TARGETS)))

$(FUZZ_REGRESS_OUT)/%-regress: $(FUZZ_SRC)/%.c $(FUZZ_SRC)/regress.c \
		$(FUZZ_SRC)/fuzz.h $(IOWSTAT_USER_DEP)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -I$(FUZZ_USER) -I$(FUZZ_SRC) \
		-DFUZZ_DIRS='"$(FUZZ_SRC)/corpus/$(*:fuzz_%=%):$(FUZZ_FIXTURES)/$(*:fuzz_%=%)"' \
		-o $@ $(FUZZ_SRC)/$*.c $(FUZZ_SRC)/regress.c \
		$(IOWSTAT_LIB) $(LDFLAGS)

fuzz-regress-build: $(FUZZ_REGRESS)
