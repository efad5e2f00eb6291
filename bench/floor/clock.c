// SPDX-License-Identifier: GPL-2.0-only
/*
 * clock.c - the clock floor (iowprobe_floor_clock.ko): floor.c with one
 * scheduler clock read and one per-CPU add per event, the least a probe
 * that times every event exactly can pay; built from the same source so
 * that the two differ in the clock alone
 */
#define FLOOR_CLOCK 1
#include "floor.c"
