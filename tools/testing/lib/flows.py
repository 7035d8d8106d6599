#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Read shoal-flows receiver JSON and print shell assignments for tests.

  flows.py share FILE T0 T1 LINK_BPS [N]
      goodput of every flow over [T0, T1) (BOOTTIME seconds), with N
      flows expected (those that never arrived count as 0; default: the
      flows seen): n, missing, jain (Jain's index over all flows),
      min_pct (the worst flow, percent of the mean), util (sum / link, percent),
      udp_ratio (percent of the fair share the UDP flows got, averaged),
      tcp_min / tcp_max (percent of the fair share), goodputs (list, Mbit/s)
  flows.py converge FILE LINK_BPS TOL_PCT WINDOW_BINS START:STOP:ID ...
      flows active from START to STOP (BOOTTIME seconds); for every phase
      between two consecutive starts or stops, the time from the phase
      start until every active flow is within TOL_PCT of link / k, over a
      window of WINDOW_BINS bins: conv_max_ms (worst phase),
      conv_list, and dev_mean_pct (in the second half of the phases, the
      mean deviation of a flow from the mean of the active flows: how
      evenly they share what the link carried, stalls of the host aside)
Missing data reads as -1 so that checks fail rather than pass.
"""
import json
import math
import sys


def load(path):
    with open(path) as f:
        d = json.load(f)
    return d["bin_ms"] / 1000.0, d["flows"]


def bytes_in(flow, bin_s, t0, t1):
    """Bytes of @flow in the bins that lie inside [t0, t1)."""
    total = 0
    for i, b in enumerate(flow["bins"]):
        start = flow["first_bin_s"] + i * bin_s
        if start >= t0 - 1e-6 and start + bin_s <= t1 + 1e-6:
            total += b
    return total


def jain(xs):
    s = sum(xs)
    q = sum(x * x for x in xs)
    return s * s / (len(xs) * q) if q else -1


def share(path, t0, t1, link, expect=0):
    bin_s, flows = load(path)
    link = float(link)
    # whole bins only (they lie on a grid of bin_s): rates over their span
    t0 = math.ceil(float(t0) / bin_s - 1e-6) * bin_s
    t1 = math.floor(float(t1) / bin_s + 1e-6) * bin_s
    rates = [(f, bytes_in(f, bin_s, t0, t1) * 8 / (t1 - t0)) for f in flows]
    missing = max(0, int(expect) - len(rates))
    xs = [r for _, r in rates] + [0.0] * missing
    if not xs or not sum(xs):
        print("n=0 missing=-1 jain=-1 min_pct=-1 util=-1 udp_ratio=-1 tcp_min=-1 tcp_max=-1")
        return
    fair = sum(xs) / len(xs)
    udp = [r for f, r in rates if f["proto"] == "udp"]
    tcp = [r for f, r in rates if f["proto"] == "tcp"]
    print("n=%d" % len(xs))
    print("missing=%d" % missing)
    print("jain=%.4f" % jain(xs))
    print("min_pct=%d" % round(100 * min(xs) / fair))
    print("util=%d" % round(100 * sum(xs) / link))
    print("udp_ratio=%d" % (round(100 * sum(udp) / len(udp) / fair) if udp else -1))
    print("tcp_min=%d" % (round(100 * min(tcp) / fair) if tcp else -1))
    print("tcp_max=%d" % (round(100 * max(tcp) / fair) if tcp else -1))
    print("goodputs='%s'" % " ".join("%.2f" % (x / 1e6) for x in xs))


def converge(path, link, tol, window, specs):
    bin_s, flows = load(path)
    link, tol, window = float(link), float(tol) / 100, int(window)
    sched = []
    for s in specs:
        a, b, i = s.split(":")
        sched.append((float(a), float(b), int(i)))
    byid = {f["id"]: f for f in flows}
    edges = sorted({a for a, _, _ in sched} | {b for _, b, _ in sched})
    conv, devs = [], []
    for p0, p1 in zip(edges, edges[1:]):
        active = [i for a, b, i in sched if a <= p0 and b >= p1]
        if len(active) < 2:
            continue
        fair = link / len(active)
        ok_from = None
        t = p0
        while t + window * bin_s <= p1 + 1e-6:
            good = True
            rates = []
            for i in active:
                f = byid.get(i)
                r = bytes_in(f, bin_s, t, t + window * bin_s) * 8 / (window * bin_s) if f else 0
                rates.append(r)
                if abs(r - fair) / fair > tol:
                    good = False
            # settled: how evenly the flows share what the link carried
            mean = sum(rates) / len(rates)
            if t >= (p0 + p1) / 2:
                devs.extend(abs(r - mean) / mean if mean else 1 for r in rates)
            if good and ok_from is None:
                ok_from = t + window * bin_s	# the window's end
            t += bin_s
        conv.append(round(1000 * (ok_from - p0)) if ok_from is not None else -1)
    worst = -1 if not conv or -1 in conv else max(conv)
    print("conv_max_ms=%d" % worst)
    print("conv_list='%s'" % " ".join(str(c) for c in conv))
    print("dev_mean_pct=%d" % (round(100 * sum(devs) / len(devs)) if devs else -1))


def main():
    try:
        if sys.argv[1] == "share":
            share(*sys.argv[2:7])
        elif sys.argv[1] == "converge":
            converge(sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5], sys.argv[6:])
        else:
            raise ValueError(sys.argv[1])
    except (OSError, ValueError, KeyError, IndexError) as e:
        print("# flows.py: %s" % e)
        print("missing=-1 jain=-1 min_pct=-1 util=-1 udp_ratio=-1 tcp_min=-1 tcp_max=-1 "
              "conv_max_ms=-1 dev_mean_pct=-1")


main()
