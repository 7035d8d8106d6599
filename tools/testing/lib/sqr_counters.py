#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""sqr_counters.py < TC_JSON

The integer fields (bstats and xstats) of the sqr qdisc in `tc -s -j
qdisc show` output on stdin, as NAME=VALUE lines."""

import json, sys
q = next(q for q in json.load(sys.stdin) if q["kind"] == "sqr")
for k, v in q.items():
    if isinstance(v, int) and not isinstance(v, bool):
        print("%s=%d" % (k, v))
