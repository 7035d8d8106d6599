#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""bench_fct_report.py DIR MBIT SECONDS TESTING_LIB

The flow completion time part of `make bench` (scripts/guest/bench-fct.sh):
reads the runs it recorded in DIR/runs and prints, per workload and load,
the mean and p99 completion time of the short flows and the mean of all
for each qdisc, afq's p99 against the best other qdisc, and SVG plots in
DIR (drawn with svgplot from TESTING_LIB); records the table for
results.json (bench_record.py)."""

import json, os, statistics, sys
import bench_record
sys.path.insert(0, sys.argv[4])
import svgplot
d, mbit, secs = sys.argv[1], sys.argv[2], sys.argv[3]
res = {}
for line in open(os.path.join(d, "runs")):
    w, load, q = line.split()
    flows, unfinished = [], 0
    for i in (1, 2):
        r = json.load(open(os.path.join(d, "%s-%s-%s-%d.json" % (w, load, q, i))))
        flows += r["flows"]
        unfinished += r["unfinished"]
    done = [f for f in flows if f["fct_us"] >= 0]
    short = sorted(f["fct_us"] / 1000 for f in done if f["size"] < 100000)
    res[(w, int(load), q)] = {
        "n": len(flows), "failed": len(flows) - len(done), "unfinished": unfinished,
        "short_mean": statistics.mean(short) if short else 0,
        "short_p99": short[min(len(short) - 1, len(short) * 99 // 100)] if short else 0,
        "all_mean": statistics.mean(f["fct_us"] / 1000 for f in done) if done else 0}
qs = []
for (_, _, q) in res:
    if q not in qs:
        qs.append(q)
print()
print("== flow completion times: TCP cubic flows as a Poisson process from two")
print("   senders through tbf %s mbit + the qdisc (a 64-packet buffer), %s s a run;" % (mbit, secs))
print("   short = under 100 KB; ms; failed/unfinished flows in brackets")
for w in sorted({k[0] for k in res}):
    loads = sorted({k[1] for k in res if k[0] == w})
    print("%s:" % w)
    print("%-9s %5s %7s %11s %10s %10s" % ("qdisc", "load", "flows", "short mean", "short p99",
                                          "all mean"))
    for load in loads:
        for q in qs:
            r = res.get((w, load, q))
            if not r:
                continue
            bad = " [%d/%d]" % (r["failed"], r["unfinished"]) if r["failed"] or r["unfinished"] else ""
            print("%-9s %4d%% %7d %11.1f %10.1f %10.1f%s" % (q, load, r["n"], r["short_mean"],
                                                            r["short_p99"], r["all_mean"], bad))
            bench_record.case("fct", "%s load %d %s" % (w, load, q), flows=r["n"],
                              short_mean_ms=r["short_mean"], short_p99_ms=r["short_p99"],
                              all_mean_ms=r["all_mean"], failed=r["failed"],
                              unfinished=r["unfinished"])
    for key, what in (("short_p99", "p99"), ("short_mean", "mean")):
        path = os.path.join(d, "fct-%s-%s.svg" % (w, what))
        svgplot.plot(path, "%s: %s completion time of flows < 100 KB" % (w, what),
                     "load (%% of %s Mbit/s)" % mbit, "%s FCT (ms)" % what,
                     {q: [(load, res[(w, load, q)][key]) for load in loads if (w, load, q) in res]
                      for q in qs}, logy=True)
        print("plot: %s" % path)
    if "afq" in qs:
        for load in loads:
            a = res.get((w, load, "afq"))
            others = [(q, res[(w, load, q)]["short_p99"]) for q in qs
                      if q != "afq" and (w, load, q) in res]
            if a and others:
                best = min(others, key=lambda x: x[1])
                print("%s, load %d%%: afq short-flow p99 %.1f ms, best other %s %.1f ms (%.2fx)"
                      % (w, load, a["short_p99"], best[0], best[1],
                         best[1] / a["short_p99"] if a["short_p99"] else 0))
