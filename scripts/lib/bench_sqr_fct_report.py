#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""bench_sqr_fct_report.py DIR TESTING_LIB

The short-flows-across-failures part of `make bench`
(scripts/guest/bench-sqr-fct.sh): reads each configuration's flow JSON
and counters in DIR and prints the completion-time percentiles, the
flows slower than the minimum RTO, the sender's timeouts, and an SVG plot
of the distributions (svgplot from TESTING_LIB); records the table for
results.json (bench_record.py)."""

import json, os, sys
import bench_record
sys.path.insert(0, sys.argv[2])
import svgplot
d = sys.argv[1]
def pct(v, p):
    return v[min(len(v) - 1, int(len(v) * p / 100))]
print()
print("== sqr: completion times of short TCP flows (web search up to 100 KB, one")
print("   after the other) across 760 us outages every 20 ms, found after 30 us;")
print("   ms; slow = flows over the 200 ms minimum RTO; rto = the sender's timeouts")
print("%-10s %6s %6s %6s %7s %7s %8s %8s %5s %5s %8s %6s %5s" % (
    "run", "flows", "p50", "p95", "p99", "p99.9", "max", "mean", "slow", "rto",
    "outages", "drops", "lost"))
series = {}
for line in open(os.path.join(d, "runs")):
    name, rto, outages, drops, resent, lost = line.split()
    flows = json.load(open(os.path.join(d, name + ".json")))["flows"]
    v = sorted(f["fct_us"] / 1000 for f in flows)
    if not v:
        continue
    print("%-10s %6d %6.1f %6.1f %7.1f %7.1f %8.1f %8.1f %5d %5s %8s %6s %5s" % (
        name, len(v), pct(v, 50), pct(v, 95), pct(v, 99), pct(v, 99.9), v[-1],
        sum(v) / len(v), sum(1 for x in v if x > 200), rto, outages, drops, lost))
    bench_record.case("sqr-fct", name, flows=len(v), p50_ms=pct(v, 50), p95_ms=pct(v, 95),
                      p99_ms=pct(v, 99), p99_9_ms=pct(v, 99.9), max_ms=v[-1],
                      mean_ms=sum(v) / len(v), slow=sum(1 for x in v if x > 200),
                      rto=int(rto), outages=int(outages), drops=int(drops), lost=int(lost))
    step = max(1, len(v) // 300)
    series[name] = [(x, (i + 1) / len(v)) for i, x in enumerate(v)][::step] + [(v[-1], 1.0)]
path = os.path.join(d, "sqr-fct-cdf.svg")
svgplot.plot(path, "short TCP flows across injected failures: CDF of completion time",
             "flow completion time (ms)", "fraction of flows", series, logx=True)
print("plot: %s" % path)
