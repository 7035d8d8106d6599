#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""pl2_switch_counters.py < SHOW_JSON

pl2-switch's `show -j` on stdin as shell assignments for
scenario/pl2-switch: <dev>_<field> for the ports s1, s2 and r0 (absent:
-1), nports and mode."""

import json, sys
f = ("in_res", "out_res", "rsv", "data", "unsol", "unsol_drop", "clamp",
     "unrouted", "malformed", "grt_err", "other", "expired", "transit", "uplink",
     "foreign")
try:
    j = json.load(sys.stdin)
except ValueError:
    j = {"ports": []}
for d in ("s1", "s2", "r0"):
    p = [x for x in j["ports"] if x["dev"] == d]
    for k in f:
        print("%s_%s=%d" % (d, k, p[0][k] if p else -1))
print("nports=%d" % len(j["ports"]))
print("mode=%s" % j.get("mode", "none"))
