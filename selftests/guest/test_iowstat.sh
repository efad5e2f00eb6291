#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# test_iowstat.sh - iowstat beside vmstat and against ground truth
exec python3 "$(dirname "$0")/iowstat_guest.py"
