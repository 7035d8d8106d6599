#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""fct_p99.py FLOWS_JSON

The flows of rpc.py's JSON: prints their count, the p99 and the largest
completion time (us), 0 0 if there are none (scenario/sqr-tcp)."""

import json, sys
f = sorted(x["fct_us"] for x in json.load(open(sys.argv[1]))["flows"])
print(len(f), f[min(len(f) - 1, len(f) * 99 // 100)] if f else 0, f[-1] if f else 0)
