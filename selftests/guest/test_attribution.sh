#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# test_attribution.sh - who waits: procs and cgroups against ground truth
# (attribution.py)
exec python3 "$(dirname "$0")/attribution.py"
