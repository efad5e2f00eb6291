#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# test_why.sh - iowstat --why: wa in words against ground truth (why.py)
exec python3 "$(dirname "$0")/why.py"
