#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""shoal_sird_tx_check.py DIR

scenario/shoal-sird-tx's reading of the sender's and receiver's records
in DIR: prints good1, good2 (1 if the receiver got its message whole and
the sender saw it acked) and t1, t2 (elapsed seconds) as shell
assignments for the scenario to eval."""

import json, sys
d = sys.argv[1]
def load(p):
    try:
        return json.load(open(d + "/" + p))
    except (OSError, ValueError):
        return {}
s = load("s.json")
for i in (1, 2):
    r = load("r%d.json" % i)
    ok = r.get("good") == 1 and r.get("bad") == 0 and s.get("acked%d" % i) == 1
    print("good%d=%d" % (i, 1 if ok else 0))
    print("t%d=%s" % (i, s.get("t%d" % i, -1)))
