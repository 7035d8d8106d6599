#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""gso_qdisc_values.py < TC_JSON

The integer fields of the htb and trim qdiscs in `tc -s -j qdisc show`
output on stdin, as htb_<field>=N and trim_<field>=N lines
(scenario/trim-gso)."""

import json, sys
for q in json.load(sys.stdin):
    p = "htb_" if q["kind"] == "htb" else "trim_" if q["kind"] == "trim" else None
    if p:
        for k, v in q.items():
            if isinstance(v, int) and not isinstance(v, bool):
                print("%s%s=%d" % (p, k, v))
