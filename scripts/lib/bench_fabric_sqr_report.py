#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""bench_fabric_sqr_report.py DIR MBIT CONVERGE SIZE LOAD SECONDS RUN...

SQR's fabric experiment of `make bench` (scripts/guest/bench-fabric-sqr.sh):
reads each run's files in DIR/RUN (RUN is TRANSPORT-OUTAGE-none or
TRANSPORT-OUTAGE-sqr: the hosts' packet counters, nstat, Shoal's stats,
the clients' shoal-perf JSON, every switch's qdiscs) and prints a line a
run, the verdicts computed from them, and draws DIR/outage.svg (packets
sent again against the outage's length); records them for results.json
(bench_record.py)."""

import json, os, sys
import bench_record

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "../../tools/testing/lib"))
import svgplot  # noqa: E402
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from perf_report import merge_clients  # noqa: E402

d, mbit, converge, size, offered, secs = sys.argv[1:7]
runs = sys.argv[7:]
SLOW_US = 200000	# TCP's minimum RTO


def counters(path):
    """name -> value of a file of "name value" lines"""
    out = {}
    try:
        for line in open(path):
            w = line.split()
            if len(w) >= 2 and w[1].lstrip("-").isdigit():
                out[w[0]] = int(w[1])
    except OSError:
        pass
    return out


def host_packets(r):
    """packets the hosts sent and received during the run"""
    def read(name):
        v = {}
        try:
            for line in open(os.path.join(d, r, name)):
                h, tx, rx = line.split()
                v[h] = (int(tx), int(rx))
        except (OSError, ValueError):
            pass
        return v
    a, b = read("packets.before"), read("packets.after")
    hosts = a.keys() & b.keys()
    return (sum(b[h][0] - a[h][0] for h in hosts), sum(b[h][1] - a[h][1] for h in hosts))


def shoal_delta(r, name):
    n = 0
    for h in range(1, 5):
        a = counters(os.path.join(d, r, "shoal%d.before" % h))
        b = counters(os.path.join(d, r, "shoal%d.after" % h))
        n += b.get(name, 0) - a.get(name, 0)
    return n


def tcp_counts(r):
    """TCP's segments sent again and its timeouts (SYNs' and SYN-ACKs'
    included: TcpExtTCPTimeouts counts them; TcpExtTCPSynRetrans counts
    their copies, which would count each twice), every host"""
    retx = rto = 0
    try:
        for line in open(os.path.join(d, r, "nstat")):
            w = line.split()
            if len(w) < 3 or not w[2].isdigit():
                continue
            if w[1] == "TcpRetransSegs":
                retx += int(w[2])
            elif w[1] == "TcpExtTCPTimeouts":
                rto += int(w[2])
    except OSError:
        pass
    return retx, rto


def switches(r):
    """the FIFOs' drops over every port, and sqr's counters at both ends"""
    drops, sqr = 0, {}
    try:
        for line in open(os.path.join(d, r, "qdiscs")):
            node, js = line.split(" ", 1)
            for q in json.loads(js):
                if q.get("kind") == "trim":
                    drops += q.get("drops", 0)
                elif q.get("kind") == "sqr":
                    for k in ("failures", "resent", "diverted"):
                        sqr[k] = sqr.get(k, 0) + q.get(k, 0)
    except (OSError, ValueError):
        pass
    return drops, sqr


def rpcs(r):
    return merge_clients(os.path.join(d, r, "client%d.json" % h) for h in range(1, 5))


def cut(r):
    """the cable's measured time down and the spine's broken route (down
    until the cable is mended or routing has converged), ms; None for a
    run without a cut"""
    t = {}
    try:
        for line in open(os.path.join(d, r, "events")):
            w = line.split()
            if len(w) >= 4:
                t.setdefault((w[2], w[3]), float(w[0]))
    except (OSError, ValueError):
        pass
    down = t.get(("cable", "down"))
    if down is None:
        return None
    up = t.get(("cable", "up"), float("inf"))
    conv = t.get(("routes", "down"), float("inf"))
    return (up - down) * 1e3, (min(up, conv) - down) * 1e3


def pct(v, q):
    return v[min(len(v) - 1, int(len(v) * q))] / 1e3 if v else float("nan")


rows = {}
for r in runs:
    t, outage, prot = r.rsplit("-", 2)
    tx, rx = host_packets(r)
    drops, sqr = switches(r)
    m = rpcs(r)
    if t == "sird":
        retx, rto = shoal_delta(r, "tx_retx_packets"), shoal_delta(r, "rx_resend_quiet")
    else:
        retx, rto = tcp_counts(r)
    rows[r] = dict(t=t, outage=outage, sqr=prot == "sqr", net=tx - rx, drops=drops, cut=cut(r),
                   retx=retx, rto=rto, m=m, slow=sum(x >= SLOW_US for x in m["lat"]),
                   p50=pct(m["lat"], 0.5), p99=pct(m["lat"], 0.99),
                   mx=m["lat"][-1] / 1e3 if m["lat"] else float("nan"), sq=sqr)

print("SQR on a leaf-spine link: 2 leaves, 2 spines, 2 hosts a leaf, every link %s Mbit/s "
      "(500 us between switches), sprayed" % mbit)
print("leaf1-spine1's cable cut 2 s into the load for OUTAGE; routing converges %s after the "
      "cut and the mend" % converge)
print("load: h1<->h3, h2<->h4, %s-byte requests at %s of the link each way, %s s of Poisson "
      "arrivals; TCP cubic (8 connections a client) or SIRD" % (size, offered, secs))
print("%-7s %-11s %-5s %-4s %6s %6s %6s %5s %11s %6s %7s %7s %7s %6s %9s" %
      ("outage", "cut/route", "proto", "sqr", "net", "drops", "resent", "RTOs", "done/issued",
       "failed", "p50 ms", "p99 ms", "max ms", ">200ms", "sqr r/d"))
for r in runs:
    w = rows[r]
    m = w["m"]
    print("%-7s %-11s %-5s %-4s %6d %6d %6d %5d %11s %6d %7.1f %7.1f %7.1f %6d %9s" %
          (w["outage"], "%.0f/%.0f" % w["cut"] if w["cut"] else "-", w["t"],
           "yes" if w["sqr"] else "no", w["net"], w["drops"],
           w["retx"], w["rto"], "%d/%d%s" % (m["completed"], m["issued"],
                                            "?" if m["missing"] else ""),
           m["failed"] + m["unanswered"], w["p50"], w["p99"], w["mx"], w["slow"],
           "%d/%d" % (w["sq"].get("resent", 0), w["sq"].get("diverted", 0))
           if w["sqr"] else "-"))
    bench_record.case("fabric-sqr", "%s %s %s" % (w["t"], w["outage"],
                                                  "sqr" if w["sqr"] else "no sqr"),
                      cut_ms=w["cut"][0] if w["cut"] else None,
                      route_ms=w["cut"][1] if w["cut"] else None, net_pkts=w["net"],
                      drops=w["drops"], resent=w["retx"], rtos=w["rto"], done=m["completed"],
                      issued=m["issued"], missing_clients=m["missing"],
                      failed=m["failed"] + m["unanswered"], p50_ms=w["p50"], p99_ms=w["p99"],
                      max_ms=w["mx"], over_200ms=w["slow"],
                      sqr_resent=w["sq"].get("resent", 0) if w["sqr"] else None,
                      sqr_diverted=w["sq"].get("diverted", 0) if w["sqr"] else None)
print("(outage: asked (0: no cut); cut/route: ms the cable was down and the spine's route to "
      "leaf 1 broken (until the mend or routing converged), measured;\n"
      " net: packets the hosts sent less those they received (sqr's copies of packets that had "
      "arrived count twice, so it can be below 0);\n"
      " drops: the ports' own (queue full); resent: the transport's packets sent again (TCP's "
      "segments, SIRD's DATA);\n"
      " RTOs: TCP's retransmission timeouts and SYN retransmissions, SIRD's RESENDs for quiet "
      "messages (its timeout);\n"
      " failed: RPCs failed or unanswered; >200ms: RPCs slower than TCP's minimum RTO; sqr "
      "r/d: copies resent and packets diverted, both ends; ? a client's JSON is missing)")


def lost(w):
    return w["m"]["failed"] + w["m"]["unanswered"] + w["m"]["missing"]


# the verdicts, from the rows above: a cut's cost is its run's counts
# beyond the run without a cut of the same transport and sqr setting
for t in sorted({w["t"] for w in rows.values()}):
    for prot in (False, True):
        mine = [w for w in rows.values() if w["t"] == t and w["sqr"] == prot]
        base = next((w for w in mine if w["cut"] is None), None)
        cuts = [w for w in mine if w["cut"] is not None]
        if not cuts:
            continue
        what = "%s %s sqr" % (t, "with" if prot else "without")
        if base is None:
            print("%s: no run without a cut to compare with" % what)
            continue
        print("%s, beyond the run without a cut (resent %d, RTOs %d, slowest %.1f ms): "
              "resent %s, RTOs %s, slowest RPC %s ms at outages %s" %
              (what, base["retx"], base["rto"], base["mx"],
               "/".join("%+d" % (w["retx"] - base["retx"]) for w in cuts),
               "/".join("%+d" % (w["rto"] - base["rto"]) for w in cuts),
               "/".join("%.0f" % w["mx"] for w in cuts),
               "/".join(w["outage"] for w in cuts)))
        if prot:
            hidden = [w for w in cuts if w["rto"] <= base["rto"] and lost(w) == 0 and
                      w["drops"] == 0 and w["mx"] <= 2 * base["mx"]]
            met = len(hidden) == len(cuts)
            print("  goal: sqr hides the cut from %s (no timeout beyond the run without a cut, "
                  "no RPC lost, the slowest RPC within 2x of that run's): %s (%d of %d outages)" %
                  (t, "met" if met else "NOT met", len(hidden), len(cuts)))
            bench_record.goal("fabric-sqr", "sqr hides the cut from %s" % t, met,
                              hidden_outages=len(hidden), outages=len(cuts))
    bare = {w["outage"]: w for w in rows.values() if w["t"] == t and not w["sqr"] and w["cut"]}
    for o, b in bare.items():
        p = next((w for w in rows.values() if w["t"] == t and w["sqr"] and w["outage"] == o),
                 None)
        if p and p["mx"] > 0 and b["mx"] > 0:
            print("  %s, outage %s: slowest RPC %.1f ms without sqr, %.1f with (%.2fx); "
                  "p99 %.1f against %.1f ms; RPCs over 200 ms %d against %d" %
                  (t, o, b["mx"], p["mx"], p["mx"] / b["mx"], b["p99"], p["p99"],
                   b["slow"], p["slow"]))
print("(SQR's paper: with SQR no packet is lost at any route failure time, and failure-hit "
      "flows' tail is 3-4 orders of magnitude lower)")

series = {}
for w in rows.values():
    if w["cut"] is None:
        continue
    key = "%s, %s" % (w["t"], "sqr" if w["sqr"] else "no sqr")
    series.setdefault(key, []).append((w["cut"][0], w["retx"]))
for v in series.values():
    v.sort()
if series:
    svgplot.plot(os.path.join(d, "outage.svg"),
                 "packets sent again across a leaf-spine cut (routing converges %s after)" %
                 converge, "cable down (ms, measured)", "packets sent again", series, logx=True)
