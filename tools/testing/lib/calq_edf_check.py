#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""calq_edf_check.py SINK_JSON ORDER_JSON

scenario/calq-edf's reading of shoal-sink's JSON and edf_order.py's
record: prints shell assignments for the scenario to eval (the
deadline misses, the sink's counts, the recorded order's inversions
and deadline spread; -1 where a file does not read)."""

import json, sys
try:
    s = json.load(open(sys.argv[1]))
    d = s["deadline"]
    print("pkts=%d miss=%d" % (d["pkts"], d["miss"]))
    print("miss1=%d pkts1=%d" % (s["per_sender"]["1"]["deadline"]["miss"], s["per_sender"]["1"]["deadline"]["pkts"]))
    print("malformed=%d whole=%d" % (s["malformed"], s["whole"]))
except (OSError, ValueError, KeyError) as e:
    print("# %s" % e)
    print("pkts=0 miss=-1 miss1=-1 pkts1=0 malformed=-1 whole=0")
try:
    o = json.load(open(sys.argv[2]))
    print("r_pkts=%d r_unmatched=%d r_dups=%d r_drops=%d" % (o["pkts"], o["unmatched"], o["dups"], o["capture_drops"]))
    print("inv=%d inv_max_us=%d inv_ts=%d" % (o["inversions"], o["inversion_max_us"], o["inversions_ts"]))
    print("inv_most=%d dl_spread_us=%d dl_spread_p50_us=%d" % (o["inversions_at_most"], o["dl_spread_max_us"], o.get("dl_spread_p50_us", -1)))
    print("late_in=%d late_out=%d inv_by_late=%d" % (o["late_in"], o["late_out"], o["inv_by_late"]))
    print("inv_per='%s'" % " ".join("%s:%d" % (k, v["inversions"]) for k, v in sorted(o["per_sender"].items())))
except (OSError, ValueError, KeyError) as e:
    print("# %s" % e)
    print("r_pkts=0 r_unmatched=-1 r_dups=-1 r_drops=-1 inv=-1 inv_max_us=-1 inv_ts=-1")
    print("inv_most=-1 dl_spread_us=-1 dl_spread_p50_us=-1")
    print("late_in=-1 late_out=-1 inv_by_late=-1 inv_per=")
