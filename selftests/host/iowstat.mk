# SPDX-License-Identifier: GPL-2.0-only
#
# iowstat.mk - iowstat's host tests (no root, no VM, no module).
# Included by selftests/Makefile; usable alone too:
#   make -f selftests/host/iowstat.mk iowstat-tests
#
# iowstat-tests   build user/iowstat and the tests, run them, print KTAP,
#                 fail if any test failed
# iowstat-build   only build
#
# The C tests use the kselftest harness headers that scripts/get-kselftest
# extracts into selftests/kselftest (git-ignored); binaries go to
# selftests/out/iowstat unless IOWSTAT_OUT says otherwise.

# this folder (selftests/host), where the tests are
IOWSTAT_HOST	:= $(abspath $(dir $(lastword $(MAKEFILE_LIST))))
IOWSTAT_SELFTESTS := $(abspath $(IOWSTAT_HOST)/..)
IOWSTAT_USER	?= $(IOWSTAT_SELFTESTS)/../user
IOWSTAT_KSFT	?= $(IOWSTAT_SELFTESTS)/kselftest
IOWSTAT_OUT	?= $(IOWSTAT_SELFTESTS)/out/iowstat
IOWSTAT_CC	?= $(CC)
IOWSTAT_CFLAGS	?= -O2 -g -Wall -D_GNU_SOURCE
# what the tests link and run, and the target that builds them (SAN=1:
# a sanitized build, see fuzz.mk)
IOWSTAT_LIB	?= $(IOWSTAT_USER)/libiowstat.a
IOWSTAT_BIN	?= $(IOWSTAT_USER)/iowstat
IOWSTAT_USER_DEP ?= iowstat-user

IOWSTAT_C_TESTS	:= iowstat_parse_test iowstat_calc_test iowstat_tree_test \
	iowstat_why_test
IOWSTAT_PY_TESTS := iowstat_cli_test.py iowstat_stress_test.py \
	iowstat_top_test.py iowstat_write_test.py
IOWSTAT_BINS	:= $(addprefix $(IOWSTAT_OUT)/,$(IOWSTAT_C_TESTS))

.PHONY: iowstat-tests iowstat-build iowstat-user

iowstat-user:
	$(MAKE) -C $(IOWSTAT_USER) iowstat libiowstat.a

$(IOWSTAT_KSFT)/kselftest_harness.h:
	$(IOWSTAT_SELFTESTS)/../scripts/get-kselftest $(IOWSTAT_KSFT)

$(IOWSTAT_OUT)/%: $(IOWSTAT_HOST)/%.c $(IOWSTAT_USER_DEP) \
		$(IOWSTAT_KSFT)/kselftest_harness.h
	@mkdir -p $(IOWSTAT_OUT)
	$(IOWSTAT_CC) $(IOWSTAT_CFLAGS) -I$(IOWSTAT_KSFT) -I$(IOWSTAT_USER) \
		-o $@ $< $(IOWSTAT_LIB)

iowstat-build: $(IOWSTAT_USER_DEP) $(IOWSTAT_BINS)

# Run everything, then fail once if anything failed.
iowstat-tests: iowstat-build
	@fail=0; \
	for t in $(IOWSTAT_BINS); do \
		$$t || fail=1; \
	done; \
	for t in $(IOWSTAT_PY_TESTS); do \
		python3 $(IOWSTAT_HOST)/$$t $(IOWSTAT_BIN) || \
			fail=1; \
	done; \
	test $$fail = 0
