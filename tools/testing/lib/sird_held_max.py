#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""sird_held_max.py STOP_FILE

The most credit the host held (tx_held of /proc/net/shoal/sird), sampled
every 10 ms until STOP_FILE exists; prints it."""

import os, sys, time
top = 0
while not os.path.exists(sys.argv[1]):
    for line in open("/proc/net/shoal/sird"):
        if line.startswith("tx_held "):
            top = max(top, int(line.split()[1]))
    time.sleep(0.01)
print(top)
