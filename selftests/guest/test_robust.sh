#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# test_robust.sh - load/unload, readers, hotplug, exhaustion (robust.py)
exec python3 "$(dirname "$0")/robust.py"
