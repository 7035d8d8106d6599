#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""bench_shoal_report.py DIR CLIENTS RTT QLIMIT ECN DUR RPC_OUT

The Shoal transport part of `make bench` (scripts/guest/bench-shoal.sh):
reads the shoal-perf JSON, switch queue peaks and CPU samples of every
transport, workload and load in DIR and prints the goodput, slowdown and
queue tables against TCP cubic and DCTCP and the goals' verdicts, and
records them for results.json (bench_record.py).
Imports perf_report from scripts/lib."""

import re, statistics, sys
import bench_record
d, n, rtt, qlimit, ecn, dur, rpc_out = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), \
    int(sys.argv[4]), int(sys.argv[5]), sys.argv[6], int(sys.argv[7])

from perf_report import load

def clients(name):
    return [c for c in (load("%s/%s-%d.json" % (d, name, i)) for i in range(1, n + 1)) if c]

def cpu(path):
    f = open(path).read().split()[1:]
    v = [int(x) for x in f]
    return sum(v) - v[3] - v[4], sum(v)	# busy, all (idle and iowait out)

print("Shoal transport: SIRD (shoal.ko) against TCP cubic and DCTCP, %d client hosts -> switch"
      " -> 1 server host" % n)
print("switch port: tbf at the link rate over one FIFO for all, %d full packets' bytes (%d KB),"
      " CE on ECT above %d (SIRD, DCTCP)" % (qlimit, qlimit * 1514 / 1000, ecn))
try:
    for l in open(d + "/sird-settings"):
        mb, bdp, b, rs = l.split()
        print("SIRD at %s Mbit/s: bdp = unsch_thresh %s B, B %s B, credit paced at %s Mbit/s,"
              " resend_ms %s" % (mb, bdp, b, mb, rs))
except OSError:
    pass
print()
rate, rtts = {}, {}
for p in ("sird", "cubic"):
    cs = clients("rpc-" + p)
    done = sum(c["messages"]["completed"] for c in cs)
    el = max([c["elapsed_s"] for c in cs] or [1])
    b0, a0 = cpu("%s/rpc-%s.cpu0" % (d, p))
    b1, a1 = cpu("%s/rpc-%s.cpu1" % (d, p))
    ncpu = sum(1 for l in open("/proc/stat") if re.match(r"cpu[0-9]", l))
    cpus = (b1 - b0) / ((a1 - a0) or 1) * ncpu
    rate[p] = (done / el, cpus, done / el / cpus if cpus else 0)
    rtts[p] = [c["idle_rtt_us"] for c in cs]
    lat = [c["buckets"][0]["latency_us"]["p50"] for c in cs if c["buckets"][0]["count"]]
    print("small RPCs (8 B each way, closed loop, %d in flight per client), %s: %.0f RPC/s on"
          " %.2f CPUs busy = %.0f RPC/s per core; p50 %s us; idle RTT %s us" %
          (rpc_out, "SIRD" if p == "sird" else "TCP ", rate[p][0], cpus, rate[p][2],
           "/".join("%d" % x for x in lat), "/".join("%d" % x for x in rtts[p])))
    # per client, as printed: p50_us_1, p50_us_2, ..., idle_rtt_us_1, ...
    per = {"%s_%d" % (k, i + 1): x for k, v in (("p50_us", lat), ("idle_rtt_us", rtts[p]))
           for i, x in enumerate(v)}
    bench_record.case("shoal", "rpc " + p, rpc_per_s=rate[p][0], cpus=cpus,
                      rpc_per_s_per_core=rate[p][2], **per)
rpc_ratio = rate["sird"][2] / rate["cubic"][2] if rate["cubic"][2] else 0
print("small-RPC rate per core, SIRD / TCP: %.2fx" % rpc_ratio)
bench_record.case("shoal", "rpc sird/cubic", per_core_ratio=rpc_ratio)
print()
print("slowdown against one ideal for all: idle RTT %d us (the smaller of the two above) +"
      " bytes at the link rate" % rtt)
print("%s s of Poisson arrivals a run, the load split over the clients; p99: the largest of the"
      " clients' p99s" % dur)
print()
runs = [l.split() for l in open(d + "/runs")]
cells = {}
wl_peak = {}	# (workload, link) -> protocol -> the highest peak (KB) over the loads
for w, ld, p, link, name in runs:
    cs = clients(name)
    r = {"ok": len(cs) == n}
    if cs:
        r["gp"] = sum(c["goodput_mbps"] for c in cs)
        r["issued"] = sum(c["messages"]["issued"] for c in cs)
        r["lost"] = sum(c["messages"]["failed"] + c["messages"]["unanswered"] for c in cs)
        for b in ("all", "A"):
            bs = [x for c in cs for x in c["buckets"] if x["name"] == b and x["count"]]
            cnt = sum(x["count"] for x in bs)
            r[b + "n"] = cnt
            r[b + "50"] = sum(x["slowdown"]["p50"] * x["count"] for x in bs) / cnt if cnt else None
            r[b + "99"] = max(x["slowdown"]["p99"] for x in bs) if bs else None
    q = load("%s/%s.qdisc" % (d, name)) or []
    kids = [x for x in q if x.get("handle") == "10:"]
    r["peak"] = kids[0].get("data_qlen_max", -1) if kids else -1
    r["kb"] = kids[0].get("data_backlog_max", -1) / 1e3 if kids else -1
    r["marks"] = kids[0].get("ecn_mark", -1) if kids else -1
    r["drops"] = kids[0].get("drops", -1) if kids else -1
    cells.setdefault((w, ld, link), {})[p] = r
    top = wl_peak.setdefault((w, link), {})
    top[p] = max(top.get(p, -1), r["kb"])

def f(v, fmt="%.1f"):
    return "-" if v is None else fmt % v

hdr = "%-3s %4s %5s  %-5s %7s %9s %7s %7s %7s %5s %6s %6s %5s" % (
    "wl", "load", "Mbit", "proto", "goodput", "msgs", "sd p50", "sd p99", "A p99", "peak", "KB",
    "marks", "drops")
print(hdr)
print("(goodput Mbit/s; msgs: issued (failed or unanswered); sd: slowdown of all messages;"
      " A: below 1 MSS;")
print(" peak, KB: the port's longest queue in packets, and in KB;")
print(" marks, drops: CE marks and drops there)")
ratios = {"peak_c": [], "peak_d": [], "gp": [], "a99_c": [], "a99_d": [], "p99_c": [], "p99_d": []}
verdict = {"queue": [], "gp": [], "a99": []}
for (w, ld, link), ps in cells.items():
    for p in ("sird", "cubic", "dctcp"):
        r = ps.get(p)
        if not r:
            continue
        msgs = "%d" % r.get("issued", 0) + ("(%d)" % r["lost"] if r.get("lost") else "")
        print("%-3s %4s %5s  %-5s %7s %9s %7s %7s %7s %5d %6.0f %6d %5d" % (
            w, ld, link, p, f(r.get("gp"), "%.2f"), msgs, f(r.get("all50")), f(r.get("all99")),
            f(r.get("A99")), r["peak"], r["kb"], r["marks"], r["drops"]))
        bench_record.case("shoal", "%s %s %s" % (w, ld, p), link_mbps=float(link),
                          goodput_mbps=r.get("gp"), msgs=r.get("issued", 0),
                          lost=r.get("lost", 0), sd_p50=r.get("all50"), sd_p99=r.get("all99"),
                          a_p99=r.get("A99"), peak_pkts=r["peak"], peak_kb=r["kb"],
                          marks=r["marks"], drops=r["drops"])
    s, c, dc = ps.get("sird"), ps.get("cubic"), ps.get("dctcp")
    if not (s and c and dc):
        continue
    def ratio(a, b):
        return a / b if a is not None and b else None
    for key, other in (("c", c), ("d", dc)):
        ratios["peak_" + key].append(ratio(max(s["kb"], 0), other["kb"]))
        ratios["a99_" + key].append(ratio(s.get("A99"), other.get("A99")))
        ratios["p99_" + key].append(ratio(s.get("all99"), other.get("all99")))
    best = max(c.get("gp", 0), dc.get("gp", 0))
    ratios["gp"].append(ratio(s.get("gp"), best))
    verdict["queue"].append(s["kb"] >= 0 and s["kb"] <= 0.5 * min(c["kb"], dc["kb"]))
    verdict["gp"].append(bool(best) and s.get("gp", 0) >= 0.9 * best)
    if s.get("A99") is not None and c.get("A99") is not None:
        verdict["a99"].append(s["A99"] < c["A99"])
print()

def summ(v):
    v = [x for x in v if x is not None]
    if not v:
        return "-"
    return "median %.2fx (%.2f-%.2f)" % (statistics.median(v), min(v), max(v))
print("ratios over the %d cells, median (range):" % len(ratios["gp"]))
print("  peak queue (KB) SIRD / cubic %s, SIRD / DCTCP %s" % (summ(ratios["peak_c"]), summ(ratios["peak_d"])))
print("  p99 slowdown    SIRD / cubic %s, SIRD / DCTCP %s" % (summ(ratios["p99_c"]), summ(ratios["p99_d"])))
print("  A p99 slowdown  SIRD / cubic %s, SIRD / DCTCP %s" % (summ(ratios["a99_c"]), summ(ratios["a99_d"])))
print("  goodput         SIRD / the better TCP %s" % summ(ratios["gp"]))
print("  small-RPC rate per core  SIRD / TCP %.2fx" % rpc_ratio)
print()

# The paper's "max ToR queuing": per workload, the highest peak over the
# load levels (its Table 5), and over the workloads the mean of SIRD's
# over each protocol's (its Table 4 averages normalised values): far
# below is a mean of at most half of each TCP's, and never above either
wl_half, wl_below, wl_ratio = [], [], {"cubic": [], "dctcp": []}
line = []
for (w, link), top in wl_peak.items():
    if not all(p in top and top[p] > 0 for p in ("sird", "cubic", "dctcp")):
        continue
    for p in ("cubic", "dctcp"):
        wl_ratio[p].append(top["sird"] / top[p])
    wl_half.append(top["sird"] <= 0.5 * min(top["cubic"], top["dctcp"]))
    wl_below.append(top["sird"] <= min(top["cubic"], top["dctcp"]))
    line.append("%s %.0f/%.0f/%.0f" % (w, top["sird"], top["cubic"], top["dctcp"]))
    bench_record.case("shoal", w + " peak", sird_kb=top["sird"], cubic_kb=top["cubic"],
                      dctcp_kb=top["dctcp"])
print("peak queue per workload, the highest over its loads (KB, SIRD/cubic/DCTCP): " + ", ".join(line))
mean = {p: statistics.mean(v) if v else 0 for p, v in wl_ratio.items()}
print("  SIRD's over the workloads, mean: %.2fx cubic's, %.2fx DCTCP's; at most half of both"
      " in %d of %d workloads, %d of %d cells" % (mean["cubic"], mean["dctcp"], sum(wl_half),
      len(wl_half), sum(verdict["queue"]), len(verdict["queue"])))

def goal(what, v, unit="cells"):
    ok = sum(v)
    met = v and ok == len(v)
    print("goal: %s: %s (%d of %d %s)" % (what, "met" if met else "NOT met", ok, len(v), unit))
    bench_record.goal("shoal", what, met, **{"met_" + unit: ok, unit: len(v)})
q_ok = bool(wl_below) and all(wl_below) and mean["cubic"] <= 0.5 and mean["dctcp"] <= 0.5
print("goal: peak switch queue far below TCP's and DCTCP's (the paper's max ToR queuing: each"
      " workload's highest peak over its loads, on average at most half of each TCP's and in no"
      " workload above either): %s (%.2fx, %.2fx; below both in %d of %d workloads)" % (
      "met" if q_ok else "NOT met", mean["cubic"], mean["dctcp"], sum(wl_below), len(wl_below)))
bench_record.goal("shoal", "peak switch queue far below TCP's and DCTCP's", q_ok,
                  cubic_ratio=mean["cubic"], dctcp_ratio=mean["dctcp"],
                  below_workloads=sum(wl_below), workloads=len(wl_below))
goal("goodput within 10% of the best", verdict["gp"])
goal("p99 slowdown of small messages (A) below TCP cubic's", verdict["a99"])
