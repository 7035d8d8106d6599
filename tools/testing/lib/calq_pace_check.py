#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""calq_pace_check.py SINK_JSON RATE...

scenario/calq-pace's reading of shoal-sink's JSON against the RATEs the
flows were paced at: prints rate_I, p10_I, n_I and steady_I for each
sender I as shell assignments for the scenario to eval (-1 and 0 if the
JSON does not read)."""

import json, sys
rates = [float(r) for r in sys.argv[2:]]
try:
    s = json.load(open(sys.argv[1]))
    for i, r in enumerate(rates, 1):
        p = s["per_sender"][str(i)]
        print("rate_%d=%d p10_%d=%d n_%d=%d steady_%d=%d" % (
              i, round(100 * p["rate_pps"] / r), i, round(100 * p["gap_us"]["p10"] * r / 1e6),
              i, p["whole"], i, round(100 * p["windows_steady"] / max(p["windows"], 1))))
except (OSError, ValueError, KeyError) as e:
    print("# %s" % e)
    for i in range(1, len(rates) + 1):
        print("rate_%d=-1 p10_%d=-1 n_%d=0 steady_%d=-1" % (i, i, i, i))
