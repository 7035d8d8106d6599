#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""trim_tbf_counters.py < TC_JSON

The integer fields of the tbf and trim qdiscs in `tc -s -j qdisc show`
output on stdin, as tbf_<field>=N and trim_<field>=N lines."""

import json, sys
for q in json.load(sys.stdin):
    p = {"tbf": "tbf_", "trim": "trim_"}.get(q["kind"])
    for k, v in q.items():
        if p and isinstance(v, int) and not isinstance(v, bool):
            print("%s%s=%d" % (p, k, v))
