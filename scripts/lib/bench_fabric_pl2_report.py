#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""bench_fabric_pl2_report.py DIR MBIT QLIMIT DUR RPC_RATE A2A_OUT

PL2's fabric experiment of `make bench` (scripts/guest/bench-fabric-pl2.sh):
reads each transport's and phase's files in DIR (shoal-perf JSON of the
RPC client and the incast or all-to-all senders, every host port's qdisc,
every host's Shoal counters) and prints a line a phase, PL2's counters,
and the verdicts against TCP cubic computed from them, a line each naming
its phase, and records them for results.json (bench_record.py).  An
incast is judged at h1's port, the all-to-all (a2a) at every host port."""

import os, sys
import bench_record

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from perf_report import load, rpc_times, stats  # noqa: E402

d, mbit, qlimit, dur, rrate, a2a_out = sys.argv[1], float(sys.argv[2]), int(sys.argv[3]), \
    sys.argv[4], sys.argv[5], sys.argv[6]
HOSTS = 10


def port_queue(name, hosts):
    """the longest data queue and the drops over these hosts' leaf ports
    (-1: no trim qdisc found on one of them)"""
    peak, drops = 0, 0
    for h in hosts:
        q = [x for x in (load("%s/%s.qdisc-h%d" % (d, name, h)) or []) if x.get("kind") == "trim"]
        if not q:
            return -1, -1
        peak, drops = max(peak, q[0].get("data_qlen_max", -1)), drops + q[0].get("drops", 0)
    return peak, drops


res, order = {}, []
for line in open(os.path.join(d, "runs")):
    t, ph, n = line.split()
    name = "%s-%s" % (t, ph)
    order.append((t, ph))
    r = res[(t, ph)] = {"senders": int(n)}
    rpc = load("%s/%s-rpc.json" % (d, name))
    if rpc:
        r.update(rpc_times(rpc))
    got = [load(os.path.join(d, f)) for f in sorted(os.listdir(d))
           if f.startswith(name + "-inc") and f.endswith(".json")]
    got = [c for c in got if c]
    r["inc_ok"] = len(got)
    el = max([c["elapsed_s"] for c in got] or [0])
    r["gp"] = sum(c["messages"]["completed_bytes"] for c in got) * 8 / el / 1e6 if el else None
    r["inc_lost"] = sum(c["messages"]["failed"] + c["messages"]["unanswered"] for c in got)
    r["peak"], r["drops"] = port_queue(name, range(1, HOSTS + 1) if ph == "a2a" else [1])
    # an incast's ideal is h1's link, the all-to-all's every host's
    r["ideal"] = mbit * (HOSTS if ph == "a2a" else 1)
    if t != "cubic":
        s0, s1 = stats("%s/%s.stats0" % (d, name)), stats("%s/%s.stats1" % (d, name))
        r["st"] = {k: s1[k] - s0.get(k, 0) for k in s1}


def f(v, fmt="%.1f"):
    return "-" if v is None else fmt % v


def ratio(a, b):
    return a / b if a is not None and b else None


print("PL2 (pl2-switch on both leaves, their uplinks passing on) against TCP cubic on a fabric: "
      "2 leaves of 5 hosts, 2 spines (hashed per host pair), hosts at %g Mbit/s, the core at 4x;"
      % mbit)
print("every port a drop-tail FIFO of %d full packets with CS6 (Shoal's control) served first; "
      "h10 (leaf 2) sends h1 %s 64-byte RPCs a second;" % (qlimit, rrate))
print("incast4: h6..h9 (leaf 2) each keep 4 messages of 64 KB in flight to h1 (400% of its "
      "link); incast8: h2..h9 (800%);")
print("a2a: every host keeps %s messages of 64 KB in flight to each of the %d others "
      "(all-to-all); %s s a phase" % (a2a_out, HOSTS - 1, dur))
print()
print("%-6s %-8s %7s %7s %7s %7s %7s %7s %5s %5s" % ("proto", "phase", "RPCs", "p50 ms",
      "p99 ms", "max ms", "incast", "of link", "peak", "drops"))
for t, ph in order:
    r = res[(t, ph)]
    print("%-6s %-8s %7s %7s %7s %7s %7s %7s %5d %5d" % (
        t, ph, "%d" % r.get("n", 0) + ("(%d)" % r["lost"] if r.get("lost") else ""),
        f(r.get("p50")), f(r.get("p99")), f(r.get("max")), f(r.get("gp"), "%.2f"),
        f(ratio(r.get("gp"), r["ideal"]), "%.2f"), r["peak"], r["drops"]))
    bench_record.case("fabric-pl2", "%s %s" % (t, ph), rpcs=r.get("n", 0),
                      lost=r.get("lost", 0), p50_ms=r.get("p50"), p99_ms=r.get("p99"),
                      max_ms=r.get("max"), incast_mbps=r.get("gp"),
                      of_link=ratio(r.get("gp"), r["ideal"]), peak_pkts=r["peak"],
                      drops=r["drops"])
print("(RPCs: completed (failed or unanswered); incast: Mbit/s answered over the longest "
      "sender's time, and of h1's link\n"
      " (a2a: of the 10 hosts' links); peak, drops: h1's port's longest data queue in packets, "
      "and its drops (a2a: every host port's))")
for (t, ph), r in res.items():
    if r["inc_ok"] < r["senders"] or r["inc_lost"]:
        print("%s %s: %d of %d incast senders gave a result, %d messages failed or unanswered"
              % (t, ph, r["inc_ok"], r["senders"], r["inc_lost"]))
for (t, ph) in order:
    s = res[(t, ph)].get("st")
    if s is None:
        continue
    print("%s %s, all hosts: %d RSVs, %d GRTs (%d stale), %d RSVs timed out, %d unsolicited "
          "bursts (%d sent again), DATA sent again %d" %
          (t, ph, s.get("tx_rsv", 0), s.get("rx_grt", 0), s.get("pl2_grt_stale", 0),
           s.get("pl2_rsv_timeout", 0), s.get("pl2_unsol", 0), s.get("pl2_unsol_resent", 0),
           s.get("tx_retx_packets", 0)))
    bench_record.case("fabric-pl2", "%s %s hosts" % (t, ph), rsvs=s.get("tx_rsv", 0),
                      grts=s.get("rx_grt", 0), grts_stale=s.get("pl2_grt_stale", 0),
                      rsv_timeouts=s.get("pl2_rsv_timeout", 0),
                      unsol_bursts=s.get("pl2_unsol", 0),
                      unsol_resent=s.get("pl2_unsol_resent", 0),
                      data_resent=s.get("tx_retx_packets", 0))
print()
for ph in [ph for t, ph in order if t == "pl2" and ph not in ("idle", "a2a")]:
    p, c = res.get(("pl2", ph), {}), res.get(("cubic", ph), {})
    p99 = ratio(c.get("p99"), p.get("p99"))
    gpr = ratio(p.get("gp"), c.get("gp"))
    print("%s: RPC p99 cubic / PL2 %s; incast goodput PL2 / cubic %s" %
          (ph, f(p99, "%.2fx"), f(gpr, "%.2fx")))
    bench_record.case("fabric-pl2", "%s cubic/pl2" % ph, p99_cubic_over_pl2=p99,
                      goodput_pl2_over_cubic=gpr)
    ok = p99 is not None and p99 >= 2.27
    print("  goal, %s: RPC p99 at least 2.27x below cubic's (the paper's 127 / 56 us): %s" %
          (ph, "met" if ok else "NOT met"))
    bench_record.goal("fabric-pl2", "%s: RPC p99 at least 2.27x below cubic's" % ph, ok,
                      p99_cubic_over_pl2=p99)
    ok = (p.get("drops", -1) == 0 and not p.get("lost") and not p.get("inc_lost")
          and p.get("inc_ok") == p.get("senders"))
    print("  goal, %s: PL2 loses nothing (h1's port dropped nothing, every message answered): %s" %
          (ph, "met" if ok else "NOT met"))
    bench_record.goal("fabric-pl2", "%s: PL2 loses nothing" % ph, ok, drops=p.get("drops"),
                      lost=p.get("lost", 0), incast_lost=p.get("inc_lost"),
                      incast_results=p.get("inc_ok"), senders=p.get("senders"))
    ok = gpr is not None and gpr >= 0.9
    print("  goal, %s: the incast's goodput at least 0.9x cubic's: %s" %
          (ph, "met" if ok else "NOT met"))
    bench_record.goal("fabric-pl2", "%s: the incast's goodput at least 0.9x cubic's" % ph, ok,
                      goodput_pl2_over_cubic=gpr)
if ("pl2", "a2a") in res:
    p, c = res[("pl2", "a2a")], res.get(("cubic", "a2a"), {})
    gpr = ratio(p.get("gp"), c.get("gp"))
    print("a2a: goodput PL2 / cubic %s, host ports' drops %d against %d; RPC p99 cubic / PL2 %s" %
          (f(gpr, "%.2fx"), p["drops"], c.get("drops", -1),
           f(ratio(c.get("p99"), p.get("p99")), "%.2fx")))
    bench_record.case("fabric-pl2", "a2a cubic/pl2", goodput_pl2_over_cubic=gpr,
                      drops_pl2=p["drops"], drops_cubic=c.get("drops", -1),
                      p99_cubic_over_pl2=ratio(c.get("p99"), p.get("p99")))
    ok = p["drops"] == 0 and not p.get("lost") and not p["inc_lost"] and p["inc_ok"] == p["senders"]
    print("  goal, a2a: PL2 loses nothing (no host port dropped, every message answered): %s" %
          ("met" if ok else "NOT met"))
    bench_record.goal("fabric-pl2", "a2a: PL2 loses nothing", ok, drops=p["drops"],
                      lost=p.get("lost", 0), incast_lost=p["inc_lost"],
                      incast_results=p["inc_ok"], senders=p["senders"])
    ok = gpr is not None and gpr >= 0.9
    print("  goal, a2a: the all-to-all's goodput at least 0.9x cubic's: %s" %
          ("met" if ok else "NOT met"))
    bench_record.goal("fabric-pl2", "a2a: the all-to-all's goodput at least 0.9x cubic's", ok,
                      goodput_pl2_over_cubic=gpr)
