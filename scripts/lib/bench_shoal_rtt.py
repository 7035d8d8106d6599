#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""bench_shoal_rtt.py DIR CLIENTS

Prints the smallest idle RTT (us) the RPC probes of scripts/guest/bench-shoal.sh
measured (DIR/rpc-{sird,cubic}-N.json), or 1000 if none did."""

import json, sys
d, n = sys.argv[1], int(sys.argv[2])
rtts = []
for p in ("sird", "cubic"):
    for i in range(1, n + 1):
        try:
            rtts.append(json.load(open("%s/rpc-%s-%d.json" % (d, p, i)))["idle_rtt_us"])
        except (OSError, ValueError, KeyError):
            pass
print(int(min(rtts)) if rtts else 1000)
