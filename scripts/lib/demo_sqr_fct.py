#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""demo_sqr_fct.py JSON HOLD TIMEOUTS

One row of the TCP part of sqr's `make demo` (scripts/guest/demo-sqr.sh):
reads sqr_rpc.py call's JSON (a list of flows, each with its fct_us) and
prints HOLD, the number of flows, TIMEOUTS (the RTO count the caller
measured, printed as given) and the p99 and largest flow completion
time in ms."""

import json, sys
f = sorted(x["fct_us"] / 1000 for x in json.load(open(sys.argv[1]))["flows"])
print("%-6s %8d %14s %12.1f %12.1f" % (sys.argv[2], len(f), sys.argv[3],
                                        f[min(len(f) - 1, len(f) * 99 // 100)], f[-1]))
