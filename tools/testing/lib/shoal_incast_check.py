#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""shoal_incast_check.py DIR N

scenario/shoal-incast's reading of the N senders' and the receiver's
records in DIR: prints the receiver's counts (rx_*) and the senders'
totals as shell assignments for the scenario to eval."""

import json, sys
d, n = sys.argv[1], int(sys.argv[2])
def load(p):
    try:
        return json.load(open(p))
    except (OSError, ValueError):
        return {}
rx = load(d + "/rx.json")
for k in ("good", "bad", "duplicates"):
    print("rx_%s=%d" % (k, rx.get(k, -1)))
tot = {"tx_acked": 0, "tx_failed": 0, "tx_errors": 0}
for i in range(1, n + 1):
    t = load("%s/tx%d.json" % (d, i))
    tot["tx_acked"] += t.get("tx_acked", -1000)
    tot["tx_failed"] += t.get("tx_failed", 1000)
    tot["tx_errors"] += sum(t.get("errors", {"x": 1000}).values())
for k, v in tot.items():
    print("%s=%d" % (k, v))
