#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""calq_bpf_check.py SINK_JSON

scenario/calq-bpf's reading of shoal-sink's JSON: prints short_p50,
short_p99 (us), short_n and long_n as shell assignments for the scenario
to eval (-1 and 0 if the JSON does not read, the error as a comment)."""

import json, sys
try:
    s = json.load(open(sys.argv[1]))["per_sender"]
    print("short_p50=%d short_p99=%d short_n=%d long_n=%d" % (
        s["2"]["delay_us"]["p50"] / 1000, s["2"]["delay_us"]["p99"] / 1000,
        s["2"]["whole"], s["1"]["whole"]))
except (OSError, ValueError, KeyError) as e:
    print("# %s" % e)
    print("short_p50=-1 short_p99=-1 short_n=0 long_n=0")
