#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# test_bpf.sh - iowstat --bpf against the module and ground truth (bpf_test.py)
exec python3 "$(dirname "$0")/bpf_test.py"
