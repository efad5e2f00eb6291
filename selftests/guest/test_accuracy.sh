#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# test_accuracy.sh - iowprobe's split against ground truth (accuracy.py)
exec python3 "$(dirname "$0")/accuracy.py"
