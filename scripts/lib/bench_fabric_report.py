#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""bench_fabric_report.py DIR QLIMIT ECN DUR INCAST TRANSPORT...

The fabric part of `make bench` (scripts/guest/bench-fabric.sh): reads
each transport's files in DIR/TRANSPORT (shoal-perf JSON of the incast
and of tenant 1, the tenants' byte counters at h13, every host's
retransmission timeouts, every switch's qdiscs, the TCP RPCs) and prints
one line per transport, the ratios of Shoal's to the others' and the
verdicts on issue 23's goals computed from them, and records them for
results.json (bench_record.py).  A "?" after done/issued: a client's JSON
is missing (it died or was killed)."""

import json, sys
import bench_record

from perf_report import load, merge_clients

d, qlimit, ecn, dur, incast = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), \
    sys.argv[4], sys.argv[5]
transports = sys.argv[6:]


def pct(v, q):
    return v[min(len(v) - 1, int(len(v) * q))] if v else None


def rpcs(t, name, hosts):
    """merged shoal-perf results of the clients NAME<h>"""
    return merge_clients("%s/%s/%s%d.json" % (d, t, name, h) for h in hosts)


def shares(t):
    w = load("%s/%s/tenants.json" % (d, t))
    if not w:
        return None
    n = {}
    for when in ("before", "after"):
        for f in w[when]:
            for a in f.get("options", {}).get("actions", []):
                n[(when, f["pref"])] = a.get("stats", {}).get("bytes", 0)
    t1 = n.get(("after", 1), 0) - n.get(("before", 1), 0)
    t2 = n.get(("after", 2), 0) - n.get(("before", 2), 0)
    s = t1 + t2
    return (t1 / s if s else 0.0, t2 / s if s else 0.0, s * 8 / w["seconds"] / 1e6,
            w["busy_pct"])


def peaks(t):
    """the longest data queue (packets) at h1's port and in the core"""
    h1 = core = 0
    try:
        lines = open("%s/%s/qdiscs" % (d, t)).read().splitlines()
    except OSError:
        return None, None
    for line in lines:
        node, blob = line.split(" ", 1)
        for q in json.loads(blob):
            if q["kind"] != "trim":
                continue
            if node == "fab_leaf1" and q["dev"] == "h1":
                h1 = q["data_qlen_max"]
            elif q["dev"].startswith(("sp", "lf")):
                core = max(core, q["data_qlen_max"])
    return h1, core


def rtos(t):
    try:
        return sum(int(line.split()[1]) for line in open("%s/%s/rto" % (d, t)))
    except OSError:
        return None


def rpc_p99(t):
    v = []
    for name in ("rpc-up", "rpc-down"):
        f = load("%s/%s/%s.json" % (d, t, name))
        if f:
            v += [x["fct_us"] for x in f["flows"]]
    v.sort()
    return len(v), pct(v, 0.99)


def ms(us):
    return "-" if us is None else "%.0f" % (us / 1000)


def ms_v(us):
    """ms()'s figure for bench_record"""
    return None if us is None else us / 1000


print("Fabric: the composed load on tools/testing/fabrics/composed.fab (16 hosts, 4 leaves,"
      " 2 spines, 5 Mbit/s to hosts),")
print("%s s of arrivals: an incast into h1 from 15 hosts (30 KB RPCs, %s of its link),"
      " tenants 1 and 2 into h13," % (dur, incast))
print("TCP RPCs across leaf 1's link to spine 1, whose cable is cut from 4 s to 5 s.")
print("shoal: trim everywhere, afq per tenant, sqr on the cut link, SIRD for the incast and"
      " tenant 1;")
print("cubic, dctcp: the same load over drop-tail FIFOs of %d packets (DCTCP: CE above %d),"
      " no afq, no sqr" % (qlimit, ecn))
print()
print("%-6s %21s %11s %6s %6s %14s %5s %11s %5s %5s %9s %5s" % (
    "", "incast ms p50/p99/max", "done/issued", "failed", "unans", "tenant1 done/f",
    "RTOs", "shares t1/t2", "h1 pk", "core", "rpc p99ms", "busy%"))
