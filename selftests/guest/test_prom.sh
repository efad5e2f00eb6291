#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# test_prom.sh - the real Prometheus pipeline with the module backend: the
# host's pipeline test (selftests/host/prom_pipeline_test.py) with --module
exec python3 "$(dirname "$0")/../host/prom_pipeline_test.py" --module
