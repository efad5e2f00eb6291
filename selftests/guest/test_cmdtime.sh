#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# test_cmdtime.sh - iowstat -- CMD: the parts of its tree's thread-seconds
# against ground truth (cmdtime.py)
exec python3 "$(dirname "$0")/cmdtime.py"