row = {}
for t in transports:
    inc = rpcs(t, "incast", range(2, 17))
    ten = rpcs(t, "tenant", (5, 6))
    sh = shares(t)
    h1, core = peaks(t)
    n_rpc, p99_rpc = rpc_p99(t)
    lat = inc["lat"]
    row[t] = {"p50": pct(lat, 0.5), "p99": pct(lat, 0.99), "rto": rtos(t), "shares": sh}
    print("%-6s %21s %11s %6d %6d %14s %5s %11s %5s %5s %9s %5s" % (
        t, "%s/%s/%s" % (ms(pct(lat, 0.5)), ms(pct(lat, 0.99)), ms(lat[-1] if lat else None)),
        "%d/%d" % (inc["completed"], inc["issued"]) + ("?" * bool(inc["missing"])),
        inc["failed"], inc["unanswered"],
        "%d/%d" % (ten["completed"], ten["failed"]), row[t]["rto"],
        "%.2f/%.2f" % sh[:2] if sh else "-", h1, core,
        "%s (%d)" % (ms(p99_rpc), n_rpc), sh[3] if sh else "-"))
    bench_record.case("fabric", t, incast_p50_ms=ms_v(pct(lat, 0.5)),
                      incast_p99_ms=ms_v(pct(lat, 0.99)),
                      incast_max_ms=ms_v(lat[-1] if lat else None), done=inc["completed"],
                      issued=inc["issued"], missing_clients=inc["missing"],
                      failed=inc["failed"], unanswered=inc["unanswered"],
                      tenant1_done=ten["completed"], tenant1_failed=ten["failed"],
                      rtos=row[t]["rto"], share_t1=sh[0] if sh else None,
                      share_t2=sh[1] if sh else None, h1_peak_pkts=h1, core_peak_pkts=core,
                      rpc_p99_ms=ms_v(p99_rpc), rpcs=n_rpc, busy_pct=sh[3] if sh else None)
print()
if "shoal" in row:
    for t in transports:
        if t == "shoal" or not row[t]["p99"] or not row["shoal"]["p99"]:
            continue
        print("incast, shoal / %s: p50 %.2fx, p99 %.2fx; retransmission timeouts %s against %s"
              % (t, row["shoal"]["p50"] / row[t]["p50"], row["shoal"]["p99"] / row[t]["p99"],
                 row["shoal"]["rto"], row[t]["rto"]))
        bench_record.case("fabric", "shoal/" + t, p50_ratio=row["shoal"]["p50"] / row[t]["p50"],
                          p99_ratio=row["shoal"]["p99"] / row[t]["p99"])


def verdict(ok):
    return "met" if ok else "NOT met"


# the goals, each a mechanism's claim at this fabric's scale: SIRD's tail
# under an incast (issue 22's goal on one switch), sqr hiding the cut from
# TCP, afq keyed per tenant sharing h13's port
if "shoal" in row:
    s = row["shoal"]
    for t in transports:
        if t == "shoal" or not row[t]["p99"] or not s["p99"]:
            continue
        ok = s["p99"] <= row[t]["p99"] / 2
        print("goal: the incast's p99 with shoal at most half of %s's (issue 22's goal on one "
              "switch): %s (%.2fx)" % (t, verdict(ok), s["p99"] / row[t]["p99"]))
        bench_record.goal("fabric", "the incast's p99 with shoal at most half of %s's" % t, ok,
                          p99_ratio=s["p99"] / row[t]["p99"])
    ok = s["rto"] == 0
    print("goal: no retransmission timeout on any host of the shoal fabric across the cut "
          "(sqr on the link): %s (%s)" % (verdict(ok), "?" if s["rto"] is None else s["rto"]))
    bench_record.goal("fabric", "no retransmission timeout on the shoal fabric across the cut",
                      ok, rtos=s["rto"])
    sh = s["shares"]
    ok = sh is not None and all(0.45 <= x <= 0.55 for x in sh[:2])
    print("goal: each tenant 0.45-0.55 of what h13 received from the tenants (afq per "
          "tenant): %s (%s)" % (verdict(ok), "%.2f/%.2f" % sh[:2] if sh else "no counters"))
    bench_record.goal("fabric", "each tenant 0.45-0.55 of what h13 received from the tenants",
                      ok, share_t1=sh[0] if sh else None, share_t2=sh[1] if sh else None)
