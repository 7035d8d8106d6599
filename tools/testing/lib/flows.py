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
      with two flows or more between two consecutive starts or stops, the
      time from the phase start until every one of the k active flows
      carries 1/k (+-TOL_PCT percent) of what the flows carried together,
      over a window of WINDOW_BINS bins (the window's end counts; the
      phase's bins start at the first whole one): conv_max_ms (worst phase,
      -1 if one never did), conv_list.  A bin in which the flows carried
      less than half the link is an emulated guest that stalled: it is
      left out and not timed (stalled_bins).  Over the second half of each
      phase's bins: dev_mean_pct (the mean deviation of a flow from the
      mean of the active flows) and util (what they carried, percent of
      LINK_BPS).  start_late_ms: the latest first byte after its join.
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
    full = link * bin_s / 8		# bytes the link carries in a bin
    sched = []
    for s in specs:
        a, b, i = s.split(":")
        sched.append((float(a), float(b), int(i)))
    byid = {f["id"]: f for f in flows}
    edges = sorted({a for a, _, _ in sched} | {b for _, b, _ in sched})
    conv, devs, carried, nbins, stalled = [], [], 0, 0, 0
    for p0, p1 in zip(edges, edges[1:]):
        active = [i for a, b, i in sched if a <= p0 and b >= p1]
        if len(active) < 2:
            continue
        # whole bins of the phase (they lie on a grid of bin_s); a bin in
        # which the flows carried less than half the link is a stall of
        # the emulated guest (every flow stops at once): it is left out,
        # and convergence is timed in the bins that ran
        t = math.ceil(p0 / bin_s - 1e-6) * bin_s
        ran = []
        while t + bin_s <= p1 + 1e-6:
            got = [bytes_in(byid[i], bin_s, t, t + bin_s) if i in byid else 0
                   for i in active]
            if sum(got) >= full / 2:
                ran.append(got)
            else:
                stalled += 1
            t += bin_s
        ok_at = None
        for n in range(window, len(ran) + 1):
            got = [sum(b[k] for b in ran[n - window:n]) for k in range(len(active))]
            total = sum(got)
            # a share of what the flows carried, not a rate against the link
            good = all(abs(g * len(active) / total - 1) <= tol for g in got)
            if n > len(ran) / 2:	# settled: the second half
                mean = total / len(got)
                devs.extend(abs(g - mean) / mean for g in got)
            if good and ok_at is None:
                ok_at = n
        for b in ran[len(ran) // 2:]:
            carried += sum(b)
            nbins += 1
        conv.append(round(1000 * ok_at * bin_s) if ok_at is not None else -1)
    worst = -1 if not conv or -1 in conv else max(conv)
    # when each flow's first byte came, after its join (+-one bin)
    late = [byid[i]["first_bin_s"] - a for a, _, i in sched if i in byid]
    print("conv_max_ms=%d" % worst)
    print("conv_list='%s'" % " ".join(str(c) for c in conv))
    print("dev_mean_pct=%d" % (round(100 * sum(devs) / len(devs)) if devs else -1))
    print("util=%d" % (round(100 * carried / (nbins * full)) if nbins else -1))
    print("stalled_bins=%d" % stalled)
    print("start_late_ms=%d" % (round(1000 * max(late)) if len(late) == len(sched) else -1))


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
