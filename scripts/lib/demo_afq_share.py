#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""demo_afq_share.py FLOWS_JSON T0 DUR

One round of the afq part of `make demo` (scripts/guest/demo-afq.sh):
reads shoal-flows recv's JSON (FLOWS_JSON: bin_ms, and per flow its id,
first_bin_s and bins of bytes), counts the bytes from T0 + 2 to
T0 + DUR - 1 (BOOTTIME seconds) for host 1 (flow ids below 200) and
host 2, and prints one line of shell assignments: each host's goodput in
Mbit/s and Jain's index over the two, "a=X b=Y j=Z"."""

import json, sys
d = json.load(open(sys.argv[1]))
t0, dur = float(sys.argv[2]), float(sys.argv[3])
lo, hi, bin_s = t0 + 2, t0 + dur - 1, d["bin_ms"] / 1000.0
host = {1: 0.0, 2: 0.0}
for f in d["flows"]:
    b = sum(v for i, v in enumerate(f["bins"])
            if lo - 1e-6 <= f["first_bin_s"] + i * bin_s <= hi - bin_s + 1e-6)
    host[1 if f["id"] < 200 else 2] += b * 8 / (hi - lo) / 1e6
x = list(host.values())
jain = sum(x) ** 2 / (len(x) * sum(v * v for v in x)) if sum(x) else 0
print("a=%.1f b=%.1f j=%.2f" % (host[1], host[2], jain))
