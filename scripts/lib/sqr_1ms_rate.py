#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""sqr_1ms_rate.py SAMPLES

The median rate (pps) of the "sqr-1ms" lines of bench-sqr.sh's SAMPLES
("name pps round")."""

import statistics, sys
print(int(statistics.median(int(l.split()[1]) for l in open(sys.argv[1])
                            if l.startswith("sqr-1ms "))))
