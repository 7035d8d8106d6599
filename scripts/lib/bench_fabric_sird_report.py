#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""bench_fabric_sird_report.py DIR MBIT LOAD DUR QLIMIT ECN

SIRD's fabric experiments of `make bench` (scripts/guest/bench-fabric-sird.sh):
reads each run recorded in DIR/runs (every host's shoal-perf JSON, every
switch's qdiscs) and prints a line a run, SIRD against cubic and DCTCP per
configuration and workload, the ablations against SIRD's own run, and a
verdict line on each of the paper's claims against DCTCP ("claim: ...:
reproduced" or "not reproduced", with the cells that hold it), and
records them for results.json (bench_record.py)."""

import json, os, statistics, sys
import bench_record

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from perf_report import load  # noqa: E402

d, mbit, offered, dur, qlimit, ecn, w5_dur = sys.argv[1:8]
HOSTS = 8


def queues(path):
    """the highest data queue (packets, KB) at a leaf's host ports (ToR) and
    in the core (leaves' uplinks, spines' ports), CE marks and drops"""
    tor, core, marks, drops = [0, 0], [0, 0], 0, 0
    try:
        for line in open(path):
            node, js = line.split(" ", 1)
            for q in json.loads(js):
                if q.get("kind") != "trim":
                    continue
                dev = q.get("dev", "")
                top = tor if node.startswith("fab_leaf") and dev.startswith("h") else core
                top[0] = max(top[0], q.get("data_qlen_max", 0))
                top[1] = max(top[1], q.get("data_backlog_max", 0) / 1e3)
                marks += q.get("ecn_mark", 0)
                drops += q.get("drops", 0)
    except (OSError, ValueError):
        pass
    return tor, core, marks, drops


rows, order = {}, []
for line in open(os.path.join(d, "runs")):
    name, c, w, t = line.split()
    order.append(name)
    cl = [load(os.path.join(d, name, "client%d.json" % h)) for h in range(1, HOSTS + 1)]
    got = [x for x in cl if x]
    al = [[b for b in x["buckets"] if b["name"] == "all"][0] for x in got]
    al = [b for b in al if b["count"]]
    tor, core, marks, drops = queues(os.path.join(d, name, "qdiscs"))
    rows[name] = dict(
        c=c, w=w, t=t, missing=HOSTS - len(got),
        gp=sum(x["goodput_mbps"] for x in got),
        lost=sum(x["messages"]["failed"] + x["messages"]["unanswered"] for x in got),
        p50=statistics.median(b["slowdown"]["p50"] for b in al) if al else None,
        p99=max(b["slowdown"]["p99"] for b in al) if al else None,
        tor=tor, core=core, marks=marks, drops=drops)


def f(v, fmt="%.1f"):
    return "-" if v is None else fmt % v


print("SIRD on a two-tier fabric: 2 leaves of 4 hosts, 2 spines, hosts at %s Mbit/s, sprayed; "
      "every port a FIFO of %s full packets marking CE above %s;" % (mbit, qlimit, ecn))
print("every host sends RPCs to its peer on the other leaf at %s of its link (core: /1.78; "
      "incast: 0.93 of it, and h5..h8 send 500 KB to h1 for 7%%), %s s of Poisson arrivals "
      "(W5: %s s)" % (offered, dur, w5_dur))
print("%-22s %-8s %-3s %-6s %8s %7s %7s %9s %9s %6s %6s %5s" %
      ("run", "config", "wl", "proto", "goodput", "sd p50", "sd p99", "ToR pk/KB",
       "core pk/KB", "marks", "drops", "lost"))
for n in order:
    r = rows[n]
    print("%-22s %-8s %-3s %-6s %8.2f %7s %7s %9s %9s %6d %6d %5s" %
          (n, r["c"], r["w"], r["t"], r["gp"], f(r["p50"], "%.2f"), f(r["p99"]),
           "%d/%.0f" % tuple(r["tor"]), "%d/%.0f" % tuple(r["core"]), r["marks"], r["drops"],
           "%d%s" % (r["lost"], "?" if r["missing"] else "")))
    bench_record.case("fabric-sird", n, goodput_mbps=r["gp"], sd_p50=r["p50"], sd_p99=r["p99"],
                      tor_peak_pkts=r["tor"][0], tor_peak_kb=r["tor"][1],
                      core_peak_pkts=r["core"][0], core_peak_kb=r["core"][1],
                      marks=r["marks"], drops=r["drops"], lost=r["lost"],
                      missing_senders=r["missing"])
print("(goodput: Mbit/s, the background's, summed over the 8 senders; sd: slowdown, the median "
      "of the senders' p50s and the worst sender's p99;\n"
      " ToR: the highest queue at a leaf's host port, core: at an uplink or a spine's port, "
      "packets/KB; marks, drops: every port's;\n"
      " lost: RPCs failed or unanswered, ? a sender gave no result)")

print()
for n in order:
    r = rows[n]
    if r["t"] != "sird" or n != "%s-%s-sird" % (r["c"], r["w"]):
        continue
    for tcp in ("cubic", "dctcp"):
        o = rows.get("%s-%s-%s" % (r["c"], r["w"], tcp))
        if not o:
            continue
        q = max(r["tor"][1], r["core"][1]) / max(o["tor"][1], o["core"][1]) \
            if max(o["tor"][1], o["core"][1]) else None
        gp = r["gp"] / o["gp"] if o["gp"] else None
        p99 = r["p99"] / o["p99"] if r["p99"] and o["p99"] else None
        p50 = r["p50"] / o["p50"] if r["p50"] and o["p50"] else None
        print("%-8s %s, SIRD / %s: goodput %s, p99 slowdown %s, p50 %s, peak queue (KB) %s" %
              (r["c"], r["w"], tcp, f(gp, "%.2fx"), f(p99, "%.2fx"), f(p50, "%.2fx"),
               f(q, "%.2fx")))
        bench_record.case("fabric-sird", "%s %s sird/%s" % (r["c"], r["w"], tcp),
                          goodput_ratio=gp, p99_ratio=p99, p50_ratio=p50, peak_kb_ratio=q)
abl = [n for n in order if rows[n]["t"] == "sird" and n != "%s-%s-sird" % (rows[n]["c"],
                                                                          rows[n]["w"])]
for n in abl:
    r = rows[n]
    b = rows.get("balanced-%s-sird" % r["w"])
    if not b:
        continue
    gp = r["gp"] / b["gp"] if b["gp"] else None
    p99 = r["p99"] / b["p99"] if r["p99"] and b["p99"] else None
    print("ablation %s against SIRD's own balanced %s: goodput %s, p99 slowdown %s, ToR peak "
          "%d against %d packets, core %d against %d" %
          (n, r["w"], f(gp, "%.2fx"), f(p99, "%.2fx"),
           r["tor"][0], b["tor"][0], r["core"][0], b["core"][0]))
    bench_record.case("fabric-sird", "ablation %s/balanced" % n, goodput_ratio=gp,
                      p99_ratio=p99, tor_peak_pkts=r["tor"][0], balanced_tor_peak_pkts=b["tor"][0],
                      core_peak_pkts=r["core"][0], balanced_core_peak_pkts=b["core"][0])
print("(SIRD's paper, 144 hosts at 100 Gbit/s, 50% load, WKa/WKb (W3/W4): p99 slowdown SIRD "
      "1.7/3.53 against DCTCP 9.92/7.9 balanced, 1.37/2.28 against 5.97/5.71 core, 1.65/3.76 "
      "against u/71.06 incast (u: unstable); peak ToR queue 0.76-2.26 MB against DCTCP's "
      "2.67-8.3 MB or unstable; goodput within 5% of the best)")


def peak(r):
    return max(r["tor"][1], r["core"][1])


# the paper's claims against DCTCP, cell by cell (configuration, workload):
# SIRD's p99 slowdown and peak queue below DCTCP's, its goodput within 5%
# of the best transport's
cells = []
for n in order:
    r = rows[n]
    o = rows.get("%s-%s-dctcp" % (r["c"], r["w"]))
    if r["t"] == "sird" and n == "%s-%s-sird" % (r["c"], r["w"]) and o:
        best = max(x["gp"] for m, x in rows.items() if m == "%s-%s-%s" % (r["c"], r["w"], x["t"]))
        cells.append(("%s %s" % (r["c"], r["w"]), r, o, best))
for what, held in (
        ("SIRD's p99 slowdown below DCTCP's in every configuration and workload (the paper's "
         "Table 5)", lambda r, o, b: r["p99"] is not None and o["p99"] is not None and
         r["p99"] < o["p99"]),
        ("SIRD's peak queue (KB, ToR or core) below DCTCP's in every configuration and "
         "workload (the paper's Table 5)", lambda r, o, b: peak(r) < peak(o)),
        ("SIRD's goodput within 5% of the best transport's in every configuration and "
         "workload (the paper's Table 4)", lambda r, o, b: r["gp"] >= 0.95 * b)):
    ok = [c for c, r, o, b in cells if held(r, o, b)]
    if cells:
        met = len(ok) == len(cells)
        print("claim: %s: %s (%d of %d cells%s)" %
              (what, "reproduced" if met else "not reproduced", len(ok),
               len(cells), "; not in " + ", ".join(c for c, _, _, _ in cells if c not in ok)
               if len(ok) < len(cells) else ""))
        bench_record.goal("fabric-sird", what.split(" (the paper's")[0], met,
                          held_cells=len(ok), cells=len(cells))
