#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""root_counters.py < TC_JSON

The integer fields of the first (root) qdisc in `tc -s -j qdisc show`
output on stdin, as NAME=VALUE lines (scripts/guest/bench-sqr.sh)."""

import json, sys
for k, v in json.load(sys.stdin)[0].items():
    if isinstance(v, int) and not isinstance(v, bool):
        print("%s=%d" % (k, v))
