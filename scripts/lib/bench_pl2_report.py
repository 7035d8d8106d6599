#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""bench_pl2_report.py DIR LINK INCAST QLIMIT DUR RPC_SIZE RPC_RATE INC_SIZE INC_OUT SWITCH SYSCTLS RATE

The PL2 part of `make bench` (scripts/guest/bench-pl2.sh): reads the
shoal-perf JSON and switch counters of each transport and phase in DIR
and prints RPC latency, incast goodput, drops and the goals' verdicts
(PL2 against TCP cubic), and records them for results.json
(bench_record.py).  Imports perf_report from scripts/lib."""

import sys
import bench_record
d = sys.argv[1]
link, incast, qlimit, dur, rsz, rrate, isz, iout = (float(sys.argv[2]), int(sys.argv[3]),
    int(sys.argv[4]), sys.argv[5], int(sys.argv[6]), sys.argv[7], int(sys.argv[8]),
    int(sys.argv[9]))
switch, sysctls, rate = sys.argv[10], sys.argv[11], float(sys.argv[12])
# bytes on the wire below a Shoal header: UDP, IPv4, Ethernet
HDR, UNDER = 32, 8 + 20 + 14

from perf_report import load, rpc_times, stats

print("PL2 (shoal.ko, K 4; pl2-switch on every switch port%s) against TCP cubic: 1 RPC client"
      " and %d incast" % (" " + switch if switch else "", incast))
print("senders -> switch -> 1 server; every link %g Mbit/s both ways (tbf), the port to the"
      " server one drop-tail" % link)
print("FIFO of %d full packets (%d KB) for all, DSCP CS6 (Shoal's control packets: RSV, GRT, ACK,"
      " ...) in a band" % (qlimit, qlimit * 1514 / 1000))
print("served first%s" % ("; every host: " + sysctls if sysctls else ""))
if rate != link:
    print("PL2 told a rate of %g Mbit/s (pl2_rate_mbps, the switch's slot), not the link's"
          % rate)
print("RPCs: %d-byte requests answered by 8 bytes, %s a second (Poisson), %s s a phase; incast:"
      " each sender" % (rsz, rrate, dur))
print("%d messages of %d KB in flight, offering its whole uplink (together %d%% of the server's"
      " link)" % (iout, isz / 1000, incast * 100))
print()
print("%-11s %-6s %6s %7s %7s %7s %7s %6s %5s %5s %5s %5s" % ("transport", "phase", "RPCs",
      "p50 ms", "p99 ms", "max ms", "incast", "of link", "wire", "peak", "KB", "drops"))
print("(RPCs: completed (failed or unanswered); p50..max: their completion times; incast: its")
print(" goodput, Mbit/s (all incast bytes answered over the longest sender's time), and that as")
print(" a fraction of the link; wire: what the port sent over the middle half of the arrivals,")
print(" a fraction of its rate; peak, KB, drops: its longest data queue in packets and KB, and")
print(" its drops)")
res, order = {}, []
for line in open(d + "/runs"):
    t, ph = line.split()
    name = "%s-%s" % (t, ph)
    order.append((t, ph))
    r = res[(t, ph)] = {}
    rpc = load("%s/%s-rpc.json" % (d, name))
    if rpc:
        r.update(rpc_times(rpc))
    if ph == "incast":
        got = [c for c in (load("%s/%s-inc%d.json" % (d, name, i))
                           for i in range(2, incast + 2)) if c]
        r["inc_ok"] = len(got)
        el = max([c["elapsed_s"] for c in got] or [0])
        r["gp"] = sum(c["messages"]["completed_bytes"] for c in got) * 8 / el / 1e6 if el else None
        r["inc_lost"] = sum(c["messages"]["failed"] + c["messages"]["unanswered"] for c in got)
        try:
            (t0, b0), (t1, b1) = [map(int, l.split()) for l in open("%s/%s.rate" % (d, name))]
            r["wire"] = (b1 - b0) * 8 / ((t1 - t0) / 1e9) / 1e6
        except (OSError, ValueError):
            pass
    q = [x for x in (load("%s/%s.qdisc" % (d, name)) or []) if x.get("handle") == "10:"]
    q = q[0] if q else {}
    r["peak"], r["kb"] = q.get("data_qlen_max", -1), q.get("data_backlog_max", -1) / 1e3
    r["drops"] = q.get("drops", -1)
    if t != "cubic":
        s0, s1 = stats("%s/%s.stats0" % (d, name)), stats("%s/%s.stats1" % (d, name))
        r["st"] = {k: s1[k] - s0.get(k, 0) for k in s1}
        r["sw"] = load("%s/%s.switch" % (d, name)) or {"ports": []}

def f(v, fmt="%.1f"):
    return "-" if v is None else fmt % v

def ratio(a, b):
    return a / b if a is not None and b else None

for t, ph in order:
    r = res[(t, ph)]
    gp = r.get("gp")
    print("%-11s %-6s %6s %7s %7s %7s %7s %6s %5s %5d %5.0f %5d" % (t, ph,
          "%d" % r.get("n", 0) + ("(%d)" % r["lost"] if r.get("lost") else ""),
          f(r.get("p50")), f(r.get("p99")), f(r.get("max")), f(gp, "%.2f"),
          f(ratio(gp, link), "%.2f"), f(ratio(r.get("wire"), link), "%.2f"), r["peak"],
          r["kb"], r["drops"]))
    bench_record.case("pl2", "%s %s" % (t, ph), rpcs=r.get("n", 0), lost=r.get("lost", 0),
                      p50_ms=r.get("p50"), p99_ms=r.get("p99"), max_ms=r.get("max"),
                      incast_mbps=gp, incast_of_link=ratio(gp, link),
                      wire_of_link=ratio(r.get("wire"), link), peak_pkts=r["peak"],
                      peak_kb=r["kb"], drops=r["drops"])
for (t, ph), r in res.items():
    if ph == "incast" and (r.get("inc_ok", 0) < incast or r.get("inc_lost")):
        print("%s incast: %d of %d senders gave a result, %d messages failed or unanswered"
              % (t, r.get("inc_ok", 0), incast, r.get("inc_lost", 0)))
print()
over = {}
for (t, ph) in order:
    r = res[(t, ph)]
    if "st" not in r:
        continue
    s = r["st"]
    ctrl = (s.get("tx_rsv", 0) + s.get("rx_grt", 0)) * (HDR + UNDER)
    data = s.get("tx_bytes", 0) - HDR * (s.get("tx_packets", 0) - s.get("tx_data", 0)) + \
        UNDER * s.get("tx_data", 0)
    over[(t, ph)] = ctrl / data if data else None
    g = s.get("pl2_grts", 0)
    print("%s %s, all hosts: %d bursts of %.2f packets on average, %d unsolicited (%d sent"
          " again)," % (t, ph, s.get("pl2_bursts", 0),
          s.get("pl2_burst_pkts", 0) / max(s.get("pl2_bursts", 0), 1), s.get("pl2_unsol", 0),
          s.get("pl2_unsol_resent", 0)))
    print("  %d RSVs, %d GRTs (%d stale), %d RSVs timed out, %d answered by a host (no switch);"
          % (s.get("tx_rsv", 0), s.get("rx_grt", 0), s.get("pl2_grt_stale", 0),
             s.get("pl2_rsv_timeout", 0), s.get("pl2_rsv_answered", 0)))
    print("  RSV-GRT delay %.0f us, wait for the slot %.0f us on average; DATA resent %d, RESENDs"
          " after a quiet interval %d;" % (s.get("pl2_rsv_grt_ns", 0) / max(g, 1) / 1e3,
          s.get("pl2_wait_ns", 0) / max(g, 1) / 1e3, s.get("tx_retx_packets", 0),
          s.get("rx_resend_quiet", 0)))
    sw = r["sw"]["ports"]
    left = [(p["dev"], p["in_res"], p["out_res"]) for p in sw if p["in_res"] or p["out_res"]]
    print("  control bytes (RSV+GRT) / data bytes on the wire %s; switch: %d RSVs answered,"
          " %d DATA counted," % (f(100 * over[(t, ph)] if over[(t, ph)] is not None else None,
          "%.1f%%"), sum(p["rsv"] for p in sw), sum(p["data"] for p in sw)))
    print("  %d unsolicited dropped, %d clamps, %d expired; counters left after the phase: %s"
          % (sum(p["unsol_drop"] for p in sw), sum(p["clamp"] for p in sw),
             sum(p["expired"] for p in sw),
             ", ".join("%s in %d out %d" % x for x in left) if left else "none"))
print()

ci, cd = res.get(("cubic", "incast"), {}), res.get(("cubic", "idle"), {})
for t in [t for t, ph in order if ph == "incast" and t != "cubic"]:
    pi, pd = res.get((t, "incast"), {}), res.get((t, "idle"), {})
    p99 = ratio(ci.get("p99"), pi.get("p99"))
    gpr = ratio(pi.get("gp"), ci.get("gp"))
    print("%s against cubic:" % t)
    print("  RPC p99 under the incast, cubic / PL2: %s (the paper: 127 / 56 us = 2.27x)"
          % f(p99, "%.2fx"))
    print("  RPC p99 idle, PL2 / cubic: %s; PL2's under the incast / idle: %s"
          % (f(ratio(pd.get("p99"), cd.get("p99")), "%.2fx"),
             f(ratio(pi.get("p99"), pd.get("p99")), "%.2fx")))
    print("  incast goodput, PL2 / cubic: %s (of the link: PL2 %s, cubic %s)" % (f(gpr, "%.2fx"),
          f(ratio(pi.get("gp"), link), "%.2f"), f(ratio(ci.get("gp"), link), "%.2f")))
    print("  control bytes / data bytes: idle %s, incast %s (the paper: at least 2%%)"
          % tuple(f(100 * over[(t, ph)] if over.get((t, ph)) is not None else None, "%.1f%%")
                  for ph in ("idle", "incast")))
    pct = {ph: over.get((t, ph)) and 100 * over[(t, ph)] for ph in ("idle", "incast")}
    bench_record.case("pl2", "%s/cubic" % t, incast_p99_ratio=p99,
                      idle_p99_ratio=ratio(pd.get("p99"), cd.get("p99")),
                      incast_over_idle_p99=ratio(pi.get("p99"), pd.get("p99")),
                      goodput_ratio=gpr, ctl_bytes_pct_idle=pct["idle"],
                      ctl_bytes_pct_incast=pct["incast"])
    def goal(what, ok, short, **figures):
        print("  goal: %s: %s" % (what, "met" if ok else "NOT met"))
        bench_record.goal("pl2", "%s: %s" % (t, short), ok, **figures)
    goal("RPC p99 under the %d-way incast at least 2.27x below cubic's (56 vs 127 us)" % incast,
         p99 is not None and p99 >= 2.27, "RPC p99 under the incast at least 2.27x below"
         " cubic's", p99_ratio=p99)
    goal("no loss (the port dropped nothing, every message answered)",
         all(res.get((t, ph), {}).get("drops", -1) == 0 and not res[(t, ph)].get("lost")
             and not res[(t, ph)].get("inc_lost") for ph in ("idle", "incast")), "no loss",
         drops_idle=pd.get("drops"), drops_incast=pi.get("drops"), lost_idle=pd.get("lost", 0),
         lost_incast=pi.get("lost", 0), incast_lost=pi.get("inc_lost", 0))
    goal("the incast's goodput at least 0.9x cubic's", gpr is not None and gpr >= 0.9,
         "the incast's goodput at least 0.9x cubic's", goodput_ratio=gpr)
