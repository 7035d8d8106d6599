#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""afq-shoal's numbers for one run, as shell assignments.

    afq_shoal_eval.py DIR N LINK_MBPS DURATION_S

DIR holds client-1..N-1.json (shoal-perf client --json of SIRD sender
i; sender N is a bulk TCP flow, its goodput its wire rate), rx.json
(tc -s -j filter show of the receiver's ingress: one u32 filter per
sender, its action counting the bytes that sender got through the
port, in filter order), qdisc.json (tc -s -j qdisc show dev r0, after)
and port.txt (two perf_port_sample lines around the run).  Prints:
wire_i and good_i (Mbit/s per sender: IP bytes that reached the
receiver, message bytes completed), jain_wire and jain_good (Jain's
index over the N senders), jain_sird (over the SIRD senders alone), util (percent of the link the port sent, from
port.txt), failed (RPCs failed or unanswered, all senders), completed,
enq and bumps (afq's enqueued and bid_bumps: a bid bump is a packet whose
flow was idle, so with every packet its own flow it is every packet),
bump_pct.  Missing values read as -1, so checks on them fail.
"""

import json
import sys


def jain(xs):
    if not xs or min(xs) < 0 or sum(xs) <= 0:
        return -1
    return sum(xs) ** 2 / (len(xs) * sum(x * x for x in xs))


def load(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def rx_bytes(path, n):
    """Bytes per u32 filter, in the order the filters were added."""
    data = load(path) or []
    out = []
    for flt in data:
        opts = flt.get("options", {})
        for act in opts.get("actions", []):
            st = act.get("stats", {})
            if "bytes" in st:
                out.append(st["bytes"])
                break
    return out[:n] if len(out) >= n else None


def main():
    d, n, link, dur = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), \
        float(sys.argv[4])
    v = {}
    good, failed, completed = [], 0, 0
    for i in range(1, n):
        c = load("%s/client-%d.json" % (d, i))
        if not c:
            good.append(-1)
            failed = -1 if failed >= 0 else failed
            continue
        m = c["messages"]
        good.append(m["completed_bytes"] * 8 / dur / 1e6)
        if failed >= 0:
            failed += m["failed"] + m["unanswered"]
        completed += m["completed"]
    wire = [b * 8 / dur / 1e6 for b in (rx_bytes(d + "/rx.json", n) or [])]
    if len(wire) < n:
        wire = [-1] * n
    good.append(wire[n - 1])
    for i in range(n):
        v["wire_%d" % (i + 1)] = "%.2f" % wire[i]
        v["good_%d" % (i + 1)] = "%.2f" % good[i]
    v["jain_wire"] = "%.3f" % jain(wire)
    v["jain_good"] = "%.3f" % jain(good)
    v["jain_sird"] = "%.3f" % jain(wire[:n - 1])
    v["failed"] = failed
    v["completed"] = completed
    enq = bumps = -1
    for q in load(d + "/qdisc.json") or []:
        if q.get("kind") == "afq":
            enq, bumps = q.get("enqueued", -1), q.get("bid_bumps", -1)
    v["enq"], v["bumps"] = enq, bumps
    v["bump_pct"] = bumps * 100 // enq if enq > 0 and bumps >= 0 else -1
    util = -1
    try:
        with open(d + "/port.txt") as f:
            s = [tuple(map(int, ln.split())) for ln in f if ln.strip()]
        if len(s) >= 2 and s[-1][0] > s[0][0]:
            bps = (s[-1][1] - s[0][1]) * 8e9 / (s[-1][0] - s[0][0])
            util = int(bps * 100 / (link * 1e6))
    except (OSError, ValueError):
        pass
    v["util"] = util
    for k, val in v.items():
        print("%s=%s" % (k, val))


if __name__ == "__main__":
    main()
